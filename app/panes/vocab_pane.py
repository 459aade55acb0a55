"""Vocabulary pane: id, token, length, frequency now, step created; search; the selected token's
merge tree down to base symbols."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.delegates.left_to_right import tokens_left_to_right
from app.glyphs import visible
from app.guard import guard_overrides
from app.models.vocab_model import CREATED, FREQUENCY, ID, LENGTH, TOKEN, VocabModel
from app.sort_menu import give_sort_menu
from app.widgets import clear_for_new_session, row_table, status_label


@guard_overrides
class VocabPane(QWidget):
    sig_token_selected = Signal(object)
    """The selected token changed: its id, or None."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._selected: int | None = None
        self._dragged = False  # the user moved the split between the table and the tree
        self.model = VocabModel(bridge, self)
        # Widgets
        self.search = QLineEdit(placeholderText="Search tokens…", clearButtonEnabled=True)
        self.view = row_table(
            self.model, {ID: "99,999", TOKEN: "m" * 8, LENGTH: "999", FREQUENCY: "9,999,999"}
        )
        self.tree = QTreeWidget()
        tokens_left_to_right(self.view, TOKEN)
        tokens_left_to_right(self.tree, 0)
        self.summary = status_label()
        self._search_timer = QTimer(self, singleShot=True, interval=150)
        # Setup
        self.view.setAccessibleName("Vocabulary")
        self.view.setAccessibleDescription(
            "Every token: its id, text, length and count; select one to see how it was built"
        )
        self.search.setAccessibleName("Search tokens")
        self.tree.setAccessibleName("How the selected token was built")
        self.tree.setAccessibleDescription("The merges that made the token, each with its step")
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(ID, Qt.SortOrder.AscendingOrder)
        give_sort_menu(self.view)
        # A short header: beside the table at 1280×720 the tree is narrow ("How the tok…").
        self.tree.setHeaderLabels(["Built from", "Step"])
        self.tree.headerItem().setToolTip(0, "How the selected token was built, merge by merge")
        self.tree.header().setStretchLastSection(False)  # the tokens take the room, the step its own
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self.tree)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.splitterMoved.connect(lambda *_: setattr(self, "_dragged", True))
        # Layout: the search and the summary share a row, the table as tall as the pane allows;
        # the summary takes two thirds of it (at a half it was cut short at 1280×720: "11
        # tokens: 0 special, 11 base, 0 m…"; a search needs less room).
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.summary, 2)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        # Signals
        self.search.textChanged.connect(lambda: self._search_timer.start())
        self._search_timer.timeout.connect(lambda: self.model.set_filter(self.search.text()))
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.model.modelReset.connect(self._restore_selection)
        self.model.modelReset.connect(self._update_summary)  # searched or sorted
        bridge.sig_change.connect(self._on_change)
        self._follow_trainer()

    def _on_new_session(self) -> None:
        """A new session (a file, a sample, a reset) shows all its tokens: the search is
        cleared, and keys left in it go to the table."""
        self._search_timer.stop()
        clear_for_new_session(self.search, self.view)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._orient()

    def _orient(self) -> None:
        """The merge tree beside the table in a wide pane (the default dock: stacked, the table
        showed 2 to 4 rows), below it in a tall one. The shares follow the pane's size until
        the user drags the split, and again when the orientation changes."""
        wide = self.width() >= 1.4 * self.height()
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if orientation != self.splitter.orientation():
            self.splitter.setOrientation(orientation)
            self._dragged = False
        if not self._dragged:
            self._share()

    def _share(self) -> None:
        """Side by side, the table as wide as its columns (up to four fifths of the pane), the
        tree the rest; stacked, the table three quarters of the height."""
        if self.splitter.orientation() == Qt.Orientation.Vertical:
            room = self.splitter.height()
            self.splitter.setSizes([room * 3 // 4, room // 4])
            return
        room = self.splitter.width()
        view = self.view
        columns = sum(view.columnWidth(c) for c in range(self.model.columnCount()) if c != CREATED)
        step = view.horizontalHeader().fontMetrics().horizontalAdvance("Step 99,999")  # the last column
        wanted = columns + step + view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth() + 40
        table = min(wanted, room * 4 // 5)
        self.splitter.setSizes([table, room - table])

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange and not self._dragged:  # a zoom: columns widened
            QTimer.singleShot(0, self, self._share)  # once the table has refitted its columns
        super().changeEvent(event)

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

    def _on_change(self, change: Change) -> None:
        if change.kind is ChangeKind.RESET:
            self._on_new_session()
        self._follow_trainer()

    def _follow_trainer(self) -> None:
        """The selected token's tree and the summary, as the trainer now is."""
        trainer = self._bridge.trainer
        if self._selected is not None and self._selected >= trainer.vocab_size:
            self._selected = None
            self.sig_token_selected.emit(None)
        self._show_tree()
        self._update_summary()

    def _update_summary(self) -> None:
        if self._bridge.trainer_busy:
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
        if token is None or self._bridge.trainer_busy or token >= self._bridge.trainer.vocab_size:
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
