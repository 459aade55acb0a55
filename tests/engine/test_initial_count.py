"""The pair index's first count, taken a slice at a time so that a window loading millions of
words in the background keeps turning: slices of any size give what one call over all would."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.errors import InputError
from bpe_core.pipeline.corpus import base_symbols
from bpe_core.training import initial_count, initial_symbols
from bpe_core.training.initial_count import running_total
from bpe_core.training.initial_symbols import initial_segs
from tests.conftest import data_text


@given(st.lists(st.booleans(), max_size=60), st.integers(1, 7))
def test_a_running_total_in_slices_equals_numpys_in_one_call(flags, size):
    values = np.array(flags, dtype=bool)
    saved = initial_count.SLICE
    initial_count.SLICE = size
    try:
        assert running_total(values).tolist() == np.cumsum(values, dtype=np.int32).tolist()
    finally:
        initial_count.SLICE = saved


@pytest.mark.parametrize("config", [PipelineConfig(), PipelineConfig(unit="byte", end_of_word=None)])
def test_an_index_counted_in_small_slices_trains_as_one_counted_whole(monkeypatch, config):
    corpus = Corpus.from_text(data_text("shakespeare_200k.txt")[:20_000], config)
    whole = Trainer(corpus)
    whole.run(merges=60)
    monkeypatch.setattr(initial_count, "SLICE", 5)
    monkeypatch.setattr(initial_symbols, "TRANSLATED_CHARS", 3)
    sliced = Trainer(corpus)
    sliced.run(merges=60)
    assert sliced.history == whole.history and sliced.ranked_pairs() == whole.ranked_pairs()


@settings(max_examples=120, deadline=None)
@given(
    text=st.lists(
        st.sampled_from([*"ab \n", "low", "né", "中文", "🤗", "e\u0301", "\x7f", "<s>"]), max_size=30
    ).map("".join),
    unit=st.sampled_from(["char", "byte"]),
    marker=st.sampled_from(["none", "separate", "attached"]),
    slice_bytes=st.sampled_from([3, 1 << 20]),
)
def test_the_first_symbol_strings_are_each_words_base_symbols(text, unit, marker, slice_bytes):
    """Made in runs of words by arrays, they are what each word's base symbols give, one by one."""
    config = PipelineConfig(
        unit=unit,
        end_of_word=None if marker == "none" else "</w>",
        attach_marker=marker == "attached",
        special_tokens=("<s>",),
    )
    try:
        corpus = Corpus.from_text(text, config)
    except InputError:
        return  # no word: nothing to segment
    ids = Trainer(corpus).vocab.ids
    expected = ["".join(chr(ids[key]) for key in base_symbols(word, config)) for word in corpus.words]
    saved = initial_symbols.TRANSLATED_CHARS
    initial_symbols.TRANSLATED_CHARS = slice_bytes
    try:
        assert initial_segs(corpus, ids) == expected
    finally:
        initial_symbols.TRANSLATED_CHARS = saved


@settings(max_examples=150, deadline=None)
@given(
    segs=st.lists(st.text("\x00\x01\x02\x03", max_size=10), min_size=1, max_size=12),
    data=st.data(),
    slots=st.booleans(),
    size=st.sampled_from([1, 3, 1 << 20]),  # positions taken at a time
    sort_bits=st.sampled_from([63, 0]),  # a pair's code and its word sorted as one, or by argsort
)
def test_the_first_count_lists_every_pair_where_it_is_however_it_is_made(segs, data, slots, size, sort_bits):
    weights = np.array([data.draw(st.integers(1, 9)) for _ in segs])
    counts: dict[str, int] = {}
    where: dict[str, list[int]] = {}
    slot = 1  # the words' symbols laid end to end, a separator slot before each
    for w, (seg, weight) in enumerate(zip(segs, weights.tolist(), strict=True)):
        for i in range(len(seg) - 1):
            pair = seg[i : i + 2]
            counts[pair] = counts.get(pair, 0) + weight
            listed = where.setdefault(pair, [])
            at = slot + i if slots else w
            if not listed or listed[-1] != at:
                listed.append(at)
        slot += len(seg) + 1
    saved = initial_count.SLICE
    initial_count.SLICE = size
    try:
        found = initial_count.count_initial(segs, weights, 4, sort_bits, slots=slots)
    finally:
        initial_count.SLICE = saved
    assert found.pair_count == counts
    assert {pair: listed.tolist() for pair, listed in found.where.items()} == where
    assert found.token_freq.tolist() == [
        sum(seg.count(chr(s)) * weight for seg, weight in zip(segs, weights.tolist(), strict=True))
        for s in range(4)
    ]
