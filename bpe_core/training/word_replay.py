"""Replaying a saved merge history on every word at once (opening a session).

Training must merge one pair at a time over the whole corpus, because each choice depends on
the counts the previous merges left. Replaying a *known* history need not: each word can be
taken on its own. When every merge makes a new token (an id no earlier pair can name), the
merges that change a word are found in rank order by repeatedly merging the lowest-ranked pair
present in it, as an encoder does. That is exactly what the sequential run did to the word: a
pair of rank j still present after merge k > j would have to contain a token made after j,
which pair j cannot name.

The words of a run of the corpus advance together, one merge each per round, as numpy
operations over one array of symbols; words with nothing left to merge leave the array, and the
few a run leaves go on with the next run's. A round therefore costs time proportional to the
symbols still in play. Along the way each merge's weighted count (adjacent occurrences,
overlapping included, as the trainer counts them) and its replacements are summed, so the caller
can check the history against the corpus. Which words a merge changed is not kept: undo finds
them when it needs them (``bpe_core.training.pair_index``), as the words holding the merged token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from bpe_core.runtime.memory import spare_array

NONE = np.iinfo(np.int32).max  # rank of a pair no merge names


@dataclass(slots=True)
class Replayed:
    """The outcome of :func:`replay_words` (int64 arrays per merge, in history order)."""

    counts: np.ndarray  # weighted adjacent occurrences of the pair when it was merged
    replacements: np.ndarray  # weighted non-overlapping replacements
    symbols: np.ndarray  # with ``keep``: every word's symbols after the merges, end to end
    starts: np.ndarray  # with ``keep``: where each word's symbols begin (and the last ends)


class _Ranks:
    """Pair -> rank of the first merge of that pair, looked up for a whole array at once by a
    binary search of the merges' pairs: every array it makes is as long as the lookup (numpy
    keeps freed arrays under a kilobyte for reuse, up to 3.6 MB of them)."""

    def __init__(self, left: np.ndarray, right: np.ndarray) -> None:
        # Each pair's code (42 bits) and rank as one int64, sorted: by code, then rank, so that
        # a pair merged again later keeps its first rank. Ranks, like ids (code points), are
        # below 2^21.
        packed = (((left.astype(np.int64) << 21) | right) << 21) | np.arange(len(left))
        packed.sort()
        codes = packed >> 21
        first = np.ones(len(codes), dtype=bool)
        first[1:] = codes[1:] != codes[:-1]
        self._codes = codes[first]
        self._ranks = (packed[first] & ((1 << 21) - 1)).astype(np.int32)

    def of(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The rank of each pair (``left[i]``, ``right[i]``), or NONE."""
        codes = (left.astype(np.int64) << 21) | right
        if not len(self._codes):
            return np.full(len(codes), NONE, dtype=np.int32)
        rows = np.searchsorted(self._codes, codes)
        np.minimum(rows, len(self._codes) - 1, out=rows)
        return np.where(self._codes[rows] == codes, self._ranks[rows], NONE).astype(np.int32, copy=False)


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
    are returned, 2 bytes each while ids fit (the index's cold part, ``bpe_core.training.cold_index``);
    ``capacity`` is then the number of symbols before them.

    A run's words advance together until few are left; those go on with the next run's, so
    that the arrays of a round stay long (short ones are what numpy keeps for reuse).

    Preconditions (the caller checks them): every new token is an id above all ids in use
    before its merge, ids stay below ``n_symbols``, and the weighted symbol total is below 2^53
    (counts are summed in float64, exact below that). ``progress(fraction)`` reports how much is
    done; it may raise to stop.
    """
    left, right, token = merges
    ranks = _Ranks(left, right)
    token_of = token.astype(np.int32)
    changes = _Changes(len(token_of), weights)
    placed = _Placement(len(weights), capacity, np.uint16 if n_symbols <= 1 << 16 else np.uint32, keep)
    carried = _Words(np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64))
    first = 0
    for symbols, lengths in chunks:
        if len(lengths):
            words = carried.then(symbols, lengths, np.arange(first, first + len(lengths)))
            first += len(lengths)
            carried = _replay(words, ranks, token_of, changes, placed, final=False)
            placed.place_below(int(carried.ids[0]) if len(carried.ids) else first)
        if progress is not None:
            progress(first / max(1, len(weights)))
    _replay(carried, ranks, token_of, changes, placed, final=True)
    placed.place_below(len(weights))
    del ranks
    counts = changes.counts.astype(np.int64)
    replacements = changes.replacements.astype(np.int64)
    return Replayed(counts, replacements, placed.symbols[: placed.starts[-1]], placed.starts)


# A run's replay stops short of rounds with fewer words or symbols than these: their arrays
# would be under a kilobyte. The words left go on with the next run's.
FEW_WORDS = 256
FEW_SYMBOLS = 1024


@dataclass(slots=True)
class _Words:
    """Words being replayed: their symbols end to end (int32), each one's length and its index
    in the corpus, ascending."""

    symbols: np.ndarray
    lengths: np.ndarray
    ids: np.ndarray

    def then(self, symbols: np.ndarray, lengths: np.ndarray, ids: np.ndarray) -> _Words:
        """These words followed by others (which come after them in the corpus)."""
        if not len(self.ids):
            return _Words(symbols.astype(np.int32, copy=False), lengths, ids)
        return _Words(
            np.concatenate((self.symbols, symbols)).astype(np.int32, copy=False),
            np.concatenate((self.lengths, lengths)),
            np.concatenate((self.ids, ids)),
        )


class _Placement:
    """Where the words' final symbols go: in corpus order, written as soon as every word before
    them is final (words carried over finish later than the words after them)."""

    def __init__(self, n_words: int, capacity: int, dtype: type, keep: bool) -> None:
        self.keep = keep
        # Merges only shorten words: there are at most ``capacity`` symbols.
        self.symbols = spare_array(capacity if keep else 0, dtype)
        # Until a word is placed, its entry after its start holds its length.
        self.starts = np.zeros(n_words + 1 if keep else 1, dtype=np.int32 if capacity < 2**31 else np.int64)
        self.placed = 0  # words before this one are written
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []  # final words not yet written

    def add(self, symbols: np.ndarray, words: np.ndarray) -> None:
        """Final words (corpus indices ascending, each word's symbols together and in order)."""
        if not self.keep or not len(words):
            return
        heads = np.flatnonzero(np.concatenate(([True], words[1:] != words[:-1])))
        self.starts[words[heads] + 1] = np.diff(np.append(heads, len(words)))
        self._pending.append((symbols, words))

    def place_below(self, limit: int) -> None:
        """Write the words before ``limit`` (all final by now)."""
        if not self.keep or limit <= self.placed:
            return
        span = self.starts[self.placed + 1 : limit + 1]
        np.cumsum(span, out=span)
        np.add(span, self.starts[self.placed], out=span)
        self.placed = limit
        pending, self._pending = self._pending, []
        for symbols, words in pending:
            ready = words < limit
            if not ready.all():
                self._pending.append((symbols[~ready], words[~ready]))
                symbols, words = symbols[ready], words[ready]
            if len(words):
                heads = np.flatnonzero(np.concatenate(([True], words[1:] != words[:-1])))
                rank_in_word = np.arange(len(words)) - np.repeat(heads, np.diff(np.append(heads, len(words))))
                self.symbols[self.starts[words] + rank_in_word] = symbols


def _replay(
    words: _Words, ranks: _Ranks, token_of: np.ndarray, changes: _Changes, placed: _Placement, final: bool
) -> _Words:
    """Replay ``words`` round after round; their changes go to ``changes`` and their final
    symbols to ``placed``. Unless ``final``, stops when few words are left, and returns them."""
    sym, lengths, ids = words.symbols, words.lengths, words.ids
    word = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)  # word (here) of every symbol

    def rank_at(at: np.ndarray) -> np.ndarray:
        """The rank of the pair starting at each of the positions ``at`` (NONE at a word's end)."""
        inside = at + 1 < len(sym)
        after = np.where(inside, at + 1, at)
        rank = ranks.of(sym[at], sym[after])
        rank[~inside | (word[after] != word[at])] = NONE
        return rank

    merged: list[list[np.ndarray]] = [[], [], [], []]  # see _Changes.add
    rank = np.append(ranks.of(sym[:-1], sym[1:]), NONE) if len(sym) else np.zeros(0, np.int32)
    rank[:-1][word[1:] != word[:-1]] = NONE
    while len(sym):
        starts = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
        if not final and (len(starts) < FEW_WORDS or len(sym) < FEW_SYMBOLS):
            break
        lowest = np.minimum.reduceat(rank, starts)
        lowest_at = np.repeat(lowest, np.diff(np.append(starts, len(sym))))
        finished = lowest_at == NONE
        if finished.any():  # these words are final: set them aside
            placed.add(sym[finished], ids[word[finished]])
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
        merged[1].append(ids[word[starts]])
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
    heads = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1]))) if len(word) else word
    return _Words(sym, np.diff(np.append(heads, len(word))), ids[word[heads]])
