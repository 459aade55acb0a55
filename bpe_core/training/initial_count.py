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
    # What each pair lists, and the bits that takes.
    word_bits = (len(codes) if slots else max(len(segs), 1)).bit_length()
    # Sorted by pair, then word: each pair's group then lists its words ascending. With room
    # in 63 bits the word joins the code and one in-place sort does it; else a stable argsort.
    joined = 2 * shift + word_bits <= sort_bits
    if slots and joined:  # each occurrence's slot joined to its code as the codes are made
        pair_codes = _pair_codes(codes, adjacent, shift, word_bits)
    else:
        pair_codes = _pair_codes(codes, adjacent, shift)
        if slots:  # sorted by slot instead (below 2^31), each occurrence listed
            words = _slots_of(adjacent)
        else:
            words = word_of[:-1][adjacent]
            del word_of
    del codes, adjacent
    if joined:
        if not slots:
            pair_codes <<= word_bits
            pair_codes |= words
            del words
        pair_codes.sort()
        words = _low_bits(pair_codes, word_bits)
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


def _pair_codes(codes: np.ndarray, adjacent: np.ndarray, shift: int, slot_bits: int = 0) -> np.ndarray:
    """``(left << shift) | right`` of each pair of adjacent symbols (int64), a slice at a time:
    the whole selection of lefts and rights took two passing arrays of 4 bytes a position, the
    peak of memory opening two million word types. With ``slot_bits``, each code is shifted
    by that many bits and holds its left symbol's slot (see :func:`_slots_of`) below them."""
    lefts, rights = codes[:-1], codes[1:]
    pair_codes = np.empty(np.count_nonzero(adjacent), dtype=np.int64)
    done = 0
    for start in range(0, len(adjacent), SLICE):
        part = adjacent[start : start + SLICE]
        left = lefts[start : start + SLICE][part]
        out = pair_codes[done : done + len(left)]
        out[:] = left
        out <<= shift
        out |= rights[start : start + SLICE][part]
        if slot_bits:
            out <<= slot_bits
            out |= _slots_of(part, start)
        done += len(left)
    return pair_codes


def _slots_of(adjacent: np.ndarray, offset: int = 0) -> np.ndarray:
    """The slot of each pair's left symbol (its position, counted from ``offset``, plus one:
    the separator before the first word) as int32, a slice at a time (``np.flatnonzero``
    gives 8 bytes a pair)."""
    slots = np.empty(np.count_nonzero(adjacent), dtype=np.int32)
    done = 0
    for start in range(0, len(adjacent), SLICE):
        found = np.flatnonzero(adjacent[start : start + SLICE])
        found += offset + start + 1
        slots[done : done + len(found)] = found
        done += len(found)
    return slots


def _low_bits(values: np.ndarray, bits: int) -> np.ndarray:
    """``values & (2**bits - 1)`` as int32 (the low bits fit), a slice at a time."""
    low = np.empty(len(values), dtype=np.int32)
    mask = (1 << bits) - 1
    for start in range(0, len(values), SLICE):
        np.bitwise_and(values[start : start + SLICE], mask, out=low[start : start + SLICE], casting="unsafe")
    return low


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
