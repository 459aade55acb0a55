"""The status bar's permanent fields: step, vocabulary, tokens and compression, tie rule, plus
the progress bar and Cancel button of a background job. Each field is as wide as its longest
expected text in the current font, so zooming never elides it."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QProgressBar, QPushButton, QSizePolicy, QStatusBar, QWidget
from shiboken6 import isValid

from app.accessibility import announce
from app.bridge import ASK, NO_CORPUS, Bridge
from app.changes import Change, ChangeKind
from app.guard import guard_overrides
from app.widgets import StatusText
from bpe_core import TrainingConfig

# The longest text each field shows in practice: its width is measured in the current font.
WIDEST = {
    "step": "Step 99,999 of 99,999",
    "vocab": "Vocabulary 99,999",
    "tokens": "99,999,999 tokens (9.99×)",
    "mode": "",  # as wide as what it shows, and hidden when training is classic
    "rule": "ties: lexicographic",
}
TIPS = {
    "step": "Merges applied now, of those recorded (the rest can be redone)",
    "vocab": "Special tokens, base symbols and merged tokens",
    "tokens": "Tokens in the corpus as segmented now (compression: tokens at step 0 / tokens now)",
    "mode": "Training differs from classic BPE here: see Settings (Ctrl+,)",
    "rule": "How a tie at the top count is decided",
}
MESSAGE_MS = 5000  # outcomes ("Opened … in 0.4 s", "Cancelled") clear after this


# Fields dropped first when the bar is too narrow for all of them (a big zoom on a small screen).
DROP_ORDER = ("rule", "vocab", "tokens")
MESSAGE_ROOM = 160  # px the outcome message keeps at least


@guard_overrides
class StatusFields(QObject):
    def __init__(self, bar: QStatusBar, bridge: Bridge) -> None:
        super().__init__(bar)
        self._bar = bar
        self._bridge = bridge
        self.labels = {name: StatusText(tip=TIPS[name]) for name in WIDEST}
        # Outcomes in a widget of our own: a long one is elided ("…", full text as tooltip)
        # where QStatusBar would cut it off under the fields.
        self.message = StatusText()
        self.progress = QProgressBar()
        self.cancel_button = QPushButton("Cancel")
        # A click leaves the keys where they were (the button hides when the job ends, and Qt
        # would hand its focus to the next field, the Corpus filter); Tab still reaches it.
        self.cancel_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.cancel_button.setAccessibleName("Cancel the background job")
        self.cancel_button.setAutoDefault(True)  # Enter presses it too, as Space does, once Tab is on it
        self.progress.setAccessibleName("Progress of the background job")
        self._focus_before: QWidget | None = None  # where the keys were when the job began
        # Where the keys go back to when they were nowhere as the job began (it began as a dialog
        # closed): the window sets it to its last table.
        self.focus_home: Callable[[], QWidget | None] = lambda: None
        self._clear = QTimer(bar, singleShot=True)
        self._clear.timeout.connect(lambda: self.message.setText(""))
        bar.addWidget(self.message, 1)
        for label in self.labels.values():
            label.setContentsMargins(6, 0, 6, 0)
            # A fixed width: the bar's layout squeezes Ignored-policy widgets to nothing.
            label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            bar.addPermanentWidget(label)
        self.progress.hide()
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self.cancel_button.clicked.connect(bridge.cancel)
        bridge.sig_busy_changed.connect(self._on_busy)
        bridge.sig_progressed.connect(self._on_progress)
        bridge.sig_message.connect(self.show_message)
        bridge.sig_change.connect(self._on_change)
        bar.installEventFilter(self)

    def fit(self, metrics: QFontMetrics) -> None:
        """Widths for the current font (start-up and every zoom)."""
        for name, label in self.labels.items():
            label.setFixedWidth(self._width(metrics, name))
        self.progress.setFixedWidth(metrics.horizontalAdvance("100%") * 4)
        self._fit_width()

    def _width(self, metrics: QFontMetrics, name: str) -> int:
        """A field's width: its longest expected text, or wider for a longer one it shows now."""
        text = self.labels[name].text()
        return max(metrics.horizontalAdvance(WIDEST[name]), metrics.horizontalAdvance(text)) + 20

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._bar and event.type() == QEvent.Type.Resize:
            self._fit_width()
        return False

    def _fit_width(self) -> None:
        """Hide the least needed fields while all of them would not fit: fields of a fixed
        width, squeezed, would paint over each other."""
        room = self._bar.width() - MESSAGE_ROOM
        if not self.progress.isHidden():
            room -= self.progress.width() + self.cancel_button.sizeHint().width()
        mode = self.labels["mode"]
        mode.setVisible(bool(mode.text()))
        needed = sum(label.width() for label in self.labels.values() if label is not mode or mode.text())
        for name in DROP_ORDER:
            label = self.labels[name]
            fits = needed <= room
            label.setVisible(fits)
            if not fits:
                needed -= label.width()

    def _on_change(self, change: Change) -> None:
        self.update()
        announce(self.labels["step"], said_of(change, self._bridge))

    def show_message(self, text: str, timeout_ms: int | None = None) -> None:
        """Show ``text`` until ``timeout_ms`` have passed (default: a few seconds; 0: until
        replaced); outcomes (opened, cancelled, a job's end) are also said to screen readers."""
        self.message.setText(text)
        if not text.endswith("…"):  # a job starting is said by its outcome
            announce(self.message, text)
        timeout = MESSAGE_MS if timeout_ms is None else timeout_ms
        if timeout:
            self._clear.start(timeout)
        else:
            self._clear.stop()

    def _on_busy(self, busy: bool) -> None:
        if busy and not self.cancel_button.isVisible():  # a job begins (not one queued behind it)
            self._focus_before = QApplication.focusWidget()
        elif not busy and self.cancel_button.hasFocus():  # reached by Tab: the keys go back where they were
            before = self._focus_before
            if before is None or not isValid(before) or not before.isVisible():
                before = self.focus_home()
            if before is not None and isValid(before) and before.isVisible():
                before.setFocus(Qt.FocusReason.OtherFocusReason)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)
        self._fit_width()
        if busy:
            self.show_message(self._bridge.job_title + "…", 0)  # until the outcome replaces it
        else:
            self.show_message("", 0)

    def _on_progress(self, _title: str, done: int, total: int) -> None:
        if total and done < total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        else:  # a phase of no known length (or one done, the job not): the bar shows work goes on
            self.progress.setRange(0, 0)
        # Only the figure: the job's title is the message beside the bar, where a long one is
        # elided, while in the bar it wrapped and was cut off.
        self.progress.setFormat("%p%" if total else "")

    def update(self) -> None:
        bridge = self._bridge
        if bridge.busy:
            return
        trainer = bridge.trainer
        labels = self.labels
        labels["step"].setText(f"Step {trainer.position:,} of {trainer.history_length:,}")
        labels["vocab"].setText(f"Vocabulary {trainer.vocab_size:,}")
        if trainer.word_count:
            ratio = trainer.initial_point.corpus_tokens / max(1, trainer.corpus_tokens)
            labels["tokens"].setText(f"{trainer.corpus_tokens:,} tokens ({ratio:.2f}×)")
        else:  # an imported tokenizer without a corpus: no count means anything
            labels["tokens"].setText(NO_CORPUS)
        spec = bridge.tie_rule_spec()
        labels["rule"].setText(f"ties: {'ask me' if spec == ASK else spec}")
        labels["mode"].setText(training_mode(trainer.training))
        metrics = self._bar.fontMetrics()
        if any(label.width() != self._width(metrics, name) for name, label in labels.items()):
            self.fit(metrics)


def said_of(change: Change, bridge: Bridge) -> str:
    """What a screen reader says of a change the user made: the branch it went to, the merge
    made (and the tie it settled), undone, or where a jump or run ended; nothing for others."""
    trainer = bridge.trainer
    if bridge.busy:
        return ""
    if change.kind is ChangeKind.APPLIED and change.after == change.before + 1:
        record = trainer.history[change.after - 1]
        tokens = trainer.vocab.tokens
        left, right = tokens[record.pair[0]], tokens[record.pair[1]]
        tied = f", chosen among {record.ties} tied pairs" if record.ties > 1 else ""
        return f"Step {change.after}: merged {left} and {right}, count {record.count:,}{tied}"
    if change.kind is ChangeKind.UNDONE:
        return f"Undone: back at step {change.after}"
    if change.branch_switched and change.kind is not ChangeKind.RESET:  # ↑ ↓ in the History graph
        name = next((b.name for b in trainer.branches() if b.current), "")
        return f"On branch {name}, at step {change.after} of {trainer.history_length}"
    if change.kind in (ChangeKind.APPLIED, ChangeKind.JUMPED):
        return f"At step {change.after} of {trainer.history_length}"
    return ""


def training_mode(training: TrainingConfig) -> str:
    """What is not classic BPE in ``training`` ("" if nothing): several merges per pass or a
    minimum count other than the default, which a new corpus may have kept from the last."""
    parts = []
    if training.merges_per_pass != 1:
        per_pass = training.merges_per_pass
        parts.append(f"merges per pass: {f'{per_pass:,}' if per_pass else 'all'}")
    if training.min_frequency != TrainingConfig().min_frequency:
        parts.append(f"min count: {training.min_frequency:,}")
    return " · ".join(parts)
