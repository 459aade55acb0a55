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

from collections.abc import Callable, Iterable
from dataclasses import replace

from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import InputError, MergeError, quoted
from bpe_core.history.branches import HistoryTree
from bpe_core.history.events import (
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
from bpe_core.pipeline.corpus import Corpus
from bpe_core.pipeline.vocab import Vocabulary
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.answers import LastChange, Pair, PairStat, SeriesPoint, key_pair, pair_key
from bpe_core.training.branching import REVISIONS, Branching, all_or_nothing
from bpe_core.training.cold_index import ColdIndex
from bpe_core.training.config import TrainingConfig
from bpe_core.training.flat_index import FlatIndex
from bpe_core.training.initial_symbols import (
    alphabet,
    initial_segs,
    word_symbols,
)
from bpe_core.training.pair_index import MergeEffect, PairIndex
from bpe_core.training.pair_queue import PairQueue
from bpe_core.training.queries import TrainerQueries
from bpe_core.training.restore import Restoring
from bpe_core.training.tie_rules import TieBreakRule

__all__ = ["LastChange", "PairStat", "SeriesPoint", "Trainer"]  # the answers, where they were always found
Progress = Callable[[int, int], None]
# A walk of this many merges or undos warms up an opened session's whole index first.
LONG_WALK = 256
# A corpus counted afresh is indexed flat (``flat_index``) unless this is off (tests of the
# string index's own merge paths turn it off).
FLAT_INDEX = True


class Trainer(TrainerQueries, Branching, Restoring):
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
        if config.continuing_prefix is not None and len(corpus.words):
            raise InputError(
                "Counting a corpus with a continuing-subword prefix is not modelled: a tokenizer with "
                f"one ({quoted(config.continuing_prefix)}) is stepped through and encodes, without a corpus."
            )
        # An imported tokenizer's alphabet (the one given) is its own: beside it only what the
        # words are made of, not every byte or the plain twin of each marked last unit.
        symbols = self._alphabet | word_symbols(corpus) if self._alphabet else alphabet(corpus)
        self.vocab = Vocabulary(config.special_tokens, symbols, config.end_of_word, config.continuing_prefix)
        self._records = MergeLine()  # the current branch's line
        self._tree = HistoryTree(self._records)
        self.revision = next(REVISIONS)
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
        if hasattr(self, "_index"):  # (a trainer being made has none yet)
            self._index.stop_ahead()  # work ahead for the index let go
        if isinstance(segs, ColdIndex):
            self._index = PairIndex.from_cold(segs, self.corpus.counts, len(self.vocab), lazy)
        elif FLAT_INDEX and FlatIndex.fits(segs):
            self._index = FlatIndex(segs, self.corpus.counts, len(self.vocab))
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

    # -- commands --------------------------------------------------------------------------

    @all_or_nothing
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
            key = pair_key(pair)
            if not self._index.count(key):
                raise MergeError(f"The pair {self.pair_string(pair)} does not occur in the corpus.")
            decided_by = decided_by or USER
        record, redone = self._advance(key, decided_by, chosen=chosen and pair is not None)
        self._last_change = LastChange(True, record, self._last_effect().changed_ids)
        self.events.emit(MergeApplied(record, redo=redone))
        return record

    @all_or_nothing
    @without_gc
    def undo(self) -> MergeRecord:
        """Undo the last merge exactly; it stays available for :meth:`redo`."""
        if not self.can_undo:
            raise MergeError("There is no merge to undo.")
        start = self.position
        effect = self._last_effect()
        record = self._unmerge()
        words = effect.changed_ids  # (an undo worked out ahead brings them)
        while self.position and self._records.pass_number(self.position - 1) == record.pass_number:
            record = self._unmerge()  # the rest of its pass: a pass is one node of the history
        if self.position == start - 1:
            self._last_change = LastChange(False, record, words)
            self.events.emit(MergeUndone(record))
        else:
            self._last_change = None
            self.events.emit(Jumped(start, self.position))
        return record

    @all_or_nothing
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
            self._last_change = LastChange(True, record, self._last_effect().changed_ids)
            self.events.emit(MergeApplied(record, redo=True))
        else:
            self._last_change = None
            self.events.emit(Jumped(start, self.position))
        return record

    @all_or_nothing
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

    @all_or_nothing
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
                elif self.position == len(self._records):  # the line's end: no line to follow
                    self._merge(self._decide(None, None), self._rule.spec, self._next_pass())
                else:
                    self._advance(None, self._rule.spec)
                if reason is None and progress is not None:
                    progress(self.position - start, goal)
        if self.position != start:
            self.events.emit(Jumped(start, self.position, reason))
        return reason

    def prepare_next(self) -> None:
        """Have the index work out ahead, in the background, what the next step or redo would
        merge (see ``FlatIndex.prepare``: the line's next merge where there is one, else the
        rule's pick) and what the next undo would undo. The window asks once it is still after
        a change. Then it has the index cut its stale lists (``FlatIndex.compact_ahead``).
        Nothing observable changes."""
        index = self._index
        if not index.works_ahead:
            return
        if self.training.merges_per_pass == 1:
            if self.can_redo:
                index.prepare(pair_key(self._records[self.position].pair))
            elif self.stop_reason() is None and (pair := self._queue.best()) is not None:
                index.prepare(pair)
            if self.can_undo and (effect := self._effects[-1]) is not None:
                index.prepare_undo(pair_key(self._records[self.position - 1].pair), effect)
        index.compact_ahead()

    def stop_ahead(self) -> None:
        """Stop the index's work ahead, if any, without waiting (the trainer is let go)."""
        self._index.stop_ahead()

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
            self._last_change = LastChange(True, records[0], self._last_effect().changed_ids)
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
            line = self._tree.line_with(self.position, [key_pair(key) for key in keys])
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
            return key or "", saved.top_count, saved.ties, [pair_key(p) for p in saved.candidates]
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
        merged = vocab.joined(left, right)
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
            candidates=tuple(map(key_pair, candidates)) if candidates else (),
            decided_by=decided_by,
            new_token=created,
            vocab_size=len(vocab),
            corpus_tokens=index.total_tokens,
            pass_number=pass_number,
        )
        self._records.append(record)
        self.revision = next(REVISIONS)
        self._effects.append(effect)
        return record

    def _redecided(self, record: MergeRecord, decided_by: str) -> MergeRecord:
        """``record``, just followed, as decided by ``decided_by``, in every line that reaches
        it the way the current one does (they share the node)."""
        new = replace(record, decided_by=decided_by)
        step, line = record.step, self._records
        # Found before any is changed: a line's own copy of the row is compared as it was. A line
        # with the same merges whose pass goes on past this one (its next merge in the same
        # pass) is another node of the tree, however alike its rows.
        sharing = [
            branch.records
            for branch in self._tree.branches.values()
            if len(branch.records) >= step
            and common_length(branch.records, line, step) == step
            and branch.records.pass_end(step) == step
        ]
        for records in sharing:
            records[step - 1] = new  # a row read by several lines changes for them all
        self.revision = next(REVISIONS)
        return new

    def _remerge(self, check: bool = True) -> MergeRecord:
        record = self._records[self.position]
        index = self._index
        if check and self._records.unverified(self.position):
            self._verify(record)
        if check and self._records.unchecked(self.position):
            self._check_decision(record)
        if record.new_token:
            self.vocab.add(self.vocab.joined(*record.pair), record.step)
            index.token_freq.append(0)
        effect = index.merge(
            pair_key(record.pair), chr(record.token), fresh=index.token_freq[record.token] == 0
        )
        self._queue.push(effect.increased)
        self._effects.append(effect)
        return record

    def _unmerge(self, check: bool = True) -> MergeRecord:
        record = self._records[self.position - 1]
        effect = self._last_effect()
        self._effects.pop()
        increased = self._index.unmerge(pair_key(record.pair), chr(record.token), effect)
        self._queue.push(increased)
        if record.new_token:
            self.vocab.remove_last()
            self._index.token_freq.pop()
        if check and self._records.unchecked(self.position):
            self._check_decision(record)  # the state before it, again: raises with it undone
        return record
