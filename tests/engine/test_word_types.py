"""The compact word and count columns read as the tuples they replace, and the pair index
counts the same whichever way it sorts."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.io.session import load_session, save_session
from bpe_core.pipeline.word_types import Counts, Words
from bpe_core.training import pair_index
from tests.helpers import snapshot, trainer_for


@given(st.lists(st.text(st.characters(codec="utf-8"), min_size=1), max_size=20))
def test_words_read_back_as_given(words):
    stored = Words.of(words)
    assert list(stored) == words and len(stored) == len(words) and stored == tuple(words)
    assert [stored[i] for i in range(-len(words), len(words))] == words * 2
    assert stored[1:3] == tuple(words[1:3]) and isinstance(stored[1:3], tuple)
    assert stored.blob == "".join(words).encode("utf-8")


def test_a_lone_surrogate_is_kept_so_that_it_can_be_refused_with_a_sentence():
    assert list(Words.of(["a\ud800", "b"])) == ["a\ud800", "b"]


def test_counts_hold_64_bit_integers_and_view_them_without_a_copy():
    counts = Counts([1, 2**62, 3])
    assert counts == (1, 2**62, 3) and counts[1:] == (2**62, 3) and counts[-1] == 3
    view = counts.numpy()
    assert view.tolist() == [1, 2**62, 3] and view.base is not None and view.dtype == np.int64


def test_counts_take_4_bytes_each_while_they_all_fit():
    small, edge = Counts([1, 2**31 - 1]), Counts([1, 2**31])
    assert small.values.itemsize == 4 and small.numpy().dtype == np.int32 and small == (1, 2**31 - 1)
    assert edge.values.itemsize == 8 and edge == (1, 2**31)


@pytest.mark.parametrize("batch_words", [0, 10**9], ids=["vectorised", "per-word"])
def test_sums_of_4_byte_counts_never_overflow_training_or_opening(tmp_path, monkeypatch, batch_words):
    # Counts that each fit 4 bytes, summed beyond 2^31: five words hold "ab" then "c".
    monkeypatch.setattr(pair_index, "BATCH_WORDS", batch_words)
    words = ("abc", "abcd", "abce", "abcf", "xabc", "ab")
    trainer = trainer_for("".join(f"{word}\t{2**31 - 1}\n" for word in words), counts=True)
    assert trainer.corpus.counts.values.itemsize == 4
    assert trainer.top_pairs(1)[0].count == 6 * (2**31 - 1)
    trainer.step()  # a + b: then ab + c occurs 5 times
    assert trainer.top_pairs(1)[0].count == 5 * (2**31 - 1)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    loaded = load_session(path)
    assert snapshot(loaded) == snapshot(trainer)
    for t in (loaded, trainer):
        t.undo()
        t.redo()
        t.run(merges=2)
    assert snapshot(loaded) == snapshot(trainer)


def test_the_pair_index_counts_the_same_when_pair_and_word_cannot_share_one_integer(monkeypatch):
    text = "low lower lowest newest widest aaaa aaa " * 5 + "the theme thematic"
    fast = trainer_for(text)
    monkeypatch.setattr(pair_index, "_SORT_BITS", 0)  # forces the stable argsort
    slow = trainer_for(text)
    assert snapshot(fast) == snapshot(slow)
    assert all(
        fast._index.words_with(pair) == slow._index.words_with(pair) for pair in fast._index.pair_count
    )
    fast.run(merges=20)
    slow.run(merges=20)
    assert snapshot(fast) == snapshot(slow)
