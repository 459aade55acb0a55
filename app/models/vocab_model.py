"""The vocabulary table: id, token (with visible glyphs), length, frequency now, step created.

Default order is by id, where a step only appends or removes the newest row; other orders and
searches are recomputed (a vocabulary is at most tens of thousands of rows).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont

from app.bridge import Bridge
from app.glyphs import visible
from app.models.roles import ALIGNMENT, DISPLAY, FONT, RIGHT_ALIGNED, TOOLTIP, USER
from app.models.row_cache import PLACEHOLDER
from app.models.table_model import TableModel

ID, TOKEN, LENGTH, FREQUENCY, CREATED = range(5)
HEADERS = ("Id", "Token", "Length", "Frequency", "Step")
TOKEN_ID_ROLE = USER + 1
SORT_ROLE = USER
_ROLES = frozenset(
    {
        DISPLAY,
        FONT,
        ALIGNMENT,
        TOOLTIP,
        TOKEN_ID_ROLE,
        SORT_ROLE,
    }
)


class VocabModel(TableModel):
    HEADERS = HEADERS
    HEADER_TIPS = (
        "Token id",
        "Token (␣ space, ↵ newline; markers shown as written)",
        "Length in units (characters or bytes), markers excluded",
        "Occurrences in the corpus as segmented now",
        "Merge step that created it (0: base)",
    )

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._ids: list[int] = []
        self._size = 0
        self._filter = ""
        self._sort_column, self._sort_order = ID, Qt.SortOrder.AscendingOrder
        self._shown: dict[int, str] = {}  # id -> visible token (ids never change meaning within a history)
        self._italic = QFont()
        self._italic.setItalic(True)
        # Signals
        bridge.sig_changed.connect(self.refresh)
        bridge.sig_reset.connect(self._shown.clear)
        bridge.sig_busy_changed.connect(lambda busy: None if busy else self.refresh())
        self.refresh()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._ids)

    def data(self, index: QModelIndex, role=DISPLAY):
        if role not in _ROLES or not 0 <= index.row() < len(self._ids):
            return None
        token_id = self._ids[index.row()]
        column = index.column()
        if role == TOKEN_ID_ROLE:
            return token_id
        if role == ALIGNMENT and column != TOKEN:
            return RIGHT_ALIGNED
        special = token_id < self._n_special
        if role == FONT and special:
            return self._italic
        if role == TOOLTIP and special:
            return "Special token: never merged, matched in text only when allowed."
        if role not in (DISPLAY, SORT_ROLE):
            return None
        if self._bridge.busy and column in (FREQUENCY,):
            return PLACEHOLDER
        value = self._value(token_id, column)
        if role == SORT_ROLE or column == TOKEN:
            return value
        return f"{value:,}"

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self._recompute(reset=True)

    # -- what the pane asks for ------------------------------------------------------------

    def token_at(self, row: int) -> int | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, token_id: int) -> int | None:
        try:
            return self._ids.index(token_id)
        except ValueError:
            return None

    def set_filter(self, text: str) -> None:
        self._filter = text.casefold()
        self._recompute(reset=True)

    def refresh(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        size = trainer.vocab_size
        if self._sort_column == ID and self._sort_order == Qt.SortOrder.AscendingOrder and not self._filter:
            # Steps add or remove tokens at the end: move only those rows.
            if size > self._size and self._ids == list(range(self._size)):
                self.beginInsertRows(QModelIndex(), self._size, size - 1)
                self._ids.extend(range(self._size, size))
                self._size = size
                self.endInsertRows()
            elif size < self._size and self._ids == list(range(self._size)):
                self.beginRemoveRows(QModelIndex(), size, self._size - 1)
                del self._ids[size:]
                for token_id in range(size, self._size):
                    self._shown.pop(token_id, None)
                self._size = size
                self.endRemoveRows()
            elif size != self._size or len(self._ids) != size:
                self._recompute(reset=True)
            if self._ids:
                self.dataChanged.emit(self.index(0, FREQUENCY), self.index(len(self._ids) - 1, FREQUENCY))
            return
        self._recompute(reset=True)

    # -- helpers ---------------------------------------------------------------------------

    def _visible(self, token_id: int) -> str:
        shown = self._shown.get(token_id)
        if shown is None:
            trainer = self._bridge.trainer
            shown = self._shown[token_id] = visible(trainer.token_string(token_id), trainer.corpus.config)
        return shown

    def _value(self, token_id: int, column: int):
        trainer = self._bridge.trainer
        if column == ID:
            return token_id
        if column == TOKEN:
            return self._visible(token_id)
        if column == LENGTH:
            config = trainer.corpus.config
            token = trainer.token_string(token_id)
            marker = config.end_of_word or ""
            if marker and token.endswith(marker) and token_id >= self._n_special:
                token = token[: -len(marker)]
            return len(token)
        if column == FREQUENCY:
            return trainer.token_frequency(token_id)
        return trainer.token_created_at(token_id)

    def _recompute(self, reset: bool) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        self._size = trainer.vocab_size
        ids = range(self._size)
        if self._filter:
            ids = [i for i in ids if self._filter in self._visible(i).casefold()]
        column = self._sort_column
        ordered = sorted(
            ids,
            key=lambda i: self._value(i, column),
            reverse=self._sort_order == Qt.SortOrder.DescendingOrder,
        )
        if reset:
            self.beginResetModel()
            self._ids = ordered
            self.endResetModel()
