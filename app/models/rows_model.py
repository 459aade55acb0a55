"""Rows of text in a table, whole rows shaded or marked: the Compare view's tables."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QBrush, QFont

from app.guard import guard_overrides
from app.models.roles import BACKGROUND, DISPLAY, FONT, HORIZONTAL
from app.models.table_model import TableModel
from app.theme import changed_background, highlight_background


@guard_overrides
class RowsModel(TableModel):
    """Rows of text, with whole rows shaded or marked (bold): a model, so that showing a line of
    thousands of merges costs nothing until rows are painted."""

    def __init__(self, headers: list[str], parent=None) -> None:
        super().__init__(parent)
        self.HEADERS = tuple(headers)
        self.rows: list[list[str]] = []
        self.shaded: set[int] = set()
        self.marked: int | None = None
        self._shade, self._mark = QBrush(changed_background()), QBrush(highlight_background())
        self._bold = QFont()
        self._bold.setBold(True)

    def set_rows(self, rows: list[list[str]], shaded: Iterable[int] = (), marked: int | None = None) -> None:
        self.beginResetModel()
        self.rows, self.shaded, self.marked = rows, set(shaded), marked
        self.endResetModel()

    def set_headers(self, headers: list[str]) -> None:
        self.HEADERS = tuple(headers)
        self.headerDataChanged.emit(HORIZONTAL, 0, len(headers) - 1)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role=DISPLAY):
        row = index.row()
        if not 0 <= row < len(self.rows):
            return None
        if role == DISPLAY:
            return self.rows[row][index.column()]
        if role == BACKGROUND:
            return self._mark if row == self.marked else self._shade if row in self.shaded else None
        if role == FONT and row == self.marked:
            return self._bold
        return None
