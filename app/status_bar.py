"""The status bar's permanent fields: step, vocabulary, tokens, compression and tie rule, plus
the progress bar and Cancel button of a background job. Each field is as wide as its longest
expected text in the current font, so zooming never elides it."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QProgressBar, QPushButton, QSizePolicy, QStatusBar

from app.bridge import ASK, Bridge
from app.widgets import StatusText

# The longest text each field shows in practice: its width is measured in the current font.
WIDEST = {
    "step": "Step 99,999 of 99,999",
    "vocab": "Vocabulary 99,999",
    "tokens": "99,999,999 tokens",
    "ratio": "compression 9.99×",
    "rule": "ties: lexicographic",
}
MESSAGE_MS = 5000  # outcomes ("Opened … in 0.4 s", "Cancelled") clear after this


class StatusFields:
    def __init__(self, bar: QStatusBar, bridge: Bridge) -> None:
        self._bar = bar
        self._bridge = bridge
        self.labels = {name: StatusText() for name in WIDEST}
        self.progress = QProgressBar()
        self.cancel_button = QPushButton("Cancel")
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
        bridge.sig_changed.connect(self.update)

    def fit(self, metrics: QFontMetrics) -> None:
        """Widths for the current font (start-up and every zoom)."""
        for name, label in self.labels.items():
            label.setFixedWidth(metrics.horizontalAdvance(WIDEST[name]) + 20)
        self.progress.setFixedWidth(metrics.horizontalAdvance("Opening a long name: 100%") + 30)

    def show_message(self, text: str) -> None:
        self._bar.showMessage(text, MESSAGE_MS)

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)
        if busy:
            self._bar.showMessage(self._bridge.job_title + "…")  # until the outcome replaces it
        else:
            self._bar.clearMessage()

    def _on_progress(self, title: str, done: int, total: int) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        self.progress.setFormat(f"{title}: %p%" if total else title)

    def update(self) -> None:
        bridge = self._bridge
        if bridge.busy:
            return
        trainer = bridge.trainer
        labels = self.labels
        labels["step"].setText(f"Step {trainer.position:,} of {trainer.history_length:,}")
        labels["vocab"].setText(f"Vocabulary {trainer.vocab_size:,}")
        labels["tokens"].setText(f"{trainer.corpus_tokens:,} tokens")
        initial = trainer.initial_point.corpus_tokens
        labels["ratio"].setText(f"compression {initial / max(1, trainer.corpus_tokens):.2f}×")
        spec = bridge.tie_rule_spec()
        labels["rule"].setText(f"ties: {'ask me' if spec == ASK else spec}")
