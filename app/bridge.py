"""The one adapter between the engine and Qt: core events become signals, commands are slots.

Short commands (a step, an undo, a short jump) run synchronously on the GUI thread. Long ones
(runs, far jumps, loading a corpus or a session) run as a :class:`~app.jobs.Job`; meanwhile the
bridge is *busy*, views must not read the trainer (models answer from their caches), and the
engine's events are held back and re-announced once the job is over. Loading builds a new
trainer off the GUI thread and swaps it in at the end, so the current session is untouched
until the new one is complete, and untouched for good if loading fails or is cancelled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from app.jobs import Cancelled, Job
from bpe_core import Corpus, MergeError, PipelineConfig, StopReason, Trainer, TrainingConfig, load_corpus
from bpe_core.encoder import Encoder
from bpe_core.events import CorpusReplaced, Event, HistoryReset, Jumped, MergeApplied, MergeUndone
from bpe_core.session import load_session, save_session

log = logging.getLogger(__name__)
Pair = tuple[int, int]
ASK = "ask"  # the tie rule selector's "Ask me"


@dataclass(frozen=True)
class Source:
    """Where the corpus came from, so new settings can re-run the pipeline on the original:
    a file (``path``), a text (``text``: pasted or a sample), or neither (a saved session, whose
    words are all that is left)."""

    name: str
    path: Path | None = None
    text: str | None = None
    input_kind: str = "text"


SYNC_JUMP = 50  # jumps of more merges than this run in the background


class Bridge(QObject):
    """Owns the current trainer and everything the window needs to know about it."""

    sig_merge_applied = Signal(object, bool)
    """A merge was applied: (record, whether it was a redo)."""
    sig_merge_undone = Signal(object)
    """The last merge was undone: (record,)."""
    sig_jumped = Signal(int, int)
    """Several merges were applied or undone at once: (old position, new position)."""
    sig_reset = Signal()
    """Everything derived from the corpus changed: a reset, a new corpus or a loaded session."""
    sig_settings_changed = Signal()
    """The tie rule (including Ask me) or the minimum frequency changed."""
    sig_changed = Signal()
    """Emitted after any of the above: the state the status bar and plots show changed."""
    sig_busy_changed = Signal(bool)
    """A background job started (True) or ended (False)."""
    sig_progressed = Signal(str, int, int)
    """A background job progressed: (title, done, total)."""
    sig_message = Signal(str)
    """A short outcome for the status bar ("Stopped: ...")."""
    sig_error = Signal(str, str)
    """Something failed: (title, one-sentence message) for a dialog."""
    sig_tie_reached = Signal(list)
    """Ask-me mode met a tie before a step: the tied candidates, best first."""
    sig_document_changed = Signal()
    """The session's file path or unsaved-changes flag changed."""

    def __init__(self, trainer: Trainer, source: Source | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Attributes
        self._trainer = trainer
        self._unsubscribe: Callable[[], None] = trainer.events.subscribe(self._on_core_event)
        self._job: Job | None = None
        self._on_success: Callable[[Any], None] | None = None
        self._held: list[Event] = []
        self._encoder: Encoder | None = None
        self._encoder_key: tuple = ()
        self.ask_at_ties = False
        self.path: Path | None = None  # the session file, once saved or opened
        self.dirty = False
        self.source = source or Source("untitled")

    # -- state -------------------------------------------------------------------------

    @property
    def trainer(self) -> Trainer:
        return self._trainer

    @property
    def busy(self) -> bool:
        return self._job is not None

    @property
    def job_title(self) -> str:
        return self._job.title if self._job is not None else ""

    def encoder(self) -> Encoder:
        """An encoder over the whole history (encode with ``upto=position``), cached."""
        history = self._trainer.history
        key = (id(self._trainer), len(history), history[-1] if history else None)
        if self._encoder is None or key != self._encoder_key:
            self._encoder = Encoder.from_trainer(self._trainer, full_history=True)
            self._encoder_key = key
        return self._encoder

    def tie_rule_spec(self) -> str:
        return ASK if self.ask_at_ties else self._trainer.rule.spec

    # -- core events -> signals ------------------------------------------------------------

    def _on_core_event(self, event: Event) -> None:
        if self._job is not None:  # in the worker thread: announce after the job, on the GUI thread
            self._held.append(event)
            return
        self._announce(event)

    def _announce(self, event: Event) -> None:
        if isinstance(event, MergeApplied):
            self.sig_merge_applied.emit(event.record, event.redo)
        elif isinstance(event, MergeUndone):
            self.sig_merge_undone.emit(event.record)
        elif isinstance(event, Jumped):
            self.sig_jumped.emit(event.old_position, event.new_position)
        elif isinstance(event, (HistoryReset, CorpusReplaced)):
            self.sig_reset.emit()
        else:
            self.sig_settings_changed.emit()
        self._touch()

    def _touch(self) -> None:
        self.dirty = True
        self.sig_changed.emit()
        self.sig_document_changed.emit()

    # -- commands: synchronous -------------------------------------------------------------

    def step(self) -> bool:
        """One step by the current rule; in Ask-me mode a tie asks first. False if none."""
        if self.busy:
            return False
        trainer = self._trainer
        if trainer.stop_reason() is not None:
            self.sig_message.emit(f"No step: {trainer.stop_reason().value}.")
            return False
        if self.ask_at_ties and trainer.ties_at_top() > 1:
            self.sig_tie_reached.emit(trainer.tied_candidates(limit=50))
            return False
        trainer.step()
        return True

    def step_pair(self, pair: Pair, decided_by: str | None = None) -> bool:
        """Merge a chosen pair (any pair present), recording who decided."""
        if self.busy:
            return False
        try:
            self._trainer.step(pair, decided_by=decided_by)
        except MergeError as error:
            self.sig_error.emit("Cannot merge", str(error))
            return False
        return True

    def undo(self) -> bool:
        if self.busy or not self._trainer.can_undo:
            return False
        self._trainer.undo()
        return True

    def redo(self) -> bool:
        if self.busy or not self._trainer.can_redo:
            return False
        self._trainer.redo()
        return True

    def goto(self, step: int) -> None:
        """Jump to just after merge ``step``; far jumps run in the background."""
        if self.busy or step == self._trainer.position:
            return
        if abs(step - self._trainer.position) <= SYNC_JUMP:
            self._trainer.goto(step)
            return
        trainer = self._trainer
        self._start(
            f"Jumping to step {step:,}", lambda progress, cancelled: trainer.goto(step, progress, cancelled)
        )

    def reset(self) -> None:
        if not self.busy:
            self._trainer.reset()

    def set_tie_rule(self, spec: str) -> None:
        """A rule name, ``random:SEED``, or ``ask`` (stop at ties and let the user choose)."""
        if self.busy:
            return
        self.ask_at_ties = spec == ASK
        if spec != ASK and spec != self._trainer.rule.spec:
            self._trainer.set_tie_break(spec)  # emits SettingsChanged
        else:
            self.sig_settings_changed.emit()
            self.sig_changed.emit()

    def set_min_frequency(self, value: int) -> None:
        if not self.busy:
            self._trainer.set_min_frequency(value)

    def save(self, path: str | Path) -> bool:
        try:
            save_session(self._trainer, path)
        except Exception as error:  # SessionError, or anything else: the user must hear of it
            self.sig_error.emit("Could not save", str(error))
            return False
        self.path = Path(path)
        self.dirty = False
        self.sig_document_changed.emit()
        return True

    # -- commands: background --------------------------------------------------------------

    def run(
        self, merges: int | None = None, vocab_size: int | None = None, min_frequency: int | None = None
    ) -> None:
        """Merge until a target; in Ask-me mode the run stops at the next tie and asks."""
        if self.busy:
            return
        trainer, ask = self._trainer, self.ask_at_ties

        def work(progress, cancelled):
            return trainer.run(
                merges=merges,
                vocab_size=vocab_size,
                min_frequency=min_frequency,
                progress=progress,
                cancel=cancelled,
                stop_at_tie=ask,
            )

        self._start("Running merges", work, self._on_run_finished)

    def _on_run_finished(self, reason: StopReason) -> None:
        self.sig_message.emit(f"Stopped: {reason.value}.")
        if reason is StopReason.TIE:
            self.sig_tie_reached.emit(self._trainer.tied_candidates(limit=50))

    def open_corpus(
        self,
        path: str | Path,
        config: PipelineConfig,
        input_kind: str = "text",
        training: TrainingConfig | None = None,
    ) -> None:
        """Load a corpus file into a new session (the current one stays until it succeeds)."""
        path = Path(path)
        self._open(
            Source(path.name, path=path, input_kind=input_kind), config, training or self._trainer.training
        )

    def open_text(
        self,
        text: str,
        config: PipelineConfig,
        name: str = "pasted text",
        input_kind: str = "text",
        training: TrainingConfig | None = None,
    ) -> None:
        """A new session on ``text``: pasted text, or a built-in sample (text or counts)."""
        self._open(Source(name, text=text, input_kind=input_kind), config, training or self._trainer.training)

    def rebuild(self, config: PipelineConfig, training: TrainingConfig) -> None:
        """A new session on the same source with new settings (from the settings dialog)."""
        self._open(self.source, config, training, session_path=self.path)

    def _open(
        self,
        source: Source,
        config: PipelineConfig,
        training: TrainingConfig,
        session_path: Path | None = None,
    ) -> None:
        pieces = None if source.path or source.text is not None else self._trainer.corpus

        def work(progress, cancelled):
            def report(done, total):
                if cancelled():
                    raise Cancelled
                progress(done, total)

            if source.path is not None:
                corpus = load_corpus(source.path, config, source.input_kind, report)
            elif source.text is not None and source.input_kind == "counts":
                corpus = Corpus.from_counts(source.text, config)
            elif source.text is not None:
                corpus = Corpus.from_text(source.text, config, report)
            else:  # a loaded session keeps only its pieces: re-run the pipeline on each
                corpus = Corpus.from_texts(zip(pieces.words, pieces.counts, strict=True), config)
            return Trainer(corpus, training)

        self._start(
            f"Opening {source.name}",
            work,
            lambda trainer: self.replace_trainer(trainer, source, session_path),
        )

    def load(self, path: str | Path) -> None:
        """Open a saved session (replayed off the GUI thread)."""
        path = Path(path)
        self._start(
            f"Opening {path.name}",
            lambda progress, cancelled: load_session(path, progress),
            lambda trainer: self.replace_trainer(trainer, Source(path.name), path),
        )

    def replace_trainer(self, trainer: Trainer, source: Source, session_path: Path | None = None) -> None:
        """Swap in a new trainer (a loaded corpus or session): every view rebinds."""
        self._unsubscribe()
        self._trainer = trainer
        self._unsubscribe = trainer.events.subscribe(self._on_core_event)
        self._encoder = None
        self.source = source
        self.path = session_path
        self.sig_reset.emit()
        self.sig_settings_changed.emit()
        self.sig_changed.emit()
        self.dirty = False
        self.sig_document_changed.emit()

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Block until the current job ends (for tests and shutdown)."""
        job = self._job
        return True if job is None else job.wait(timeout_ms)

    def _start(self, title: str, work, on_success: Callable[[Any], None] | None = None) -> None:
        job = Job(title, work, self)
        self._job = job
        self._on_success = on_success
        self._held = []
        # Slots of this QObject (not lambdas): Qt then queues each call to the GUI thread. A
        # lambda would run in the worker thread that emitted the signal.
        job.sig_progressed.connect(self._on_job_progressed)
        job.sig_succeeded.connect(self._on_job_succeeded)
        job.sig_failed.connect(self._on_job_failed)
        job.sig_cancelled.connect(self._on_job_cancelled)
        self.sig_busy_changed.emit(True)
        job.start()

    @Slot(int, int)
    def _on_job_progressed(self, done: int, total: int) -> None:
        if self._job is not None:
            self.sig_progressed.emit(self._job.title, done, total)

    @Slot(object)
    def _on_job_succeeded(self, result) -> None:
        on_success = self._on_success
        self._end_job()
        if on_success is not None:
            on_success(result)

    @Slot(str)
    def _on_job_failed(self, message: str) -> None:
        job = self._job
        self._end_job()
        if job is not None and job.error_details:
            log.error("%s failed:\n%s", job.title, job.error_details)
        self.sig_error.emit(job.title if job is not None else "Failed", message)

    @Slot()
    def _on_job_cancelled(self) -> None:
        self._end_job()
        self.sig_message.emit("Cancelled.")

    def _end_job(self) -> None:
        """On the GUI thread: the job's thread has finished its work; announce what it did."""
        job = self._job
        if job is not None:
            job.wait()
        self._job = None
        self._on_success = None
        held, self._held = self._held, []
        self.sig_busy_changed.emit(False)
        for event in held:  # the engine's events from the worker, announced now on this thread
            self._announce(event)
