"""Rows of text in a table, whole rows shaded or marked: the Compare view's tables."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QBrush

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

    def set_rows(self, rows: list[list[str]], shaded: Iterable[int] = (), marked: int | None = None) -> None:
        self.beginResetModel()
        self.rows, self.shaded, self.marked = rows, set(shaded), marked
        self.endResetModel()

    def set_headers(self, headers: list[str]) -> None:
        self.HEADERS = tuple(headers)
        self.headerDataChanged.emit(HORIZONTAL, 0, len(headers) - 1)

    def row_total(self) -> int:
        return len(self.rows)

    def answers(self) -> dict:
        return {
            DISPLAY: lambda row, column: self.rows[row][column],
            BACKGROUND: self._background,
            FONT: lambda row, _column: self.bold if row == self.marked else None,
        }

    def _background(self, row: int, _column: int):
        return self._mark if row == self.marked else self._shade if row in self.shaded else None
