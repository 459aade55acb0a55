"""The keys typed in a text field are the field's: the window's training keys never fire there.

Qt lets a window shortcut through when the focused widget does not claim the key: Space in the
Encode pane's read-only ids box made a merge, and so would → or P in any read-only text. Here,
in any text field of the window (read-only or not), the keys of the given commands are claimed
for the field; Esc still hands the keys back to the tables, where they train.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

from app.guard import guard_overrides

TEXT_FIELDS = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)


@guard_overrides
class TextFieldKeys(QObject):
    """Installed on the application for ``window``'s lifetime (its child)."""

    def __init__(self, window: QWidget, commands: Iterable[QAction]) -> None:
        super().__init__(window)
        self._window = window
        self._commands = list(commands)
        application = QApplication.instance()
        if application is not None:
            application.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, TEXT_FIELDS) or watched.window() is not self._window:
            return False
        pressed = QKeySequence(event.keyCombination())
        if any(pressed in action.shortcuts() for action in self._commands):
            event.accept()  # the field's key: Qt delivers it to the field, not the shortcut
            return True
        return False
