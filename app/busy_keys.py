"""While a background job runs, the window's command keys do nothing rather than fall through.

A job disables Step, Undo and the like, and Qt gives a disabled action's key to whatever has
the focus instead: ← moved the focus off a button and Space then ticked "Ties only". While the
window is busy, a key press that is the shortcut of one of its commands is dropped, unless a
text field has the focus (where the key is typing), or a control that uses the key does (Space
on a button, such as the status bar's Cancel reached with Tab, or on a check box; see
``app.text_keys``). The arrows, the window's undo and step, move the focus off no button.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from app.guard import guard_overrides
from app.text_keys import belongs_to, claims

_TYPING = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)


@guard_overrides
class BusyKeys(QObject):
    """Installed on the application for the length of a job (``hold(True)``, then ``hold(False)``)."""

    def __init__(self, window: QWidget, commands: dict[str, QAction]) -> None:
        super().__init__(window)
        self._window = window
        self._commands = commands
        self._held = False

    def hold(self, busy: bool) -> None:
        application = QApplication.instance()
        if application is None or busy == self._held:
            return
        self._held = busy
        if busy:
            application.installEventFilter(self)
        else:
            application.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, QWidget) or not belongs_to(watched, self._window):
            return False
        if isinstance(watched, _TYPING):
            return False
        if claims(watched, event):
            return False  # the control's own key: Space presses the button the user moved to
        pressed = QKeySequence(event.keyCombination())
        return any(
            not action.isEnabled() and pressed in action.shortcuts() for action in self._commands.values()
        )
