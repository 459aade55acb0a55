"""Vocabulary pane: id, token, length, frequency now, step created; search; the selected token's
merge tree down to base symbols."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QLineEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bridge import Bridge
from app.glyphs import visible
from app.guard import guard_overrides
from app.models.vocab_model import FREQUENCY, ID, LENGTH, TOKEN, VocabModel
from app.widgets import row_table, status_label


@guard_overrides
class VocabPane(QWidget):
    sig_token_selected = Signal(object)
    """The selected token changed: its id, or None."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._selected: int | None = None
        self.model = VocabModel(bridge, self)
        # Widgets
        self.search = QLineEdit(placeholderText="Search tokens…", clearButtonEnabled=True)
        self.view = row_table(
            self.model, {ID: "99,999", TOKEN: "m" * 12, LENGTH: "999", FREQUENCY: "9,999,999"}
        )
        self.tree = QTreeWidget()
        self.summary = status_label()
        self._search_timer = QTimer(self, singleShot=True, interval=150)
        # Setup
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(ID, Qt.SortOrder.AscendingOrder)
        self.tree.setHeaderLabels(["How the token was built", "Step"])
        self.tree.setColumnWidth(0, 220)
        splitter = QSplitter()
        splitter.setOrientation(splitter.orientation().Vertical)
        splitter.addWidget(self.view)
        splitter.addWidget(self.tree)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.summary)
        # Signals
        self.search.textChanged.connect(lambda: self._search_timer.start())
        self._search_timer.timeout.connect(lambda: self.model.set_filter(self.search.text()))
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.model.modelReset.connect(self._restore_selection)
        self.model.modelReset.connect(self._update_summary)  # searched or sorted
        bridge.sig_changed.connect(self._on_changed)
        bridge.sig_reset.connect(self._on_new_session)
        self._on_changed()

    def _on_new_session(self) -> None:
        """A new session (a file, a sample, a reset) shows all its tokens: the search is
        cleared, and keys left in it go to the table."""
        self._search_timer.stop()
        self.search.blockSignals(True)  # the model has cleared its own filter
        self.search.clear()
        self.search.blockSignals(False)
        if self.window().focusWidget() is self.search:
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    @property
    def selected_token(self) -> int | None:
        return self._selected

    def select_token(self, token_id: int) -> bool:
        row = self.model.row_of(token_id)
        if row is None:
            return False
        self.view.selectRow(row)
        self.view.scrollTo(self.model.index(row, 0))
        return True

    def _on_current_row(self, current, _previous) -> None:
        token = self.model.token_at(current.row()) if current.isValid() else None
        if token != self._selected:
            self._selected = token
            self._show_tree()
            self.sig_token_selected.emit(token)

    def _restore_selection(self) -> None:
        if self._selected is not None and not self.select_token(self._selected):
            self._selected = None
            self._show_tree()
            self.sig_token_selected.emit(None)

    def _on_changed(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        if self._selected is not None and self._selected >= trainer.vocab_size:
            self._selected = None
            self.sig_token_selected.emit(None)
        self._show_tree()
        self._update_summary()

    def _update_summary(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        vocab = trainer.vocab
        merged = trainer.vocab_size - vocab.n_special - vocab.n_base
        kinds = f"{vocab.n_special} special, {vocab.n_base:,} base, {merged:,} merged"
        if self.model.filtered:
            shown = f"{self.model.rowCount():,} of {trainer.vocab_size:,} tokens shown"
            self.summary.setText(f"{shown} · {kinds}")
        else:
            self.summary.setText(f"{trainer.vocab_size:,} tokens: {kinds}")

    def _show_tree(self) -> None:
        self.tree.clear()
        token = self._selected
        if token is None or self._bridge.busy or token >= self._bridge.trainer.vocab_size:
            return
        self.tree.addTopLevelItem(self._tree_item(token, depth=0))
        self.tree.expandAll()

    def _tree_item(self, token: int, depth: int) -> QTreeWidgetItem:
        trainer = self._bridge.trainer
        config = trainer.corpus.config
        step = trainer.token_created_at(token)
        label = visible(trainer.token_string(token), config)
        if token < trainer.vocab.n_special:
            label += "  (special)"
        elif not step:
            label += "  (base)"
        item = QTreeWidgetItem([label, f"{step:,}" if step else ""])
        parts = trainer.token_parts(token)
        if parts is not None and depth < 64:
            for part in parts:
                item.addChild(self._tree_item(part, depth + 1))
        return item
