"""Pairs pane: the ranked pair table (ties and the rule's pick marked); double-click, Enter or
"Merge selected" merges the selected pair, any pair, not only the top one."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.bridge import Bridge
from app.delegates.left_to_right import tokens_left_to_right
from app.guard import guard_overrides
from app.models.pair_model import COUNT, LEFT, MERGED, RANK, REPLACEMENTS, RIGHT, WORDS, PairModel
from app.panes.enter_key import EnterKey
from app.widgets import row_table, status_label


@guard_overrides
class PairsPane(QWidget):
    sig_pair_selected = Signal(object)
    """The selected pair changed: (left id, right id), or None."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._selected: tuple[int, int] | None = None
        self.model = PairModel(bridge, self)
        # Widgets
        self.view = row_table(
            self.model,
            {  # as the table last read them (a job may be changing the engine now)
                RANK: lambda: f"{self.model.total:,}",
                COUNT: lambda: f"{self.model.top:,}",  # no pair counts more than the top one
                REPLACEMENTS: lambda: f"{self.model.top:,}",
                WORDS: lambda: f"{self.model.word_types:,}",
            },
            stretch={LEFT: "</w>", RIGHT: "</w>", MERGED: "a</w>"},
        )
        tokens_left_to_right(self.view, LEFT, RIGHT, MERGED)
        self.summary = status_label()
        self.merge_button = QPushButton("Merge selected")
        # Setup
        self.merge_button.setToolTip("Merge the selected pair now (Enter or double-click too)")
        self.merge_button.setEnabled(False)
        EnterKey(self.view, lambda: self.merge_selected())  # looked up when pressed
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.merge_button)
        layout.addLayout(bottom)
        # Signals
        self.view.doubleClicked.connect(lambda _: self.merge_selected())
        self.merge_button.clicked.connect(self.merge_selected)
        self.model.sig_reranked.connect(self.view.fit_live_columns)  # an undo raises the top count
        self.model.sig_reranked.connect(self._restore_selection)
        self.model.sig_reranked.connect(self._fill_view)
        self._connect_selection()
        bridge.sig_change.connect(lambda _change: self._update_summary())  # after the model's update
        bridge.sig_busy_changed.connect(
            lambda busy: self.merge_button.setEnabled(not busy and bool(self._selected))
        )
        self._update_summary()

    @property
    def selected_pair(self) -> tuple[int, int] | None:
        return self._selected

    def select_pair(self, pair: tuple[int, int]) -> bool:
        row = self.model.row_of(pair)
        if row is None:
            return False
        self.view.selectRow(row)
        self.view.scrollTo(self.model.index(row, 0))
        return True

    def merge_selected(self) -> None:
        if self._selected is not None and not self._bridge.busy:  # a command: not while any job runs
            if self.merge_button.hasFocus():
                # The button is disabled once the pair is merged, and Qt would hand the keys to
                # the next field (the Encode text): the table, where the next key means a step.
                self.view.setFocus(Qt.FocusReason.OtherFocusReason)
            self._bridge.step_pair(self._selected)

    def _connect_selection(self) -> None:
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)

    def _on_current_row(self, current, _previous) -> None:
        pair = self.model.pair_at(current.row()) if current.isValid() else None
        if pair != self._selected:
            self._selected = pair
            self.merge_button.setEnabled(pair is not None and not self._bridge.busy)
            self.sig_pair_selected.emit(pair)

    def _restore_selection(self) -> None:
        """A step re-ranks the table; keep the selected pair selected if it still exists (at
        its new row), else select nothing (the row it had now holds another pair)."""
        pair = self._selected
        if pair is not None and not self.select_pair(pair):
            self.view.selectionModel().clear()  # says so through _on_current_row, if current
            if self._selected is None:
                return
            self._selected = None
            self.merge_button.setEnabled(False)
            self.sig_pair_selected.emit(None)

    def _fill_view(self) -> None:
        """Rank the next page now if the last row is in view: a table taller than its rows has
        no scroll bar, so scrolling would never ask for the pairs a step added."""
        last = self.model.rowCount() - 1
        if last < 0 or not self.model.canFetchMore():
            return
        if self.view.viewport().rect().intersects(self.view.visualRect(self.model.index(last, 0))):
            self.model.fetchMore()

    def _update_summary(self) -> None:
        ties = self.model.ties
        tie_note = f" · {ties:,} tied (shaded, ranked =)" if ties > 1 else ""
        self.summary.setText(f"{self.model.total:,} pairs · top count {self.model.top:,}{tie_note}")
