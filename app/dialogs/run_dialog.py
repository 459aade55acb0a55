"""Run N merges, or run to a target: a number of merges, a vocabulary size or a minimum count."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QRadioButton, QSpinBox, QVBoxLayout

from app.guard import guard_overrides


@guard_overrides
class RunDialog(QDialog):
    def __init__(self, vocab_size: int, min_frequency: int, merges: int = 100, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run")
        # Widgets
        self.by_merges = QRadioButton("&Merges to run")
        self.by_vocab = QRadioButton("Until the &vocabulary size is")
        self.by_count = QRadioButton("Until no pair occurs &at least")
        self.merges = QSpinBox(minimum=1, maximum=10**7, value=merges)
        self.vocab = QSpinBox(minimum=1, maximum=10**7, value=max(vocab_size + 100, 100))
        self.count = QSpinBox(minimum=1, maximum=10**9, value=min_frequency, suffix=" times")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        # Setup
        self.by_merges.setChecked(True)
        # Layout
        form = QFormLayout()
        form.addRow(self.by_merges, self.merges)
        form.addRow(self.by_vocab, self.vocab)
        form.addRow(self.by_count, self.count)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        # Signals
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        for radio, spin in (
            (self.by_merges, self.merges),
            (self.by_vocab, self.vocab),
            (self.by_count, self.count),
        ):
            spin.valueChanged.connect(lambda _=0, r=radio: r.setChecked(True))
            radio.clicked.connect(lambda _=False, s=spin: _type_into(s))
        _type_into(self.merges)  # the digits a user types at once go to the number, not a button

    def target(self) -> dict:
        """Keyword arguments for ``Bridge.run``."""
        if self.by_vocab.isChecked():
            return {"vocab_size": self.vocab.value()}
        if self.by_count.isChecked():
            return {"min_frequency": self.count.value()}
        return {"merges": self.merges.value()}


def _type_into(spin: QSpinBox) -> None:
    """Focus a number with its text selected, so that typing replaces it."""
    spin.setFocus()
    spin.selectAll()
