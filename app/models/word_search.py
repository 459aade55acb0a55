"""Filtering and ordering millions of word types as whole arrays, never a Python loop per word.

The corpus keeps its words as one UTF-8 buffer and an end offset per word
(``bpe_core.pipeline.word_types.Words``); here that buffer is searched and sorted with numpy:
decoding two million words to ``str`` to test or compare each takes seconds, these take tens
of milliseconds. Nothing here imports Qt.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import as_strided

from bpe_core.pipeline.word_types import Words

CHUNK = 8  # bytes compared at a time when sorting: one big-endian 64-bit number


@dataclass(frozen=True)
class Folded:
    """Words as the filter searches them: ``words`` casefolded, except that with ``ascii_case``
    their ASCII letters are left as they are and a pattern's letters match either case (the
    corpus' own buffer is then searched: no copy of it is kept), and the few words whose other
    letters fold are checked one by one, as ``apart`` holds them folded (word index -> text)."""

    words: Words
    ascii_case: bool
    apart: dict[int, str] = field(default_factory=dict)


_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
# Words whose folding changes more than ASCII letters that are checked one by one at each
# filter, at most (a few thousand take a millisecond); beyond that a folded copy is searched.
APART = 10_000


def casefolded(words: Words) -> Folded:
    """The words casefolded, as ``str.casefold`` folds each.

    Example: ``casefolded(Words.of(["Low", "Straße"]))`` searches as ``("low", "strasse")``.

    Where folding changes only ASCII letters but in a few words (any ASCII text, and most
    English), the words are searched as they are, ASCII letters matched either case, and those
    few words one by one: a folded copy of two million words took 42 MB. Otherwise ASCII words
    fold byte for byte (``bytes.lower``), the others one by one, and the whole list is rebuilt
    only when one of them changes its length in bytes.
    """
    blob = words.blob
    ascii_case = not blob.islower()  # (no uppercase ASCII letter: no letter to match either case)
    if blob.isascii():
        return Folded(words, ascii_case)
    ends = words.byte_ends()
    others = np.unique(np.searchsorted(ends, np.flatnonzero(np.frombuffer(blob, np.uint8) >= 0x80), "right"))
    apart: dict[int, str] = {}
    for w in others.tolist():
        word = words[w]
        folded = word.casefold()
        if folded != word.translate(_ASCII_LOWER):
            apart[w] = folded
            if len(apart) > APART:
                break
    if len(apart) <= APART:
        return Folded(words, True, apart)
    lowered = bytearray(bytes(blob).lower())  # ASCII letters only: what casefold does to ASCII
    for w in others.tolist():
        start = int(ends[w - 1]) if w else 0
        folded_bytes = words[w].casefold().encode("utf-8", "surrogatepass")
        if len(folded_bytes) != int(ends[w]) - start:  # ß -> ss and the like: offsets move
            return Folded(Words.of(word.casefold() for word in words), False)
        lowered[start : start + len(folded_bytes)] = folded_bytes
    return Folded(Words(bytes(lowered), ends), False)


def byte_frequencies(folded: Folded) -> np.ndarray:
    """How often each byte value occurs in the words as searched (256 counts; with
    ``ascii_case`` an ASCII letter's count is both cases')."""
    counts = np.bincount(np.frombuffer(folded.words.blob, dtype=np.uint8), minlength=256)
    if folded.ascii_case:
        counts[ord("a") : ord("z") + 1] += counts[ord("A") : ord("Z") + 1]
    return counts


def words_containing(folded: Folded, needle: str, frequencies: np.ndarray | None = None) -> np.ndarray:
    """Indices (ascending) of the words of ``folded`` holding ``needle`` (already casefolded).
    ``frequencies`` (:func:`byte_frequencies` of ``folded``) choose the pattern's rarest byte
    to look for first.

    Example: ``words_containing(casefolded(Words.of(["Low", "slow", "lo"])), "low")`` is
    ``[0, 1]``.

    UTF-8 never matches a character's bytes in the middle of another's, so a byte search is a
    character search; a match across two words' boundary is left out. The buffer is searched a
    slice of ``SLICE_BYTES`` at a time, so that each comparison's result is still in the
    processor's cache when the next one reads it, and the slices are shared among threads
    (numpy lets go of the interpreter for these whole-array operations).
    """
    if not needle:
        return np.arange(len(folded.words))
    words = _found_in_buffer(folded, needle, frequencies)
    if not folded.apart:
        return words
    apart = np.fromiter(folded.apart, dtype=np.int64, count=len(folded.apart))
    # The words apart found in the buffer, by binary search (``np.isin`` compares every match
    # with each of them in turn: 13 ms for 1.7 million matches).
    at = np.searchsorted(words, apart)
    inside = at < len(words)
    at, apart = at[inside], apart[inside]
    kept = np.delete(words, at[words[at] == apart])
    holding = np.array(sorted(w for w, text in folded.apart.items() if needle in text), dtype=np.int64)
    # Both ascending and disjoint: inserted in place (``np.union1d`` sorted a million and a half
    # words for a few, in a second).
    return np.insert(kept, np.searchsorted(kept, holding), holding) if len(holding) else kept


def _found_in_buffer(folded: Folded, needle: str, frequencies: np.ndarray | None) -> np.ndarray:
    """:func:`words_containing` as the buffer of ``folded`` answers it (its words apart aside)."""
    pattern = np.frombuffer(needle.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    data = np.frombuffer(folded.words.blob, dtype=np.uint8)
    starts = len(data) - len(pattern) + 1  # where a match may start
    if starts <= 0:
        return np.zeros(0, dtype=np.int64)
    counts = byte_frequencies(folded) if frequencies is None else frequencies
    rarest_first = np.argsort(counts[pattern], kind="stable").tolist()
    search = _SliceSearch(data, pattern, rarest_first, folded.words, folded.ascii_case)
    slices = [(low, min(low + SLICE_BYTES, starts)) for low in range(0, starts, SLICE_BYTES)]
    found = list(_pool().map(search.words_in, slices)) if len(slices) > 1 else [search.words_in(slices[0])]
    return _first_of_runs(np.concatenate(found))


SLICE_BYTES = 1 << 20  # searched at a time: a slice's comparisons stay in the processor's cache
_threads: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _threads
    if _threads is None:
        _threads = ThreadPoolExecutor(min(4, os.cpu_count() or 1), thread_name_prefix="word search")
    return _threads


def _first_of_runs(words: np.ndarray) -> np.ndarray:
    """``words`` (ascending) with repeats left out."""
    return words[np.concatenate(([True], words[1:] != words[:-1]))] if len(words) > 1 else words


class _SliceSearch:
    """The words holding ``pattern`` whose match starts in one slice of the buffer, for each
    slice (see :func:`words_containing`)."""

    def __init__(
        self, data: np.ndarray, pattern: np.ndarray, rarest_first: list[int], words: Words, ascii_case: bool
    ) -> None:
        self.data, self.pattern, self.rarest_first = data, pattern, rarest_first
        self.ends = words.byte_ends().astype(np.int64)  # one type: searchsorted copies no array
        self.word_starts = np.concatenate(([0], self.ends[:-1]))
        # Pattern bytes that are lowercase ASCII letters, where the buffer's are not folded: a
        # byte matches if it is the letter once its case bit is set (no other byte does).
        self.either_case = [ascii_case and ord("a") <= b <= ord("z") for b in pattern.tolist()]

    def _equal(self, values: np.ndarray, j: int) -> np.ndarray:
        """Whether each of ``values`` is the pattern's byte ``j`` (its letter in either case)."""
        return (values | 0x20 if self.either_case[j] else values) == self.pattern[j]

    def words_in(self, span: tuple[int, int]) -> np.ndarray:
        low, high = span
        data, pattern, ends = self.data, self.pattern, self.ends
        first, *rest = self.rarest_first
        # Whole-slice comparisons while matches are many; once they are few, only their
        # places are looked at for the pattern's remaining bytes.
        matched = self._equal(data[low + first : high + first], first)
        at = None
        for j in rest:
            if at is None and np.count_nonzero(matched) * 32 < high - low:
                at = np.flatnonzero(matched)
            if at is None:
                matched &= self._equal(data[low + j : high + j], j)
            else:
                at = at[self._equal(data[low + j + at], j)]
        first_word = int(np.searchsorted(ends, low, "right"))
        after_last = int(np.searchsorted(ends, high - 1, "right")) + 1  # words meeting the slice
        if at is None and np.count_nonzero(matched) < after_last - first_word:
            at = np.flatnonzero(matched)
        if at is not None:  # fewer matches than words: each placed in its word
            at += low
            words = np.searchsorted(ends[first_word:after_last], at, "right") + first_word
            return _first_of_runs(words[at + len(pattern) <= ends[words]])
        # Many: a match starting in a word's last size - 1 bytes runs into the next word; the
        # rest are gathered per word.
        ends_here = ends[first_word:after_last] - low
        for back in range(1, len(pattern)):
            spill = ends_here - back
            matched[spill[(spill >= 0) & (spill < high - low)]] = False
        starts_here = np.maximum(self.word_starts[first_word:after_last] - low, 0)
        return first_word + np.flatnonzero(np.maximum.reduceat(matched.view(np.uint8), starts_here))


def byte_order(words: Words) -> np.ndarray:
    """Word indices in ascending order of the words, as ``sorted(words)`` orders them (code
    point order, which UTF-8 bytes keep).

    Example: ``byte_order(Words.of(["b", "ab", "a"]))`` is ``[2, 1, 0]``.

    Words are compared a few bytes at a time as one 64-bit number each: the number of the run
    of words still equal so far, then as many of their next bytes as fit (zero-padded, so a word
    sorts before the words it begins). Only words left equal to a neighbour go round again. A
    word holding a NUL byte would tie with its padding: those few lists are sorted as strings.
    """
    blob = words.blob
    if b"\0" in blob:
        return np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)
    ends = words.byte_ends().astype(np.int64)
    starts = np.concatenate(([0], ends[:-1]))
    padded = np.concatenate((np.frombuffer(blob, dtype=np.uint8), np.zeros(CHUNK, dtype=np.uint8)))
    windows = as_strided(padded, shape=(len(padded) - CHUNK + 1, CHUNK), strides=(1, 1), writeable=False)
    order = np.arange(len(words), dtype=np.int64)
    where = order.copy()  # the positions of ``order`` still to sort (runs of equal words so far)
    run = np.zeros(len(words), dtype=np.uint64)  # the run each of them is in, ascending
    offset = 0
    while len(where):
        width = (64 - int(run[-1]).bit_length()) // 8  # bytes that fit beside the run number
        members = order[where]
        remaining = ends[members] - starts[members] - offset
        taken = windows[np.minimum(starts[members] + offset, len(padded) - CHUNK)]
        taken[np.arange(CHUNK) >= np.minimum(remaining, width)[:, None]] = 0
        key = taken.view(">u8").ravel().astype(np.uint64) >> np.uint64(8 * (CHUNK - width))
        key |= run << np.uint64(8 * width)
        ranked = np.argsort(key)  # equal keys need no order: they go round again
        members, key, remaining = members[ranked], key[ranked], remaining[ranked]
        order[where] = members  # runs are contiguous: each stays in its place, sorted
        # Equal so far, and one goes on (without NULs, equal keys end at the same byte or
        # both go on): compared on the next bytes, where an ended word's are all 0.
        tied = (key[1:] == key[:-1]) & (np.maximum(remaining[1:], remaining[:-1]) > width)
        kept = np.zeros(len(members), dtype=bool)
        kept[1:] |= tied
        kept[:-1] |= tied
        run = np.cumsum(np.concatenate(([True], ~tied)), dtype=np.uint64)[kept]
        where = where[kept]
        offset += width
    return order


def stable_order(keys: np.ndarray, descending: bool) -> np.ndarray:
    """Indices ordering ``keys`` (non-negative integers) stably, as ``sorted(reverse=...)``
    orders equal keys: in index order either way.

    Small keys (token counts) sort as 16-bit numbers, which numpy sorts by radix in one pass.
    """
    top = int(keys.max()) if len(keys) else 0
    if top < 2**16:
        keys = keys.astype(np.uint16)
        return np.argsort(np.uint16(top) - keys if descending else keys, kind="stable")
    return np.argsort(-keys if descending else keys, kind="stable")
