"""Shift+F10 opens the context menu of whatever has the keys, as the Menu key does.

Windows turns Shift+F10 into a context-menu request itself; Qt on Linux does so only for the
Menu key, which many keyboards lack. Here the key press becomes the request Qt makes of the
Menu key: a keyboard context-menu event at the focused widget's cursor (a table's current
cell), so every menu a table, the History graph or a plot opens by the Menu key opens by it too.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QRectF, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from app.guard import guard_overrides

# Platforms whose Qt does not make a context-menu request of Shift+F10 on its own.
_PLATFORMS = ("xcb", "wayland", "offscreen", "minimal")


@guard_overrides
class ShiftF10(QObject):
    """Turns Shift+F10 into a keyboard context-menu event for the focused widget."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_F10
            and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
            and watched is QApplication.focusWidget()  # once, where it is first delivered
            and isinstance(watched, QWidget)
        ):
            rect = watched.inputMethodQuery(Qt.InputMethodQuery.ImCursorRectangle)  # QRect or QRectF
            rect = rect.toRect() if isinstance(rect, QRectF) else rect
            point = rect.center() if isinstance(rect, QRect) and rect.isValid() else watched.rect().center()
            QApplication.sendEvent(
                watched,
                QContextMenuEvent(
                    QContextMenuEvent.Reason.Keyboard, point, watched.mapToGlobal(point), event.modifiers()
                ),
            )
            return True
        return False


_filter: ShiftF10 | None = None


def install_shift_f10() -> None:
    """Once per application, where the platform does not do it itself."""
    global _filter
    app = QApplication.instance()
    if _filter is None and isinstance(app, QApplication) and QGuiApplication.platformName() in _PLATFORMS:
        _filter = ShiftF10(app)
        app.installEventFilter(_filter)
