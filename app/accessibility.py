"""Names for assistive technology, given where Qt leaves a control without one.

Screen readers announce a control by its accessible name. Qt derives one from a button's text
or a label's buddy; a table's header, its scroll bars, a spin box's text field or a field whose
label sits beside it in a form get none, and a screen reader then says only "table" or
"edit". When a window or dialog is shown, :func:`name_controls` names each such control from
what a sighted user reads beside it: its form label, its owner's name ("Corpus table,
vertical scroll bar"), its placeholder or tool tip. Controls with a name of their own keep it.

:func:`announce` says a status change (a merge made, a tie met, a job finished) to assistive
technology, not only on the screen.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import (
    QAccessible,
    QAccessibleAnnouncementEvent,
    QPainter,
    QPalette,
    QPen,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFormLayout,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QStackedWidget,
    QTabBar,
    QTextEdit,
    QWidget,
)
from shiboken6 import isValid

from app.guard import guard_overrides
from app.theme import readable_selection

# The widgets a user operates; a screen reader must be able to name each.
INTERACTIVE = (
    QAbstractButton,
    QAbstractItemView,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QComboBox,
    QAbstractSlider,
    QAbstractSpinBox,
    QTabBar,
    QGraphicsView,
)


def accessible_name(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def unnamed_controls(root: QWidget) -> list[QWidget]:
    """The visible interactive controls under ``root`` (itself included) without a name."""
    widgets = [root, *root.findChildren(QWidget)]
    return [
        w for w in widgets if isinstance(w, INTERACTIVE) and w.isVisibleTo(root) and not accessible_name(w)
    ]


def name_controls(root: QWidget) -> None:
    """Give each unnamed control under ``root`` the name a sighted user reads beside it."""
    for widget in unnamed_controls(root):
        name = _name_beside(widget)
        if name:
            widget.setAccessibleName(name)


def _name_beside(widget: QWidget) -> str:
    parent = widget.parentWidget()
    if isinstance(widget, QLineEdit) and isinstance(parent, QAbstractSpinBox | QComboBox):
        return accessible_name(parent) or _name_beside(parent)
    if isinstance(widget, QHeaderView) and parent is not None:
        which = "column" if widget.orientation() == Qt.Orientation.Horizontal else "row"
        return f"{_owner_name(parent)}, {which} headers"
    if isinstance(widget, QScrollBar):
        owner = _scrolled(widget)
        which = "horizontal" if widget.orientation() == Qt.Orientation.Horizontal else "vertical"
        if owner is None:
            return f"{which.capitalize()} scroll bar"
        return f"{_owner_name(owner)}, {which} scroll bar"
    if isinstance(widget, QAbstractButton) and widget.objectName() == "qt_tableview_cornerbutton":
        return "Select all"
    label = _form_label(widget)
    if label:
        return label
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        return widget.placeholderText()
    return _plain(widget.toolTip())


def _owner_name(widget: QWidget) -> str:
    return accessible_name(widget) or _plain(widget.toolTip()) or type(widget).__name__


def _scrolled(bar: QScrollBar) -> QWidget | None:
    """The scroll area a scroll bar moves (its parent is a container inside the area)."""
    widget = bar.parentWidget()
    while widget is not None and not isinstance(widget, QAbstractScrollArea):
        widget = widget.parentWidget()
    return widget


def _form_label(widget: QWidget) -> str:
    """The text of the label a form puts beside ``widget``, or of a label whose buddy it is."""
    window = widget.window()
    for form in window.findChildren(QFormLayout):
        label = form.labelForField(widget)
        if isinstance(label, QLabel | QAbstractButton):  # a radio button can label its field
            return _plain(label.text())
    for label in window.findChildren(QLabel):
        if label.buddy() is widget:
            return _plain(label.text())
    return ""


def _plain(text: str) -> str:
    """A label's text as read aloud: no mnemonic ampersand, no trailing colon, no markup."""
    if "<" in text and ">" in text:
        text = QTextDocumentFragment.fromHtml(text).toPlainText()
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").strip().rstrip(":").strip()


@guard_overrides
class ControlNamer(QObject):
    """Names the controls of every window and dialog as it is shown (an application-wide
    event filter: dialogs are made later, and some add controls when opened), and of every
    page of a stack (a tab's page) as it is shown: hidden then, they were not named with the
    window."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Show or not isinstance(watched, QWidget):
            return False
        if watched.isWindow() or isinstance(watched.parentWidget(), QStackedWidget):
            name_controls(watched)
        return False


_namer: ControlNamer | None = None


def install_control_namer() -> None:
    """Once per application: name controls as windows and dialogs are shown."""
    global _namer
    app = QApplication.instance()
    if _namer is None and app is not None:
        _namer = ControlNamer(app)
        app.installEventFilter(_namer)


ANNOUNCED: deque[str] = deque(maxlen=50)  # the latest announcements, newest last (tests read them)


def announce(widget: QWidget, text: str) -> None:
    """Say ``text`` to assistive technology (a screen reader speaks it as a live status), as
    well as what is painted."""
    if not text:
        return
    ANNOUNCED.append(text)
    if QAccessible.isActive():
        QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(widget, text))


def keep_selection_readable() -> None:
    """Selected rows' text at AA contrast in the application's palette, light or dark."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        palette = readable_selection(app.palette())
        if palette is not None:
            app.setPalette(palette)


@guard_overrides
class FocusRing(QWidget):
    """A frame in the palette's selection colour around whatever has the keys (tables, text
    fields, the History graph, the plots), light or dark: styles draw focus faintly or not at
    all (Fusion's focused table has no frame; its current cell is a hairline). It lies over the
    focused widget, lets the mouse through and reads the palette when it paints."""

    WIDTH = 2

    def __init__(self) -> None:
        super().__init__(None)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAccessibleName("Focus frame")
        self._target: QWidget | None = None

    def follow(self, _old: QWidget | None, new: QWidget | None) -> None:
        if self._target is not None and isValid(self._target):
            self._target.removeEventFilter(self)
        self._target = new if isinstance(new, RINGED) and new.isWindow() is False else None
        if self._target is None:
            self.setParent(None)
            self.hide()
            return
        self.setParent(self._target)
        self._target.installEventFilter(self)
        self.setGeometry(self._target.rect())
        self.raise_()
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._target and event.type() == QEvent.Type.Resize:
            self.setGeometry(self._target.rect())
        return False

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        pen = QPen(self.palette().color(QPalette.ColorRole.Highlight), self.WIDTH)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        half = self.WIDTH / 2
        painter.drawRect(QRectF(self.rect()).adjusted(half, half, -half, -half))


# The widgets that get the ring: those whose own focus indication is faint (a style's dotted
# hint on a button, a box or a slider is hard to see from a seat in a lecture hall).
RINGED = (
    QAbstractScrollArea,  # tables, text boxes, the plots, the History pane's graph
    QLineEdit,
    QAbstractButton,
    QComboBox,
    QAbstractSlider,
    QAbstractSpinBox,
    QTabBar,
)
_ring: FocusRing | None = None
_following = False


def show_focus() -> None:
    """Once per application: the focus ring follows the keyboard focus in every window."""
    global _following
    app = QApplication.instance()
    if not _following and isinstance(app, QApplication):
        _following = True
        app.focusChanged.connect(_follow_focus)


def _follow_focus(old: QWidget | None, new: QWidget | None) -> None:
    """Move the ring to the widget that has the keys (made anew if the widget it lay on, and it
    with it, was deleted)."""
    global _ring
    if _ring is None or not isValid(_ring):
        _ring = FocusRing()
    _ring.follow(old, new)
