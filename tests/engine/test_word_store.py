"""The three word stores (warm strings, long words as linked symbols, the cold part's flat
arrays) answer every question about the same words identically, on real text."""

from collections import Counter

import numpy as np
import pytest

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.training.cold_index import ColdIndex
from bpe_core.training.long_word import LongWord
from bpe_core.training.word_store import ColdWords, LongWords, WarmWords, WordStore
from tests.conftest import data_text


@pytest.fixture(scope="module")
def segs() -> list[str]:
    """Words of real text part-way through training (merged symbols, repeated pairs), those of
    two symbols or more (a long word is never shorter)."""
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:30_000], PipelineConfig()))
    trainer.run(merges=120)
    words = ("".join(map(chr, trainer.segmentation(w))) for w in range(trainer.word_count))
    return [seg for seg in words if len(seg) > 1]


def pair_frequencies(segs: list[str]) -> Counter:
    return Counter(seg[i : i + 2] for seg in segs for i in range(len(seg) - 1))


def stores_of(segs: list[str]) -> list[WordStore]:
    lengths = np.array([len(seg) for seg in segs], dtype=np.int64)
    symbols = np.array([ord(ch) for seg in segs for ch in seg], dtype=np.uint16)
    starts = np.concatenate(([0], np.cumsum(lengths)))
    n_ids = int(symbols.max()) + 1
    cold = ColdIndex(symbols, starts, np.ones(len(segs), dtype=np.int64), n_ids)
    return [
        WarmWords(list(segs)),
        WarmWords(dict(enumerate(segs))),
        LongWords({w: LongWord(seg) for w, seg in enumerate(segs)}),
        ColdWords(cold),
    ]


def answers(store: WordStore, segs: list[str], pairs: list[str], symbols: list[int]) -> tuple:
    words = range(len(segs))
    lengths = np.zeros(len(segs), dtype=np.int64)
    store.write_lengths(lengths)
    return (
        [store.holds(w) for w in words],
        [store.seg(w) for w in words],
        [store.length(w) for w in words],
        lengths.tolist(),
        [[store.has(w, pair) for pair in pairs] for w in words],
        # asked of pairs a word holds; a linked word numbers occurrences by node, a string by
        # offset: their order is compared
        [sorted((p for p in pairs if p in segs[w]), key=lambda p: (store.position(w, p), p)) for w in words],
        [[store.replacements(w, pair) for pair in pairs] for w in words],
        [sorted(store.words_with_symbol(symbol)) for symbol in symbols],
    )


def test_every_store_answers_the_same_on_real_text(segs):
    common = [pair for pair, _ in pair_frequencies(segs).most_common(12)]
    pairs = [*common, segs[0][:2] or "ab", "\U0001fffd\U0001fffd"]  # and one pair no word holds
    symbols = sorted({ord(ch) for pair in common for ch in pair})[:8]
    results = [answers(store, segs, pairs, symbols) for store in stores_of(segs)]
    assert all(result == results[0] for result in results[1:])


def test_a_store_answers_from_the_text_it_holds():
    warm, _, long, cold = stores_of(["\0\1\0\1\1", "\1\0"])
    for store in (warm, long, cold):
        assert store.seg(0) == "\0\1\0\1\1" and store.length(1) == 2
        assert store.has(0, "\1\1") and not store.has(1, "\1\1")
        assert store.replacements(0, "\0\1") == 2
        assert sorted(store.words_with_symbol(0)) == [0, 1]
    assert warm.position(0, "\1\0") == 1 and warm.position(0, "\1\1") == 3
