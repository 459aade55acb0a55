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
overlapping included, as the trainer counts them) and its replacements are summed, so the caller
can check the history against the corpus. Which words a merge changed is not kept: undo finds
them when it needs them (``bpe_core.pair_index``), as the words holding the merged token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from bpe_core.memory import spare_array

NONE = np.iinfo(np.int32).max  # rank of a pair no merge names


@dataclass(slots=True)
class Replayed:
    """The outcome of :func:`replay_words` (int64 arrays per merge, in history order)."""

    counts: np.ndarray  # weighted adjacent occurrences of the pair when it was merged
    replacements: np.ndarray  # weighted non-overlapping replacements
    symbols: np.ndarray  # with ``keep``: every word's symbols after the merges, end to end
    starts: np.ndarray  # with ``keep``: where each word's symbols begin (and the last ends)


class _Ranks:
    """Pair -> rank of the first merge of that pair, looked up for a whole array at once.

    An open-addressing hash table (a quarter full at most) in two numpy arrays: a lookup costs a
    few vectorised passes, several times cheaper than a binary search of the sorted pairs.
    """

    _MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits are well mixed

    def __init__(self, left: np.ndarray, right: np.ndarray) -> None:
        bits = max(10, (4 * len(left)).bit_length())
        self._mask = (1 << bits) - 1
        self._shift = np.uint64(64 - bits)
        self._codes = np.full(1 << bits, -1, dtype=np.int64)  # -1: an empty slot
        self._ranks = np.full(1 << bits, NONE, dtype=np.int32)
        codes = (left.astype(np.int64) << 21) | right
        slots = self._slot(codes).tolist()
        table = self._codes
        for rank, (code, slot) in enumerate(zip(codes.tolist(), slots, strict=True)):
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


class _Changes:
    """Each merge's weighted count and replacements, summed chunk by chunk."""

    def __init__(self, n_merges: int, weights: np.ndarray) -> None:
        self.n_merges = n_merges
        self.weights = weights
        self.counts = np.zeros(n_merges)
        self.replacements = np.zeros(n_merges)

    def add(self, rank: np.ndarray, word: np.ndarray, matched: np.ndarray, replaced: np.ndarray) -> None:
        """One chunk's changes: per (merge, word) pair the merge's rank, the word, the pair's
        occurrences in it and the replacements made."""
        weight = self.weights[word].astype(np.float64)
        self.counts += np.bincount(rank, weights=weight * matched, minlength=self.n_merges)
        self.replacements += np.bincount(rank, weights=weight * replaced, minlength=self.n_merges)


Chunk = tuple[np.ndarray, np.ndarray]  # a run of words: their symbols end to end, each one's length
Merges = tuple[np.ndarray, np.ndarray, np.ndarray]  # each merge's left, right and new token id


def replay_words(
    chunks: Iterable[Chunk],
    weights: np.ndarray,
    merges: Merges,
    n_symbols: int,
    progress: Callable[[float], None] | None = None,
    keep: bool = True,
    capacity: int = 0,
) -> Replayed:
    """Apply ``merges`` (arrays of their left, right and new token ids, in order) to every word.

    ``chunks`` gives the words in order, a run at a time (symbol ids as int32 and each word's
    length); ``weights`` are the words' counts. With ``keep`` the words' symbols after the merges
    are returned, 2 bytes each while ids fit (the index's cold part, ``bpe_core.cold_index``);
    ``capacity`` is then the number of symbols before them.

    Preconditions (the caller checks them): every new token is an id above all ids in use
    before its merge, ids stay below ``n_symbols``, and the weighted symbol total is below 2^53
    (counts are summed in float64, exact below that). ``progress(fraction)`` reports how much is
    done; it may raise to stop.
    """
    left, right, token = merges
    ranks = _Ranks(left, right)
    token_of = token.astype(np.int32)
    changes = _Changes(len(token_of), weights)
    dtype = np.uint16 if n_symbols <= 1 << 16 else np.uint32
    # The words' symbols after the merges, written in place: merges only shorten words, so
    # there are at most ``capacity`` of them.
    symbols_out = spare_array(capacity if keep else 0, dtype)
    starts = np.zeros(len(weights) + 1 if keep else 1, dtype=np.int32 if capacity < 2**31 else np.int64)
    first = 0
    for symbols, lengths in chunks:
        if len(lengths):
            done, done_lengths = _replay_chunk(symbols, lengths, first, ranks, token_of, changes)
            if keep:
                at = int(starts[first])
                symbols_out[at : at + len(done)] = done
                np.cumsum(done_lengths, out=done_lengths)
                starts[first + 1 : first + 1 + len(lengths)] = done_lengths + at
            first += len(lengths)
        if progress is not None:
            progress(first / max(1, len(weights)))
    del ranks
    counts = changes.counts.astype(np.int64)
    replacements = changes.replacements.astype(np.int64)
    return Replayed(counts, replacements, symbols_out[: starts[-1]], starts)


def _replay_chunk(
    sym: np.ndarray, lengths: np.ndarray, first: int, ranks: _Ranks, token_of: np.ndarray, changes: _Changes
) -> tuple[np.ndarray, np.ndarray]:
    """Replay a run of words (the first is word ``first``); their changes go to ``changes``.
    Returns their symbols afterwards, end to end, and each one's length."""
    n_words = len(lengths)
    word = np.repeat(np.arange(n_words, dtype=np.int32), lengths)  # word (in the chunk) of every symbol

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
    del merged
    lengths = np.zeros(n_words, dtype=np.int64)
    for word in done_word:
        lengths += np.bincount(word, minlength=n_words)
    # A word leaves in one piece, its symbols in order, and each piece lists its words in
    # order: a symbol's place is its word's start plus its rank within that word.
    out = np.empty(int(lengths.sum()), dtype=np.int32)
    word_starts = np.cumsum(lengths) - lengths
    for sym, word in zip(done_sym, done_word, strict=True):
        heads = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
        rank_in_word = np.arange(len(word)) - np.repeat(heads, np.diff(np.append(heads, len(word))))
        out[word_starts[word] + rank_in_word] = sym
    return out, lengths
