"""Restoring a saved history word by word: each word's segmentation after the merges is worked
out with numpy (``bpe_core.training.word_replay``) instead of merge by merge, and the result is
held flat (a :class:`ColdIndex`) until commands touch it.

The trainer uses it for all but small sessions (see :func:`replays_merge_by_merge`); the result
is exactly that of replaying merge by merge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from bpe_core.errors import MergeError
from bpe_core.history.merge_line import MergeLine
from bpe_core.pipeline.corpus import Corpus, weighted_total
from bpe_core.pipeline.vocab import Vocabulary
from bpe_core.runtime.memory import release_free_memory
from bpe_core.training import pair_index
from bpe_core.training.answers import Pair
from bpe_core.training.cold_index import ColdIndex
from bpe_core.training.word_replay import replay_words

Progress = Callable[[int, int], None]
# A session up to this size reopens by replaying its merges one by one, checking each merge's
# decision data against the state before it at once; it costs about what training it did.
# Larger ones replay word by word, a fraction of that, and check a merge's decision data where
# the trainer first stands before it (read when called: tests vary them).
EXACT_REPLAY_SYMBOLS = 100_000
EXACT_REPLAY_MERGES = 10_000


def replays_merge_by_merge(saved: MergeLine, lengths: np.ndarray, weights: np.ndarray, fill: bool) -> bool:
    """Whether a history must (or, being small, had better) be replayed merge by merge: the
    word-by-word replay does not hold long words or counts too large for float64."""
    return bool(
        not saved
        or (not fill and int(lengths.sum()) <= EXACT_REPLAY_SYMBOLS and len(saved) <= EXACT_REPLAY_MERGES)
        or (len(lengths) and lengths.max() > pair_index.LONG_WORD)  # read when called: tests vary it
        or weighted_total(lengths, weights) >= 2**52
    )


def add_new_tokens(vocab: Vocabulary, saved: MergeLine) -> bool:
    """Add each merge's token to the vocabulary if every merge makes a token no earlier one
    spells (and names only tokens made); otherwise add none and return False (the word-by-word
    replay numbers each merge's token as the next id)."""
    keys, known, before = vocab.keys, vocab.ids, len(vocab)
    for step, (left, right) in enumerate(saved.pairs(), start=1):
        key = vocab.joined(left, right) if 0 <= left < len(keys) and 0 <= right < len(keys) else None
        if key is None or key in known:
            while len(vocab) > before:
                vocab.remove_last()
            return False
        vocab.add(key, step)
    return True


@dataclass
class Restored:
    """A history replayed word by word: the index's flat start, and step 0's figures."""

    cold: ColdIndex
    first_token: int  # the id of merge 1's token
    top_count: int  # before merge 1
    ties: int
    corpus_tokens: int


def replay_history(
    saved: MergeLine,
    corpus: Corpus,
    vocab: Vocabulary,
    runs: Iterator[tuple[np.ndarray, np.ndarray]],
    n_symbols: int,
    corpus_tokens: int,
    passes: np.ndarray,
    position: int,
    progress: Progress | None,
    fill: bool,
    pair_string: Callable[[Pair], str],
) -> Restored:
    """Replay ``saved`` (its tokens already in ``vocab``, see :func:`add_new_tokens`) over the
    corpus' ``runs`` of base symbols (``n_symbols`` of them, ``corpus_tokens`` weighted by the
    word counts) and stand after ``position``: the merges ahead are
    replayed for their counts only, and their tokens leave the vocabulary again.

    Every count is checked against the recorded one (``MergeError`` names the first that
    differs); with ``fill`` the counts are taken instead. ``saved`` is filled in place (tokens,
    replacements, sizes, passes) and its decision data left to be checked where the trainer
    first stands before each merge.
    """
    weights = corpus.counts.numpy()
    total = len(saved)
    first = len(vocab) - total
    left, right = saved.column("left"), saved.column("right")
    tokens = np.arange(first, first + total, dtype=np.int32)
    done = replay_words(
        runs,
        weights,
        (left[:position], right[:position], tokens[:position]),
        len(vocab),
        progress and (lambda done: progress(int(done * position), total)),
        capacity=n_symbols,
    )
    counts, replacements = done.counts, done.replacements
    for _ in range(total - position):
        vocab.remove_last()
    release_free_memory()  # the replay's temporaries
    cold = ColdIndex(done.symbols, done.starts, weights, len(vocab))
    del done
    release_free_memory()
    if position < total:  # the merges ahead are replayed for their counts only
        later = replay_words(
            cold_runs(cold),
            weights,
            (left[position:], right[position:], tokens[position:]),
            len(vocab) + total - position,
            progress and (lambda done: progress(position + int(done * (total - position)), total)),
            keep=False,
        )
        counts, replacements = (
            np.concatenate((counts, later.counts)),
            np.concatenate((replacements, later.replacements)),
        )
    recorded = saved.column("count")
    if not fill and (wrong := np.flatnonzero(counts != recorded)).size:
        k = int(wrong[0])
        raise MergeError(
            f"Merge {k + 1} {pair_string(saved.pair(k))} occurs {int(counts[k])} times in the "
            f"corpus, not {int(recorded[k])} as recorded."
        )
    columns = {
        "token": tokens,
        "replacements": replacements,
        "vocab_size": tokens + 1,
        "corpus_tokens": corpus_tokens - np.cumsum(replacements),
        "pass_number": passes,
    }
    if fill:
        columns["count"] = columns["top_count"] = counts
    head = saved[0]  # merge 1 was chosen at step 0: its record holds step 0's top count and ties
    # The state before each merge is not rebuilt here: a merge's decision data is checked
    # against it where the trainer stands before that merge (a walk, or now for the next one).
    saved.fill(columns, np.ones(total, dtype=bool), saved.column("ties") > 0)
    top = int(counts[0]) if fill else head.top_count
    return Restored(cold, first, top, head.ties, corpus_tokens)


def cold_runs(cold: ColdIndex) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The words of a cold index in runs, as ``bpe_core.training.word_replay`` takes them."""
    starts = cold.starts
    n_words = len(starts) - 1
    step = max(1, n_words * (1 << 18) // max(1, int(starts[-1])))
    for first in range(0, n_words, step):
        last = min(first + step, n_words)
        low, high = int(starts[first]), int(starts[last])
        yield cold.symbols[low:high].astype(np.int32), np.diff(starts[first : last + 1]).astype(np.int64)
