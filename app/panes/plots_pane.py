"""Plots pane (pyqtgraph): top pair count per step (ties marked), corpus tokens and vocabulary
size per step, and the token length histogram; a cursor marks the current step.

Plot items are created once and updated in place. Updates are coalesced (at most one per
50 ms while stepping fast), series grow by appending, and axis ranges move in coarse strides,
so pyqtgraph rarely regenerates its axes: redrawing them on every step would cost more than the
step itself. Undo and redo move only the cursor.
"""

from __future__ import annotations

import html
import math
import re
from array import array
from collections.abc import Sequence
from functools import partial
from xml.etree import ElementTree

import numpy as np
import pyqtgraph as pg
from pyqtgraph.exporters import Exporter
from pyqtgraph.GraphicsScene.exportDialog import ExportDialog
from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QObject, QRectF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QFont, QFontMetrics, QKeySequence, QPainter, QPicture, QShortcut
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QMessageBox,
    QPushButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bridge import NO_CORPUS, Bridge
from app.changes import Change, ChangeKind
from app.guard import guard_overrides, guarded
from app.refresh_timer import RefreshTimer
from app.theme import is_dark
from bpe_core.errors import BpeError
from bpe_core.history.merge_line import LineView, MergeLine, field_values
from bpe_core.runtime.fileio import write_atomic

COALESCE_MS = 50
WIDE = 3  # a pane this many times wider than high shows its plots in a row (higher: in a column)


def _stride(value: float) -> float:
    """A round upper bound for ``value`` (1, 1.5, 2, 3, 4, 5, 6 or 8 times a power of ten), so
    ranges change rarely yet never leave more than a third of a plot empty."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 1.5, 2, 3, 4, 5, 6, 8, 10) if m * power >= value)


def _stride_down(value: float) -> float:
    """The round lower bound matching ``_stride``."""
    if value <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return max(m * power for m in (1, 1.5, 2, 3, 4, 5, 6, 8) if m * power <= value)


def _compact(value: float) -> str:
    """200, 5k, 20k, 1.5M: short labels for a narrow axis."""
    for factor, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:g}{suffix}"
    return f"{value:g}"


def _compact_ticks(values, scale, spacing) -> list[str]:
    return [_compact(v * scale) for v in values]


PLOT_TEXT_SCALE = 0.9  # the plots' labels a little smaller than the tables' text


class TickRoom:
    """How many pixels a tick label needs, up an axis and across one: it follows the zoom."""

    def __init__(self) -> None:
        self.up = 18.0
        self.across = 40.0
        self.digit = 7.0  # the width of one character of a label


def _log_ticks(low: float, high: float, size: float, room: TickRoom) -> list:
    """Log-scale ticks at round values, as many as the axis has room for, and at least two
    where it has room for them: 1-2-5 steps per decade, or every integer mantissa when the
    range spans less than one of those steps (counts between 3 and 4: 3, 3.5, 4).

    pyqtgraph's own log ticks fall back to fractional exponents when the range spans less than
    a decade (the usual case early in training) and their labels pile up on a short plot.
    """
    fits = max(1, int(size // room.up))  # a short, zoomed plot: one label rather than a pile
    best: list[float] = []
    for mantissas in ((1,), (1, 5), (1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9), _HALVES):
        values = [
            math.log10(m * 10**k)
            for k in range(math.floor(low) - 1, math.ceil(high) + 1)
            for m in mantissas
            if low <= math.log10(m * 10**k) <= high
        ]
        if len(values) > fits:
            if len(best) < 2:  # too many, yet the coarser sets had fewer than two: thin these
                best = values[:: math.ceil(len(values) / fits)]
            break
        best = values
        if len(best) >= 4:
            break
    return [(1.0, best)]


_HALVES = tuple(m / 2 for m in range(2, 20))  # 1, 1.5, 2, ... 9.5


def _round_ticks(
    low: float, high: float, fits: int, whole: bool = False, least: float = -math.inf, margin: float = 0.0
) -> list:
    """Ticks every 1, 2 or 5 times a power of ten (``whole``: at least 1), at most ``fits`` of
    them, none below ``least`` and none within ``margin`` of either end, where pyqtgraph would
    hide its cut label. When even the sparsest ticks that fit leave none inside, the nearest to
    the middle of a denser set is kept: a short, zoomed axis keeps one label rather than none."""
    span = max(high - low, 1e-9)
    margin = min(margin, 0.45 * span)  # an axis shorter than a label still gets its middle one
    inner_low, inner_high = max(low + margin, least), high - margin
    first_power = 0 if whole else math.floor(math.log10(span)) - 2
    denser: tuple[float, range] | None = None
    for stride in (m * 10.0**k for k in range(first_power, first_power + 12) for m in (1, 2, 5)):
        multiples = range(math.ceil(inner_low / stride), math.floor(inner_high / stride) + 1)
        if len(multiples) <= fits:  # a range's length costs nothing, however long the axis
            if multiples or denser is not None:
                break
            if margin:  # not one whole value between the margins (step 0): the ends will do
                return _round_ticks(low, high, fits, whole, least)
            return [(stride, [])]
        denser = (stride, multiples)
    if not len(multiples) and denser is not None:
        stride, multiples = denser
        if fits == 1:
            middle = (low + high) / 2
            return [(stride, [min((v * stride for v in multiples), key=lambda v: abs(v - middle))])]
        multiples = multiples[:: math.ceil(len(multiples) / fits)]
    return [(stride, [v * stride for v in multiples])]


def _up_ticks(low: float, high: float, size: float, room: TickRoom) -> list:
    """Linear ticks up a vertical axis, as many as labels of the current font fit."""
    margin = 0.5 * room.up * (high - low) / max(size, 1.0)  # half a label, in the axis' units
    return _round_ticks(low, high, max(1, int(size // room.up)), margin=margin)


def _across_ticks(low: float, high: float, size: float, room: TickRoom) -> list:
    """Linear ticks along a horizontal axis of steps (whole numbers), spaced for labels as
    long as the largest step's."""
    label = (len(_compact(max(abs(high), 1))) + 2) * room.digit
    margin = 0.5 * label * (high - low) / max(size, 1.0)
    return _round_ticks(low, high, max(2, int(size // label)), whole=True, margin=margin)


def _length_ticks(low: float, high: float, size: float, room: TickRoom) -> list:
    """Whole-number ticks (token lengths, in units)."""
    margin = 0.5 * len(_compact(max(abs(high), 1))) * room.digit * (high - low) / max(size, 1.0)
    fits = max(2, int(size // (room.across * 0.6)))
    return _round_ticks(low, high, fits, whole=True, least=1, margin=margin)


def _log_tick_strings(values, scale, spacing) -> list[str]:
    return [_compact(float(f"{10**v:.2g}")) for v in values]


def _set_ticks(axis: pg.AxisItem, values, strings=_compact_ticks, room: TickRoom | None = None) -> None:
    """Our tick positions and compact labels (60k, 1.2M) on an axis. Set on the instance: axis
    items built in Python and handed to a PlotItem get deleted twice at exit under PySide6.
    pyqtgraph calls these while painting the axis, inside a Qt virtual: so they are guarded."""
    axis.tickValues = guarded(partial(values, room=room), list)
    axis.tickStrings = guarded(strings, list)


def fit_axes(plots: Sequence[pg.PlotItem], room: TickRoom, font: QFont) -> None:
    """Tick labels spaced for ``font``, and room for the widest compact label: pyqtgraph
    sizes an axis from its first labels and hides wider ones later, and our ranges rarely
    change to make it look again. Zooming thus never piles labels up nor cuts them."""
    metrics = QFontMetrics(font)
    room.up = metrics.height() * 1.4
    room.across = metrics.horizontalAdvance("20000") * 1.6
    room.digit = metrics.horizontalAdvance("0")
    width = metrics.horizontalAdvance("00.5k") + 12
    height = metrics.height() + 10  # the bottom labels: too short an axis hides them all
    for plot in plots:
        plot.getAxis("left").setWidth(width)
        plot.getAxis("bottom").setHeight(height)


# Each plot's title, and a short one for a narrow plot (the axes say the rest).
TITLES = (
    ("Top pair count (log scale)", "Top pair count"),
    ("Token lengths (units)", "Token lengths"),
    ("Corpus tokens per step", "Corpus tokens"),
    ("Vocabulary size per step", "Vocabulary size"),
)


def _set_title(plot: pg.PlotItem, color: str, size: str, text: str | None = None) -> None:
    """Restyle a plot's title. A title never holds its plot wider than the pane: on a narrow
    pane, zoomed, the text is cut rather than the plots pushed out of sight."""
    label = plot.titleLabel
    label.updateMin = partial(_title_minimum, label)  # pyqtgraph's asks the text's width again
    # Cut at the title's own width: its text is a child item, drawn whole over the next plot's
    # title otherwise (four in a row at 1024×640 ran into one another).
    label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape)
    plot.setTitle(label.text if text is None else text, color=color, size=size)


def _title_minimum(label: pg.LabelItem) -> None:
    """A title's minimum size, as pyqtgraph sets it at every resize, with no minimum width."""
    pg.LabelItem.updateMin(label)
    label.setMinimumWidth(0)
    label._sizeHint[Qt.SizeHint.MinimumSize] = (0, label._sizeHint[Qt.SizeHint.MinimumSize][1])


class QtSvgExporter(Exporter):
    """SVG of one plot (or the whole scene) drawn by Qt's own SVG generator: pyqtgraph's SVG
    exporter fails on the paths Qt 6 writes (pyqtgraph issue #3485)."""

    Name = "Scalable Vector Graphics (SVG)"
    allowCopy = False

    def parameters(self):
        return None

    def export(self, fileName=None, toBytes=False, copy=False):
        if fileName is None and not toBytes:
            self.fileSaveDialog(filter="Scalable Vector Graphics (*.svg)")
            return None
        source = self.getSourceRect()
        target = QRectF(0, 0, source.width(), source.height())
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        # The axes replay pictures recorded at the screen's resolution: at the generator's own
        # (72 dpi) they came out at three quarters of their size, beside full-size curves.
        generator.setResolution(QPicture().logicalDpiX())
        generator.setOutputDevice(buffer)
        generator.setSize(target.size().toSize())
        generator.setViewBox(target)
        painter = QPainter(generator)
        self.getScene().render(painter, target, source)
        painter.end()
        svg = flattened_svg(bytes(data.data()))
        if toBytes:
            return svg
        try:
            write_atomic(fileName, svg)
        except (OSError, BpeError) as error:
            QMessageBox.warning(None, "Could not export", str(error))
        return None


QtSvgExporter.register()

_SVG = "http://www.w3.org/2000/svg"
_GEOMETRY = {f"{{{_SVG}}}{tag}" for tag in ("path", "polyline", "rect")}
_FLOAT = r"-?[0-9.]+(?:e[-+]?[0-9]+)?"  # as Qt writes them: 2.5e+06 for a large count
_NUMBER = re.compile(_FLOAT)
_PAIR = re.compile(f"({_FLOAT}),({_FLOAT})")


def flattened_svg(svg: bytes) -> bytes:
    """Qt's SVG with the curves, bars and lines in page coordinates. Qt writes them in data
    coordinates inside a scaling group, with ``vector-effect="non-scaling-stroke"`` keeping
    their pens one pixel wide: renderers without that effect (librsvg, office suites) drew
    every line as wide as a data unit, a band across the plot. The text stays as it is."""
    ElementTree.register_namespace("", _SVG)
    ElementTree.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    root = ElementTree.fromstring(svg)
    for group in root.iter(f"{{{_SVG}}}g"):
        matrix = _matrix(group.get("transform", ""))
        children = list(group)
        if matrix is None or not children or any(child.tag not in _GEOMETRY for child in children):
            continue
        for child in children:
            _transform(child, matrix)
        del group.attrib["transform"]
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


def _matrix(transform: str) -> tuple[float, ...] | None:
    if not transform.startswith("matrix("):
        return None
    values = tuple(float(v) for v in _NUMBER.findall(transform))
    return values if len(values) == 6 else None


def _transform(element, matrix: tuple[float, ...]) -> None:
    a, b, c, d, e, f = matrix

    def point(x: float, y: float) -> str:
        return f"{a * x + c * y + e:.6g},{b * x + d * y + f:.6g}"

    def points(text: str) -> str:
        numbers = [float(v) for v in _NUMBER.findall(text)]
        return " ".join(point(x, y) for x, y in zip(numbers[::2], numbers[1::2], strict=True))

    tag = element.tag.rpartition("}")[2]
    if tag == "polyline":
        element.set("points", points(element.get("points", "")))
    elif tag == "path":  # Qt writes absolute M, L and C commands, each point as "x,y"
        moved = _PAIR.sub(lambda m: point(float(m[1]), float(m[2])), element.get("d", ""))
        element.set("d", moved)
    else:  # a rect: its four corners, which a rotation or a flip moves anywhere
        x, y = float(element.get("x", 0)), float(element.get("y", 0))
        w, h = float(element.get("width", 0)), float(element.get("height", 0))
        element.tag = f"{{{_SVG}}}path"
        corners = [point(x, y), point(x + w, y), point(x + w, y + h), point(x, y + h)]
        element.set("d", "M" + " L".join(corners) + " Z")
        for name in ("x", "y", "width", "height"):
            element.attrib.pop(name, None)


@guard_overrides
class TitledExportDialog(ExportDialog):
    """pyqtgraph's export dialog lists every plot as "Plot": this one uses their titles. Its SVG
    choice is :class:`QtSvgExporter` (pyqtgraph's own fails under Qt 6)."""

    # pyqtgraph's SVG exporter (see above), and its "Matplotlib Window", which needs matplotlib:
    # not a dependency, and only a plain copy of what the pane shows.
    _LEFT_OUT = frozenset(("SVGExporter", "MatplotlibExporter"))

    def __init__(self, scene) -> None:
        super().__init__(scene)
        ui = self.ui
        # Its lists are named by the labels above them, for a screen reader; Esc closes it, as
        # every other dialog.
        for label, field, name in (
            (ui.label, ui.itemTree, "Item to export"),
            (ui.label_2, ui.formatList, "Export format"),
            (ui.label_3, ui.paramTree, "Export options"),
        ):
            label.setBuddy(field)
            field.setAccessibleName(name)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)
        self._opener: QWidget | None = None

    def show(self, item=None) -> None:
        self._opener = QApplication.activeWindow()
        super().show(item)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        # The keys back where they were: a window of its own, it hands them back only where a
        # window manager reactivates the window under it.
        if self._opener is not None and self._opener.isVisible():
            self._opener.activateWindow()

    def exportFormatChanged(self, item, prev):
        super().exportFormatChanged(item, prev)
        # The options' reset buttons are icons alone (made anew with each format's options):
        # each is named by its option, or a screen reader would say three alike.
        for item in self.ui.paramTree.listAllItems():
            button, parameter = getattr(item, "defaultBtn", None), getattr(item, "param", None)
            if isinstance(button, QPushButton) and parameter is not None:
                button.setAccessibleName(f"Reset {parameter.title()} to the default")

    def updateFormatList(self):
        super().updateFormatList()
        formats = self.ui.formatList
        for row in reversed(range(formats.count())):
            exporter = getattr(formats.item(row), "expClass", None)
            if exporter is not None and exporter.__name__ in self._LEFT_OUT:
                formats.takeItem(row)
        if formats.currentRow() < 0 and formats.count():
            formats.setCurrentRow(0)

    def updateItemTree(self, item, treeItem, select=None):
        if not isinstance(item, pg.PlotItem):
            super().updateItemTree(item, treeItem, select)
            return
        # the full title, which a narrow pane shortens
        branch = QTreeWidgetItem([getattr(item, "full_title", None) or item.titleLabel.text or "Plot"])
        branch.gitem = item
        treeItem.addChild(branch)
        if item is select:
            self.ui.itemTree.setCurrentItem(branch)
        for child in item.childItems():
            super().updateItemTree(child, branch, select)


def show_export_dialog(scene) -> TitledExportDialog:
    """The scene's export dialog (right-click → Export…), with plots named by their titles."""
    if not isinstance(scene.exportDialog, TitledExportDialog):
        scene.exportDialog = TitledExportDialog(scene)
    clicked = getattr(scene, "contextMenuItem", None)  # what was right-clicked, if anything
    if clicked is None:
        scene.exportDialog.updateItemList()
    scene.exportDialog.show(clicked)
    return scene.exportDialog


@guard_overrides
class PlotsPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._trainer = None
        self._history = LineView(MergeLine())  # the history as last read
        # Machine integers, 8 bytes a step (a list of ints costs 40): a session of tens of
        # thousands of merges draws from these.
        self._series: dict[str, array] = {name: array("q") for name in ("top", "tokens", "vocab")}
        self._tied = array("q")
        self._histogram_key: tuple = ()
        self._lengths: list[int] = []  # token id -> length in units (0: the marker on its own)
        self._lengths_of = None
        self._lengths_token: str | None = None
        # At most one redraw per interval while stepping fast.
        self._timer = RefreshTimer(bridge, self.refresh, COALESCE_MS, self, throttle=True)
        self._title_size = "10pt"
        self._text_color = "#333333"
        # Widgets
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setAccessibleName("Plots of the training")
        self.graphics.setAccessibleDescription(
            "Top pair count, token lengths, corpus tokens and vocabulary size at each step"
        )
        self.top_plot = self.graphics.addPlot(row=0, col=0, title=TITLES[0][0])
        self.length_plot = self.graphics.addPlot(row=0, col=1, title=TITLES[1][0])
        self.tokens_plot = self.graphics.addPlot(row=1, col=0, title=TITLES[2][0])
        self.vocab_plot = self.graphics.addPlot(row=1, col=1, title=TITLES[3][0])
        self.plots = (self.top_plot, self.length_plot, self.tokens_plot, self.vocab_plot)  # as TITLES
        self._titles = tuple(full for full, _ in TITLES)  # as shown now
        for plot, (full, _) in zip(self.plots, TITLES, strict=True):
            plot.full_title = full
        self._columns = 2  # of the plots' grid: 1, 2 or 4, as the pane's shape suits
        self.step_plots = (self.top_plot, self.tokens_plot, self.vocab_plot)
        room = self._tick_room = TickRoom()
        _set_ticks(self.top_plot.getAxis("left"), _log_ticks, _log_tick_strings, room)
        for plot in (self.tokens_plot, self.vocab_plot, self.length_plot):
            _set_ticks(plot.getAxis("left"), _up_ticks, room=room)
        for plot in self.step_plots:
            _set_ticks(plot.getAxis("bottom"), _across_ticks, room=room)
        _set_ticks(self.length_plot.getAxis("bottom"), _length_ticks, room=room)
        # Setup
        self.restyle()
        # One-pixel pens and one path of short ticks for the ties: wide pens and scatter symbols
        # cost several times more to draw, on every refresh.
        self.top_curve = self.top_plot.plot(pen=pg.mkPen("#3b82f6", width=1))
        self.tie_marks = self.top_plot.plot(pen=pg.mkPen("#f97316", width=1))  # follows the log scale
        self.tokens_curve = self.tokens_plot.plot(pen=pg.mkPen("#10b981", width=1))
        self.vocab_curve = self.vocab_plot.plot(pen=pg.mkPen("#a855f7", width=1))
        for curve in (self.top_curve, self.tokens_curve, self.vocab_curve):
            curve.setDownsampling(auto=True, method="peak")  # thousands of steps, a few hundred pixels
            curve.setClipToView(True)
        self.histogram = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#60a5fa")
        self.length_plot.addItem(self.histogram)
        self.length_plot.disableAutoRange()
        # The Compare view's other run, dashed, and where the two part (hidden until compared).
        other_pen = pg.mkPen("#6b7280", width=1, style=Qt.PenStyle.DashLine)
        self.other_curves = [
            plot.plot(pen=other_pen) for plot in (self.top_plot, self.tokens_plot, self.vocab_plot)
        ]
        self.divergence = []
        for plot in self.step_plots:
            line = pg.InfiniteLine(
                angle=90, movable=False, pen=pg.mkPen("#f59e0b", width=1, style=Qt.PenStyle.DotLine)
            )
            line.setVisible(False)
            plot.addItem(line)
            self.divergence.append(line)
        self.cursors = []
        for plot in self.step_plots:
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.disableAutoRange()
            cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#ef4444", width=1))
            plot.addItem(cursor)
            self.cursors.append(cursor)
        # Without a corpus (an imported tokenizer) the count plots say how to get counts instead.
        self.no_corpus_notes = []
        self._counts_shown = True
        for plot in (self.top_plot, self.tokens_plot):
            lines = NO_CORPUS.replace(" (", "\n(").replace(") ", ")\n").splitlines()
            note = pg.TextItem(color=self._text_color, anchor=(0.5, 0.5))
            note.setHtml(f'<p align="center">{"<br>".join(map(html.escape, lines))}</p>')
            note.setTextWidth(note.textItem.boundingRect().width())  # centred within its width
            note.setVisible(False)
            plot.addItem(note, ignoreBounds=True)
            self.no_corpus_notes.append(note)
        fit_axes(self.plots, self._tick_room, self.font())
        self.top_plot.setToolTip("Orange ticks: the step met a tie at the top count (logarithmic scale)")
        # Counts fall from hundreds of thousands to a handful: only a log scale shows the tail.
        self.top_plot.setLogMode(y=True)
        scene = self.graphics.scene()
        scene.contextMenu[0].triggered.disconnect()
        scene.contextMenu[0].triggered.connect(lambda: show_export_dialog(scene))
        self.graphics.installEventFilter(self)  # the Menu key: the export dialog, as a right-click gives
        # After the event loop has laid the view out too: see _fit_grid
        self._fit_grid_soon = QTimer(self, singleShot=True, interval=0)
        self._fit_grid_soon.timeout.connect(self._fit_grid)
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        # Signals
        bridge.sig_change.connect(self._forget_trainer)
        self.refresh()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange(event.size().width(), event.size().height())
        self._fit_titles()
        self._fit_grid_soon.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit_grid_soon.start()

    def _fit_grid(self) -> None:
        """The plots' grid as large as the view, once titles and axes have their sizes: laid out
        before (hidden, or with wider titles), it kept a width no smaller than theirs then, and
        the right column stayed cut off on a small screen (a view's resize sets the grid's
        geometry only when its own size changes)."""
        grid, room = self.graphics.ci, self.graphics.range
        if grid.geometry() != room:
            grid.setGeometry(room)
        self._fit_notes()

    def _fit_titles(self) -> None:
        """Titles that fit over their plots: the short ones where the full ones do not (four in
        a row at 1024×640 ran into one another), cut with an ellipsis where even those do not."""
        font = self.font()
        font.setPointSizeF(float(self._title_size.removesuffix("pt")))
        metrics = QFontMetrics(font)
        # A title stands over its plot's area, beside the left axis.
        room = int(self.width() / self._columns - self.top_plot.getAxis("left").width() - 12)
        short = any(metrics.horizontalAdvance(full) > room for full, _ in TITLES)
        titles = tuple(
            metrics.elidedText(pair[1] if short else pair[0], Qt.TextElideMode.ElideRight, max(room, 0))
            for pair in TITLES
        )
        if titles != self._titles:
            self._titles = titles
            for plot, title in zip(self.plots, titles, strict=True):
                _set_title(plot, self._text_color, self._title_size, title)

    def _arrange(self, width: int, height: int) -> None:
        """Four plots in a row in a wide, short pane (a projector's zoom leaves the Plots a strip),
        one above another in a tall, narrow one, two by two otherwise: each keeps a plot area."""
        columns = 4 if width >= WIDE * height else 1 if height >= WIDE * width else 2
        if columns == self._columns:
            return
        self._columns = columns
        grid = self.graphics.ci
        for plot in self.plots:
            grid.removeItem(plot)
        for index, plot in enumerate(self.plots):
            grid.addItem(plot, row=index // columns, col=index % columns)
        grid.setGeometry(self.graphics.range)  # adding sized the grid to its liking, not the view's

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        scene = self.graphics.scene()
        if (
            watched is self.graphics
            and event.type() == QEvent.Type.ContextMenu
            and isinstance(event, QContextMenuEvent)
            and event.reason() == QContextMenuEvent.Reason.Keyboard
        ):
            show_export_dialog(scene)
            return True
        return False

    def show_other(self, records: Sequence | None, first_divergence: int | None = None) -> None:
        """Draw another run's curves dashed beside this line's (the Compare view's other run,
        ``records`` from step 1) and mark where they part; ``None`` takes them away."""
        if records is None:
            for curve in self.other_curves:
                curve.setData([], [])
            for line in self.divergence:
                line.setVisible(False)
            return
        start = self._bridge.trainer.initial_point
        steps = np.arange(len(records) + 1)
        for curve, key in zip(self.other_curves, ("top_count", "corpus_tokens", "vocab_size"), strict=True):
            values = [getattr(start, key), *field_values(records, key)]
            curve.setData(steps, np.asarray(values, dtype=float))
        for line in self.divergence:
            line.setVisible(first_divergence is not None)
            line.setValue(first_divergence or 0)

    def export(self, path: str) -> None:
        """The four plots as one PNG or (for a .svg path) SVG, written atomically."""
        if path.lower().endswith(".svg"):
            write_atomic(path, QtSvgExporter(self.graphics.scene()).export(toBytes=True))
            return
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self.graphics.grab().save(buffer, "PNG")
        write_atomic(path, bytes(data.data()))

    def _forget_trainer(self, change: Change) -> None:
        """A new corpus or session: let the old trainer go now, not at the next refresh."""
        if change.kind is ChangeKind.RESET:
            self._trainer = self._lengths_of = None

    def restyle(self) -> None:
        """Colours for the current palette (light or dark)."""
        # The application's palette: when it changes, this widget's own may not have followed yet.
        dark = is_dark()
        self.graphics.setBackground("#1e1e1e" if dark else "w")
        color = self._text_color = "#d4d4d4" if dark else "#333333"
        for plot, title in zip(self.plots, self._titles, strict=True):
            _set_title(plot, color, self._title_size, title)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(color)
                plot.getAxis(axis).setPen(color)
        for note in getattr(self, "no_corpus_notes", ()):  # made after the first restyle
            note.setColor(color)

    def set_font_size(self, points: float) -> None:
        """Follow the window's zoom."""
        font = self.font()
        font.setPointSizeF(points)
        self._title_size = f"{points:.0f}pt"
        for plot, title in zip(self.plots, self._titles, strict=True):
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTickFont(font)
            _set_title(plot, self._text_color, self._title_size, title)
        fit_axes(self.plots, self._tick_room, font)
        self._fit_titles()

    def refresh(self) -> None:
        trainer = self._bridge.trainer
        history = trainer.history
        if self._update_series(trainer, history):
            self._draw_series(len(history))
        for cursor in self.cursors:
            cursor.setValue(trainer.position)
        self._update_histogram(trainer)
        self._show_counts(trainer.word_count > 0)

    def _show_counts(self, shown: bool) -> None:
        """The count plots' curves and scale, or (no corpus) a note in their middle."""
        for plot, curves, note in zip(
            (self.top_plot, self.tokens_plot),
            ((self.top_curve, self.tie_marks), (self.tokens_curve,)),
            self.no_corpus_notes,
            strict=True,
        ):
            for curve in curves:
                curve.setVisible(shown)
            plot.getAxis("left").setStyle(showValues=shown)
            if not shown:
                (x0, x1), (y0, y1) = plot.viewRange()
                note.setPos((x0 + x1) / 2, (y0 + y1) / 2)
        self._counts_shown = shown
        self._fit_notes()

    def _fit_notes(self) -> None:
        """The no-corpus notes where their plots have room for them: in a small pane they ran
        over the plots' frames (the status bar says the same)."""
        for plot, note in zip((self.top_plot, self.tokens_plot), self.no_corpus_notes, strict=True):
            fits = note.boundingRect().height() <= plot.getViewBox().height()
            note.setVisible(not self._counts_shown and fits)

    def _update_series(self, trainer, history: LineView) -> bool:
        """Bring the series up to the history; False if nothing changed (an undo or redo)."""
        old = self._history
        same_line = trainer is self._trainer and (not old or history.extends(old))
        if same_line and len(history) == len(old):
            return False
        grown = same_line and len(history) > len(old)
        if not grown:  # a new corpus, or a new branch after undo: start over
            initial = trainer.initial_point
            self._series = {
                "top": array("q", [initial.top_count]),
                "tokens": array("q", [initial.corpus_tokens]),
                "vocab": array("q", [initial.vocab_size]),
            }
            self._tied = array("q")
        series, new = self._series, len(old) if grown else 0
        for name, column in (("top", "top_count"), ("tokens", "corpus_tokens"), ("vocab", "vocab_size")):
            series[name].frombytes(history.column(column, start=new).tobytes())
        self._tied.frombytes((np.flatnonzero(history.column("ties", start=new) > 1) + new + 1).tobytes())
        self._trainer, self._history = trainer, history
        return True

    def _draw_series(self, length: int) -> None:
        steps = np.arange(length + 1)
        # Copies, never views: an array viewed by numpy cannot grow.
        top = np.array(self._series["top"], dtype=float)
        self.top_curve.setData(steps, top)
        tied = np.array(self._tied, dtype=np.int64)
        tick_x = np.repeat(tied, 2).astype(float)
        tick_y = np.repeat(top[tied], 2) if len(tied) else np.zeros(0)
        tick_y[0::2] *= 0.8  # equal heights on the log scale
        tick_y[1::2] *= 1.25
        self.tie_marks.setData(tick_x, tick_y, connect="pairs")
        tokens = np.array(self._series["tokens"], dtype=float)
        self.tokens_curve.setData(steps, tokens)
        vocab = np.array(self._series["vocab"], dtype=float)
        self.vocab_curve.setData(steps, vocab)
        x_max = _stride(max(1.0, length * 1.05))
        low = max(1.0, float(top.min()))
        self._set_range(
            self.top_plot,
            (0.0, x_max),
            (math.log10(_stride_down(low)) - 0.05, math.log10(_stride(float(top.max()) * 1.3))),
        )
        self._set_range(self.tokens_plot, (0.0, x_max), (0.0, _stride(float(tokens.max()) * 1.05)))
        self._set_range(self.vocab_plot, (0.0, x_max), (0.0, _stride(float(vocab.max()) * 1.05)))

    @staticmethod
    def _set_range(plot, x_range: tuple[float, float], y_range: tuple[float, float]) -> None:
        wanted = (x_range, y_range)
        if getattr(plot, "_bpe_range", None) != wanted:  # only when a stride is crossed
            plot._bpe_range = wanted
            plot.setRange(xRange=wanted[0], yRange=wanted[1], padding=0.02)

    def _update_histogram(self, trainer) -> None:
        """Token lengths, kept per id: a step adds or removes tokens only at the end. Lengths
        are the vocabulary pane's (``Trainer.token_length``); zero-length tokens (the marker on
        its own) cover no text and are not counted."""
        vocab = trainer.vocab
        key = (len(vocab), vocab.tokens[-1])
        if trainer is self._lengths_of and key == self._histogram_key:
            return
        lengths = self._lengths
        if (
            trainer is not self._lengths_of
            or len(lengths) > len(vocab)
            or (lengths and self._lengths_token != vocab.tokens[len(lengths) - 1])
        ):
            lengths.clear()
            self._lengths_of = trainer
        lengths.extend(trainer.token_length(token_id) for token_id in range(len(lengths), len(vocab)))
        self._lengths_token = vocab.tokens[len(lengths) - 1]
        self._histogram_key = key
        counts = np.bincount(np.asarray(lengths, dtype=int))[1:]
        self.histogram.setOpts(x=np.arange(1, len(counts) + 1), height=counts, width=0.8)
        self._set_range(
            self.length_plot, (0.5, _stride(len(counts) + 0.5)), (0.0, _stride(max(counts, default=1) * 1.05))
        )
