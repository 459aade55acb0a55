"""Vectorised merge and unmerge for merges that touch many words.

The per-word loop in ``pair_index`` costs about a microsecond of interpreter time per word. For
the few hundred early merges that touch thousands of words each (two thirds of all word updates
on real text), the affected symbol strings are instead joined into one string, replaced in one C
call, split back, and read as a numpy array of ids; each occurrence's neighbours, weights and
words are then aggregated per neighbour symbol with a stable sort. The results are identical to
the per-word loop (the property tests run both).
"""

from __future__ import annotations

from array import array
from collections import defaultdict, deque
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from operator import contains

import numpy as np


def separator(n_symbols: int) -> str:
    """A character no symbol uses: the next id. Being the smallest such code point, it keeps
    joined strings in the narrowest storage CPython can use (1 byte a character while ids stay
    below 256), which makes joining, replacing and splitting several times cheaper."""
    return chr(n_symbols)


def symbols_of(text: str) -> np.ndarray:
    """The code points of ``text`` as an array of ids."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _occurrences(joined: str, symbol: int, sep: int, weights: np.ndarray, word_ids: np.ndarray):
    """Positions of ``symbol`` in ``joined``, the slot (word) of each, and its weight."""
    symbols = symbols_of(joined)
    at = np.flatnonzero(symbols == symbol)
    slot = np.searchsorted(np.flatnonzero(symbols == sep), at) - 1
    return symbols, at, slot, weights[word_ids[slot]]


def _groups(
    neighbours: np.ndarray, weight: np.ndarray, words: np.ndarray
) -> Iterator[tuple[int, int, bytes]]:
    """Per distinct neighbour symbol: its total weight and its distinct words (ascending, as
    the bytes of an ``array("i")``)."""
    if not len(neighbours):
        return
    order = np.argsort(neighbours, kind="stable")  # keeps each group's words in position order
    neighbours, weight, words = neighbours[order], weight[order], words[order]
    starts = np.ones(len(neighbours), dtype=bool)
    np.not_equal(neighbours[1:], neighbours[:-1], out=starts[1:])
    heads = np.flatnonzero(starts)
    totals = np.add.reduceat(weight, heads)
    first = starts.copy()
    first[1:] |= words[1:] != words[:-1]
    # Each group's words as ``array("i")`` bytes: appended with ``frombytes``, a copy in C.
    listed = words[first].astype(np.int32).tobytes()
    bounds = [*(4 * np.flatnonzero(starts[first])).tolist(), len(listed)]
    yield from zip(
        neighbours[heads].tolist(),
        totals.tolist(),
        (listed[bounds[i] : bounds[i + 1]] for i in range(len(heads))),
        strict=True,
    )


Segs = list[str] | dict[int, str]  # every word's symbol string, or the warm words' (pair_index)


def sorted_distinct(words: Sequence[int]) -> np.ndarray:
    """``words`` without repeats, ascending (a word list may name a word more than once).
    Sorted in place and masked: several times quicker than ``np.unique`` or a dict."""
    ordered = np.array(words, dtype=np.int64)
    ordered.sort()
    kept = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=kept[1:])
    return ordered[kept]


def distinct(words: Sequence[int]) -> list[int]:
    """:func:`sorted_distinct` as a list."""
    return sorted_distinct(words).tolist()


def merge_many(
    segs: Segs,
    weights: np.ndarray,
    candidates: Sequence[int],
    pair: str,
    new: str,
    sep: str,
    delta: defaultdict[str, int],
    where: defaultdict[str, array[int]],
    gained: dict[str, int],
) -> tuple[list[int], int]:
    """Merge ``pair`` into the fresh symbol ``new`` in the candidate words (``sep``: see
    :func:`separator`).

    Updates ``segs``, adds the counts lost by neighbour pairs to ``delta``, the counts of the
    new pairs (those holding ``new``, each made once here) to ``gained`` and their words to
    ``where``; returns the words that changed and the number of (weighted) replacements.
    """
    a, b = pair[0], pair[1]  # a pair is a two-symbol string
    sep_id, new_id = ord(sep), ord(new)
    words = distinct(candidates)
    olds = list(map(segs.__getitem__, words))
    # Only the words still holding the pair are joined: a word list also names words a later
    # merge took the pair from, often a third of them, which would otherwise be joined, split
    # and scanned for nothing. Every piece of the join then changes, in order.
    holding = list(map(contains, olds, repeat(pair)))
    changed = list(compress(words, holding))
    merged = sep.join(compress(olds, holding)).replace(pair, new)
    deque(map(segs.__setitem__, changed, merged.split(sep)), maxlen=0)
    word_ids = np.asarray(changed, dtype=np.int64)
    symbols, at, slot, weight = _occurrences(sep + merged + sep, new_id, sep_id, weights, word_ids)
    occurrence_words = word_ids[slot]
    before, after = symbols[at - 1], symbols[at + 1]
    has_left = before != sep_id
    for p, total, listed in _groups(before[has_left], weight[has_left], occurrence_words[has_left]):
        if p == new_id:  # between adjacent occurrences (b, a) became (new, new)
            delta[b + a] -= total
            key = new + new
        else:
            delta[chr(p) + a] -= total
            key = chr(p) + new
        gained[key] = total
        where[key].frombytes(listed)
    has_right = (after != sep_id) & (after != new_id)
    for x, total, listed in _groups(after[has_right], weight[has_right], occurrence_words[has_right]):
        delta[b + chr(x)] -= total
        key = new + chr(x)
        gained[key] = total
        where[key].frombytes(listed)
    return changed, int(weight.sum())


def unmerge_many(
    segs: Segs,
    weights: np.ndarray,
    words: Sequence[int],
    pair: str,
    new: str,
    sep: str,
    delta: defaultdict[str, int],
    where: defaultdict[str, array[int]],
) -> None:
    """Split every ``new`` back into ``pair`` in ``words`` (``new`` was fresh when merged)."""
    a, b = pair[0], pair[1]  # a pair is a two-symbol string
    sep_id = ord(sep)
    word_ids = np.asarray(words, dtype=np.int64)
    joined = sep + sep.join(map(segs.__getitem__, words)) + sep
    symbols, at, slot, weight = _occurrences(joined, ord(new), sep_id, weights, word_ids)
    deque(map(segs.__setitem__, words, joined.replace(new, pair).split(sep)[1:-1]), maxlen=0)
    occurrence_words = word_ids[slot]
    before, after = symbols[at - 1], symbols[at + 1]
    has_left = before != sep_id
    for p, total, listed in _groups(before[has_left], weight[has_left], occurrence_words[has_left]):
        delta[chr(p) + new] -= total
        key = (b if p == ord(new) else chr(p)) + a
        delta[key] += total
        where[key].frombytes(listed)
    has_right = (after != sep_id) & (after != ord(new))
    for x, total, listed in _groups(after[has_right], weight[has_right], occurrence_words[has_right]):
        delta[new + chr(x)] -= total
        key = b + chr(x)
        delta[key] += total
        where[key].frombytes(listed)
    where[pair].extend(words)
