"""Merges pane: the history, the current position marked ▶ (and kept in view, with the keyboard
highlight on it), redo-able merges dimmed; clicking a row or pressing Enter on it jumps there; a
search box finds merges by their text."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.delegates.left_to_right import tokens_left_to_right
from app.guard import guard_overrides
from app.models.merge_model import COUNT, DECIDED, MERGE, OTHERS, PASS, STEP, STEP_ROLE, TIES, MergeModel
from app.panes.enter_key import EnterKey
from app.refresh_timer import RefreshTimer
from app.widgets import StatusText, clear_for_new_session, row_table, status_label


@guard_overrides
class MergesPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self.model = MergeModel(bridge, self)
        # Widgets
        self.search = QLineEdit(placeholderText="Find a merge (Enter: next)…", clearButtonEnabled=True)
        self.found = StatusText(alignment=Qt.AlignmentFlag.AlignRight, muted=True)
        self.ties_only = QCheckBox("Ties only")
        self.check_rules = QPushButton("Check every rule")
        self.search.setAccessibleName("Find a merge")
        self.view = row_table(
            self.model,
            {  # numbers as wide as the largest shown, so the merges' text keeps the room
                STEP: lambda: f"▶ {max(self.model.row_total(), 99):,}",
                COUNT: lambda: f"{max(self.model.largest[0], 99):,}",
                TIES: lambda: f"{max(self.model.largest[1], 99):,}",
                DECIDED: "lexicographic",
                PASS: "9,999",
            },
            stretch={MERGE: "lo + w → low", OTHERS: "hf, lexicographic"},
        )
        self.model.rowsInserted.connect(lambda *_: self.view.fit_live_columns())
        tokens_left_to_right(self.view, MERGE)
        self.summary = status_label()
        # After the model has laid out its new rows (a reset or insertion is not drawn yet).
        self._follow = RefreshTimer(bridge, self._follow_position, 0, self)
        # Setup
        self.view.setToolTip("Click a merge, or press Enter on it, to jump to the state just after it")
        self.view.setAccessibleName("Merges")
        self.view.setAccessibleDescription("Every merge in order; Enter jumps to the state just after it")
        EnterKey(self.view, lambda: self._jump_to(self.view.currentIndex()))
        self.found.setMinimumWidth(90)
        self.ties_only.setToolTip("Show only the steps that met a tie at the top count")
        self.check_rules.setToolTip(
            "Replay the line and find, at every tie, the pair each rule (first-seen too) would have merged"
        )
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.found)
        top.addWidget(self.ties_only)
        top.addWidget(self.check_rules)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.summary)
        # Signals
        self.view.clicked.connect(self._jump_to)
        self.search.textChanged.connect(lambda _: self.find_next(from_start=True))
        self.search.returnPressed.connect(self.find_next)
        self.ties_only.toggled.connect(lambda _: self._filter_ties())
        self.check_rules.clicked.connect(lambda: bridge.compute_tie_choices(self.model.set_tie_choices))
        self.model.modelReset.connect(self._filter_ties)
        self.model.rowsInserted.connect(lambda _parent, first, last: self._filter_ties(first, last + 1))
        bridge.sig_change.connect(self._on_change)
        self._show_passes()

    def find_next(self, from_start: bool = False) -> None:
        text = self.search.text().strip()  # a Space typed alone finds nothing to go to
        current = -1 if from_start else self.view.currentIndex().row()
        row = self.model.find(text, current)
        if row is None:
            self.found.setText("no match" if text else "")
            return
        self.view.setCurrentIndex(self.model.index(row, MERGE))
        self.view.scrollTo(self.model.index(row, 0))
        self.found.setText(f"step {row + 1:,}")

    def _on_change(self, change: Change) -> None:
        """A new session (a file, a sample, a reset): nothing found yet, the keys back on the
        table if they were in the search."""
        if change.kind is ChangeKind.RESET:
            clear_for_new_session(self.search, self.view)
            self.found.setText("")

    def _jump_to(self, index: QModelIndex) -> None:
        step = index.data(STEP_ROLE) if index.isValid() else None
        if step is not None:
            self._bridge.goto(step)

    def _filter_ties(self, first: int = 0, stop: int | None = None) -> None:
        """With "Ties only", hide the steps that met no tie: rows ``first`` to ``stop`` (all by
        default). A history of tens of thousands of merges would otherwise be walked on every
        step, to hide rows that are already hidden or show rows that are shown."""
        only = self.ties_only.isChecked()
        if not only and not self.view.verticalHeader().hiddenSectionCount():
            return  # nothing hidden: new rows come shown
        ties = self.model.records.column("ties")  # a column: no record made per row
        for row in range(first, self.model.rowCount() if stop is None else stop):
            self.view.setRowHidden(row, only and bool(ties[row] <= 1))

    def _show_passes(self) -> None:
        """The Pass column only when a pass made several merges."""
        self.view.setColumnHidden(PASS, not self.model.has_passes)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # a zoom: rows grew or shrank, ▶ back in view
            self._follow.start()
        super().changeEvent(event)

    def _follow_position(self) -> None:
        """Keep ▶ in view with the keyboard highlight on it (unless a search has moved it)."""
        self._show_passes()
        position = self.model.position
        history = self.model.rowCount()
        if position:
            index = self.model.index(position - 1, STEP)
            if not self.search.text().strip():
                self.view.selectionModel().setCurrentIndex(
                    index,
                    self.view.selectionModel().SelectionFlag.ClearAndSelect
                    | self.view.selectionModel().SelectionFlag.Rows,
                )
            self.view.scrollTo(index)
        else:
            self.view.selectionModel().clearCurrentIndex()
            self.view.clearSelection()
            self.view.scrollToTop()
        undone = history - position
        ties = self.model.tie_steps
        self.summary.setText(
            f"Step {position:,} of {history:,}"
            + (f" · {undone:,} to redo" if undone else "")
            + (f" · {ties:,} met a tie" if ties else "")
        )
