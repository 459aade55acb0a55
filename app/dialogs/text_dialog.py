"""A long text to read in a dialog (the keyboard shortcuts), at any zoom on any screen.

A message box caps its width (about 1,000 pixels) and never scrolls: zoomed in for a projector,
the shortcuts' second column was cut off, with no way to read it. Here the text is sized to fit
whole where the screen allows and scrolls where it does not; the keys scroll it (the arrows,
Page Up and Down) and a screen reader reads it, and Esc or Enter closes it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QShowEvent, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from app.guard import guard_overrides

SCREEN_SHARE = 0.9  # of the screen's free room the dialog may take


def room_on_screen(widget: QWidget) -> QSize:
    """The most room a dialog over ``widget`` may take."""
    screen = widget.screen()
    return screen.availableGeometry().size() * SCREEN_SHARE if screen is not None else QSize(1600, 1000)


@guard_overrides
class TextDialog(QDialog):
    def __init__(self, title: str, html: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.browser = QTextBrowser(self)
        self.browser.setAccessibleName(title)
        self.browser.setOpenLinks(False)
        self.browser.setHtml(html)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        # Enter closes it, as it closed the message box this replaces
        buttons.button(QDialogButtonBox.StandardButton.Close).setDefault(True)
        self._buttons = buttons
        self._layout = layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.browser.setFocus()
        self._sized = False

    def showEvent(self, event: QShowEvent) -> None:
        # Sized here, once it has the window's zoom, and before it is placed over the window.
        # Qt's own sizing of a window keeps it within two thirds of the screen.
        if not self._sized:
            self._sized = True
            self.resize(self.sizeHint())
        super().showEvent(event)

    def sizeHint(self) -> QSize:
        """The whole text without scrolling where the screen has room for it, else as wide as
        the room allows (its wrapping lines wrapped) and scrolling down."""
        room, around = self._room(), self._around()
        document = QTextDocument()  # measured apart from the one shown, in its font
        document.setDefaultFont(self.browser.font())
        document.setHtml(self.browser.toHtml())
        document.setTextWidth(-1)  # unwrapped: its natural width
        width = min(int(document.size().width()) + 1, room.width() - around.width())
        document.setTextWidth(width)
        wanted = QSize(width, int(document.size().height()) + 1) + around
        return wanted.boundedTo(room)

    def _room(self) -> QSize:
        return room_on_screen(self.parentWidget() or self)

    def _around(self) -> QSize:
        """The dialog's room beside and around its text."""
        margins = self._layout.contentsMargins()
        frame = 2 * self.browser.frameWidth()
        scroll_bar = self.browser.verticalScrollBar().sizeHint().width()
        below = self._layout.spacing() + self._buttons.sizeHint().height()
        return QSize(
            margins.left() + margins.right() + frame + scroll_bar,
            margins.top() + margins.bottom() + frame + below,
        )
