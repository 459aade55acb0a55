"""File → Export as…: which tool's format to write, with the formats that cannot hold this
session shown but disabled, each saying why."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.guard import guard_overrides
from bpe_core.io.formats import DESCRIPTIONS

FORMAT_ROLE = Qt.ItemDataRole.UserRole
# The engine's reasons speak to the command line; in the window, its own settings do that.
WINDOW_TERMS = {
    "train with --attach-marker": "in Settings (Ctrl+,), tick the end-of-word marker's “Attach to the "
    "last symbol” (it rebuilds the session)",
}


def in_window_terms(reason: str) -> str:
    """A reason a format does not fit, with the command line's options said as the window's."""
    for command_line, window in WINDOW_TERMS.items():
        reason = reason.replace(command_line, window)
    return reason


@guard_overrides
class ExportDialog(QDialog):
    """``reasons``: each writable format with why it cannot hold the session ("" if it can)."""

    def __init__(self, reasons: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        reasons = {name: in_window_terms(reason) for name, reason in reasons.items()}
        self._reasons = reasons
        self.setWindowTitle("Export as")
        self.formats = QListWidget(self)
        self.formats.setAccessibleName("Formats to export to")
        self.why = QLabel(self)
        self.why.setWordWrap(True)
        for name, reason in reasons.items():
            item = QListWidgetItem(DESCRIPTIONS[name] + ("" if not reason else "  (does not fit)"))
            item.setData(FORMAT_ROLE, name)
            item.setToolTip(reason or f"Write the merges up to the current step as {DESCRIPTIONS[name]}.")
            if reason:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled & ~Qt.ItemFlag.ItemIsSelectable)
            self.formats.addItem(item)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, parent=self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel("Write the merges up to the current step, with the ids the session shows, as:")
        )
        layout.addWidget(self.formats)
        layout.addWidget(self.why)
        layout.addWidget(self.buttons)
        self.formats.currentItemChanged.connect(lambda *_: self._explain())
        self.formats.itemDoubleClicked.connect(lambda *_: self.accept())
        fitting = [i for i in range(self.formats.count()) if not reasons[self._name(i)]]
        if fitting:
            self.formats.setCurrentRow(fitting[0])
        self.formats.setFocus()
        self._explain()

    def _name(self, row: int) -> str:
        return self.formats.item(row).data(FORMAT_ROLE)

    def _explain(self) -> None:
        unfit = [f"{DESCRIPTIONS[n]}: {r}" for n, r in self._reasons.items() if r]
        self.why.setText("\n".join(unfit))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.chosen() is not None)

    def chosen(self) -> str | None:
        item = self.formats.currentItem()
        if item is None or not item.flags() & Qt.ItemFlag.ItemIsEnabled:
            return None
        return item.data(FORMAT_ROLE)
