"""Enter (or Return) on a table acts on its current row: the pairs pane merges the pair, the
merges pane jumps to the step. One event filter for both, installed on the view."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

from app.guard import guard_overrides

ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


@guard_overrides
class EnterKey(QObject):
    """Calls ``action()`` when Enter is pressed in ``widget``, and keeps the key from it (a
    table would otherwise start editing or move down a row)."""

    def __init__(self, widget: QWidget, action: Callable[[], object]) -> None:
        super().__init__(widget)  # lives and dies with the widget
        self._action = action
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in ENTER_KEYS
        ):
            self._action()
            return True
        return False
