"""What every table model shares: named columns with optional header tooltips, and a repaint
of every row."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex

from app.guard import guard_overrides
from app.models.roles import DISPLAY, HORIZONTAL, TOOLTIP


@guard_overrides
class TableModel(QAbstractTableModel):
    HEADERS: tuple[str, ...] = ()
    HEADER_TIPS: tuple[str, ...] = ()  # one per column, or none

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=DISPLAY):
        if orientation != HORIZONTAL:
            return None
        if role == DISPLAY:
            return self.HEADERS[section]
        if role == TOOLTIP and self.HEADER_TIPS:
            return self.HEADER_TIPS[section]
        return None

    def repaint_all(self, roles: list | None = None) -> None:
        """Tell the views every cell changed (only ``roles``, if given)."""
        rows = self.rowCount()
        if rows:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(self.HEADERS) - 1), roles or [])
