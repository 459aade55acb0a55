"""Restoring a saved history, mixed into the trainer: the saved merges replayed (merge by merge for
a small session, word by word otherwise: ``bpe_core.training.replay_by_words``), and every merge read
from a file checked against the corpus, at once or where the trainer first stands before it.

A file's claims are never taken on trust: a count that differs, a tie that was not one, a tied
pair that was not at the top raises ``MergeError`` with the merge named.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from bpe_core.errors import MergeError, quoted
from bpe_core.history.branches import HistoryTree
from bpe_core.history.merge_line import MergeLine
from bpe_core.history.records import USER, MergeRecord
from bpe_core.pipeline.corpus import Corpus, weighted_total
from bpe_core.pipeline.vocab import Vocabulary
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.answers import Pair, SeriesPoint, pair_key
from bpe_core.training.branching import REVISIONS
from bpe_core.training.initial_symbols import initial_lengths, initial_runs, initial_segs
from bpe_core.training.line_checks import check_line, pass_numbers
from bpe_core.training.pair_index import MergeEffect
from bpe_core.training.pair_queue import PairQueue
from bpe_core.training.replay_by_words import add_new_tokens, replay_history, replays_merge_by_merge

Progress = Callable[[int, int], None]


class Restoring:
    """A saved history given to the trainer, and checked (a mixin of
    :class:`~bpe_core.training.trainer.Trainer`)."""

    corpus: Corpus
    vocab: Vocabulary
    revision: int
    _unrestored: bool
    _records: MergeLine
    _tree: HistoryTree
    _initial: SeriesPoint
    _effects: list[MergeEffect | None]
    _queue: PairQueue

    if TYPE_CHECKING:  # the trainer's own

        @property
        def position(self) -> int: ...

        def pair_count(self, pair: Pair) -> int: ...

        def pair_string(self, pair: Pair) -> str: ...

        def replacements(self, pair: Pair) -> int: ...

        def goto(
            self, step: int, progress: Progress | None = None, cancel: Callable[[], bool] | None = None
        ) -> None: ...

        def _index_segs(self, segs, lazy: range = range(0)) -> None: ...

        def _now(self) -> SeriesPoint: ...

        def _ties(self, top: int) -> int: ...

        def _advance(
            self, key: str | None, decided_by: str, saved: MergeRecord | None = None, chosen: bool = False
        ) -> tuple[MergeRecord, bool]: ...

    @without_gc
    def replay(
        self,
        pair: Pair,
        count: int,
        top_count: int,
        ties: int,
        candidates: tuple[Pair, ...],
        decided_by: str,
        pass_number: int = 0,
    ) -> MergeRecord:
        """Re-apply a saved merge with its original decision data (loading a session), in pass
        ``pass_number`` (default: a pass of its own).

        Raises ``MergeError`` unless the pair occurs exactly ``count`` times now, so a session
        whose history does not fit its corpus is refused rather than silently altered.
        """
        actual = self.pair_count(pair)
        if actual != count:
            raise MergeError(
                f"Merge {self.position + 1} {self.pair_string(pair)} occurs {actual} times in the "
                f"corpus, not {count} as recorded."
            )
        template = MergeRecord.saved(
            self.position + 1,
            pair,
            decided_by,
            pass_number,
            count=count,
            top_count=top_count,
            ties=ties,
            candidates=candidates,
        )
        self._check_decision(template)
        return self._advance(pair_key(pair), decided_by, template)[0]

    @without_gc
    def restore(
        self,
        saved: MergeLine | Sequence[MergeRecord],
        position: int,
        progress: Progress | None = None,
        fill: bool = False,
    ) -> None:
        """Give a trainer from :meth:`restoring` its saved history and stand after ``position``.

        ``saved`` gives each merge's pair and decision data as :meth:`replay` takes them (a
        :class:`MergeLine` given may become the trainer's own, filled in); every
        count is checked against the corpus (``MergeError`` if one differs, after which this
        trainer is unusable). With ``fill`` the counts are not checked but taken from the
        corpus (an imported tokenizer's merges), and each merge's top count is its own. The
        result is exactly that of replaying merge by merge, which is how it is done for a small
        session (every merge's decision data is then checked against the state before it at
        once; a large one's where the trainer first stands before it) and where the word-by-word
        replay (``bpe_core.training.replay_by_words``) does not apply.
        """
        if not self._unrestored:
            raise MergeError("Only a trainer made by Trainer.restoring can restore a history.")
        self._unrestored = False
        if not 0 <= position <= len(saved):
            raise MergeError(f"Step {position} is outside the history (0 to {len(saved)}).")
        saved = saved if isinstance(saved, MergeLine) else MergeLine.of(saved)
        deciders = saved.column("decider")
        passes = pass_numbers(saved.column("pass_number"), deciders, deciders == saved.decider_codes(USER)[0])
        del deciders
        corpus = self.corpus
        weights = corpus.counts.numpy()
        lengths = initial_lengths(corpus)
        runs = initial_runs(corpus, self.vocab.ids)  # the base symbols' ids, read before merges are added
        if replays_merge_by_merge(saved, lengths, weights, fill) or not add_new_tokens(self.vocab, saved):
            del runs, lengths
            self._replay_each(saved, passes, position, progress, fill)
            return
        n_symbols, corpus_tokens = int(lengths.sum(dtype=np.int64)), int(weighted_total(lengths, weights))
        del lengths  # exact below 2^52, which replays_merge_by_merge checked
        restored = replay_history(
            saved,
            corpus,
            self.vocab,
            runs,
            n_symbols,
            corpus_tokens,
            passes,
            position,
            progress,
            fill,
            self.pair_string,
        )
        check_line(saved)
        self._records = saved
        self._tree = HistoryTree(saved)
        first = restored.first_token
        self._initial = SeriesPoint(0, restored.top_count, restored.ties, first, restored.corpus_tokens)
        self._index_segs(restored.cold, lazy=range(first, first + position))
        self._effects = [None] * position
        self.revision = next(REVISIONS)
        if position < len(saved):
            self._check_decision(saved[position])

    def _replay_each(
        self, saved: MergeLine, passes: np.ndarray, position: int, progress: Progress | None, fill: bool
    ) -> None:
        """Restore by replaying the saved merges one by one from the initial state (see :meth:`restore`)."""
        self._index_segs(initial_segs(self.corpus, self.vocab.ids))
        self._initial = self._now()
        for number, (merge, pass_number) in enumerate(zip(saved, passes.tolist(), strict=True), start=1):
            if fill:
                template = replace(merge, step=number, pass_number=pass_number)
                self._advance(pair_key(merge.pair), merge.decided_by, template)
                self._records[-1] = replace(self._records[-1], top_count=self._records[-1].count)
            else:
                self.replay(
                    merge.pair,
                    merge.count,
                    merge.top_count,
                    merge.ties,
                    merge.candidates,
                    merge.decided_by,
                    pass_number,
                )
            if progress is not None:
                progress(number, len(saved))
        check_line(self._records)
        self.goto(position)

    def _verify(self, record: MergeRecord) -> None:
        """Check a record read from a file, the first time it is redone, against the state."""
        key = self.vocab.joined(*record.pair)
        made = self.vocab.ids.get(key)
        actual = self.pair_count(record.pair)
        token = len(self.vocab) if made is None else made
        merge = (
            f"Merge {record.step} {self.pair_string(record.pair)} of branch {quoted(self._tree.current.name)}"
        )
        if actual != record.count or (made is None) != record.new_token or token != record.token:
            raise MergeError(f"{merge} occurs {actual} times in the corpus, not {record.count} as recorded.")
        if self.replacements(record.pair) != record.replacements:
            raise MergeError(f"{merge} does not make the replacements recorded.")
        self._check_decision(record)
        self._records.mark_verified(record.step - 1)

    def _check_decision(self, record: MergeRecord) -> None:
        """Check a merge's decision data, read from a file, against the state before it (the
        trainer's now): its top count, how many pairs share it, and that each tied pair listed
        has it. A merge whose decision was not recorded (0 ties) has nothing to check."""
        if record.ties:
            top = self._queue.top_count()
            ties = self._ties(top)
            listed = [pair for pair in record.candidates if self.pair_count(pair) != top]
            if (top, ties) != (record.top_count, record.ties) or listed:
                line = self._tree.current.name
                found = (
                    f"the corpus has a top count of {top:,} shared by {ties:,} pair{'s' if ties != 1 else ''}"
                    if (top, ties) != (record.top_count, record.ties)
                    else f"{self.pair_string(listed[0])} is not at the top count there"
                )
                raise MergeError(
                    f"Merge {record.step} {self.pair_string(record.pair)} of branch {quoted(line)} was "
                    f"recorded at a top count of {record.top_count:,} shared by {record.ties:,} "
                    f"pair{'s' if record.ties != 1 else ''}, but before it {found}."
                )
        if record.step <= len(self._records) and self._records.unchecked(record.step - 1):
            self._records.mark_checked(record.step - 1)
