"""The one adapter between the engine and Qt: core events become signals, commands are slots.

Short commands (a step, an undo, a short jump) run synchronously on the GUI thread. Long ones
(runs, far jumps, opening a file) run as a :class:`~app.jobs.Job`; meanwhile the bridge is
*busy*, views must not read the trainer (models answer from their caches), and the engine's
events are held back and announced once the job is over.

Every change is first announced as a :class:`Change` saying what changed (merges applied from k
to n, an undo to k, a jump from a to b, another line, a reset), so that each view updates only
that; a background job is summed up in one.

Opening builds a new trainer off the GUI thread and swaps it in at the end, so the current
session is untouched until the new one is complete, and untouched for good if opening fails or
is cancelled. Opening while a job runs cancels that job and queues the new request (a newer
request replaces a queued one): whatever is swapped in carries its own name and path, so the
title, the path and the content always belong together.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.changes import KINDS, Change, ChangeKind
from app.collector import collect_on_gui_thread, note_activity
from app.jobs import Job, Outcome, Work
from bpe_core import Corpus, MergeError, PipelineConfig, StopReason, Trainer, TrainingConfig, load_corpus
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import Cancelled, InputError
from bpe_core.history.events import (
    BranchCreated,
    BranchSwitched,
    Event,
)
from bpe_core.history.records import USER
from bpe_core.io.corpus_files import counts_files
from bpe_core.io.counting import lines_of
from bpe_core.io.counts_file import COUNTING_SETTINGS, is_counts_file, named_settings, states_pipeline
from bpe_core.io.formats import DESCRIPTIONS, export_notes, read_tokenizer, tokenizer_format, write_tokenizer
from bpe_core.io.imported import attach_corpus, trainer_from_encoder
from bpe_core.io.session import load_session, save_session, sniff_session, trainer_from_session
from bpe_core.io.sources import expand, head_refusal
from bpe_core.runtime.fileio import is_pipe, write_atomic
from bpe_core.runtime.memory import release_free_memory
from bpe_core.tools.compare import Run, sweep, tie_choices
from bpe_core.tools.walkthrough import walkthrough
from bpe_core.tools.what_if import open_run_as_branch, run_rule_from_here

log = logging.getLogger(__name__)
Pair = tuple[int, int]
ASK = "ask"  # the tie rule selector's "Ask me"
TIE_LIST = 50  # tied pairs listed when asking the user (the rules' picks are always among all)
# Said where counts would be, in an imported tokenizer's session without a corpus.
NO_CORPUS = "Attach a corpus (File → Attach corpus…) to see counts"
SYNC_JUMP = 50  # jumps of more merges than this run in the background
# The next merge and undo are worked out ahead (``Trainer.prepare_next``) this long after the
# views have taken in a change, restarted by each: after the repaint (which the work, run beside
# it, slowed by half), not between the steps of a held key (repeated every 33 ms or so, unless
# a step itself takes longer), but while the user looks at the step.
AHEAD_AFTER_MS = 50
COUNTS_SUFFIXES = (".tsv", ".counts")


@dataclass(frozen=True)
class Source:
    """Where the corpus came from, so new settings can re-run the pipeline on the original:
    a file (``path``), a text (``text``: pasted or a sample), or neither (a saved session, whose
    words are all that is left). ``sample`` marks a built-in sample, re-created in one click;
    ``test_text`` is the Encode test string a saved session kept (``None``: it kept none)."""

    name: str
    path: Path | None = None
    more: tuple[Path, ...] = ()  # inputs counted with ``path``, as one corpus (several dropped)
    text: str | None = None
    input_kind: str = "text"
    sample: bool = False
    test_text: str | None = None
    pieces: bool = False  # word counts stating the pipeline that counted them: its settings are theirs
    lines: bool = False  # each line of the text a text of its own, as Hugging Face's train(files) reads files

    @property
    def has_lines(self) -> bool:
        """Whether the source is text read again on new settings, so a line at a time too."""
        return self.input_kind == "text" and (self.path is not None or self.text is not None)


@dataclass(frozen=True)
class _Request:
    """A background job, started now or queued behind the one running."""

    title: str
    work: Work
    on_success: Callable[[Any], None] | None = None
    opens: Path | None = None  # the file it opens (reported through ``sig_opened``)
    replaces_session: bool = False
    reads_session: bool = False  # its work reads the current trainer (on the job's thread)
    fails_as: str = ""  # its failure dialog's title, worded as a refusal's ("Cannot open X")

    @property
    def failure_title(self) -> str:
        return self.fails_as or f"{self.title} failed"


class Bridge(QObject):
    """Owns the current trainer and everything the window needs to know about it."""

    sig_change = Signal(object)
    """What changed, as a :class:`Change`: merges applied or undone, a jump, a branch, a setting
    (the tie rule, Ask me, the minimum frequency), a new session; after a job, one Change sums it
    up. Never emitted while a job runs, so a slot may read the trainer. The item models connect
    first (they are made before their panes), so a pane's slot sees its model updated."""
    sig_busy_changed = Signal(bool)
    """A background job started or was queued (True), or the last one ended (False)."""
    sig_progressed = Signal(str, int, int)
    """A background job progressed: (title, done, total)."""
    sig_message = Signal(str)
    """A short outcome for the status bar ("Opened …", "Cancelled", "Stopped: …")."""
    sig_error = Signal(str, str)
    """Something failed: (title, one-sentence message) for a dialog."""
    sig_tie_reached = Signal()
    """Ask-me mode met a tie before a step: the user is to decide it."""
    sig_document_changed = Signal()
    """The session's file path or unsaved-changes flag changed."""
    sig_opened = Signal(object, bool)
    """Opening a file ended: (path, whether it opened). Not emitted when it was cancelled."""

    def __init__(self, trainer: Trainer, source: Source | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        collect_on_gui_thread()  # jobs run on other threads: see app.collector
        # Attributes
        self._trainer = trainer
        self._unsubscribe: Callable[[], None] = trainer.events.subscribe(self._on_core_event)
        self._job: Job | None = None
        self._request: _Request | None = None  # the running job's
        self._queued: _Request | None = None
        # The job (a run, a jump) stopped so that a file could open, until that open has ended.
        self.stopped_for_open = ""
        self._held: list[Event] = []
        self._diverted: Callable[[Event], None] | None = None
        self._seen = self._landmarks()  # the trainer as the last Change left it
        self._encoder: Encoder | None = None
        self._encoder_key: tuple = ()  # (trainer.revision,) it was built for
        self._clean_state = self._state()
        self._interrupted_run: dict[str, int | None] | None = None
        self._pausing = False  # stopping jobs for pause(): a Run keeps its target
        self._paused_run: dict[str, int | None] | None = None
        self._open_note = ""  # what the "Opened …" message adds about an import or an attach
        self._state_before_job: tuple = ()
        self._closed = False  # after shutdown: no job starts any more
        self.ask_at_ties = False
        self.path: Path | None = None  # the session file, once saved or opened
        self.dirty = False
        self.source = source or Source("untitled")
        # The window's Encode test string, kept in the session file (None: none to keep).
        self.test_text: Callable[[], str | None] = lambda: None
        self._ahead_timer = QTimer(self, singleShot=True, interval=AHEAD_AFTER_MS)
        self._ahead_timer.timeout.connect(self._prepare_next)
        self._ahead_timer.start()

    # -- state -------------------------------------------------------------------------

    @property
    def trainer(self) -> Trainer:
        return self._trainer

    @property
    def busy(self) -> bool:
        return self._job is not None

    @property
    def trainer_busy(self) -> bool:
        """Whether a job may be changing or reading the current trainer, which views must then
        not read. Opening builds a new trainer and leaves the current one alone, so while a
        corpus loads the panes still scroll, filter and encode over the session they show."""
        request = self._request
        return self._job is not None and not (
            request is not None and request.replaces_session and not request.reads_session
        )

    @property
    def opening(self) -> bool:
        """Whether the running or queued job opens a file or a text (replacing the session)."""
        return any(r is not None and r.replaces_session for r in (self._request, self._queued))

    @property
    def job_title(self) -> str:
        request = self._queued or self._request
        return request.title if request is not None else ""

    def encoder(self) -> Encoder:
        """An encoder over the whole history (encode with ``upto=position``), cached. It reads
        the trainer: not while a job runs."""
        trainer = self._trainer
        key = (trainer.revision,)
        if self._encoder is None or key != self._encoder_key:
            self._encoder = trainer.encoder(full_history=True)
            self._encoder_key = key
        return self._encoder

    def tie_rule_spec(self) -> str:
        return ASK if self.ask_at_ties else self._trainer.rule.spec

    def has_unsaved_work(self) -> bool:
        """Whether replacing or closing the session would lose work worth asking about. A
        sample whose merges were all decided by a rule is re-created in one click: only merges
        chosen by hand make it work."""
        if self.busy:  # the trainer may not be read now: assume the worst
            return self.dirty
        trainer = self._trainer
        if not self.dirty:
            return False
        lines = [trainer.branch_history(branch.id) for branch in trainer.branches()]
        if not any(lines):
            return False
        if self.source.sample and self.path is None:  # a hand-picked merge on any branch is work
            return any(USER in line.deciders() for line in lines)
        return True

    def _landmarks(self) -> tuple[int, int, int]:
        """(position, current branch, revision): what a :class:`Change` compares."""
        trainer = self._trainer
        return trainer.position, trainer.current_branch, trainer.revision

    def _announce_change(self, kind: ChangeKind, branch_switched: bool = False) -> None:
        """Tell the views what changed since the last Change."""
        (before, branch, revision), self._seen = self._seen, self._landmarks()
        after, branch_now, revision_now = self._seen
        note_activity()
        switched = branch_switched or branch != branch_now
        self.sig_change.emit(Change(kind, before, after, switched, revision != revision_now))
        self._ahead_timer.start()

    def _prepare_next(self) -> None:
        if self.trainer_busy or self._closed:
            return
        try:
            self._trainer.prepare_next()
        except Exception:  # work ahead only saves time: a step works its merge out itself
            log.exception("Working out the next merge and undo ahead failed")

    def _summary(self, held: list[Event]) -> tuple[ChangeKind, bool]:
        """One change for everything a background job did: (kind, branch switched)."""
        kinds = {KINDS.get(type(event), ChangeKind.SETTINGS) for event in held}
        switched = any(isinstance(event, (BranchSwitched, BranchCreated)) for event in held)
        if ChangeKind.RESET in kinds:
            return ChangeKind.RESET, switched
        if self._landmarks() != self._seen or kinds & {
            ChangeKind.APPLIED,
            ChangeKind.UNDONE,
            ChangeKind.JUMPED,
        }:
            return ChangeKind.JUMPED, switched
        for kind in (ChangeKind.BRANCHES, ChangeKind.SETTINGS):
            if kind in kinds:
                return kind, switched
        return ChangeKind.SETTLED, switched

    def _state(self) -> tuple:
        """What saving records, compared to tell whether there are unsaved changes."""
        trainer = self._trainer
        return (trainer.revision, trainer.position, trainer.training)

    # -- core events -> signals ------------------------------------------------------------

    def _on_core_event(self, event: Event) -> None:
        if self._diverted is not None:  # a command announces its events itself (see configure)
            self._diverted(event)
            return
        if self._job is not None:  # in the worker thread: announce after the job, on the GUI thread
            self._held.append(event)
            return
        self._announce(event)

    def _announce(self, event: Event) -> None:
        """An engine event as a :class:`Change`, and the document state it leaves."""
        self._announce_change(KINDS.get(type(event), ChangeKind.SETTINGS))
        self._touch()

    def _touch(self) -> None:
        self.dirty = self._state() != self._clean_state
        self.sig_document_changed.emit()

    # -- commands: synchronous -------------------------------------------------------------

    def step(self) -> bool:
        """One step by the current rule; in Ask-me mode a tie asks first. False if none. In an
        imported tokenizer's session a step is the tokenizer's next merge, while there is one."""
        if self.busy:
            return False
        trainer = self._trainer
        if trainer.numbering is not None and trainer.can_redo:
            return self._guarded(trainer.redo, "Cannot step")
        if not trainer.word_count:  # no corpus: nothing to count pairs in, let alone merge
            self.sig_message.emit("No step: the tokenizer has no merge left; attach a corpus to train on.")
            return False
        reason = trainer.stop_reason()
        if reason is not None:
            self.sig_message.emit(f"No step: {reason.value}.")
            return False
        if self.ask_at_ties and trainer.ties_at_top() > 1:
            self.sig_tie_reached.emit()
            return False
        return self._guarded(trainer.step, "Cannot step")  # it may follow a saved line

    def step_pair(self, pair: Pair, decided_by: str | None = None) -> bool:
        """Merge a chosen pair (any pair present), recording who decided."""
        if self.busy:
            return False
        try:
            self._trainer.step(pair, decided_by=decided_by, chosen=True)
        except MergeError as error:
            self.sig_error.emit("Cannot merge", str(error))
            return False
        return True

    def undo(self) -> bool:
        if self.busy or not self._trainer.can_undo:
            return False
        return self._guarded(self._trainer.undo, "Cannot undo")  # a merge read from a file is checked

    def redo(self) -> bool:
        if self.busy or not self._trainer.can_redo:
            return False
        return self._guarded(self._trainer.redo, "Cannot redo")

    def goto(self, step: int) -> None:
        """Jump to just after merge ``step``; far jumps run in the background."""
        trainer = self._trainer
        if self.busy or step == trainer.position or not 0 <= step <= trainer.history_length:
            return
        if abs(step - trainer.position) <= SYNC_JUMP:
            self._guarded(lambda: trainer.goto(step), "Cannot jump")
            return

        def work(progress, cancelled) -> bool:
            trainer.goto(step, progress, cancelled)
            return not cancelled()  # a step inside a pass arrives at the pass's end

        def finished(arrived: bool) -> None:
            if not arrived:
                self.sig_message.emit("Cancelled")

        self._start(_Request(f"Jumping to step {step:,}", work, finished))

    def switch_branch(self, branch: int, step: int | None = None) -> None:
        """Go to a branch (after its merge ``step``, default its last); far walks run in the
        background."""
        trainer = self._trainer
        if self.busy:
            return
        try:
            target = trainer.branch_history(branch)
        except MergeError as error:
            self.sig_error.emit("Cannot switch", str(error))
            return
        step = len(target) if step is None else step
        if branch == trainer.current_branch:
            self.goto(step)
            return

        def work(progress, cancelled) -> bool:
            trainer.switch(branch, step, progress, cancelled)
            return trainer.current_branch == branch and not cancelled()

        def finished(arrived: bool) -> None:
            if not arrived:
                self.sig_message.emit("Cancelled")

        name = next(b.name for b in trainer.branches() if b.id == branch)
        if abs(trainer.position - step) + len(target) <= SYNC_JUMP:  # a short walk: at once
            self._guarded(lambda: trainer.switch(branch, step), "Cannot switch")
            return
        self._start(_Request(f"Switching to {name}", work, finished))

    def rename_branch(self, branch: int, name: str) -> bool:
        return not self.busy and self._guarded(
            lambda: self._trainer.rename_branch(branch, name), "Cannot rename"
        )

    def delete_branch(self, branch: int) -> bool:
        return not self.busy and self._guarded(lambda: self._trainer.delete_branch(branch), "Cannot delete")

    def _guarded(self, command: Callable[[], object], title: str) -> bool:
        """Run a trainer command; a refusal (``MergeError``: a bad request, or a merge read
        from the file that does not fit the corpus) becomes a dialog, the state as it was."""
        try:
            command()
        except MergeError as error:
            self.sig_error.emit(title, str(error))
            return False
        return True

    def reset(self) -> None:
        if not self.busy:
            self._interrupted_run = None
            self._trainer.reset()

    def set_tie_rule(self, spec: str) -> None:
        """A rule name, ``random:SEED``, or ``ask`` (stop at ties and let the user choose)."""
        if self.busy:
            return
        self.ask_at_ties = spec == ASK
        if spec != ASK and spec != self._trainer.rule.spec:
            self._trainer.set_tie_break(spec)  # emits SettingsChanged
        else:
            self._announce_change(ChangeKind.SETTINGS)

    def configure(self, training: TrainingConfig, ask_at_ties: bool | None = None) -> None:
        """Take the training settings at once (the Settings dialog): the tie rule, the minimum
        frequency and the merges per pass, and whether ties are asked (``None``: as now). What
        changed is announced once, as one settings change (three setters announced three)."""
        if self.busy:
            return
        trainer = self._trainer
        ask_changed = ask_at_ties is not None and ask_at_ties != self.ask_at_ties
        if ask_at_ties is not None:
            self.ask_at_ties = ask_at_ties
        announced: list[Event] = []
        self._diverted = announced.append  # the setters' events, announced below as one
        try:
            if training.tie_break != trainer.rule.spec:
                trainer.set_tie_break(training.tie_break)
            if training.min_frequency != trainer.training.min_frequency:
                trainer.set_min_frequency(training.min_frequency)
            if training.merges_per_pass != trainer.training.merges_per_pass:
                trainer.set_merges_per_pass(training.merges_per_pass)
        finally:
            self._diverted = None
        if announced:
            self._announce(announced[-1])
        elif ask_changed:  # only the bridge's own setting: the trainer and the document are as they were
            self._announce_change(ChangeKind.SETTINGS)

    def save(self, path: str | Path) -> bool:
        if self.busy:
            return False
        try:
            save_session(self._trainer, path, self.test_text())
        except Exception as error:  # SessionError, or anything else: the user must hear of it
            self.sig_error.emit("Could not save", str(error))
            return False
        self.path = Path(path)
        self._clean_state = self._state()
        self.dirty = False
        self.sig_document_changed.emit()
        self.sig_message.emit(f"Saved to {self.path}")
        return True

    def save_copy(self, path: str | Path) -> None:
        """Write the session to ``path`` (atomically) without making it the session's file: a
        recovery copy. Raises what ``save_session`` raises; not while a job runs."""
        save_session(self._trainer, path, self.test_text())

    # -- commands: background --------------------------------------------------------------

    def run(
        self, merges: int | None = None, vocab_size: int | None = None, min_frequency: int | None = None
    ) -> None:
        """Merge until a target; in Ask-me mode the run stops at each tie, asks, and goes on
        (see :meth:`continue_run`)."""
        if self.busy:
            return
        trainer, ask = self._trainer, self.ask_at_ties
        if not trainer.word_count:
            self.sig_message.emit("No run: there is no corpus to train on (File → Attach corpus…).")
            return
        start = trainer.position
        self._interrupted_run = None

        def work(progress, cancelled):
            return trainer.run(
                merges=merges,
                vocab_size=vocab_size,
                min_frequency=min_frequency,
                progress=progress,
                cancel=cancelled,
                stop_at_tie=ask,
            )

        def finished(reason: StopReason) -> None:
            if reason is StopReason.CANCELLED and self._pausing:  # to go on unless the window closes
                done = self._trainer.position - start
                left = None if merges is None else merges - done
                self._paused_run = {"merges": left, "vocab_size": vocab_size, "min_frequency": min_frequency}
                return
            if reason is StopReason.CANCELLED:
                self.sig_message.emit("Cancelled")
                return
            self.sig_message.emit(f"Stopped: {reason.value}.")
            if reason is StopReason.TIE:
                done = self._trainer.position - start
                left = None if merges is None else merges - done
                self._interrupted_run = {
                    "merges": left,
                    "vocab_size": vocab_size,
                    "min_frequency": min_frequency,
                }
                self.sig_tie_reached.emit()

        self._start(_Request("Running merges", work, finished))

    def run_rule_from_here(self, rule: str, merges: int, on_done: Callable[[], None] | None = None) -> None:
        """What ``rule`` would have done from here (``bpe_core.tools.what_if.run_rule_from_here``),
        in the background."""
        if self.busy:
            return
        trainer = self._trainer

        def work(progress, cancelled) -> StopReason:
            return run_rule_from_here(trainer, rule, merges, progress=progress, cancel=cancelled)

        def finished(reason: StopReason) -> None:
            if reason is StopReason.CANCELLED:
                self.sig_message.emit("Cancelled")
            elif on_done is not None:
                on_done()

        self._start(_Request(f"Running {rule} from step {trainer.position:,}", work, finished))

    def sweep_rules(self, rules: list[str], merges: int, on_done: Callable[[list[Run]], None]) -> None:
        """Train every rule from the corpus to ``merges`` in the background (see
        ``bpe_core.tools.compare.sweep``); ``on_done(runs)`` on success."""
        if self.busy:
            return
        corpus, training = self._trainer.corpus, self._trainer.training

        def work(progress, cancelled):
            return sweep(corpus, training, rules, merges, progress=progress, cancel=cancelled)

        self._start(_Request(f"Sweeping {len(rules)} rules to {merges:,} merges", work, on_done))

    def open_run_as_branch(self, run: Run) -> None:
        """A run's merges as a line of this session (``bpe_core.tools.what_if.open_run_as_branch``),
        in the background; the branch it makes is named after the run."""
        if self.busy:
            return
        trainer = self._trainer

        def work(progress, cancelled) -> int | None:
            return open_run_as_branch(trainer, run, progress=progress, cancel=cancelled)

        def finished(branch: int | None) -> None:
            if branch is not None:
                self.rename_branch(branch, run.label)

        self._start(_Request(f"Opening {run.label} as a branch", work, finished))

    def compute_tie_choices(self, on_done: Callable[[dict], None]) -> None:
        """Every rule's pick at every tie step of the current line, first-seen included (see
        ``bpe_core.tools.compare.tie_choices``), in the background."""
        if self.busy:
            return
        trainer = self._trainer

        def work(progress, cancelled) -> dict:
            return tie_choices(trainer, progress=progress, cancel=cancelled)

        self._start(_Request("Checking every rule at every tie", work, on_done))

    def export_walkthrough(self, path: str | Path) -> None:
        """Steps 1…position as a lesson document (Markdown, or HTML for .html), in the background."""
        if self.busy:
            return
        trainer = self._trainer
        html_output = Path(path).suffix.lower() in (".html", ".htm")
        source = self.path.name if self.path else self.source.name
        tie_rule = "Ask me (ties decided by hand)" if self.ask_at_ties else None

        def work(progress, cancelled) -> None:
            text = walkthrough(
                trainer,
                html_output=html_output,
                progress=_cancellable(progress, cancelled),
                source=source,
                tie_rule=tie_rule,
            )
            write_atomic(path, text)

        self._start(
            _Request("Writing the walk-through", work, lambda _: self.sig_message.emit(f"Exported to {path}"))
        )

    def export_tokenizer(
        self, format: str, path: str | Path, on_notes: Callable[[str, list[str]], None] | None = None
    ) -> None:
        """The merges up to the current step in another tool's format, ids as exported. With
        ``on_notes``, the notes (what the file does not hold) go to it with the outcome, whole,
        rather than after the outcome in the status bar, where a long one was cut off."""
        if self.busy:
            return
        encoder = self._trainer.encoder()

        def work(progress, cancelled) -> list[Path]:
            return write_tokenizer(encoder, format, path)

        def done(files: list[Path]) -> None:
            outcome = f"Exported {DESCRIPTIONS[format]} to {', '.join(map(str, files))}."
            notes = export_notes(encoder, format)
            if on_notes is not None and notes:
                self.sig_message.emit(outcome)
                on_notes(outcome, notes)
                return
            self.sig_message.emit(outcome + "".join(f" Note: {note}" for note in notes))

        self._start(_Request(f"Exporting {DESCRIPTIONS[format]}", work, done))

    def continue_run(self) -> bool:
        """After the user decided a tie that stopped a run: go on to the run's target."""
        target, self._interrupted_run = self._interrupted_run, None
        if target is None or self.busy:
            return False
        if target["merges"] is not None:
            target["merges"] -= 1  # the user's decision was one of them
            if target["merges"] <= 0:
                return False
        self.run(**target)
        return True

    def forget_interrupted_run(self) -> None:
        self._interrupted_run = None

    def pause(self) -> None:
        """Stop every job where it is, as :meth:`shutdown` does, but keep a Run's target, for
        :meth:`resume`: the window asks about saving before it closes, and the user may cancel
        the close, not the run."""
        self._pausing, self._paused_run = True, None
        try:
            self.shutdown(final=False)
        finally:
            self._pausing = False

    def resume(self) -> None:
        """Go on with the Run :meth:`pause` stopped, if any, to its target."""
        target, self._paused_run = self._paused_run, None
        if target is not None and (target["merges"] is None or target["merges"] > 0):
            self.run(**target)

    def open_file(
        self,
        path: str | Path,
        config: PipelineConfig | None = None,
        kind: str | None = None,
        on_opened: Callable[[], None] | None = None,
    ) -> None:
        """Open a session or a corpus file as a new session (the current one stays until it
        succeeds). ``kind`` forces ``session``, ``text`` or ``counts``; by default a session is
        recognised by parsing it, and a corpus by its suffix (``.tsv``: word counts)."""
        path = Path(path)
        if self.refused_pipe(path):
            return
        if kind is None and tokenizer_format(path) is not None:
            self.open_tokenizer(path, on_opened=on_opened)
            return
        config = config or PipelineConfig()
        training = self._next_training()

        def work(progress, cancelled):
            report = _cancellable(progress, cancelled)
            # Reading the file is cancellable too: a large session's corpus line alone takes
            # seconds to read (bench/open_in_window.py).
            maybe_session = kind in (None, "session") and not path.is_dir()  # a folder is a corpus
            data = sniff_session(path, lambda: report(0, 0)) if maybe_session else None
            if data is not None:
                source = Source(path.name, test_text=data.get("test_text"))
                return trainer_from_session(data, path, report), source, path
            if kind == "session":
                return load_session(path, report), Source(path.name), path  # reports what is wrong
            input_kind = kind or corpus_kind(path)
            corpus = _load_corpus(path, config, input_kind, report, chosen=())  # counts: as counted
            # The pair index next: seconds for millions of words, of no known length (and a
            # Cancel pressed meanwhile stops here).
            report(0, 0)
            source = Source(path.name, path=path, input_kind=input_kind, pieces=_pieces([path], input_kind))
            return Trainer(corpus, training), source, None

        self._open(f"Opening {path.name}", work, on_opened, opens=path)

    def open_files(self, paths: list[Path]) -> None:
        """Several files or folders (dropped together) counted as one corpus, as the command
        line counts its inputs: all of them texts, or all word counts."""
        if len(paths) == 1:
            self.open_file(paths[0])
            return
        if any(self.refused_pipe(path) for path in paths):
            return
        training = self._next_training()

        def work(progress, cancelled):
            report = _cancellable(progress, cancelled)
            kinds = {path: corpus_kind(path) for path in paths}
            if len(set(kinds.values())) > 1:
                counts = next(path for path, kind in kinds.items() if kind == "counts")
                text = next(path for path, kind in kinds.items() if kind == "text")
                raise InputError(
                    f"{counts.name} holds word counts and {text.name} text: open word counts and "
                    "texts apart, since counts were made by a pipeline of their own."
                )
            kind = kinds[paths[0]]
            corpus = _load_corpus(paths, PipelineConfig(), kind, report, chosen=())
            report(0, 0)
            name = f"{paths[0].name} and {len(paths) - 1} more"
            source = Source(name, paths[0], tuple(paths[1:]), input_kind=kind, pieces=_pieces(paths, kind))
            return Trainer(corpus, training), source, None

        self._open(f"Opening {len(paths)} files", work, None, opens=None)

    def open_tokenizer(
        self,
        path: str | Path,
        specials: tuple[str, ...] = (),
        corpus: Path | None = None,
        name: str | None = None,
        on_opened: Callable[[], None] | None = None,
        pattern: str | None = None,
    ) -> None:
        """A tokenizer file or folder as a session of its merges (``bpe_core.io.imported``); with
        ``corpus``, that text attached at once. ``pattern`` and ``specials`` complete tiktoken
        ranks, which hold neither (``pattern``: a pattern's or tiktoken encoding's name; GPT-2 files
        take a pattern too)."""
        path = Path(path)
        if self.refused_pipe(path) or (corpus is not None and self.refused_pipe(corpus)):
            return
        training = self._next_training()

        def work(progress, cancelled):
            report = _cancellable(progress, cancelled)
            imported = read_tokenizer(path, pattern=pattern, specials=specials)
            attached = (
                None if corpus is None else _load_corpus(corpus, imported.encoder.config, "text", report)
            )
            trainer = trainer_from_encoder(imported.encoder, attached, training, report)
            return imported, trainer, 0 if attached is None else len(attached.words)

        def install(result) -> None:
            imported, trainer, types = result
            self.replace_trainer(trainer, Source(name or path.name))
            merges = f"{len(imported.encoder.merges):,} merges"
            on_corpus = ""
            if corpus is not None:
                on_corpus = f", counted on {corpus.name}" + _left_out(types - trainer.word_count)
            notes = "".join(f" Note: {note}" for note in imported.notes)
            self._open_note = f": {DESCRIPTIONS[imported.format]}, {merges}{on_corpus}.{notes}"
            if on_opened is not None:
                on_opened()

        self._start(
            _Request(
                f"Importing {path.name}",
                work,
                install,
                opens=path,
                replaces_session=True,
                fails_as=f"Cannot import {path.name}",
            )
        )

    def attach(self, path: str | Path, kind: str | None = None) -> None:
        """Replay the session's line on a corpus file, filling in each merge's count there."""
        if self.busy:
            return
        path, trainer, source, session_path = Path(path), self._trainer, self.source, self.path

        def work(progress, cancelled):
            report = _cancellable(progress, cancelled)
            input_kind = kind or corpus_kind(path)  # here: a folder mixing counts and text is refused
            config = trainer.corpus.config  # counts made otherwise are refused, not misread
            corpus = _load_corpus(
                path, config, input_kind, report, chosen=named_settings(config), adopt=False
            )
            return attach_corpus(trainer, corpus, report)

        def install(attached: Trainer) -> None:
            self.replace_trainer(attached, source, session_path, saved=False)
            self._open_note = (
                f", {path.name} attached: {attached.word_count:,} words, each merge counted there"
            )

        self._start(
            _Request(
                f"Attaching {path.name}",
                work,
                install,
                replaces_session=True,
                reads_session=True,
                fails_as=f"Cannot attach {path.name}",
            )
        )

    def open_text(
        self,
        text: str,
        config: PipelineConfig,
        name: str = "pasted text",
        input_kind: str = "text",
        training: TrainingConfig | None = None,
        on_opened: Callable[[], None] | None = None,
        sample: bool = False,
    ) -> None:
        """A new session on ``text``: pasted text, or a built-in sample (text or counts)."""
        source = Source(name, text=text, input_kind=input_kind, sample=sample)
        self._open_source(source, config, training or self._next_training(), on_opened=on_opened)

    def _next_training(self) -> TrainingConfig:
        """The training settings of a new corpus: the tie rule and minimum count carry over
        (the toolbar and status bar show them); merges per pass goes back to classic BPE, as
        the pipeline settings do (kept, it made a large corpus train in passes unannounced)."""
        return replace(self._trainer.training, merges_per_pass=1)

    def rebuild(self, config: PipelineConfig, training: TrainingConfig, lines: bool | None = None) -> None:
        """A new session on the same source with new settings (from the settings dialog), its
        text read a line at a time or whole where ``lines`` says. It keeps the session file's
        name, and is unsaved: the file still holds the old one."""
        source = self.source if lines is None else replace(self.source, lines=lines)
        # (the source is open already: a failure to read it again does not strike it from Recent files)
        self._open_source(source, config, training, session_path=self.path, saved=False, listed=False)

    def _open_source(
        self,
        source: Source,
        config: PipelineConfig,
        training: TrainingConfig,
        session_path: Path | None = None,
        on_opened: Callable[[], None] | None = None,
        saved: bool = True,
        listed: bool = True,
    ) -> None:
        pieces = None if source.path or source.text is not None else self._trainer.corpus

        def work(progress, cancelled):
            report = _cancellable(progress, cancelled)
            if source.path is not None:
                # the settings chosen: word counts made otherwise are refused, not misread
                paths = [source.path, *source.more]
                corpus = _load_corpus(
                    paths, config, source.input_kind, report, chosen=COUNTING_SETTINGS, lines=source.lines
                )
            elif source.text is not None and source.input_kind == "counts":
                corpus = Corpus.from_counts(source.text, config)
            elif source.text is not None and source.lines:
                corpus = Corpus.from_texts(((line, 1) for line in lines_of(source.text)), config)
            elif source.text is not None:
                corpus = Corpus.from_text(source.text, config, report)
            else:  # a loaded session keeps only its pieces: re-run the pipeline on each
                corpus = Corpus.from_texts(zip(pieces.words, pieces.counts, strict=True), config)
            if cancelled():
                raise Cancelled
            return Trainer(corpus, training), source, session_path, saved

        # several inputs are no one file to list among the recent ones
        opens = source.path if listed and not source.more else None
        self._open(f"Opening {source.name}", work, on_opened, opens=opens)

    def refused_pipe(self, path: Path) -> bool:
        """A pipe (``bpe-studio <(command)``) is refused with a dialog: the window reads its
        source again when a setting changes, and a pipe gives its bytes only once."""
        if not is_pipe(path):
            return False
        self.sig_error.emit(
            f"Cannot open {path.name}",
            f"{str(path)!r} is a pipe, which can be read only once; the window reads a file again "
            "when a setting changes. Save the output to a file and open that.",
        )
        return True

    def refused_not_text(self, path: Path) -> bool:
        """A file whose first bytes already say it cannot be read (a picture, a binary file, one
        not allowed) is refused with a dialog at once, before anything asks about unsaved work."""
        refusal = head_refusal(str(path))
        if refusal is None or tokenizer_format(path) is not None:  # a SentencePiece model is binary
            return False
        self.sig_error.emit(f"Cannot open {path.name}", str(refusal))
        return True

    def _open(self, title: str, work: Work, on_opened: Callable[[], None] | None, opens: Path | None) -> None:
        def install(result) -> None:
            self.replace_trainer(*result)
            if on_opened is not None:
                on_opened()

        # "Opening X" titles the job; a failure is titled as a refusal is ("Cannot open X")
        fails_as = "Cannot open " + title.removeprefix("Opening ")
        self._start(_Request(title, work, install, opens=opens, replaces_session=True, fails_as=fails_as))

    def replace_trainer(
        self, trainer: Trainer, source: Source, session_path: Path | None = None, saved: bool = True
    ) -> None:
        """Swap in a new trainer (a loaded corpus or session): every view rebinds. ``saved``:
        it is what ``session_path`` holds (or there is nothing to save yet)."""
        self._unsubscribe()
        self._trainer.stop_ahead()
        self._trainer = trainer
        self._unsubscribe = trainer.events.subscribe(self._on_core_event)
        self._encoder = None
        self._interrupted_run = None
        self.source = source
        self.path = session_path
        self._clean_state = self._state() if saved else ()
        self._seen = (self._seen[0], -1, -1)  # another trainer: every line and revision is new
        self._announce_change(ChangeKind.RESET, branch_switched=True)
        self.dirty = not saved
        self.sig_document_changed.emit()

    def cancel(self) -> None:
        """Cancel the running job, and forget a queued one."""
        self._queued = None
        if self._job is not None:
            self._job.cancel()

    def shutdown(self, final: bool = True) -> None:
        """Cancel everything and wait for the job's thread (closing the window, tests); once
        ``final``, start nothing more. It blocks until the job stops: every job stops soon
        after a cancel."""
        self._closed = final
        self.cancel()
        if final:
            self._ahead_timer.stop()
            if not self.trainer_busy:  # (a job's next merge waits for the work itself)
                self._trainer.stop_ahead()
        job = self._job
        if job is not None:
            job.wait()
            self._on_job_finished()

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Block until the running job's thread ends (benchmarks and tests; the GUI never
        blocks). Its outcome is announced by the event loop, as usual."""
        job = self._job
        return True if job is None else job.wait(timeout_ms)

    # -- jobs ------------------------------------------------------------------------------

    def _start(self, request: _Request) -> None:
        if self._closed:
            return
        if self._job is not None:  # only opening queues: it cancels what runs and goes next
            if request.replaces_session:
                self._queued = request
                self._job.cancel()
                self.sig_busy_changed.emit(True)
            return
        if not request.replaces_session:
            self.stopped_for_open = ""
        job = Job(request.title, request.work, discard_on_cancel=request.replaces_session)
        self._job, self._request, self._held = job, request, []
        self._state_before_job = self._state()
        # Slots of this QObject (not lambdas): Qt then queues each call to the GUI thread. A
        # lambda would run in the worker thread that emitted the signal.
        job.sig_progressed.connect(self._on_job_progressed)
        job.finished.connect(self._on_job_finished)
        self.sig_busy_changed.emit(True)
        job.start()

    @Slot(int, int)
    def _on_job_progressed(self, done: int, total: int) -> None:
        if self._job is not None and self._queued is None:
            self.sig_progressed.emit(self._job.title, done, total)

    @Slot()
    def _on_job_finished(self) -> None:
        """On the GUI thread, once the job's thread is over: announce what it did."""
        job, request = self._job, self._request
        sender = self.sender()
        if job is None or request is None or (sender is not None and sender is not job):
            return  # a late signal of a job already handled (shutdown)
        # ``finished`` is emitted just before the thread ends: its Python work is over, and
        # this returns at once.
        job.wait()
        self._job = self._request = None
        queued, self._queued = self._queued, None
        held, self._held = self._held, []
        outcome, result, message = job.outcome, job.result, job.message
        if request.replaces_session and job.is_cancelled():  # Cancel came as the work finished
            outcome = Outcome.CANCELLED
        seconds = time.monotonic() - job.started_at
        job.release()
        job.deleteLater()
        try:
            # The models first, from the state the job left: one change for all it did.
            self._announce_change(*self._summary(held))
            if queued is None:
                self.sig_busy_changed.emit(False)
            if held or self._state() != self._state_before_job:
                self._touch()  # (without an event too: a run that cut the redo line)
            self._report(request, outcome, result, message, seconds, job, announce_cancel=queued is None)
            # Once the window has repainted: what the job's thread freed is still held (see
            # bpe_core.runtime.memory).
            QTimer.singleShot(0, release_free_memory)
        finally:  # whatever a callback did, a queued request still runs
            if request.replaces_session:
                self.stopped_for_open = ""
            if queued is not None:
                self._start(queued)

    def _report(
        self, request: _Request, outcome, result, message: str, seconds: float, job, announce_cancel
    ) -> None:
        if outcome is Outcome.SUCCEEDED:
            if request.on_success is not None:
                request.on_success(result)
            if request.opens is not None:
                self.sig_opened.emit(request.opens, True)
            if request.replaces_session:
                note, self._open_note = self._open_note, ""
                self.sig_message.emit(f"Opened {self.source.name} in {seconds:.1f} s{note}")
        elif outcome is Outcome.FAILED:
            if job.error_details:
                log.error("%s failed:\n%s", job.title, job.error_details)
            if request.opens is not None:
                self.sig_opened.emit(request.opens, False)
            self.sig_error.emit(request.failure_title, message)
            if request.replaces_session and self.stopped_for_open:  # else nothing would say so
                self.sig_message.emit(f"{self.stopped_for_open} stopped at step {self._trainer.position:,}")
        elif announce_cancel:
            self.sig_message.emit("Cancelled")


def corpus_kind(path: Path) -> str:
    """``counts`` for a word-counts file (by its suffix, its header whatever its name, a Parquet
    file by its columns) or a folder of nothing else (the counts of shards), else ``text``: a
    text file, a folder of them, compressed, JSONL or Parquet."""
    if path.is_dir():
        try:
            files = [Path(source.name) for source in expand([str(path)])]
        except InputError:
            return "text"  # counting the folder says what is wrong with it
        # by their header or columns only: a folder of .tsv may well be sentences
        counts = [file for file in files if is_counts_file(file)]
        if counts and len(counts) < len(files):
            text = next(file for file in files if file not in counts)
            raise InputError(
                f"The folder {path.name!r} holds word counts ({counts[0].name}) and text "
                f"({text.name}): open word counts and texts apart, since counts were made by a "
                "pipeline of their own."
            )
        return "counts" if counts else "text"
    return "counts" if path.suffix.lower() in COUNTS_SUFFIXES or is_counts_file(path) else "text"


def _load_corpus(
    path: Path | list[Path],
    config: PipelineConfig,
    kind: str,
    report,
    chosen: Collection[str] | None = None,
    adopt: bool = True,
    lines: bool = False,
) -> Corpus:
    """A corpus counted on every core (worker processes are spawned: this process has threads);
    word counts under the pipeline that counted them (``chosen``, ``adopt``: see ``load_corpus``);
    text a line at a time with ``lines``."""
    workers = os.cpu_count() or 1
    return load_corpus(path, config, kind, report, workers=workers, chosen=chosen, adopt=adopt, lines=lines)


def _pieces(paths: list[Path], kind: str) -> bool:
    """Whether word counts state the pipeline that counted them (``count`` wrote them with
    settings other than the defaults): their counting settings are theirs."""
    return kind == "counts" and any(states_pipeline(name) for name in counts_files(list(map(str, paths)))[:1])


def _left_out(types: int) -> str:
    return f" ({types:,} word types left out: they hold characters the tokenizer lacks)" if types > 0 else ""


def _cancellable(progress: Callable[[int, int], None], cancelled: Callable[[], bool]):
    """A progress callback that stops the work (raising ``Cancelled``) once cancel is asked."""

    def report(done: int, total: int) -> None:
        if cancelled():
            raise Cancelled
        progress(done, total)

    return report
