"""Every word's segmentation in one flat array, merged a pair's occurrences at a time.

The words are laid end to end in one array of *slots*, a separator slot before each word and
after the last. A slot holds a symbol id while it starts a token; merging a token with the one
on its right marks the right one's slots dead. Example: the words ``ab`` and ``c`` are the
slots ``| a b | c |``; merging ``a b`` into ``X`` makes them ``| X 1 | c |``.

A token spanning ``w`` slots (``w`` of the first symbols) keeps ``w - 1`` in its second and its
last slot, as allocators keep a block's size at both its ends ("boundary tags"): the token after
a token starting at ``p`` starts at ``p + w``, read from slot ``p + 1``, and the token before it
ends at ``p - 1``, whose tag says where it starts. Both neighbours are found in O(1) from the
slots alone, so a merge reads and writes only the occurrences it replaces, all at once in numpy.

A slot takes two bytes while every token id and every word's length allows (see
``FlatWords.fit``), else four: two million word types take 40 million slots, and a merge's
reads and writes, scattered over them, take about half the time over half the bytes.

An occurrence of a pair is named by its left symbol's slot. A merge keeps, for undo, the slots
it merged and those it marked dead: undoing restores every slot it wrote, whatever merged since
having been undone first. A token's width is not a property of its id (``x</w>`` may be ``x``
and ``</w>``, or ``x</`` and ``w>``), so it is always read from the slots.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from bpe_core.training.batch_merge import symbols_of
from bpe_core.training.cold_index import group_heads

Where = defaultdict[str, array]  # pair -> slots where it may occur
SEPARATOR = -1  # the slot before, between and after words
DEAD = -2  # a slot inside a token, neither its second nor its last
BUILT_WORDS = 1 << 16  # words laid out at a time
BLOCK_BITS = 4  # a slot's word is looked up from its block of 2**4 slots (see ``FlatWords.words_of``)
FEW_SLOTS = 1024  # up to this many slots, their words are binary-searched instead
SEARCHED_ONE_BY_ONE = 8  # up to this many slots, their words are searched in Python
SLOT_WEIGHTS_MOST = 1 << 22  # up to this many slots, each slot's weight is kept (see ``FewMerges``)
# A token's second and last slots hold ``TAG - (width - 1)``: below every other value.
TAG = -2
# The highest token id, and token width less one, that 2-byte slots hold: ``TAG`` less either
# must fit them too (``_beyond_tags`` computes it in place).
NARROW_MAX = 2**15 - 3


class Occurrences(NamedTuple):
    """The occurrences a merge replaces: each one's left slot and the slot it marks dead."""

    merged: np.ndarray
    absorbed: np.ndarray


@dataclass(frozen=True, slots=True)
class Packed:
    """Occurrences as a merge keeps them for undo, in about 3 bytes each instead of 8: the first
    merged slot, the gap from each merged slot to the next (2 bytes each while every gap fits),
    and each absorbed slot's distance from its merged one (1 byte each while every left token
    spans fewer than 256 slots). Early merges on millions of words replace tens of millions of
    occurrences in all: their undo records were the largest part of the memory they added."""

    first: int
    gaps: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of(cls, found: Occurrences) -> Packed:
        merged, absorbed = found
        gaps, offsets = np.diff(merged), absorbed - merged
        first = int(merged[0]) if len(merged) else 0
        return cls(first, _narrowed(gaps, np.uint16), _narrowed(offsets, np.uint8))

    def unpacked(self) -> Occurrences:
        merged = np.empty(len(self.offsets), dtype=np.int32)
        if len(merged):
            merged[0] = self.first
            np.cumsum(self.gaps, dtype=np.int32, out=merged[1:])
            merged[1:] += self.first
        return Occurrences(merged, merged + self.offsets.astype(np.int32))


def _narrowed(values: np.ndarray, narrow: type[np.unsignedinteger]) -> np.ndarray:
    """``values`` (none negative) in the ``narrow`` type if they all fit it."""
    fits = not len(values) or int(values.max()) <= np.iinfo(narrow).max
    return values.astype(narrow) if fits else values


class Side(NamedTuple):
    """One side of some occurrences: each one's neighbour symbol there, where the neighbour pair
    is before the merge and where the pair replacing it is after, and the occurrence's weight."""

    neighbour: np.ndarray
    lost_at: np.ndarray
    gained_at: np.ndarray
    weight: np.ndarray


class Changes(NamedTuple):
    """What merging ``(a, b)`` into ``new`` at some occurrences does to their neighbour pairs:
    on the ``left``, ``(x, a)`` becomes ``(x, new)``; on the ``right``, ``(b, x)`` becomes
    ``(new, x)``; between two occurrences side by side (``joined``), ``(b, a)`` becomes
    ``(new, new)``. ``own`` is each occurrence's weight (its word's count)."""

    left: Side
    right: Side
    joined: Side
    own: np.ndarray
    words: np.ndarray  # each occurrence's word, ascending
    beyond: np.ndarray  # the slot after each occurrence


def tag(width_less_one: np.ndarray | int) -> np.ndarray | int:
    """The value a token's second and last slots hold (given its width less one, at least 1)."""
    return TAG - width_less_one


@dataclass(slots=True)
class FlatWords:
    """The slots of every word (see the module): ``symbols`` holds token ids, separators and
    tags; ``bounds`` are the separator slots, one before each word and one after the last;
    ``blocks`` the word each block of ``2**BLOCK_BITS`` slots starts in."""

    symbols: np.ndarray
    bounds: np.ndarray
    blocks: np.ndarray

    @classmethod
    def from_segs(cls, segs: list[str]) -> FlatWords:
        """The slots of symbol strings (a character per symbol id)."""
        lengths = np.fromiter(map(len, segs), dtype=np.int32, count=len(segs))
        bounds = np.zeros(len(segs) + 1, dtype=np.int32)  # slots are fewer than 2**31
        np.cumsum(lengths + 1, out=bounds[1:])
        # A token is never wider than its word: tags fit 2 bytes if the longest word does.
        narrow = int(lengths.max(initial=0)) - 1 <= NARROW_MAX
        symbols = np.full(int(bounds[-1]) + 1, SEPARATOR, dtype=np.int16 if narrow else np.int32)
        for first in range(0, len(segs), BUILT_WORDS):  # a run of words at a time: temporaries stay small
            last = min(first + BUILT_WORDS, len(segs))
            codes = symbols_of("".join(segs[first:last]))
            if symbols.dtype == np.int16 and int(codes.max(initial=0)) > NARROW_MAX:
                symbols = symbols.astype(np.int32)
            low = int(bounds[first])
            part = symbols[low : int(bounds[last])]
            inside = np.ones(len(part), dtype=bool)
            inside[bounds[first:last] - low] = False
            part[inside] = codes
        return cls(symbols, bounds, _blocks(bounds, len(symbols)))

    def fit(self, token: int) -> bool:
        """Make room in the slots for the token id ``token``: 2-byte slots are widened to 4
        bytes (for good) if it is above what they hold. Returns whether they were; the caller
        then reads :attr:`symbols` anew (and nothing may be reading the old slots meanwhile)."""
        if token <= NARROW_MAX or self.symbols.dtype != np.int16:
            return False
        self.symbols = self.symbols.astype(np.int32)
        return True

    def after(self, starts: np.ndarray) -> np.ndarray:
        """Where the token (or separator) after each token starting at ``starts`` is."""
        following = starts + 1
        following += _beyond_tags(self.symbols[following])
        return following

    def before(self, starts: np.ndarray) -> np.ndarray:
        """Where the token (or separator) before each token starting at ``starts`` starts."""
        previous = starts - 1
        previous -= _beyond_tags(self.symbols[previous])
        return previous

    def words_of(self, slots: np.ndarray) -> np.ndarray:
        """The word each slot (not the last separator) is in: its block's first word, stepped
        on past the words that end before it. A few gathers, where a binary search over two
        million words' bounds took three times as long."""
        if len(slots) <= FEW_SLOTS:  # a binary search is fewer calls: quicker for a few slots
            return np.searchsorted(self.bounds, slots.astype(self.bounds.dtype, copy=False), side="right") - 1
        words = self.blocks[slots >> BLOCK_BITS]
        bounds = self.bounds
        later = np.flatnonzero(bounds[words + 1] <= slots)
        while len(later):
            words[later] += 1
            later = later[bounds[words[later] + 1] <= slots[later]]
        return words

    def cuts(self, slots: np.ndarray, size: int) -> np.ndarray:
        """Where to cut ``slots`` (ascending) into runs of about ``size``, never within a word.
        A merge of one run reads and writes about a megabyte of slots and their temporaries,
        which stay in the processor's cache from one of its passes to the next: run by run, an
        early merge on millions of words takes a third less time than all at once (and runs of
        16k slots a tenth less than runs of 4k: fewer calls)."""
        if len(slots) <= size:
            return np.zeros(0, dtype=np.int64)
        ends = self.bounds[self.words_of(slots[size - 1 :: size][: (len(slots) - 1) // size]) + 1]
        cuts = np.searchsorted(slots, ends)  # each at the first slot past a word, ascending
        cuts = cuts[group_heads(cuts)]
        return cuts[cuts < len(slots)]

    def word_symbols(self, word: int) -> np.ndarray:
        """The word's token ids in order."""
        part = self.symbols[int(self.bounds[word]) + 1 : int(self.bounds[word + 1])]
        return part[part >= 0]

    def seg(self, word: int) -> str:
        """The word's tokens as a symbol string."""
        return self.word_symbols(word).astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")

    def lengths(self) -> np.ndarray:
        """Every word's number of tokens."""
        live = (self.symbols >= 0).view(np.int8)  # summed as bytes into 4-byte totals: twice as quick
        if len(self.bounds) < 2:
            return np.zeros(0, dtype=np.int64)
        return np.add.reduceat(live, self.bounds[:-1], dtype=np.int32).astype(np.int64)

    def holds(self, slots: np.ndarray, left: int, right: int) -> np.ndarray:
        """Whether the pair occurs now at each of ``slots``."""
        symbols = self.symbols
        starts = symbols[slots] == left
        starts[starts] = symbols[self.after(slots[starts])] == right
        return starts

    def holding(self, listed: np.ndarray, left: int, right: int) -> np.ndarray:
        """The slots among ``listed`` (ascending, distinct) where the pair occurs now."""
        return listed[self.holds(listed, left, right)]

    def occurrences(self, listed: np.ndarray, left: int, right: int) -> Occurrences:
        """The occurrences of the pair among ``listed`` (ascending, distinct) that a merge
        replaces: all of them, but in a run of a repeated symbol (``a a a``) every other one
        from the left, as a left-to-right merge takes them."""
        symbols = self.symbols
        starting = listed[symbols[listed] == left]
        following = self.after(starting)
        whole = symbols[following] == right
        merged, absorbed = starting[whole], following[whole]
        if left == right and len(merged) > 1:
            # A run's occurrences are consecutive here: each one's right slot is the next's left.
            chained = np.zeros(len(merged), dtype=bool)
            np.equal(absorbed[:-1], merged[1:], out=chained[1:])
            if chained.any():
                rank = np.arange(len(merged))
                head = np.where(chained, 0, rank)
                np.maximum.accumulate(head, out=head)
                kept = (rank - head) % 2 == 0
                merged, absorbed = merged[kept], absorbed[kept]
        return Occurrences(merged, absorbed)

    def changes(self, found: Occurrences, weights: np.ndarray) -> Changes:
        """What merging ``found`` does to neighbour pairs, read from the slots as they are
        before the merge (or again after undoing it)."""
        merged, absorbed = found
        before = self.before(merged)
        # Side by side (``a b a b``): the first occurrence's right neighbour is the second's
        # left one. The pair between them is counted once, on the second one's left.
        joined = np.zeros(len(merged), dtype=bool)
        if len(merged) > 1:
            np.equal(absorbed[:-1], before[1:], out=joined[1:])
        return self._changes(found, weights, before, self.after(absorbed), joined)

    def changes_undone(self, found: Occurrences, weights: np.ndarray, right: int) -> Changes:
        """The same changes as :meth:`changes`, read from the slots as they are *after* the
        merge of a pair whose right symbol is ``right`` (what undoing it will change back, worked
        out before it is undone). Only occurrences side by side read differently: the second's
        left neighbour is the first's merged token, and was the first's right symbol."""
        merged, absorbed = found
        before = self.before(merged)
        joined = np.zeros(len(merged), dtype=bool)
        if len(merged) > 1:
            np.equal(merged[:-1], before[1:], out=joined[1:])
        before[joined] = absorbed[np.flatnonzero(joined) - 1]
        return self._changes(found, weights, before, self.after(merged), joined, right)

    def _changes(
        self,
        found: Occurrences,
        weights: np.ndarray,
        before: np.ndarray,
        beyond: np.ndarray,
        joined: np.ndarray,
        joined_symbol: int | None = None,
    ) -> Changes:
        """:meth:`changes` from each occurrence's left neighbour (``before``), the slot after it
        (``beyond``) and which occurrences follow the one before side by side (``joined``),
        whose left symbol is ``joined_symbol`` where the slots no longer hold it."""
        symbols, merged, absorbed = self.symbols, found.merged, found.absorbed
        words = self.words_of(merged)
        own = weights[words]
        left_symbol = symbols[before]
        if joined_symbol is not None:
            left_symbol[joined] = joined_symbol
        has_left = (left_symbol >= 0) & ~joined
        right_symbol = symbols[beyond]
        has_right = right_symbol >= 0
        has_right[:-1] &= ~joined[1:]
        previous = np.flatnonzero(joined) - 1
        return Changes(
            Side(left_symbol[has_left], before[has_left], before[has_left], own[has_left]),
            Side(right_symbol[has_right], absorbed[has_right], merged[has_right], own[has_right]),
            Side(left_symbol[joined], before[joined], merged[previous], own[joined]),
            own,
            words,
            beyond,
        )

    def merge(self, found: Occurrences, new: int, beyond: np.ndarray) -> None:
        """Replace each occurrence by the token ``new`` (``beyond``: the slot after each one,
        as :meth:`changes` found it)."""
        merged, absorbed = found
        last = beyond - 1
        symbols = self.symbols
        symbols[absorbed] = DEAD
        symbols[merged] = new
        tags = tag(last - merged)
        symbols[merged + 1] = tags
        symbols[last] = tags

    def unmerge(self, found: Occurrences, left: int, right: int) -> None:
        """Undo :meth:`merge` of these occurrences (the last merge not undone)."""
        merged, absorbed = found
        beyond = self.after(merged)
        symbols = self.symbols
        symbols[merged] = left
        symbols[absorbed] = right
        for start, stop in ((merged, absorbed), (absorbed, beyond)):
            wide = stop - start > 1
            start, stop = start[wide], stop[wide]
            tags = tag(stop - start - 1)
            symbols[start + 1] = tags
            symbols[stop - 1] = tags

    def slots_of(self, symbol: int) -> np.ndarray:
        """Every slot where a token ``symbol`` starts."""
        return np.flatnonzero(self.symbols == symbol)


def _beyond_tags(read: np.ndarray) -> np.ndarray:
    """For slots read from the symbols: the width less one of the token whose tag a slot holds
    (the step from a token's second slot to the next token, or from its last slot back to its
    start), 0 for a slot holding no tag. Worked in place: it runs over a merge's occurrences."""
    np.subtract(TAG, read, out=read)
    return np.maximum(read, 0, out=read)


def _blocks(bounds: np.ndarray, n_slots: int) -> np.ndarray:
    """The word each block of ``2**BLOCK_BITS`` slots starts in: one less than the number of
    words starting at or before the block's first slot."""
    size = 1 << BLOCK_BITS
    n_blocks = (n_slots + size - 1) >> BLOCK_BITS
    starting = np.bincount((bounds + (size - 1)) >> BLOCK_BITS, minlength=n_blocks + 1)[:n_blocks]
    return (np.cumsum(starting) - 1).astype(np.int32)


class FewMerges:
    """Merge and unmerge of a few occurrences, one at a time in Python: below some dozens of
    occurrences numpy's cost per call outweighs the work. Reads and writes the same slots as
    :class:`FlatWords`, through memoryviews (whose items are plain ints), and gives the same
    counts, lists and undo records as the vectorised path."""

    def __init__(self, flat: FlatWords, weights: np.ndarray) -> None:
        self._flat, self._weights = flat, weights
        self._views: tuple[memoryview, ...] = tuple(
            memoryview(array)  # type: ignore[arg-type]
            for array in (flat.symbols, flat.bounds, weights)
        )
        # Each slot's weight (its word's), read a slot at a time, where the slots are few enough
        # for the 8 bytes a slot it takes: looking the words up in numpy took about 10 µs a
        # merge, a fifth of the time of the few-occurrence merges of 10 MB of text.
        self._slot_weights: memoryview | None = None
        if len(flat.symbols) <= SLOT_WEIGHTS_MOST:
            self._slot_weights = memoryview(np.repeat(weights, np.diff(flat.bounds)))  # type: ignore[arg-type]

    def weights_at(self, slots: list[int]) -> list[int]:
        """The weight (word count) of the word each slot is in: one binary search in numpy for
        them all, or a search a slot in Python for a few (where numpy's calls cost more)."""
        if self._slot_weights is not None:
            return list(map(self._slot_weights.__getitem__, slots))
        if len(slots) > SEARCHED_ONE_BY_ONE:
            return self._weights[self._flat.words_of(np.array(slots, dtype=np.int32))].tolist()  # type: ignore[no-any-return]
        _, bounds, weights = self._views
        return [weights[bisect_right(bounds, p) - 1] for p in slots]

    def holds(self, p: int, left: int, right: int) -> bool:
        """Whether the pair occurs now at slot ``p``."""
        symbols = self._views[0]
        if symbols[p] != left:
            return False
        v = symbols[p + 1]
        return bool(symbols[p + 1 + (TAG - v if v < TAG else 0)] == right)

    def word_of(self, p: int) -> int:
        """The word slot ``p`` is in."""
        return bisect_right(self._views[1], p) - 1

    def merge(
        self, slots: list[int], a: str, b: str, new: str, delta: defaultdict[str, int], where: Where
    ) -> tuple[Occurrences, int]:
        """Merge ``(a, b)`` into ``new`` wherever it occurs at ``slots`` (ascending, distinct),
        left to right; returns the occurrences and the weighted replacements. Each occurrence
        sees the slots as the one before left them."""
        symbols = self._views[0]
        left, right, token = ord(a), ord(b), ord(new)
        merged: list[int] = []
        absorbed: list[int] = []
        replaced = 0
        for p, c in zip(slots, self.weights_at(slots), strict=True):
            if symbols[p] != left:  # stale, or taken by the occurrence before (``a a a``)
                continue
            v = symbols[p + 1]
            q = p + 1 + (TAG - v if v < TAG else 0)
            if symbols[q] != right:
                continue
            v = symbols[p - 1]
            before = p - 1 - (TAG - v if v < TAG else 0)
            x = symbols[before]
            if x >= 0:
                delta[chr(x) + a] -= c
                k = chr(x) + new
                delta[k] += c
                where[k].append(before)
            v = symbols[q + 1]
            beyond = q + 1 + (TAG - v if v < TAG else 0)
            y = symbols[beyond]
            if y >= 0:
                delta[b + chr(y)] -= c
                k = new + chr(y)
                delta[k] += c
                where[k].append(p)
            symbols[q] = DEAD
            symbols[p] = token
            symbols[p + 1] = symbols[beyond - 1] = TAG - (beyond - 1 - p)
            replaced += c
            merged.append(p)
            absorbed.append(q)
        found = Occurrences(np.array(merged, dtype=np.int32), np.array(absorbed, dtype=np.int32))
        return found, replaced

    def unmerge(
        self, found: Occurrences, a: str, b: str, new: str, delta: defaultdict[str, int], where: Where
    ) -> None:
        """Undo :meth:`merge`, the last occurrence first (so each sees the slots its merge left)."""
        symbols = self._views[0]
        left, right = ord(a), ord(b)
        pair = a + b
        merged = found.merged.tolist()[::-1]
        for p, q, c in zip(merged, found.absorbed.tolist()[::-1], self.weights_at(merged), strict=True):
            v = symbols[p + 1]
            beyond = p + 1 + (TAG - v if v < TAG else 0)
            y = symbols[beyond]
            if y >= 0:
                delta[new + chr(y)] -= c
                k = b + chr(y)
                delta[k] += c
                where[k].append(q)
            v = symbols[p - 1]
            before = p - 1 - (TAG - v if v < TAG else 0)
            x = symbols[before]
            if x >= 0:
                delta[chr(x) + new] -= c
                k = chr(x) + a
                delta[k] += c
                where[k].append(before)
            symbols[p] = left
            symbols[q] = right
            if q - p > 1:
                symbols[p + 1] = symbols[q - 1] = TAG - (q - p - 1)
            if beyond - q > 1:
                symbols[q + 1] = symbols[beyond - 1] = TAG - (beyond - q - 1)
            where[pair].append(p)
