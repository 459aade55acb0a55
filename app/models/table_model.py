"""What every table model shares, so that each states only what is its own: named columns with
optional header tooltips, numbers right-aligned, a bold font, ``data()`` answered by one method
per role, and repaints of every row or of a range of rows.

A model lists its columns (``HEADERS``, ``HEADER_TIPS``), which of them hold numbers
(``NUMERIC``), how many rows it has (:meth:`TableModel.row_total`) and a method per role it
answers (:meth:`TableModel.answers`); every other role is ``None`` at once, which views ask for a
dozen times per cell on every paint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QFont

from app.guard import guard_overrides
from app.models.roles import ALIGNMENT, DISPLAY, HORIZONTAL, RIGHT_ALIGNED, TOOLTIP

Answer = Callable[[int, int], Any]  # (row, column) -> the role's value


def bold_font() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


@guard_overrides
class TableModel(QAbstractTableModel):
    HEADERS: tuple[str, ...] = ()
    HEADER_TIPS: tuple[str, ...] = ()  # one per column, or none
    NUMERIC: frozenset[int] = frozenset()  # the columns of numbers, right-aligned

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.bold = bold_font()
        self._answers: dict[Any, Answer] = {ALIGNMENT: self._alignment, **self.answers()}

    # -- what a model states -----------------------------------------------------------------

    def row_total(self) -> int:
        """How many rows the table has."""
        raise NotImplementedError

    def answers(self) -> dict[Any, Answer]:
        """role -> the method answering it for (row, column); rows are in range."""
        return {}

    # -- Qt model interface ------------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.row_total()

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role=DISPLAY):
        answer = self._answers.get(role)
        if answer is None:
            return None
        row = index.row()
        if row < 0:
            return None
        try:  # no bounds check before: data() is asked for thousands of cells per paint
            return answer(row, index.column())
        except IndexError:
            if row < self.row_total():  # not a row gone since the view asked: a real fault
                raise
            return None

    def headerData(self, section, orientation, role=DISPLAY):
        if orientation != HORIZONTAL:
            return None
        if role == DISPLAY:
            return self.HEADERS[section]
        if role == TOOLTIP and self.HEADER_TIPS:
            return self.HEADER_TIPS[section]
        return None

    def _alignment(self, _row: int, column: int):
        return RIGHT_ALIGNED if column in self.NUMERIC else None

    # -- repaints ----------------------------------------------------------------------------

    def repaint_all(self, roles: list | None = None) -> None:
        """Tell the views every cell changed (only ``roles``, if given)."""
        self.repaint_rows(0, self.row_total() - 1, roles)

    def repaint_rows(self, first: int, last: int, roles: list | None = None) -> None:
        """Tell the views rows ``first`` to ``last`` (clipped to the table) changed."""
        first, last = max(first, 0), min(last, self.row_total() - 1)
        if first <= last:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.HEADERS) - 1), roles or [])
