"""Small widgets shared by the panes."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QAbstractItemView, QSizePolicy, QTableView, QWidget


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
        parent=None,
    ) -> None:
        super().__init__(parent)
        self._text = text
        self._alignment = alignment | Qt.AlignmentFlag.AlignVCenter
        self._muted = muted
        self._minimum_width = minimum_width
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.setToolTip(text)
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


def row_table(model, column_widths: dict[int, int]) -> QTableView:
    """The panes' table view: whole-row single selection, no row header, no wrapping, the last
    column stretched."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    for column, width in column_widths.items():
        view.setColumnWidth(column, width)
    return view
