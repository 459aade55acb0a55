"""The keys typed in a text field are the field's: the window's training keys never fire there.

Qt lets a window shortcut through when the focused widget does not claim the key: Space in the
Encode pane's read-only ids box made a merge, and so would → or P in any read-only text. Here,
in any text field of the window (read-only or not), the keys of the given commands are claimed
for the field; Esc still hands the keys back to the tables, where they train. Other controls
claim the keys they work with: Space presses a button or ticks a box (it made a merge instead),
a combo box opens on Space, a tab bar turns on ← and →, a slider moves on the arrows.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from app.guard import guard_overrides

TEXT_FIELDS = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)
Key = Qt.Key
_ARROWS = {Key.Key_Left, Key.Key_Right, Key.Key_Up, Key.Key_Down}
# The keys (without modifiers) each kind of control works with.
CONTROL_KEYS: tuple[tuple[type, set[Qt.Key]], ...] = (
    (QAbstractButton, {Key.Key_Space}),
    (QComboBox, {Key.Key_Space, Key.Key_Up, Key.Key_Down}),
    (QTabBar, {Key.Key_Left, Key.Key_Right}),
    (QAbstractSlider, {*_ARROWS, Key.Key_PageUp, Key.Key_PageDown, Key.Key_Home, Key.Key_End}),
)


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
        if not isinstance(watched, QWidget) or not belongs_to(watched, self._window):
            return False
        if isinstance(watched, TEXT_FIELDS):
            pressed = QKeySequence(event.keyCombination())
            claimed = any(pressed in action.shortcuts() for action in self._commands)
        else:
            claimed = claims(watched, event)
        if claimed:
            event.accept()  # the control's key: Qt delivers it to the control, not the shortcut
        return claimed


def claims(control: QWidget, event: QKeyEvent) -> bool:
    """Whether ``control`` (not a text field) works with the key of ``event`` (see ``CONTROL_KEYS``)."""
    plain = event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)
    return plain and any(isinstance(control, kind) and event.key() in keys for kind, keys in CONTROL_KEYS)


def belongs_to(widget: QWidget, window: QWidget) -> bool:
    """Whether ``widget`` is in ``window``, a pane floated off it included (its own window)."""
    top = widget.window()
    return top is window or (isinstance(top, QDockWidget) and top.parentWidget() is window)
