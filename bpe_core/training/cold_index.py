"""The pair index as it stood when a session opened, in flat arrays: its "cold" part.

Opening a session of a million word types would otherwise make a million segmentation strings
and, for every distinct pair, a count entry and a list of words: Python objects of 50 to 150
bytes each, many times the size of the file. Here the segmentations are one array of symbol
ids and the pairs three sorted arrays. The index (``bpe_core.training.pair_index``) keeps Python objects
only for what has changed since, "warm" words and pairs: a word is decoded from here the first
time a merge or an undo touches it, a pair's count is taken from here the first time it
changes. Words holding a pair or a symbol are found by scanning the symbol array (milliseconds
for ten million symbols; a scan for a pair starts at its first word and stops once it has found
as many words as hold it), so no word lists are kept for cold pairs.

Pairs are coded ``left << SHIFT | right`` (ids are below 2^21). Arrays never change once built,
except the flags saying which words are warm and which pairs' counts moved out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from bpe_core.pipeline.corpus import weighted_total
from bpe_core.runtime.memory import spare_array

SHIFT = 21
MASK = (1 << SHIFT) - 1
# Work on the symbol array is done this many symbols at a time, so that temporary arrays stay
# below a megabyte whatever the corpus (they would otherwise make the peak of memory at opening).
SLICE = 1 << 12
# A scan for a pair's words starts with a window of this many symbols and doubles it: a nearby
# word is found at once, a scan of the whole array takes a few windows.
WINDOW = 1 << 20


def group_heads(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values starts in a sorted array."""
    if not len(ordered):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))


def words_at(starts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The word holding each symbol position, given where each word starts. The positions are
    cast to the starts' type first: numpy would otherwise cast all the starts to theirs (an
    int64 copy of every word's start, on each call)."""
    return np.searchsorted(starts, positions.astype(starts.dtype, copy=False), side="right") - 1


def key_of(code: int) -> str:
    """A pair's key in the index (two symbol characters) from its code."""
    return chr(code >> SHIFT) + chr(code & MASK)


def code_of(key: str) -> int:
    return (ord(key[0]) << SHIFT) | ord(key[1])


class ColdIndex:
    """Segmentations and pair counts of every word type at one moment, flat.

    Attributes
    ----------
    symbols : every word's symbol ids end to end (2 bytes each while ids fit, else 4).
    starts : where each word's symbols begin, and where the last ends (``n_words + 1`` entries).
    warm : per word, whether the index now holds it as a string (then it is not read here).
    counts : the distinct pairs' weighted counts (overlapping occurrences included), in the
        order of their codes (see :meth:`codes_at`).
    holders : per pair, how many words not yet warm hold it (a scan for them can stop there).
    shadowed : per pair, whether its count has moved to the index (then it is not read here).
    n_ids : ids below this existed when the arrays were built; no later id is in them.
    """

    def __init__(self, symbols: np.ndarray, starts: np.ndarray, weights: np.ndarray, n_ids: int) -> None:
        self.symbols = symbols
        self.starts = starts
        self.n_ids = n_ids
        # Flags are set a few at a time as words warm up: their pages take memory only then.
        self.warm = spare_array(len(starts) - 1, np.bool_)
        # Pairs are kept as ``left * n_ids + right`` in 4 bytes while that fits (ids below
        # 2^16), else as their codes: in the same order either way.
        self._radix = n_ids if n_ids <= 1 << 16 else None
        # Where each pair's first word is, to 2 bytes: the first word's block of 2^shift words
        # (each word itself while there are at most 2^16), where a scan for it starts.
        self._shift = max(0, (len(starts) - 2).bit_length() - 16)
        self._codes, self.counts, self.holders, self._first_block = _pair_table(
            symbols, starts, weights, self._radix, self._shift
        )
        self.shadowed = spare_array(len(self._codes), np.bool_)
        self.n_shadowed = 0
        # The first cold word found to hold a pair, by row, for the pairs asked about: it only
        # moves forward as words warm up.
        self._first: dict[int, int] = {}

    # -- pairs -----------------------------------------------------------------------------

    @property
    def live(self) -> int:
        """Pairs whose count is still read here."""
        return len(self._codes) - self.n_shadowed

    def codes_at(self, rows: np.ndarray | slice) -> np.ndarray:
        """The codes (``left << SHIFT | right``) of the pairs of these rows."""
        stored = self._codes[rows]
        if self._radix is None:
            return stored
        left, right = np.divmod(stored.astype(np.int64), self._radix)
        return (left << SHIFT) | right

    def find(self, codes: np.ndarray) -> np.ndarray:
        """The row of each code in the pair table, or -1."""
        if self._radix is not None:
            left, right = codes >> SHIFT, codes & MASK
            fits = (left < self._radix) & (right < self._radix)
            codes = np.where(fits, left * self._radix + right, -1)
        rows = np.searchsorted(self._codes, codes.astype(self._codes.dtype, copy=False))
        rows[rows == len(self._codes)] = 0
        if len(self._codes):
            rows[self._codes[rows] != codes] = -1
        else:
            rows[:] = -1
        return rows

    def _row(self, key: str) -> int:
        left, right, radix = ord(key[0]), ord(key[1]), self._radix
        if radix is not None and (left >= radix or right >= radix):
            return -1
        code = (left << SHIFT) | right if radix is None else left * radix + right
        # A needle of the table's own type: any other makes numpy convert the whole table.
        row = int(np.searchsorted(self._codes, self._codes.dtype.type(code)))
        return row if row < len(self._codes) and int(self._codes[row]) == code else -1

    def count(self, key: str) -> int:
        """The pair's count if it is still read here, else 0."""
        row = self._row(key)
        return 0 if row < 0 or self.shadowed[row] else int(self.counts[row])

    def take(self, keys: list[str]) -> Iterator[tuple[str, int]]:
        """The counts of those ``keys`` still read here, which from now on are the index's."""
        rows = self.find(np.fromiter(map(code_of, keys), dtype=np.int64, count=len(keys)))
        found = np.flatnonzero(rows >= 0)
        found = found[~self.shadowed[rows[found]]]
        rows = rows[found]
        self.shadowed[rows] = True
        self.n_shadowed += len(rows)
        for i, count in zip(found.tolist(), self.counts[rows].tolist(), strict=True):
            yield keys[i], count

    def live_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Codes and counts of the pairs still read here."""
        live = ~self.shadowed
        return self.codes_at(live), self.counts[live]

    def rows_below(self, ceiling: int | None, batch: int) -> tuple[np.ndarray, int]:
        """The rows of the highest counts below ``ceiling`` (``None``: any), every row of a
        count or none, and the lowest of those counts (0 when no row is below): about
        ``batch`` rows, unless the highest count alone has more (late in a history thousands of
        pairs share a count, and only the highest ones are needed now)."""
        counts = self.counts
        below = counts if ceiling is None else counts[counts < ceiling]
        if not len(below):
            return np.zeros(0, dtype=np.int64), 0
        cut = max(len(below) - batch, 0)
        below = np.partition(below, cut)
        floor = int(below[cut])
        if int((below >= floor).sum()) > 2 * batch and floor < int(below.max()):
            floor = int(below[below > floor].min())  # leave the large group of the lowest count
        del below
        within = counts >= floor
        if ceiling is not None:
            within &= counts < ceiling
        return np.flatnonzero(within), floor

    def highest_below(self, ceiling: int | None) -> int:
        """The highest count below ``ceiling`` (``None``: any), or 0."""
        counts = self.counts if ceiling is None else self.counts[self.counts < ceiling]
        return int(counts.max(initial=0))

    def first_word(self, key: str) -> int | None:
        """The first word not yet warm that holds the pair here, or ``None``. The word found is
        kept: it only moves forward, as a word once warm is never read here again."""
        row = self._row(key)
        if row < 0 or not self.holders[row]:
            return None
        word = self._first.get(row)
        if word is None:  # from the first word of its block: a short scan
            start = int(self.starts[int(self._first_block[row]) << self._shift])
            word = self._first[row] = int(self._holding(row, key, start, 1, SLICE)[0])
        elif self.warm[word]:
            word = self._first[row] = int(self._holding(row, key, int(self.starts[word + 1]), 1)[0])
        return word

    def holder_count(self, key: str) -> int:
        """How many words not yet warm hold the pair."""
        row = self._row(key)
        return 0 if row < 0 else int(self.holders[row])

    def _holding(self, row: int, key: str, start: int, wanted: int, window: int = WINDOW) -> np.ndarray:
        """The first ``wanted`` words not yet warm that hold pair ``row`` from symbol ``start``
        on (there are at least that many), ascending. Scanned in windows that double, so that
        a nearby word is found at once and a full scan takes a few of them."""
        symbols, starts, warm = self.symbols, self.starts, self.warm
        left, right = ord(key[0]), ord(key[1])
        found: list[np.ndarray] = []
        last, size = -1, window
        while wanted > 0:
            stop = min(start + size, len(symbols) - 1)
            at = start + np.flatnonzero(symbols[start:stop] == left)
            at = at[symbols[at + 1] == right]
            words = words_at(starts, at)
            words = words[(at + 1 < starts[words + 1]) & ~warm[words]]  # within one cold word
            if len(words):  # positions ascend, so a word's repeats are side by side
                fresh = np.empty(len(words), dtype=bool)
                fresh[0] = words[0] != last
                np.not_equal(words[1:], words[:-1], out=fresh[1:])
                words = words[fresh][:wanted]
                if len(words):
                    found.append(words)
                    wanted -= len(words)
                    last = int(words[-1])
            start, size = stop, 2 * size
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)

    # -- words -----------------------------------------------------------------------------

    def words_with_pair(self, key: str) -> np.ndarray:
        """The words not yet warm holding the pair, ascending: scanned for from the first of
        them until all are found."""
        first = self.first_word(key)
        if first is None:
            return np.zeros(0, dtype=np.int64)
        row = self._row(key)
        return self._holding(row, key, int(self.starts[first]), int(self.holders[row]))

    def words_with_symbol(self, symbol: int) -> np.ndarray:
        """The cold words holding the symbol, ascending."""
        if symbol >= self.n_ids:
            return np.zeros(0, dtype=np.int64)
        at = np.flatnonzero(self.symbols == symbol)
        words = words_at(self.starts, at)
        words = words[~self.warm[words]]
        return np.unique(words)

    def symbol_totals(self, weights: np.ndarray, n_symbols: int) -> np.ndarray:
        """Each symbol's weighted occurrences (summed in float64: the caller keeps the corpus'
        total below 2^53, where that is exact)."""
        totals = np.zeros(n_symbols, dtype=np.int64)
        starts = self.starts
        cuts = words_at(starts, np.arange(0, int(starts[-1]), SLICE))
        for first, last in itertools.pairwise([*sorted(set(cuts.tolist())), len(starts) - 1]):
            low, high = int(starts[first]), int(starts[last])
            weight = np.repeat(weights[first:last].astype(np.float64), np.diff(starts[first : last + 1]))
            totals += np.bincount(self.symbols[low:high], weights=weight, minlength=n_symbols).astype(
                np.int64
            )
        return totals

    def length(self, word: int) -> int:
        return int(self.starts[word + 1] - self.starts[word])

    def seg(self, word: int) -> str:
        """A word's segmentation here as a symbol string."""
        start, stop = int(self.starts[word]), int(self.starts[word + 1])
        return self.symbols[start:stop].astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")

    def warm_up(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, Groups]:
        """Mark ``words`` (not yet warm) warm. Returns their symbols end to end, each one's
        length, and the words holding each pair they hold (codes for keys; ascending words if
        ``words`` is)."""
        symbols, lengths = self.gather(words)
        self.warm[words] = True
        holders = pair_holders(words, symbols, lengths)
        rows = self.find(np.array(holders.keys, dtype=np.int64))  # the words were cold: so are their pairs
        self.holders[rows] -= (np.diff(holders.bounds) // 4).astype(self.holders.dtype)
        return symbols, lengths, holders

    def gather(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The symbols of ``words`` end to end (as int64) and each word's length."""
        lengths = self.starts[words + 1] - self.starts[words]
        offsets = np.cumsum(lengths) - lengths
        index = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(
            self.starts[words] - offsets, lengths
        )
        return self.symbols[index].astype(np.int64), lengths

    def segs(self, symbols: np.ndarray, lengths: np.ndarray) -> list[str]:
        """The symbol strings of words gathered by :meth:`gather`."""
        if not len(lengths):
            return []
        separator = int(symbols.max(initial=0)) + 1
        joined = np.full(len(symbols) + len(lengths), separator, dtype=np.uint32)
        word_rank = np.repeat(np.arange(len(lengths)), lengths)
        joined[np.arange(len(symbols)) + word_rank] = symbols
        return joined.tobytes().decode("utf-32-le", "surrogatepass").split(chr(separator))[:-1]


class Groups(NamedTuple):
    """Word lists by key, as ``array("i")`` bytes: key ``keys[i]`` has the words in
    ``listed[bounds[i] : bounds[i + 1]]`` (made to be appended with ``array.frombytes``, which
    is many times cheaper than lists of Python ints)."""

    keys: list[int]
    listed: bytes
    bounds: list[int]

    def __iter__(self) -> Iterator[tuple[int, bytes]]:  # type: ignore[override]
        listed, bounds = self.listed, self.bounds
        return ((key, listed[bounds[i] : bounds[i + 1]]) for i, key in enumerate(self.keys))


def grouped(keys: np.ndarray, owners: np.ndarray) -> Groups:
    """``owners`` (word indices) grouped by ``keys``, both in key order."""
    heads = group_heads(keys)
    return Groups(
        keys[heads].tolist(), owners.astype(np.int32).tobytes(), [*(4 * heads).tolist(), 4 * len(keys)]
    )


def pair_holders(words: np.ndarray, symbols: np.ndarray, lengths: np.ndarray) -> Groups:
    """Each distinct pair (its code) in the gathered words, with the words holding it
    (ascending if ``words`` is)."""
    if len(symbols) < 2:
        return Groups([], b"", [0])
    owner = np.repeat(words, lengths)
    inside = owner[1:] == owner[:-1]
    codes = (symbols[:-1][inside] << SHIFT) | symbols[1:][inside]
    owner = owner[:-1][inside]
    order = np.lexsort((owner, codes))
    codes, owner = codes[order], owner[order]
    distinct = np.ones(len(codes), dtype=bool)
    distinct[1:] = (codes[1:] != codes[:-1]) | (owner[1:] != owner[:-1])
    return grouped(codes[distinct], owner[distinct])


def _pair_table(
    symbols: np.ndarray, starts: np.ndarray, weights: np.ndarray, radix: int | None, shift: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct adjacent pairs (ascending, as ``left * radix + right`` in 4 bytes, or as
    codes without a radix), their weighted counts, how many words hold each and the block
    (``word >> shift``) of the first of them.

    Pairs are taken in groups of left ids holding about ``SLICE`` positions each, or a 64th of
    all (each group scans the whole array): their codes then come out ascending group after
    group, written in place, and no temporary array outgrows a group.
    """
    n_words = len(starts) - 1
    if len(symbols) < 2 or not n_words:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint16)
    lefts = np.zeros(int(symbols.max()) + 1, dtype=np.int64)
    for start in range(0, len(symbols) - 1, SLICE):  # bincount makes 8 bytes a symbol of its input
        part = symbols[start : min(start + SLICE, len(symbols) - 1)]
        lefts[: int(part.max()) + 1] += np.bincount(part)
    cuts = _group_cuts(np.cumsum(lefts), max(SLICE, len(symbols) // 64))
    word_bits = n_words.bit_length()
    # At most one pair per position but a word's last: the arrays are cut to the pairs found.
    capacity = len(symbols) - n_words
    lengths = np.diff(starts)
    narrow = weighted_total(lengths, weights) < 2**31  # every count fits 4 bytes
    del lengths
    codes_out = spare_array(capacity, np.int64 if radix is None else np.uint32)
    counts_out = spare_array(capacity, np.int32 if narrow else np.int64)
    holders_out = spare_array(capacity, np.int32)
    first_out = spare_array(capacity, np.uint16)
    done = 0
    for low, high in itertools.pairwise(cuts):
        at = _positions_between(symbols, low, high)
        words = words_at(starts, at)
        inside = at + 1 < starts[words + 1]
        at, words = at[inside], words[inside]
        if not len(at):
            continue
        codes = (symbols[at].astype(np.int64) << SHIFT) | symbols[at + 1]
        del at
        if 2 * SHIFT + word_bits <= 63:  # pair then word as one int64: one sort
            codes <<= word_bits
            codes |= words
            codes.sort()
            words = codes & ((1 << word_bits) - 1)
            codes >>= word_bits
        else:
            order = np.lexsort((words, codes))
            codes, words = codes[order], words[order]
        heads = group_heads(codes)
        found = slice(done, done + len(heads))
        word_heads = np.ones(len(codes), dtype=bool)  # each (pair, word) once
        word_heads[1:] = (codes[1:] != codes[:-1]) | (words[1:] != words[:-1])
        holders_out[found] = np.add.reduceat(word_heads, heads, dtype=np.int32)
        del word_heads
        codes = codes[heads]
        codes_out[found] = codes if radix is None else (codes >> SHIFT) * radix + (codes & MASK)
        counts_out[found] = np.add.reduceat(weights[words], heads)  # int32 counts sum as int64
        first_out[found] = words[heads] >> shift  # a pair's words come out ascending
        done += len(heads)
    # Late in a history every pair is rare: counts and holders then fit a byte or two.
    return codes_out[:done], _narrowest(counts_out[:done]), _narrowest(holders_out[:done]), first_out[:done]


def _narrowest(values: np.ndarray) -> np.ndarray:
    """Non-negative ``values`` in the narrowest unsigned type that holds them (a copy, if that
    is narrower)."""
    top = int(values.max(initial=0))
    for kind in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind) if np.dtype(kind).itemsize < values.itemsize else values
    return values


def _group_cuts(cumulative: np.ndarray, size: int) -> list[int]:
    """Left-id boundaries of groups holding about ``size`` positions each (a single id may hold
    more)."""
    cuts = [0]
    total = int(cumulative[-1]) if len(cumulative) else 0
    while cuts[-1] < len(cumulative):
        done = int(cumulative[cuts[-1] - 1]) if cuts[-1] else 0
        if done >= total:
            cuts.append(len(cumulative))
            break
        cut = int(np.searchsorted(cumulative, done + size, side="right"))
        cuts.append(max(cut, cuts[-1] + 1))
    return cuts


def _positions_between(symbols: np.ndarray, low: int, high: int) -> np.ndarray:
    """Positions (but the last) whose symbol is in ``[low, high)``, slice by slice (the masks
    of a slice take a byte a symbol: slices longer than ``SLICE`` keep the calls few)."""
    parts = []
    scan = 16 * SLICE
    for start in range(0, len(symbols) - 1, scan):
        part = symbols[start : min(start + scan, len(symbols) - 1)]
        parts.append(start + np.flatnonzero((part >= low) & (part < high)))
    return np.concatenate(parts)
