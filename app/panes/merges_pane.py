"""Merges pane: the history, the current position marked, redo-able merges dimmed; clicking a
row jumps there."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.bridge import Bridge
from app.models.merge_model import COUNT, MERGE, STEP, STEP_ROLE, TIES, MergeModel
from app.widgets import row_table, status_label


class MergesPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self.model = MergeModel(bridge, self)
        # Widgets
        self.view = row_table(self.model, {STEP: 64, MERGE: 190, COUNT: 70, TIES: 50})
        self.summary = status_label()
        # Setup
        self.view.setToolTip("Click a merge to jump to the state just after it")
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        # Signals
        self.view.clicked.connect(self._on_clicked)
        bridge.sig_changed.connect(self._follow_position)

    def _on_clicked(self, index: QModelIndex) -> None:
        step = index.data(STEP_ROLE)
        if step is not None:
            self._bridge.goto(step)

    def _follow_position(self) -> None:
        if self._bridge.busy:
            return
        position = self.model.position
        history = self.model.rowCount()
        if position:
            self.view.scrollTo(self.model.index(position - 1, 0))
        undone = history - position
        self.summary.setText(
            f"Step {position:,} of {history:,}" + (f" · {undone:,} to redo" if undone else "")
        )
