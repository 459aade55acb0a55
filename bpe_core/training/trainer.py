"""The incremental, undoable BPE trainer: the one model the CLI and every view bind to.

The merge history is the single source of truth: vocabulary, segmentation, pair counts and the
plotted series are derived from it and restored exactly by undo. A step or an undo costs work
proportional to the words it touches, never to the corpus.

Example
-------
>>> from bpe_core import Corpus, PipelineConfig, Trainer
>>> trainer = Trainer(Corpus.from_text("low low lower", PipelineConfig()))
>>> trainer.token_string(trainer.step().token)
'lo'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial, wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

import numpy as np

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import MergeError, quoted
from bpe_core.history.branches import Branch, BranchInfo, HistoryTree
from bpe_core.history.events import (
    BranchCreated,
    BranchDeleted,
    BranchRenamed,
    BranchSwitched,
    CorpusReplaced,
    EventSource,
    HistoryReset,
    Jumped,
    MergeApplied,
    MergeUndone,
    SettingsChanged,
)
from bpe_core.history.merge_line import LineView, MergeLine, common_length
from bpe_core.history.records import CANDIDATE_CAP, USER, MergeRecord, StopReason
from bpe_core.pipeline.corpus import Corpus, weighted_total
from bpe_core.pipeline.vocab import MARK, Vocabulary
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.runtime.memory import release_free_memory
from bpe_core.training import pair_index
from bpe_core.training.cold_index import ColdIndex
from bpe_core.training.config import TrainingConfig
from bpe_core.training.initial_symbols import (
    alphabet,
    initial_lengths,
    initial_runs,
    initial_segs,
    word_symbols,
)
from bpe_core.training.line_checks import check_line, pass_numbers
from bpe_core.training.pair_index import MergeEffect, PairIndex
from bpe_core.training.pair_queue import PairQueue
from bpe_core.training.tie_rules import RULE_NAMES, TieBreakRule
from bpe_core.training.word_replay import replay_words

Pair = tuple[int, int]
Progress = Callable[[int, int], None]
# A walk of this many merges or undos warms up an opened session's whole index first.
LONG_WALK = 256
# A session up to this size reopens by replaying its merges one by one, checking each merge's
# decision data against the state before it at once; costs about what training it did (tenths
# of a second here). Larger ones replay word by word, a fraction of that, and check a merge's
# decision data where the trainer first stands before it (read when called: tests vary them).
EXACT_REPLAY_SYMBOLS = 100_000
EXACT_REPLAY_MERGES = 10_000
# Every change of any trainer's recorded history (not of its position) gets a new number, so
# "is this still the history I cached?" is one integer comparison, even across trainers.
_REVISIONS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PairStat:
    """A row of the ranked pair table."""

    pair: Pair
    count: int


@dataclass(frozen=True, slots=True)
class LastChange:
    """The last single command: a merge ``applied`` (step or redo) or undone, and the words it
    changed."""

    applied: bool
    record: MergeRecord
    words: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """Per-step values for plots (step 0 is the initial state)."""

    step: int
    top_count: int
    ties: int
    vocab_size: int
    corpus_tokens: int


def _key(pair: Pair) -> str:
    return chr(pair[0]) + chr(pair[1])


def _pair(key: str) -> Pair:
    return ord(key[0]), ord(key[1])


P = ParamSpec("P")
R = TypeVar("R")


def _all_or_nothing(walk: Callable[Concatenate[Trainer, P], R]) -> Callable[Concatenate[Trainer, P], R]:
    """A walk that meets a saved merge that does not fit the corpus (see ``Trainer._verify``)
    goes back to where it began before the error is raised: the state stays the one the views
    were last told of, and the command can be tried again."""

    @wraps(walk)
    def guarded(self: Trainer, *args: P.args, **kwargs: P.kwargs) -> R:
        branch, position = self._tree.current, self.position
        try:
            return walk(self, *args, **kwargs)
        except MergeError:
            self._back_to(branch, position)
            raise

    return guarded


class Trainer:
    """Trains BPE merges on a :class:`Corpus` one step at a time, with exact undo and redo.

    Parameters
    ----------
    corpus : the word types and counts, with the pipeline that produced them.
    training : minimum frequency and tie-break rule (defaults: 2, ``first-seen``).
    alphabet : base symbols (keys) to have even where the corpus lacks them (an imported
        tokenizer's, whose corpus may be empty).

    Attributes
    ----------
    events : subscribe here to hear about every change (see ``bpe_core.history.events``).
    numbering : the ids of an imported tokenizer (see ``bpe_core.encoding.numbering``), or ``None``
        when the session's own numbering is the one exported.
    """

    def __init__(
        self, corpus: Corpus, training: TrainingConfig | None = None, alphabet: Iterable[str] = ()
    ) -> None:
        self.events = EventSource()
        self.numbering: Numbering | None = None
        self._alphabet = frozenset(alphabet)
        self._load(corpus, training or TrainingConfig())

    def __repr__(self) -> str:
        words = dict(zip(self.corpus.words[:8], self.corpus.counts[:8], strict=True))
        more = ", ..." if self.word_count > 8 else ""
        return (
            f"Trainer({words}{more}, {self.corpus.config}, {self.training}, "
            f"position={self.position}/{len(self._records)})"
        )

    # -- set-up ----------------------------------------------------------------------------

    @classmethod
    def restoring(
        cls, corpus: Corpus, training: TrainingConfig | None = None, alphabet: Iterable[str] = ()
    ) -> Trainer:
        """A trainer with its vocabulary but no pair counts yet, to be given a saved history with
        :meth:`restore` before any other use (counting the initial pairs is then not needed)."""
        trainer = cls.__new__(cls)
        trainer.events = EventSource()
        trainer.numbering = None
        trainer._alphabet = frozenset(alphabet)
        trainer._load(corpus, training or TrainingConfig(), count=False)
        return trainer

    @without_gc
    def _load(self, corpus: Corpus, training: TrainingConfig, count: bool = True) -> None:
        self.corpus = corpus
        self.training = training
        self._rule = training.rule
        config = corpus.config
        # An imported tokenizer's alphabet (the one given) is its own: beside it only what the
        # words are made of, not every byte or the plain twin of each marked last unit.
        symbols = self._alphabet | word_symbols(corpus) if self._alphabet else alphabet(corpus)
        self.vocab = Vocabulary(config.special_tokens, symbols, config.end_of_word)
        self._records = MergeLine()  # the current branch's line
        self._tree = HistoryTree(self._records)
        self.revision = next(_REVISIONS)
        # What each applied merge changed, for undo; None for a merge restored from a session,
        # whose changes are worked out when first needed (see _last_effect).
        self._effects: list[MergeEffect | None] = []
        self._last_change: LastChange | None = None
        self._unrestored = not count
        self._numbers: list[int] = []
        self._numbers_revision = 0
        if count:
            self._index_segs(initial_segs(corpus, self.vocab.ids))
            self._initial = self._now()

    def _now(self) -> SeriesPoint:
        top = self._queue.top_count()
        return SeriesPoint(self.position, top, self._ties(top), len(self.vocab), self._index.total_tokens)

    def _index_segs(self, segs: list[str] | ColdIndex, lazy: range = range(0)) -> None:
        """Count pairs and tokens afresh over the segmentations ``segs`` (one per word type), or
        start from a cold index (its ``lazy`` tokens: see ``PairIndex.from_cold``)."""
        if isinstance(segs, ColdIndex):
            self._index = PairIndex.from_cold(segs, self.corpus.counts, len(self.vocab), lazy)
        else:
            self._index = PairIndex(segs, self.corpus.counts, len(self.vocab))
        for i, n in enumerate(self.corpus.special_counts):
            self._index.token_freq[i] = n
        self._queue = PairQueue(self._index, self._rule, self.vocab.tokens)

    def replace_corpus(self, corpus: Corpus, training: TrainingConfig | None = None) -> None:
        """Start over on a new corpus (and optionally new training settings)."""
        self._load(corpus, training or self.training)
        self.events.emit(CorpusReplaced())

    def set_tie_break(self, spec: str) -> None:
        """Change the rule for future steps (the history keeps who decided each merge)."""
        training = replace(self.training, tie_break=spec)
        if training.rule.spec != spec:  # kept as the rule spells itself ("random" is "random:0")
            training = replace(training, tie_break=training.rule.spec)
        self.training = training
        self._rule = training.rule
        self._queue.set_rule(self._rule)
        self.events.emit(SettingsChanged())

    def set_min_frequency(self, value: int) -> None:
        self.training = replace(self.training, min_frequency=value)
        self.events.emit(SettingsChanged())

    def set_merges_per_pass(self, value: int) -> None:
        """1: the classic algorithm; K: up to K non-conflicting merges a step; 0: all of them."""
        self.training = replace(self.training, merges_per_pass=value)
        self.events.emit(SettingsChanged())

    @property
    def rule(self) -> TieBreakRule:
        return self._rule

    # -- history ---------------------------------------------------------------------------

    @property
    def position(self) -> int:
        """Number of merges applied now (merges after it can be redone)."""
        return len(self._effects)

    @property
    def history(self) -> LineView:
        """The current branch's merges, including redo-able ones after :attr:`position` (a
        sequence of records, each made when read)."""
        return LineView(self._records)

    revision: int
    """Changes whenever the recorded history does (a merge recorded, a branch made, switched,
    renamed or deleted, a reset); undo and redo keep it. Unique across trainers."""

    @property
    def history_length(self) -> int:
        """Number of recorded merges, redo-able ones included (cheaper than ``len(history)``)."""
        return len(self._records)

    def record(self, step: int) -> MergeRecord:
        """The record of merge ``step`` (1-based)."""
        return self._records[step - 1]

    @property
    def can_undo(self) -> bool:
        return self.position > 0

    @property
    def can_redo(self) -> bool:
        return self.position < len(self._records)

    # -- branches --------------------------------------------------------------------------

    def branches(self) -> list[BranchInfo]:
        """Every line of the history, in the order they were made (see ``bpe_core.history.branches``)."""
        return self._tree.infos()

    @property
    def current_branch(self) -> int:
        return self._tree.current.id

    def branch_history(self, branch: int) -> LineView:
        """A branch's merges from step 1."""
        return LineView(self._tree.get(branch).records)

    @_all_or_nothing
    @without_gc
    def switch(
        self,
        branch: int,
        step: int | None = None,
        progress: Progress | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> None:
        """Go to ``branch`` after its merge ``step`` (default: its last; a step inside a pass
        goes to the pass's end): undo to where the two lines part, then redo along the other,
        exactly and without a recount. A cancelled switch stops on whichever line it was
        walking, at the last node it passed."""
        target = self._tree.get(branch)
        step = len(target.records) if step is None else step
        if not 0 <= step <= len(target.records):
            raise MergeError(
                f"Step {step} is outside branch {quoted(target.name)} (0 to {len(target.records)})."
            )
        step = target.records.pass_end(step)
        old, start = self._tree.current.id, self.position
        meet = min(common_length(self._records, target.records), step)
        self._last_change = None
        total = max(start - meet, 0) + step - min(meet, start)
        self._before_walk(total)
        done = 0
        while self.position > meet and not (cancel is not None and cancel()):
            self._unmerge()
            done += 1
            if progress is not None:
                progress(done, total)
        forward = False
        if self.position <= meet:
            self._set_current(target)
            forward = True
            while self.position < step and not (cancel is not None and cancel()):
                self._remerge()
                done += 1
                if progress is not None:
                    progress(done, total)
        self._to_node(forward)
        if self._tree.current.id != old:
            self.events.emit(BranchSwitched(old, self._tree.current.id, start, self.position))
        elif self.position != start:
            self.events.emit(Jumped(start, self.position))

    def start_branch(self) -> int:
        """A new branch from here, made current, with no merge of its own yet: the next merges
        go there and the line left stays as it is, also from the end of a line (where merges
        would otherwise extend it). Returns its id."""
        self._fork()
        return self._tree.current.id

    def rename_branch(self, branch: int, name: str) -> None:
        name = self._tree.rename(branch, name)
        self.revision = next(_REVISIONS)
        self.events.emit(BranchRenamed(branch, name))

    def delete_branch(self, branch: int) -> None:
        """Forget a branch other than the current one."""
        self._tree.delete(branch)
        self.revision = next(_REVISIONS)
        self.events.emit(BranchDeleted(branch))

    def _back_to(self, branch: Branch, position: int) -> None:
        """Walk back to ``position`` on ``branch``, where a failed walk began: every merge of
        that way was made before, so none can fail again."""
        failed_branch, failed_position = self._tree.current.id, self.position
        if branch is self._tree.current and position == failed_position:
            return
        meet = min(common_length(self._records, branch.records), position)
        while self.position > meet:
            self._unmerge(check=False)
        self._set_current(branch)
        while self.position < position:
            self._remerge(check=False)
        self._last_change = None
        if branch.id != failed_branch:
            self.events.emit(BranchSwitched(failed_branch, branch.id, failed_position, position))
        else:
            self.events.emit(Jumped(failed_position, position))

    def _set_current(self, branch: Branch) -> None:
        """Make ``branch`` current; its line must contain the state as it is now."""
        if branch is not self._tree.current:
            self._tree.current = branch
            self._records = branch.records
            self.revision = next(_REVISIONS)

    def _fork(self) -> None:
        """Merges follow the position and a different one is about to be made: a new branch."""
        branch = self._tree.fork(self.position)
        self._set_current(branch)
        self.events.emit(BranchCreated(branch.id, branch.parent or 0, branch.fork))

    def _enter(self, branch: Branch) -> None:
        """Follow another line that makes the same merge from here."""
        old = self._tree.current.id
        self._set_current(branch)
        if branch.id != old:
            self.events.emit(BranchSwitched(old, branch.id, self.position, self.position))

    # -- commands --------------------------------------------------------------------------

    @_all_or_nothing
    @without_gc
    def step(
        self, pair: Pair | None = None, decided_by: str | None = None, chosen: bool = False
    ) -> MergeRecord | None:
        """Merge the pair the tie-break rule picks, or ``pair`` (any pair present) if given.

        Returns the new record, or ``None`` when no pair reaches the minimum frequency. After an
        undo, a different merge starts a new branch (the redo line stays, on its own branch); the
        same merge as a line that follows from here just follows it. ``decided_by`` names who chose a given
        pair (default ``"user"``; the Ask-me flow passes a rule name when the user lets it decide).
        A pair ``chosen`` now (by the user, or a rule the user let decide at a tie) that the line
        had decided otherwise is recorded as decided this time; a replay (``chosen`` false) keeps
        the line's deciders.
        """
        if pair is None:
            if self.stop_reason() is not None:
                return None
            if self.training.merges_per_pass != 1:
                return self._step_pass()
            key, decided_by = None, self._rule.spec
        else:
            key = _key(pair)
            if not self._index.count(key):
                raise MergeError(f"The pair {self.pair_string(pair)} does not occur in the corpus.")
            decided_by = decided_by or USER
        record, redone = self._advance(key, decided_by, chosen=chosen and pair is not None)
        self._last_change = LastChange(True, record, tuple(self._last_effect().changed))
        self.events.emit(MergeApplied(record, redo=redone))
        return record

    @_all_or_nothing
    @without_gc
    def undo(self) -> MergeRecord:
        """Undo the last merge exactly; it stays available for :meth:`redo`."""
        if not self.can_undo:
            raise MergeError("There is no merge to undo.")
        start = self.position
        words = tuple(self._last_effect().changed)
        record = self._unmerge()
        while self.position and self._records.pass_number(self.position - 1) == record.pass_number:
            record = self._unmerge()  # the rest of its pass: a pass is one node of the history
        if self.position == start - 1:
            self._last_change = LastChange(False, record, words)
            self.events.emit(MergeUndone(record))
        else:
            self._last_change = None
            self.events.emit(Jumped(start, self.position))
        return record

    @_all_or_nothing
    @without_gc
    def redo(self) -> MergeRecord:
        """Re-apply the next undone merge, with its original decision."""
        if not self.can_redo:
            raise MergeError("There is no merge to redo.")
        start = self.position
        record = self._remerge()
        while self.can_redo and self._records.pass_number(self.position) == record.pass_number:
            record = self._remerge()
        if self.position == start + 1:
            self._last_change = LastChange(True, record, tuple(self._last_effect().changed))
            self.events.emit(MergeApplied(record, redo=True))
        else:
            self._last_change = None
            self.events.emit(Jumped(start, self.position))
        return record

    @_all_or_nothing
    @without_gc
    def goto(
        self, step: int, progress: Progress | None = None, cancel: Callable[[], bool] | None = None
    ) -> None:
        """Jump to just after merge ``step`` (0 = no merges), undoing or redoing as needed."""
        if not 0 <= step <= len(self._records):
            raise MergeError(f"Step {step} is outside the history (0 to {len(self._records)}).")
        step = self._records.pass_end(step)  # a pass is one node of the history
        start = self.position
        self._last_change = None
        total = abs(step - start)
        self._before_walk(total)
        while self.position != step:
            if cancel is not None and cancel():
                break
            if self.position < step:
                self._remerge()
            else:
                self._unmerge()
            if progress is not None:
                progress(abs(self.position - start), total)
        self._to_node(forward=step > start)
        if self.position != start:
            self.events.emit(Jumped(start, self.position))

    def _to_node(self, forward: bool) -> None:
        """After a cancelled walk, back to the last node it passed: a walk that stopped inside a
        pass undoes the part of it that a walk forward made, or redoes what one backward undid."""
        records = self._records
        if forward:
            while self.position > records.pass_start(self.position):
                self._unmerge()
        else:
            while self.position < records.pass_end(self.position):
                self._remerge()

    def reset(self) -> None:
        """Back to the initial segmentation, forgetting the whole history."""
        self._load(self.corpus, self.training)
        self.events.emit(HistoryReset())

    @_all_or_nothing
    @without_gc
    def run(
        self,
        merges: int | None = None,
        vocab_size: int | None = None,
        min_frequency: int | None = None,
        progress: Progress | None = None,
        cancel: Callable[[], bool] | None = None,
        stop_at_tie: bool = False,
    ) -> StopReason:
        """Merge until a target is met or no pair qualifies; emits one :class:`Jumped` event.

        ``merges`` counts merges from now; ``vocab_size`` counts special tokens, the alphabet and
        merged tokens; ``min_frequency`` overrides the trainer's for this run. With
        ``stop_at_tie`` the run stops before a step that meets a tie.
        """
        start = self.position
        self._last_change = None
        floor = self.training.min_frequency if min_frequency is None else min_frequency
        goal = merges if merges is not None else 0
        if merges is not None:
            self._before_walk(merges)
        elif vocab_size is not None:
            self._before_walk(vocab_size - len(self.vocab))
        else:
            self._before_walk(LONG_WALK)  # to the end: likely long
        reason: StopReason | None = None
        while reason is None:
            if merges is not None and self.position - start >= merges:
                reason = StopReason.MERGES
            elif vocab_size is not None and len(self.vocab) >= vocab_size:
                reason = StopReason.VOCAB_SIZE
            elif cancel is not None and cancel():
                reason = StopReason.CANCELLED
            elif (reason := self.stop_reason(floor)) is None:
                if stop_at_tie and self.ties_at_top() > 1:
                    reason = StopReason.TIE
                elif self.training.merges_per_pass != 1:
                    room = [
                        n
                        for n in (
                            merges and merges - (self.position - start),
                            vocab_size and vocab_size - len(self.vocab),
                        )
                        if n
                    ]
                    self._pass(min(room, default=0), floor)
                else:
                    self._advance(None, self._rule.spec)
                if reason is None and progress is not None:
                    progress(self.position - start, goal)
        if self.position != start:
            self.events.emit(Jumped(start, self.position, reason))
        return reason

    def stop_reason(self, min_frequency: int | None = None) -> StopReason | None:
        """Why no further step would happen now, or ``None`` if one can."""
        top = self._queue.top_count()
        if top == 0:
            return StopReason.NO_PAIRS
        floor = self.training.min_frequency if min_frequency is None else min_frequency
        return StopReason.MIN_FREQUENCY if top < floor else None

    # -- internals -------------------------------------------------------------------------

    def _before_walk(self, steps: int) -> None:
        """Before a walk of ``steps`` merges or undos, an index that started cold (an opened
        session, ``bpe_core.training.cold_index``) is made warm whole: one step warms only what it
        touches, but a long walk touches most words, one small piece at a time."""
        if steps >= LONG_WALK and self._index.cold is not None:
            self._index.warm_all()
            self._queue.rebuild()

    def _ties(self, top: int) -> int:
        return self._index.count_hist.get(top, 0) if top else 0

    def _step_pass(self) -> MergeRecord:
        """One pass as a single command: one event, a single-merge pass as a step."""
        start = self.position
        records = self._pass(0, self.training.min_frequency)
        if len(records) == 1:
            self._last_change = LastChange(True, records[0], tuple(self._last_effect().changed))
            self.events.emit(MergeApplied(records[0]))
        else:
            self._last_change = None
            self.events.emit(Jumped(start, self.position))
        return records[-1]

    def _pass(self, limit: int, floor: int) -> list[MergeRecord]:
        """Merge, as one pass, up to ``merges_per_pass`` (and ``limit``, if not 0) pairs of the
        ranking that reach ``floor`` and do not conflict with a pair taken before them.

        Two pairs conflict when one's right symbol is the other's left (``ab`` and ``bc`` overlap
        in ``abc``). Pairs that do not conflict never share a symbol occurrence, and a merge
        changes only the counts of pairs overlapping its occurrences, so each pair of the pass
        has the same occurrences and count whichever is merged first: applying them one after
        the other, in ranking order, is the pass.
        """
        wanted = self.training.merges_per_pass or self.pair_total
        wanted = min(wanted, limit) if limit else wanted
        count = self._index.count
        chosen: list[str] = []
        listed = min(self.pair_total, 4 * wanted)
        while True:
            chosen, lefts, rights = [], set(), set()
            ranked = self._queue.ranked(listed)
            for key in ranked:
                if count(key) < floor or len(chosen) == wanted:
                    break
                if key[0] in rights or key[1] in lefts:
                    continue
                chosen.append(key)
                lefts.add(key[0])
                rights.add(key[1])
            if len(chosen) == wanted or listed >= self.pair_total or count(ranked[-1]) < floor:
                break
            listed = min(self.pair_total, 2 * listed)
        return self._take_pass(chosen, self._rule.spec)[0]

    def _advance(
        self,
        key: str | None,
        decided_by: str,
        saved: MergeRecord | None = None,
        chosen: bool = False,
    ) -> tuple[MergeRecord, bool]:
        """One merge forward, as a pass of its own: ``key``, or the rule's pick if ``None``;
        ``saved`` supplies the decision data when replaying a session. Returns the record and
        whether it was redone. A merge ``chosen`` (by the user, or by a rule the user let decide
        at a tie) that a followed line had decided otherwise is recorded as decided this time.
        """
        decision = self._decide(key, saved, by_hand=chosen or decided_by == USER)
        number = saved.pass_number if saved is not None else 0
        records, redone = self._take_pass([decision[0]], decided_by, decision, number)
        record = records[0]
        if redone and chosen and record.decided_by != decided_by:
            record = self._redecided(record, decided_by)
        return record, redone

    def _take_pass(
        self,
        keys: list[str],
        decided_by: str,
        first: tuple[str, int, int, list[str]] | None = None,
        number: int = 0,
    ) -> tuple[list[MergeRecord], bool]:
        """Merge ``keys`` as one pass: one node of the history, entered and left whole.

        Where a line of the history makes exactly this pass from here, it is followed (the
        state would be the same); otherwise the pass is recorded, on a new branch if merges
        already follow this position, so that no line of the history is ever lost. ``first``
        is the first merge's decision, when already made; ``number`` the pass number to record
        (a replayed session's), by default the one after the last. Returns the records and
        whether they were redone.
        """
        if self.position < len(self._records):
            line = self._tree.line_with(self.position, [_pair(key) for key in keys])
            if line is not None:
                self._enter(line)
                return [self._remerge() for _ in keys], True
            self._fork()
        number = number or self._next_pass()
        records: list[MergeRecord] = []
        for key in keys:
            decision = first if first is not None and not records else self._decide(key, None)
            records.append(self._merge(decision, decided_by, number))
        return records, False

    def _next_pass(self) -> int:
        return self._records.pass_number(self.position - 1) + 1 if self.position else 1

    def _decide(
        self, key: str | None, saved: MergeRecord | None, by_hand: bool = False
    ) -> tuple[str, int, int, list[str]]:
        """The pair to merge with the decision data to record: (pair, top count, ties, tied)."""
        queue = self._queue
        if saved is not None:
            return key or "", saved.top_count, saved.ties, [_key(p) for p in saved.candidates]
        top = queue.top_count()
        ties = self._ties(top)
        # At a tie the pairs tied at the top; a pair picked by hand below the top names the
        # pairs it was chosen over too, tie or not.
        below = by_hand and key is not None and self._index.count(key) < top
        candidates = queue.ranked(min(ties, CANDIDATE_CAP)) if ties > 1 or below else []
        if key is None:
            key = candidates[0] if candidates else queue.best()
        if key is None:
            raise MergeError("No pair is left to merge.")
        return key, top, ties, candidates

    def _merge(
        self, decision: tuple[str, int, int, list[str]], decided_by: str, pass_number: int
    ) -> MergeRecord:
        """Apply and record one merge at the end of the current branch."""
        index, vocab = self._index, self.vocab
        key, top, ties, candidates = decision
        count = index.count(key)  # 0: an imported merge the corpus never meets
        left, right = ord(key[0]), ord(key[1])
        step = self.position + 1
        merged = vocab.keys[left] + vocab.keys[right]
        found = vocab.ids.get(merged)
        created = found is None
        if found is None:
            token = vocab.add(merged, step)
            index.token_freq.append(0)
        else:
            token = found
        effect = index.merge(key, chr(token), fresh=index.token_freq[token] == 0)
        self._queue.push(effect.increased)
        record = MergeRecord(
            step=step,
            pair=(left, right),
            token=token,
            count=count,
            top_count=top,
            replacements=effect.replacements,
            ties=ties,
            candidates=tuple(_pair(k) for k in candidates),
            decided_by=decided_by,
            new_token=created,
            vocab_size=len(vocab),
            corpus_tokens=index.total_tokens,
            pass_number=pass_number,
        )
        self._records.append(record)
        self.revision = next(_REVISIONS)
        self._effects.append(effect)
        return record

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
        return self._advance(_key(pair), decided_by, template)[0]

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
        replay (``bpe_core.training.word_replay``) does not apply: a merge that spells an existing token,
        a long word, or counts too large for float64.
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
        if (
            not saved
            or (not fill and int(lengths.sum()) <= EXACT_REPLAY_SYMBOLS and len(saved) <= EXACT_REPLAY_MERGES)
            or (len(lengths) and lengths.max() > pair_index.LONG_WORD)  # read when called: tests vary it
            or weighted_total(lengths, weights) >= 2**52
            or not self._add_new_tokens(saved)
        ):
            del runs
            del lengths
            self._index_segs(initial_segs(corpus, self.vocab.ids))
            self._initial = self._now()
            for number, (merge, pass_number) in enumerate(zip(saved, passes.tolist(), strict=True), start=1):
                if fill:
                    template = replace(merge, step=number, pass_number=pass_number)
                    self._advance(_key(merge.pair), merge.decided_by, template)
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
            return
        vocab, total = self.vocab, len(saved)
        # Merge 1 was chosen at step 0, so its record holds step 0's top count and ties.
        corpus_tokens = int(weighted_total(lengths, weights))  # exact: below 2^52
        n_symbols = int(lengths.sum(dtype=np.int64))
        del lengths
        first = len(vocab) - total  # the id of merge 1's token
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
                _cold_runs(cold),
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
                f"Merge {k + 1} {self.pair_string(saved.pair(k))} occurs {int(counts[k])} times in the "
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
        head = saved[0]
        # The state before each merge is not rebuilt here: a merge's decision data is checked
        # against it where the trainer stands before that merge (a walk, or now for the next one).
        saved.fill(columns, np.ones(total, dtype=bool), saved.column("ties") > 0)
        check_line(saved)
        self._records = saved
        self._tree = HistoryTree(saved)
        self._initial = SeriesPoint(
            0, int(counts[0]) if fill else head.top_count, head.ties, first, corpus_tokens
        )
        self._index_segs(cold, lazy=range(first, first + position))
        self._effects = [None] * position
        self.revision = next(_REVISIONS)
        if position < total:
            self._check_decision(saved[position])

    def _add_new_tokens(self, saved: MergeLine) -> bool:
        """Add each merge's token to the vocabulary if every merge makes a token no earlier one
        spells (and names only tokens made); otherwise add none and return False."""
        vocab = self.vocab
        keys, known, before = vocab.keys, vocab.ids, len(vocab)
        for step, (left, right) in enumerate(saved.pairs(), start=1):
            key = keys[left] + keys[right] if 0 <= left < len(keys) and 0 <= right < len(keys) else None
            if key is None or key in known:
                while len(vocab) > before:
                    vocab.remove_last()
                return False
            vocab.add(key, step)
        return True

    def _redecided(self, record: MergeRecord, decided_by: str) -> MergeRecord:
        """``record``, just followed, as decided by ``decided_by``, in every line that reaches
        it the way the current one does (they share the node)."""
        new = replace(record, decided_by=decided_by)
        step, line = record.step, self._records
        sharing = [  # found before any is changed: a line's own copy of the row is compared as it was
            branch.records
            for branch in self._tree.branches.values()
            if len(branch.records) >= step and common_length(branch.records, line, step) == step
        ]
        for records in sharing:
            records[step - 1] = new  # a row read by several lines changes for them all
        self.revision = next(_REVISIONS)
        return new

    def _remerge(self, check: bool = True) -> MergeRecord:
        record = self._records[self.position]
        index = self._index
        if check and self._records.unverified(self.position):
            self._verify(record)
        if check and self._records.unchecked(self.position):
            self._check_decision(record)
        if record.new_token:
            self.vocab.add(self.vocab.keys[record.pair[0]] + self.vocab.keys[record.pair[1]], record.step)
            index.token_freq.append(0)
        effect = index.merge(_key(record.pair), chr(record.token), fresh=index.token_freq[record.token] == 0)
        self._queue.push(effect.increased)
        self._effects.append(effect)
        return record

    def _verify(self, record: MergeRecord) -> None:
        """Check a record read from a file, the first time it is redone, against the state."""
        key = self.vocab.keys[record.pair[0]] + self.vocab.keys[record.pair[1]]
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

    @property
    def next_branch(self) -> int:
        """The number the next branch will take (saved, so that a reopened session names new
        branches as this one would)."""
        return self._tree.next_id

    def restore_branches(self, branches: list[Branch], current: int, next_branch: int = 0) -> None:
        """Give a restored trainer the other lines of its saved history (the current one, ``current``,
        already restored, takes its records from this trainer). Their own records come from a
        file, marked unverified: each is checked against the corpus the first time it is redone."""
        for branch in branches:
            if branch.id == current:
                branch.records = self._records
        self._tree.replace(branches, current, next_branch)
        self.revision = next(_REVISIONS)

    def _unmerge(self, check: bool = True) -> MergeRecord:
        record = self._records[self.position - 1]
        effect = self._last_effect()
        self._effects.pop()
        increased = self._index.unmerge(_key(record.pair), chr(record.token), effect)
        self._queue.push(increased)
        if record.new_token:
            self.vocab.remove_last()
            self._index.token_freq.pop()
        if check and self._records.unchecked(self.position):
            self._check_decision(record)  # the state before it, again: raises with it undone
        return record

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

    # -- queries: pairs --------------------------------------------------------------------

    def pair_count(self, pair: Pair) -> int:
        """Weighted count of adjacent occurrences (overlapping included); 0 if absent."""
        return self._index.count(_key(pair))

    def pair_counts(self) -> dict[Pair, int]:
        """Every live pair with its count (a full copy: for checks and exports, not per step)."""
        return {_pair(k): c for k, c in self._index.live_pairs()}

    @property
    def pair_total(self) -> int:
        """Number of distinct pairs present now."""
        return self._index.pair_total

    def top_pairs(self, n: int) -> list[PairStat]:
        """The ``n`` best pairs in the current rule's order (cheap for small ``n``)."""
        count = self._index.count
        return [PairStat(_pair(k), count(k)) for k in self._queue.ranked(n)]

    def ranked_pairs(self) -> list[PairStat]:
        """All live pairs, best first (sorts everything: use for full tables, not every step)."""
        return self.top_pairs(self.pair_total)

    def top_count(self) -> int:
        return self._queue.top_count()

    def ties_at_top(self) -> int:
        """How many pairs share the highest count now."""
        return self._ties(self._queue.top_count())

    def tied_candidates(self, limit: int = CANDIDATE_CAP) -> list[Pair]:
        """Up to ``limit`` pairs tied at the top count, in the current rule's order."""
        return [_pair(k) for k in self._queue.ranked(min(self.ties_at_top(), limit))]

    def replacements(self, pair: Pair) -> int:
        """Replacements a merge of ``pair`` would really make (non-overlapping, weighted)."""
        return self._index.replacements(_key(pair))

    def words_with_pair(self, pair: Pair) -> list[int]:
        """Indices of the word types whose current segmentation contains ``pair``."""
        return self._index.words_with(_key(pair))

    def word_count_with_pair(self, pair: Pair) -> int:
        """How many word types contain ``pair`` (cheaper than the list)."""
        return self._index.word_count(_key(pair))

    def first_occurrence(self, pair: Pair) -> tuple[int, int]:
        """(word index, position) of the pair's first occurrence (the first-seen key). The
        position orders occurrences within the word; in a long word it counts initial units."""
        key = _key(pair)
        word = self._index.first_word(key)
        return word, self._index.position(word, key)

    def tied_pairs(self) -> list[Pair]:
        """Every pair tied at the top count now, in no particular order (a full scan)."""
        top = self._queue.top_count()
        if not top:
            return []
        return [_pair(k) for k in self._index.pairs_counted(top)]

    def rule_choices(self, pairs: list[Pair] | None = None) -> dict[str, Pair]:
        """Which pair each named rule would pick: among ``pairs``, or by default among *all*
        pairs tied at the top count (what a step under that rule would merge now)."""
        if pairs is None:
            pairs = self.tied_pairs()
        if not pairs:
            return {}
        tokens = self.vocab.tokens
        choices: dict[str, Pair] = {}
        for name in RULE_NAMES:
            if name == "random":
                continue
            rule = TieBreakRule(name)
            if rule.depends_on_position:
                choices[name] = min(pairs, key=self.first_occurrence)
            else:
                choices[name] = min(pairs, key=partial(_static_key, rule, tokens))
        return choices

    # -- queries: vocabulary and corpus ----------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_string(self, token_id: int) -> str:
        return self.vocab.tokens[token_id]

    def pair_string(self, pair: Pair) -> str:
        return f"({quoted(self.vocab.tokens[pair[0]])}, {quoted(self.vocab.tokens[pair[1]])})"

    def token_length(self, token_id: int) -> int:
        """Units (characters, or bytes in byte mode) of text the token stands for: the end-of-word
        marker covers none; a special token counts its own text."""
        key = self.vocab.keys[token_id]
        if token_id < self.vocab.n_special:
            return len(key.encode("utf-8")) if self.corpus.config.unit == "byte" else len(key)
        return len(key) - (self.corpus.config.end_of_word is not None and key.endswith(MARK))

    def token_frequency(self, token_id: int) -> int:
        """Occurrences of the token in the current segmentation of the corpus."""
        return self._index.token_freq[token_id]

    def line_keys(self) -> list[str]:
        """The keys of the tokens now, then of those the redo-able merges of this line make."""
        keys, line = list(self.vocab.keys), self._records
        for i in range(self.position, len(line)):
            if line.new_token(i):
                left, right = line.pair(i)
                keys.append(keys[left] + keys[right])
        return keys

    def token_numbers(self) -> list[int] | None:
        """The exported id of each token of :meth:`line_keys` (an imported tokenizer's ids, see
        ``bpe_core.encoding.numbering``), or ``None`` when they are the session's own ids. The list is
        the same object for as long as the recorded history is (undo and redo keep it)."""
        if self.numbering is None:
            return None
        if self._numbers_revision != self.revision:
            self._numbers = self.numbering.ids(self.line_keys(), self.vocab.n_special)
            self._numbers_revision = self.revision
        return self._numbers

    def encoder(self, full_history: bool = False) -> Encoder:
        """An encoder of the vocabulary and the merges applied so far (a snapshot).

        With ``full_history`` it also holds the redo-able merges after the current position
        (encode with ``upto=trainer.position`` for the current state); it then stays valid
        while the user moves back and forth in the same history.

        >>> trainer = Trainer(Corpus.from_text("low low lower", PipelineConfig()))
        >>> _ = trainer.run()
        >>> trainer.encoder().encode("lowest").tokens
        ['low', 'e', 's', 't', '</w>']
        """
        history = self.history
        records = history if full_history else history.prefix(self.position)
        # With the tokens of merges undone so far but recorded, when they are wanted.
        keys = self.line_keys() if full_history else list(self.vocab.keys)
        columns = (records.column(name).tolist() for name in ("left", "right", "token", "count"))
        merges = list(map(Merge, range(len(records)), *columns))
        encoder = Encoder(self.corpus.config, keys, merges, range(self.vocab.n_special))
        numbers = self.token_numbers()
        if numbers is None or self.numbering is None:
            return encoder
        return encoder.renumbered(numbers[: len(keys)], self.numbering.unknown)

    def token_created_at(self, token_id: int) -> int:
        """Step that created the token (0 for special and base tokens)."""
        return self.vocab.created_at[token_id]

    def token_parts(self, token_id: int) -> Pair | None:
        """The pair whose merge first created ``token_id`` (``None`` for base and special)."""
        step = self.vocab.created_at[token_id]
        return self._records.pair(step - 1) if step else None

    @property
    def corpus_tokens(self) -> int:
        """Total number of tokens in the corpus' current segmentation."""
        return self._index.total_tokens

    @property
    def word_count(self) -> int:
        """Number of distinct word types."""
        return len(self.corpus.words)

    def segmentation(self, word: int) -> list[int]:
        """Token ids of word type ``word`` now."""
        return [ord(ch) for ch in self._index.seg(word)]

    def segmentation_length(self, word: int) -> int:
        return self._index.seg_length(word)

    def segmentation_lengths(self) -> np.ndarray:
        """Every word type's current number of tokens (one array: cheaper than asking each)."""
        return self._index.seg_lengths()

    def words_with_token(self, token_id: int) -> list[int]:
        """Indices of the word types whose current segmentation contains the token."""
        return self._index.words_with_symbol(token_id)

    def changed_words(self) -> list[int]:
        """Word types the last applied merge changed (empty at step 0)."""
        return self._last_effect().changed if self._effects else []

    def _last_effect(self) -> MergeEffect:
        """What the last applied merge changed; for a merge restored from a session, worked out
        now, as the words holding its token (it is the last merge applied)."""
        effect = self._effects[-1]
        if effect is None:
            record = self._records[self.position - 1]
            effect = MergeEffect(self._index.lazy_words(record.token), record.replacements)
            self._effects[-1] = effect
        return effect

    @property
    def last_change(self) -> LastChange | None:
        """What the last single step, undo or redo changed (``None`` after a run or jump)."""
        return self._last_change

    # -- queries: per-step series for plots ------------------------------------------------

    def series(self) -> list[SeriesPoint]:
        """One point per step up to the current position, starting with the initial state."""
        line, n = self._records, self.position
        columns = (
            line.column(name, n).tolist() for name in ("top_count", "ties", "vocab_size", "corpus_tokens")
        )
        return [self._initial, *map(SeriesPoint, range(1, n + 1), *columns)]

    @property
    def initial_point(self) -> SeriesPoint:
        return self._initial


def _static_key(rule: TieBreakRule, tokens: Sequence[str], pair: Pair) -> Any:
    return rule.static_key(tokens[pair[0]], tokens[pair[1]], *pair)


def _cold_runs(cold: ColdIndex) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The words of a cold index in runs, as ``bpe_core.training.word_replay`` takes them."""
    starts = cold.starts
    n_words = len(starts) - 1
    step = max(1, n_words * (1 << 18) // max(1, int(starts[-1])))
    for first in range(0, n_words, step):
        last = min(first + step, n_words)
        low, high = int(starts[first]), int(starts[last])
        yield cold.symbols[low:high].astype(np.int32), np.diff(starts[first : last + 1]).astype(np.int64)
