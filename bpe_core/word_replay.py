"""Replaying a saved merge history on every word at once (opening a session).

Training must merge one pair at a time over the whole corpus, because each choice depends on
the counts the previous merges left. Replaying a *known* history need not: each word can be
taken on its own. When every merge makes a new token (an id no earlier pair can name), the
merges that change a word are found in rank order by repeatedly merging the lowest-ranked pair
present in it, as an encoder does. That is exactly what the sequential run did to the word: a
pair of rank j still present after merge k > j would have to contain a token made after j,
which pair j cannot name.

All words advance together, one merge each per round, as numpy operations over one array of
symbols; words with nothing left to merge leave the array. A round therefore costs time
proportional to the symbols still in play, and there are as many rounds as the most merges
any one word takes. Along the way each merge's weighted count (adjacent occurrences,
overlapping included, as the trainer counts them), its replacements and the words it changed
are collected, so the caller can check the history against the corpus and undo any merge.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bpe_core.batch_merge import separator, symbols_of

NONE = np.iinfo(np.int32).max  # rank of a pair no merge names


@dataclass(slots=True)
class Replayed:
    """The outcome of :func:`replay_words` (lists are per merge, in history order)."""

    segs: list[str]  # each word's segmentation after the merges
    counts: list[int]  # weighted adjacent occurrences of the pair when it was merged
    replacements: list[int]  # weighted non-overlapping replacements
    words: list[array]  # the word types each merge changed


class _Ranks:
    """Pair -> rank of the first merge of that pair, looked up for a whole array at once.

    An open-addressing hash table (a quarter full at most) in two numpy arrays: a lookup costs a
    few vectorised passes, several times cheaper than a binary search of the sorted pairs.
    """

    _MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits are well mixed

    def __init__(self, merges: Sequence[tuple[int, int, int]]) -> None:
        bits = max(10, (4 * len(merges)).bit_length())
        self._mask = (1 << bits) - 1
        self._shift = np.uint64(64 - bits)
        self._codes = np.full(1 << bits, -1, dtype=np.int64)  # -1: an empty slot
        self._ranks = np.full(1 << bits, NONE, dtype=np.int32)
        codes = [(left << 21) | right for left, right, _ in merges]
        slots = self._slot(np.array(codes, dtype=np.int64)).tolist()
        table = self._codes
        for rank, (code, slot) in enumerate(zip(codes, slots, strict=True)):
            while table[slot] != -1 and table[slot] != code:
                slot = (slot + 1) & self._mask
            if table[slot] == -1:  # a pair merged again later keeps its first rank
                table[slot] = code
                self._ranks[slot] = rank

    def _slot(self, codes: np.ndarray) -> np.ndarray:
        return ((codes.view(np.uint64) * self._MULTIPLIER) >> self._shift).astype(np.int64)

    def of(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (``left[i]``, ``right[i]``), or NONE."""
        codes = (left.astype(np.int64) << 21) | right
        found = np.full(len(codes), NONE, dtype=np.int32)
        slots = self._slot(codes)
        pending = np.arange(len(codes))
        while len(pending):
            stored = self._codes[slots]
            hit = stored == codes
            found[pending[hit]] = self._ranks[slots[hit]]
            probe = np.flatnonzero(~hit & (stored != -1))  # a collision: try the next slot
            pending, codes, slots = pending[probe], codes[probe], (slots[probe] + 1) & self._mask
        return found


# Words are replayed in chunks of about this many symbols: the temporary arrays stay small
# (in cache, and a few megabytes whatever the corpus).
CHUNK = 1 << 18


class _Changes:
    """What each merge did, gathered chunk by chunk: its weighted count and replacements, and
    the words it changed (kept per chunk grouped by merge, and laid end to end at the end)."""

    def __init__(self, n_merges: int, weights: np.ndarray) -> None:
        self.n_merges = n_merges
        self.weights = weights
        self.counts = np.zeros(n_merges)
        self.replacements = np.zeros(n_merges)
        self._chunks: list[tuple[np.ndarray, np.ndarray]] = []  # (words by merge, words per merge)

    def add(self, rank: np.ndarray, word: np.ndarray, matched: np.ndarray, replaced: np.ndarray) -> None:
        """One chunk's changes: per (merge, word) pair the merge's rank, the word, the pair's
        occurrences in it and the replacements made."""
        n = self.n_merges
        weight = self.weights[word].astype(np.float64)
        self.counts += np.bincount(rank, weights=weight * matched, minlength=n)
        self.replacements += np.bincount(rank, weights=weight * replaced, minlength=n)
        # Ranks fit 16 bits for up to 65,536 merges, where numpy's stable sort is a radix sort.
        order = np.argsort(rank.astype(np.uint16) if n <= 1 << 16 else rank, kind="stable")
        self._chunks.append((word[order], np.bincount(rank, minlength=n)))

    def words(self) -> list[array]:
        """The words each merge changed (in chunk order, so ascending)."""
        per_merge = sum((counts for _, counts in self._chunks), np.zeros(self.n_merges, np.int64))
        offsets = np.concatenate(([0], np.cumsum(per_merge)))
        laid = np.empty(offsets[-1], dtype=np.int32)
        filled = offsets[:-1].copy()
        chunks, self._chunks = self._chunks, []
        chunks.reverse()
        while chunks:  # the chunk's words of merge k go after earlier chunks'; each freed once laid
            words, counts = chunks.pop()
            starts = np.cumsum(counts) - counts
            laid[np.arange(len(words)) + np.repeat(filled - starts, counts)] = words
            filled += counts
            del words
        lists = []
        for start, end in itertools.pairwise(offsets.tolist()):
            listed = array("i")
            listed.frombytes(laid[start:end].data.cast("B"))
            lists.append(listed)
        return lists


def replay_words(
    segs: Sequence[str],
    weights: np.ndarray,
    merges: Sequence[tuple[int, int, int]],
    n_symbols: int,
    progress: Callable[[float], None] | None = None,
) -> Replayed:
    """Apply ``merges`` ((left, right, new token) ids, in order) to every word of ``segs``.

    Preconditions (the caller checks them): every new token is an id above all ids in use
    before its merge, ids stay below ``n_symbols``, and the weighted symbol total is below 2^53
    (counts are summed in float64, exact below that). ``progress(fraction)`` reports how much is
    done; it may raise to stop.
    """
    sep = separator(n_symbols)
    ranks = _Ranks(merges)
    token_of = np.array([t for _, _, t in merges], dtype=np.int32)
    ends = np.cumsum(np.fromiter(map(len, segs), dtype=np.int64, count=len(segs)))
    bounds = [
        0,
        *np.unique(np.searchsorted(ends, np.arange(CHUNK, ends[-1] if len(ends) else 0, CHUNK))).tolist(),
    ]
    bounds.append(len(segs))
    changes = _Changes(len(merges), weights)
    replayed: list[str] = []
    for start, end in itertools.pairwise(bounds):
        if start < end:
            replayed += _replay_chunk(segs[start:end], start, sep, ranks, token_of, changes)
        if progress is not None:
            progress(end / max(1, len(segs)))
    counts = changes.counts.astype(np.int64).tolist()
    return Replayed(replayed, counts, changes.replacements.astype(np.int64).tolist(), changes.words())


def _replay_chunk(
    segs: Sequence[str], first: int, sep: str, ranks: _Ranks, token_of: np.ndarray, changes: _Changes
) -> list[str]:
    """Replay the words ``segs`` (the first is word ``first``); their changes go to ``changes``."""
    codes = symbols_of(sep.join(segs)).view(np.int32)  # ids are below 2^21
    boundary = codes == ord(sep)
    word = np.cumsum(boundary, dtype=np.int32)[~boundary]  # word index (in the chunk) of every symbol
    sym = codes[~boundary]

    def rank_at(at: np.ndarray) -> np.ndarray:
        """The rank of the pair starting at each of the positions ``at`` (NONE at a word's end)."""
        inside = at + 1 < len(sym)
        after = np.where(inside, at + 1, at)
        rank = ranks.of(sym[at], sym[after])
        rank[~inside | (word[after] != word[at])] = NONE
        return rank

    done_sym: list[np.ndarray] = []
    done_word: list[np.ndarray] = []
    merged: list[list[np.ndarray]] = [[], [], [], []]  # see _Changes.add
    rank = np.append(ranks.of(sym[:-1], sym[1:]), NONE)
    rank[:-1][word[1:] != word[:-1]] = NONE
    while len(sym):
        starts = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
        lowest = np.minimum.reduceat(rank, starts)
        lowest_at = np.repeat(lowest, np.diff(np.append(starts, len(sym))))
        finished = lowest_at == NONE
        if finished.any():  # these words are final: set them aside
            done_sym.append(sym[finished])
            done_word.append(word[finished])
            live = ~finished
            sym, word, rank, lowest_at = sym[live], word[live], rank[live], lowest_at[live]
            if not len(sym):
                break
            starts = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
            lowest = lowest[lowest != NONE]
        # Every remaining word merges its lowest-ranked pair: all its occurrences, left to right
        # without overlap (in a run of equal pairs, as in "aaaa", every second one).
        match = rank == lowest_at
        run_start = match & ~np.concatenate(([False], match[:-1]))
        index = np.arange(len(sym), dtype=np.int32)
        first_of_run = np.maximum.accumulate(np.where(run_start, index, 0))
        chosen = match & ((index - first_of_run) % 2 == 0)
        merged[0].append(lowest)
        merged[1].append(word[starts] + first)
        merged[2].append(np.add.reduceat(match, starts, dtype=np.int32))
        merged[3].append(np.add.reduceat(chosen, starts, dtype=np.int32))
        at = np.flatnonzero(chosen)
        sym[at] = token_of[rank[at]]
        keep = np.ones(len(sym), dtype=bool)
        keep[at + 1] = False
        sym, word, rank = sym[keep], word[keep], rank[keep]
        # Only the pairs next to a new token changed: the one it starts and the one before it.
        at -= np.arange(len(at))  # each earlier occurrence removed one symbol before it
        rank[at] = rank_at(at)
        before = at[at > 0] - 1
        rank[before] = rank_at(before)
    if merged[0]:
        changes.add(*(np.concatenate(parts) for parts in merged))
    return _segs(done_sym, done_word, len(segs), sep)


def _segs(done_sym: list[np.ndarray], done_word: list[np.ndarray], n_words: int, sep: str) -> list[str]:
    """Each word's final symbols as a symbol string, words in their original order."""
    sym = np.concatenate(done_sym) if done_sym else np.zeros(0, np.int32)
    word = np.concatenate(done_word) if done_word else np.zeros(0, np.int32)
    order = np.argsort(word, kind="stable")  # a word leaves in one piece, its order intact
    sym, word = sym[order], word[order]
    # One separator after each word: symbol i of the sorted array lands word[i] places later.
    joined = np.full(len(sym) + n_words, ord(sep), dtype=np.uint32)
    joined[np.arange(len(sym)) + word] = sym
    return joined.tobytes().decode("utf-32-le", "surrogatepass").split(sep)[:-1]
