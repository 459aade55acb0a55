"""What a trainer answers with: a ranked pair, a point of the per-step series, the last change."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from bpe_core.history.records import MergeRecord

Pair = tuple[int, int]


def pair_key(pair: Pair) -> str:
    """A pair of ids as the pair index keys it: two characters whose code points are the ids.

    >>> pair_key((104, 105))
    'hi'
    """
    return chr(pair[0]) + chr(pair[1])


def key_pair(key: str) -> Pair:
    """The pair of ids a pair index key stands for (see :func:`pair_key`)."""
    return ord(key[0]), ord(key[1])


@dataclass(frozen=True, slots=True)
class PairStat:
    """A row of the ranked pair table."""

    pair: Pair
    count: int


@dataclass(frozen=True, slots=True)
class LastChange:
    """The last single command: a merge ``applied`` (step or redo) or undone, and the words it
    changed (4-byte word indices, in no particular order)."""

    applied: bool
    record: MergeRecord
    words: array[int]


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """Per-step values for plots (step 0 is the initial state)."""

    step: int
    top_count: int
    ties: int
    vocab_size: int
    corpus_tokens: int
