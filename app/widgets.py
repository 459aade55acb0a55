"""Small widgets shared by the panes."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import (
    QDropEvent,
    QFontInfo,
    QHideEvent,
    QKeySequence,
    QPainter,
    QPalette,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QSizePolicy,
    QStyle,
    QTableView,
    QTextEdit,
    QWidget,
)
from shiboken6 import isValid

from app.guard import guard_overrides


@guard_overrides
class StatusText(QWidget):
    """A one-line text that changes on every step without re-laying out its pane.

    ``QLabel.setText`` calls ``updateGeometry()``, which invalidates the parent layout whatever
    the size policy: every label update re-laid out and repainted its whole pane. This widget
    keeps a fixed size hint and only repaints itself; it paints its own background (opaque), so
    an update does not repaint the pane, dock and window beneath it either.
    """

    def __init__(
        self,
        text: str = "",
        minimum_width: int = 0,
        alignment=Qt.AlignmentFlag.AlignLeft,
        muted: bool = False,
        tip: str | None = None,
        parent=None,
    ) -> None:
        super().__init__(parent)
        self._text = text
        self._tip = tip  # a fixed tooltip; by default the tooltip repeats the (maybe elided) text
        if tip is not None:
            self.setToolTip(tip)
        self._alignment = alignment | Qt.AlignmentFlag.AlignVCenter
        self._muted = muted
        self._minimum_width = minimum_width
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAccessibleName(text)  # painted, not a label's: a screen reader reads it from here

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text != self._text:
            self._text = text
            if self._tip is None:
                self.setToolTip(text)
            self.setAccessibleName(text)
            self.update()

    def sizeHint(self) -> QSize:
        return QSize(self._minimum_width, self.fontMetrics().height() + 6)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._minimum_width, self.fontMetrics().height() + 6)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().window())
        group = QPalette.ColorGroup.Disabled if self._muted else QPalette.ColorGroup.Active
        painter.setPen(self.palette().color(group, QPalette.ColorRole.WindowText))
        text = self.fontMetrics().elidedText(self._text, Qt.TextElideMode.ElideRight, self.width() - 6)
        painter.drawText(self.rect().adjusted(3, 0, -3, 0), int(self._alignment), text)


def status_label(text: str = "", minimum_width: int = 0) -> StatusText:
    return StatusText(text, minimum_width)


TITLE_BAR = 40  # room a window manager's title bar takes, kept free on small screens
FRAME = 16  # and its window borders
Sample = str | Callable[[], str]  # a column's widest content, or how to find it from the data


@guard_overrides
class RowTable(QTableView):
    """The panes' table view: whole-row single selection, no row header, no wrapping. Columns
    are as wide as a sample of their widest content (or their header) in the current font, so
    they follow the zoom and never clip a number; the ``stretch`` columns (text of any
    length) share what room is left, or else the last column takes it. A stretch column is
    never narrower than its readable sample (``stretch`` maps it to one): a narrow pane scrolls
    sideways rather than show "…" where the text is.

    A sample may be a function giving it from the data (the largest number a column can hold
    now): it is asked again at every model reset (and at ``fit_live_columns``), so a small
    corpus's narrow numbers leave the text columns room in a narrow pane."""

    def __init__(
        self, model, column_samples: dict[int, Sample], stretch: dict[int, str] | None = None
    ) -> None:
        super().__init__()
        self.column_samples = column_samples
        self._stretch = stretch or {}
        self._dragged: set[int] = set()  # columns the user has resized: kept until the next zoom
        self._fitting = False
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.horizontalHeader().setStretchLastSection(not self._stretch)
        # A number column dragged wider, or shown or hidden, changes the room left.
        self.horizontalHeader().sectionResized.connect(self._on_section_resized)
        self.setWordWrap(False)
        self.setTabKeyNavigation(False)  # Tab goes to the next pane, not the next cell
        self._paint_scroll_bar_containers()
        self.fit_columns()
        if any(callable(sample) for sample in column_samples.values()):
            model.modelReset.connect(self.fit_live_columns)

    def fit_columns(self) -> None:
        """Row height and column widths for the current font (start-up and every zoom)."""
        # Two ems, and never less than the text's height with room for a chip's frame: a font
        # tall for its size (Noto Sans, many desktops' default) took a fifth more height by
        # its line height alone, and a zoomed Corpus pane lost a row of four.
        em = QFontInfo(self.font()).pixelSize()
        self.verticalHeader().setDefaultSectionSize(max(round(2 * em), self.fontMetrics().height() + 6))
        self._dragged.clear()  # a new font: every width as it needs, whatever was dragged before
        self._fit(self.column_samples)

    def fit_live_columns(self) -> None:
        """Widths for what the sample functions give now (a model that changes its rows without
        a reset calls this itself)."""
        self._fit({column: sample for column, sample in self.column_samples.items() if callable(sample)})

    def _fit(self, samples: dict[int, Sample]) -> None:
        metrics, header_metrics = self.fontMetrics(), self.horizontalHeader().fontMetrics()
        for column, sample in samples.items():
            text = sample() if callable(sample) else sample
            title = str(self.model().headerData(column, Qt.Orientation.Horizontal) or "")
            width = max(metrics.horizontalAdvance(text), header_metrics.horizontalAdvance(title) + 14) + 16
            if column in self._dragged:  # kept as the user left it, unless too narrow now
                width = max(width, self.columnWidth(column))
            if width != self.columnWidth(column):
                self._set_width(column, width)
        self._share_room()

    def _share_room(self) -> None:
        """The stretch columns share the viewport's width left by the others, each at least
        its readable sample's width."""
        if not self._stretch:
            return
        shown = [c for c in range(self.model().columnCount()) if not self.isColumnHidden(c)]
        taken = sum(self.columnWidth(c) for c in shown if c not in self._stretch)
        share = (self.viewport().width() - taken) // len(self._stretch)
        for column, readable in self._stretch.items():
            width = max(share, self.fontMetrics().horizontalAdvance(readable) + 16)
            if width != self.columnWidth(column):
                self._set_width(column, width)

    def _set_width(self, column: int, width: int) -> None:
        self._fitting = True
        try:
            self.setColumnWidth(column, width)
        finally:
            self._fitting = False

    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column in self._stretch:
            return
        if not self._fitting and not self.isColumnHidden(column):
            self._dragged.add(column)  # the user's width, not ours
        self._share_room()

    def shown_rows(self) -> tuple[int, int]:
        """The first and last row on screen now (last < first: none, or the view is hidden)."""
        if not self.isVisible():
            return 0, -1
        first = self.rowAt(0)
        if first < 0:
            return 0, -1
        last = self.rowAt(self.viewport().height() - 1)
        return first, last if last >= 0 else self.model().rowCount() - 1

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._share_room()
        return super().viewportEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # the window zoomed
            self.fit_columns()
        elif event.type() == QEvent.Type.StyleChange:
            self._paint_scroll_bar_containers()
        super().changeEvent(event)

    def _paint_scroll_bar_containers(self) -> None:
        """A table's layout is redone after each row it gains (a step appends one to Merges and
        Vocabulary): Qt then raises both scroll bars' containers, repainting them and, were
        they transparent, the pane beneath them too (0.4 ms a step with every pane shown). So
        they paint their background, unless the style lays its scroll bars over the rows (as
        macOS does): a container would then hide the rows beneath it."""
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            container = bar.parentWidget()
            if container is not None and container is not self:
                overlaps = self.style().pixelMetric(
                    QStyle.PixelMetric.PM_ScrollView_ScrollBarOverlap, None, bar
                )
                container.setAutoFillBackground(overlaps == 0)


def row_table(model, column_samples: dict[int, Sample], stretch: dict[int, str] | None = None) -> RowTable:
    return RowTable(model, column_samples, stretch)


def clear_for_new_session(field: QLineEdit, table: QWidget) -> None:
    """Empty a pane's filter or search for a new session without its own reaction (the model
    cleared its filter already), and hand keys left in it to the pane's table."""
    field.blockSignals(True)
    field.clear()
    field.blockSignals(False)
    if field.isClearButtonEnabled():  # its × hears of the text through the blocked signal: still shown
        field.setClearButtonEnabled(False)
        field.setClearButtonEnabled(True)
    if field.window().focusWidget() is field:
        table.setFocus(Qt.FocusReason.OtherFocusReason)


@contextmanager
def keeping_focus(window: QWidget) -> Iterator[None]:
    """Around a modal dialog: afterwards the window is active again, and the keys go back to
    the widget that had them (a platform without a window manager would leave them nowhere)."""
    previous = QApplication.focusWidget()
    try:
        yield
    finally:
        window.activateWindow()
        if previous is not None and isValid(previous) and previous.isVisible():
            previous.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


def confirmed(parent: QWidget, title: str, text: str) -> bool:
    """Yes or No to a question whose Yes loses work (a reset, a rebuild, a deleted branch): No
    is the default, so Enter keeps the work; the keys go back where they were."""
    with keeping_focus(parent.window()):
        answer = QMessageBox.question(
            parent,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
    return answer == QMessageBox.StandardButton.Yes


def ask_text(parent: QWidget, title: str, label: str, name: str, text: str = "") -> tuple[str, bool]:
    """A text of several lines asked in a dialog, and whether it was given (OK). Its field
    starts with ``text``, all selected (what is typed or pasted replaces it), takes no Tab
    (Tab moves on to OK, as in every dialog) and is named ``name`` for screen readers;
    Ctrl+Enter gives the text as OK does (Enter starts a new line)."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
    dialog.setTextValue(text)  # lays the dialog out: its field exists from here on
    field = dialog.findChild(QPlainTextEdit)
    if field is not None:
        field.setTabChangesFocus(True)
        field.setAccessibleName(name)
        field.selectAll()
        metrics = field.fontMetrics()  # room for a paragraph, not a line
        field.setMinimumSize(metrics.horizontalAdvance("x" * 60), 12 * metrics.height())
    for keys in ("Ctrl+Return", "Ctrl+Enter"):
        QShortcut(QKeySequence(keys), dialog).activated.connect(dialog.accept)
    given = dialog.exec() == QDialog.DialogCode.Accepted
    text = dialog.textValue()
    dialog.deleteLater()
    return text, given


def _fit_on_screen(window: QWidget) -> None:
    """No larger than the screen's free area (a title bar kept free), and within it."""
    screen = window.screen() or QApplication.primaryScreen()
    if screen is None:
        return
    area = screen.availableGeometry().adjusted(0, 0, -FRAME, -TITLE_BAR)
    window.resize(min(window.width(), area.width()), min(window.height(), area.height()))
    # The top-left corner (title and close button) stays on screen when even the smallest
    # the dialog can be is too large.
    x = max(min(window.x(), area.right() + 1 - window.width()), area.left())
    y = max(min(window.y(), area.bottom() + 1 - window.height()), area.top())
    window.move(x, y)


@guard_overrides
class SideDialog(QDialog):
    """A dialog that stays open beside the window. When it closes, the window is active again
    and the keys go back to the widget that had them before it opened (a platform without a
    window manager would leave them nowhere, and the next key press would be lost)."""

    _return_to: QWidget | None = None

    def showEvent(self, event: QShowEvent) -> None:
        _fit_on_screen(self)
        focus = QApplication.focusWidget()
        if focus is not None and focus.window() is not self:
            self._return_to = focus
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        window = self.parentWidget()
        if window is None or not window.isVisible():
            return
        window.activateWindow()
        target = self._return_to
        if target is not None and isValid(target) and target.isVisible():
            target.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
        else:
            window.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


def table_csv(view: QAbstractItemView) -> str:
    """A table view as CSV, as shown: its visible columns and rows in their on-screen order,
    each cell's displayed text (a chip column gives its tokens separated by spaces)."""
    model = view.model()
    hidden_column = getattr(view, "isColumnHidden", lambda _: False)
    hidden_row = getattr(view, "isRowHidden", lambda _: False)
    columns = [c for c in range(model.columnCount()) if not hidden_column(c)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in columns])
    for row in range(model.rowCount()):
        if not hidden_row(row):
            writer.writerow([_cell_text(model.index(row, c)) for c in columns])
    return out.getvalue()


def _cell_text(index) -> str:
    from app.models.corpus_model import TOKENS_ROLE  # late: the models use these widgets

    value = index.data(Qt.ItemDataRole.DisplayRole)
    if value is None:  # painted by a delegate: the tokens it draws
        value = " ".join("".join(token) for token in index.data(TOKENS_ROLE) or ())
    return str(value)


_DRAGS = (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop)


@guard_overrides
class FileDropsToWindow(QObject):
    """Files dragged over a text box fall through to the window, which opens them: the box
    would take them as text and type their URLs. Ignored here, the drag goes on to the box's
    parents, up to the window."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _DRAGS and isinstance(event, QDropEvent):  # drag enter and move too
            data = event.mimeData()
            if data.hasUrls() and any(url.isLocalFile() for url in data.urls()):
                event.ignore()
                return True
        return False


def pass_file_drops(window: QWidget) -> None:
    """Every text box of ``window`` lets files dropped on it open in the window."""
    passer = FileDropsToWindow(window)
    for field in window.findChildren(QLineEdit):
        field.installEventFilter(passer)
    for editor in [*window.findChildren(QPlainTextEdit), *window.findChildren(QTextEdit)]:
        editor.viewport().installEventFilter(passer)  # a scroll area's drags go to its viewport
