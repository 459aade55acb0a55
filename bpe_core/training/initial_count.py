"""The pair index's first count: every pair and symbol of the initial segmentations, vectorised.

All symbol strings are joined (with a separator no symbol uses) into one array of ids; pairs,
their weighted counts and their sorted, distinct word lists then come from a few numpy sorts
instead of a Python loop over every position of every word. Each array is dropped as soon as it
is used and sorting is in place where it can be: at load, with millions of word types, these
arrays make the peak of memory.
"""

from __future__ import annotations

from array import array
from collections import Counter
from typing import NamedTuple

import numpy as np

from bpe_core.training.batch_merge import separator, symbols_of


class InitialCounts(NamedTuple):
    """What :func:`count_initial` found (the pair index's starting statistics)."""

    token_freq: array  # symbol id -> weighted occurrences (8 bytes each)
    total_tokens: int
    pair_count: dict[str, int]  # pair -> weighted count, every pair present
    count_hist: dict[int, int]  # count -> number of pairs with it
    where: dict[str, array]  # pair -> the words holding it, ascending, each once (or its slots)


def count_initial(
    segs: list[str], weights: np.ndarray, n_symbols: int, sort_bits: int, slots: bool = False
) -> InitialCounts:
    """Count every pair and symbol of ``segs`` (weighted by ``weights``, symbols below
    ``n_symbols`` but in indexes built by hand) and list the words of every pair. ``sort_bits``:
    a pair's code and its word are sorted as one int64 while they fit in this many bits.

    With ``slots``, a pair lists instead where each occurrence's left symbol is, as a slot of
    the words laid end to end with one separator slot before each (``flat_words.FlatWords``).

    Example: ``count_initial(["\\0\\0\\1"], np.array([2]), 2, 63).pair_count`` is
    ``{"\\0\\0": 2, "\\0\\1": 2}`` (symbol ids as characters).
    """
    n = n_symbols
    codes = symbols_of(separator(n).join(segs))  # the separator's id is n
    boundary = codes == n
    word_of = running_total(boundary)  # word index of each position
    # Ids are below n, except in an index built by hand (tests), which may use any.
    top = max(n, int(codes.max(initial=0)))
    symbols = _weighted_bincount(codes, word_of, weights, top + 1)
    symbols[n] = 0  # the separators
    if top == n:
        symbols = symbols[:n]
    token_freq = array("q", symbols.astype(np.int64).tobytes())
    total_tokens = int(symbols.sum())
    adjacent = ~boundary[:-1]
    adjacent &= ~boundary[1:]
    del boundary
    shift = top.bit_length()  # bits of an id
    pair_codes = cast(codes[:-1][adjacent], np.int64)
    pair_codes <<= shift
    pair_codes |= codes[1:][adjacent]
    # What each pair lists, and the bits that takes.
    word_bits = (len(codes) if slots else max(len(segs), 1)).bit_length()
    if slots:  # sorted by slot instead (below 2^31), each occurrence listed
        words = np.flatnonzero(adjacent).astype(np.int32)
        words += 1
    else:
        words = word_of[:-1][adjacent]
        del word_of
    del codes, adjacent
    # Sorted by pair, then word: each pair's group then lists its words ascending. With room
    # in 63 bits the word joins the code and one in-place sort does it; else a stable argsort.
    if 2 * shift + word_bits <= sort_bits:
        pair_codes <<= word_bits
        pair_codes |= words
        del words
        pair_codes.sort()
        words = cast(pair_codes & ((1 << word_bits) - 1), np.int32)
        pair_codes >>= word_bits
    else:
        order = np.argsort(pair_codes, kind="stable")
        pair_codes, words = pair_codes[order], words[order]
        del order
    starts = np.ones(len(pair_codes), dtype=bool)
    np.not_equal(pair_codes[1:], pair_codes[:-1], out=starts[1:])
    unique_pairs = pair_codes[starts].tolist()
    del pair_codes
    group = running_total(starts)
    group -= 1
    owners = _SlotWords(word_of, words) if slots else words
    totals = _weighted_bincount(group, owners, weights, len(unique_pairs)).tolist()
    del group, owners
    if slots:
        del word_of
    first = starts.copy()
    first[1:] |= words[1:] != words[:-1]  # first occurrence of each (pair, word)
    # Cutting one buffer is several times cheaper than splitting the numpy array per pair.
    listed = words[first].tobytes()
    bounds = [*(4 * np.flatnonzero(starts[first])).tolist(), len(listed)]
    del words, first, starts
    mask = (1 << shift) - 1
    keys = [chr(code >> shift) + chr(code & mask) for code in unique_pairs]
    del unique_pairs
    where: dict[str, array] = {}
    for i, key in enumerate(keys):
        where[key] = word_list = array("i")
        word_list.frombytes(listed[bounds[i] : bounds[i + 1]])
    pair_count = dict(zip(keys, totals, strict=True))
    return InitialCounts(token_freq, total_tokens, pair_count, dict(Counter(totals)), where)


class _SlotWords:
    """The word of each of some slots (see :func:`count_initial`), a slice at a time (read
    from every position's word: searching the words' bounds took a second longer for two
    million words)."""

    def __init__(self, word_of: np.ndarray, slots: np.ndarray) -> None:
        self._word_of, self._slots = word_of, slots

    def __getitem__(self, part: slice) -> np.ndarray:
        return self._word_of[self._slots[part] - 1]


# Positions weighed at a time: the per-position weights of a slice take 8 MB.
SLICE = 1 << 20


def cast(values: np.ndarray, dtype: type) -> np.ndarray:
    """``values.astype(dtype)``, a slice at a time (see :func:`running_total`)."""
    converted: np.ndarray = np.empty(len(values), dtype=dtype)
    for start in range(0, len(values), SLICE):
        converted[start : start + SLICE] = values[start : start + SLICE]
    return converted


def running_total(flags: np.ndarray) -> np.ndarray:
    """``np.cumsum(flags, dtype=np.int32)``, a slice at a time: numpy holds the interpreter
    through one call (a third of a second over 30 million positions), and a window loading in
    the background would stand still meanwhile."""
    totals = np.empty(len(flags), dtype=np.int32)
    carried = 0
    for start in range(0, len(flags), SLICE):
        part = totals[start : start + SLICE]
        np.cumsum(flags[start : start + SLICE], dtype=np.int32, out=part)
        part += carried
        carried = int(part[-1])
    return totals


def _weighted_bincount(
    index: np.ndarray, words: np.ndarray | _SlotWords, weights: np.ndarray, size: int
) -> np.ndarray:
    """Exact sums of ``weights[words]`` per ``index`` value. Taken in slices, so that the
    per-position weights (8 bytes each) never exist for the whole corpus at once. ``np.bincount``
    sums in float64, exact only below 2^53: a slice whose weights reach that (huge counts) takes
    the slower integer path (the corpus bounds every total by 2^62)."""
    sums = np.zeros(size, dtype=np.int64)
    for start in range(0, len(index), SLICE):
        part = slice(start, start + SLICE)
        gathered = weights[words[part]]
        if int(gathered.sum()) < 2**53:
            sums += np.bincount(index[part], weights=gathered, minlength=size).astype(np.int64)
        else:
            np.add.at(sums, index[part], gathered)
    return sums
