"""A bar chart of one figure per file and tokenizer (the Compare tokenizers view's files):
a group of bars per file, a bar per tokenizer in its own colour and hatch-free shade, the
tokenizers named in a legend; exported as PNG or SVG like the plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.guard import guard_overrides
from app.panes.plots_pane import PLOT_TEXT_SCALE, QtSvgExporter
from app.theme import is_dark
from bpe_core.runtime.fileio import write_atomic
from bpe_core.tools.measure import Counts

# figure shown -> how it is read from a file's counts
CHARTED = {
    "Tokens": lambda c: float(c.tokens),
    "Chars/token": lambda c: c.characters_per_token,
    "Bytes/token": lambda c: c.bytes_per_token,
    "Tokens/word": lambda c: c.tokens_per_word,
    "Unknown": lambda c: float(c.unknown),
    "Byte fallback": lambda c: float(c.byte_fallback),
}
# Colours told apart also by people with the common colour-vision deficiencies (Okabe and Ito).
COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
GROUP_WIDTH = 0.8  # of the space each file has on the x axis


@guard_overrides
class FiguresChart(QWidget):
    """Grouped bars: x is the file, a bar per tokenizer, the height the chosen figure."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.counts: dict[str, dict[str, Counts]] = {}  # tokenizer -> file -> counts
        self.figure = QComboBox()
        self.figure.addItems(list(CHARTED))
        self.figure.setCurrentText("Chars/token")
        self.figure.setAccessibleName("Figure charted")
        self.figure.setToolTip("The figure the bars show, per file and tokenizer")
        self.plot = pg.PlotWidget()
        self.plot.setAccessibleName("Bar chart of the figure per file and tokenizer")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.legend = self.plot.addLegend(offset=(-10, 10))
        label = QLabel("&Chart:")
        label.setBuddy(self.figure)
        top = QHBoxLayout()
        top.addWidget(label)
        top.addWidget(self.figure)
        top.addStretch()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot)
        self.figure.currentTextChanged.connect(lambda _: self.redraw())
        self._label_size = ""
        self._fit_to_font()
        self.restyle()

    def show_counts(self, counts: dict[str, dict[str, Counts]]) -> None:
        self.counts = counts
        self.redraw()

    def bars(self) -> list[tuple[str, list[float]]]:
        """(tokenizer, the chosen figure for each file in :meth:`files` order) per tokenizer."""
        read = CHARTED[self.figure.currentText()]
        files = self.files()
        return [(model, [read(by_file[f]) for f in files]) for model, by_file in self.counts.items()]

    def files(self) -> list[str]:
        return sorted({file for by_file in self.counts.values() for file in by_file})

    def redraw(self) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        self.legend.clear()
        files, bars = self.files(), self.bars()
        width = GROUP_WIDTH / max(len(bars), 1)
        for i, (model, heights) in enumerate(bars):
            x = np.arange(len(files)) - GROUP_WIDTH / 2 + width * (i + 0.5)
            color = COLORS[i % len(COLORS)]
            item = pg.BarGraphItem(x=x, height=heights, width=width * 0.92, brush=color, pen=pg.mkPen(color))
            plot.addItem(item)
            self.legend.addItem(item, model)
        ticks = [(i, Path(file).name) for i, file in enumerate(files)]
        plot.getAxis("bottom").setTicks([ticks])
        plot.setLabel("left", self.figure.currentText(), **{"font-size": self._label_size})
        plot.setXRange(-0.6, max(len(files) - 0.4, 0.6), padding=0)
        top = max((max(h, default=0) for _, h in bars), default=0)
        plot.setYRange(0, top * 1.25 if top > 0 else 1, padding=0)

    def restyle(self) -> None:
        """Colours for the current palette (light or dark)."""
        dark = is_dark()
        self.plot.setBackground("#1e1e1e" if dark else "w")
        color = "#d4d4d4" if dark else "#333333"
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen(color)
            self.plot.getAxis(axis).setPen(color)
        self.legend.setLabelTextColor(color)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.restyle()
        elif event.type() == QEvent.Type.FontChange:  # the window zoomed
            self._fit_to_font()
            self.redraw()

    def _fit_to_font(self) -> None:
        """Tick labels, the axis name and the legend at the Plots pane's size for this font
        (pyqtgraph reads no widget font)."""
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * PLOT_TEXT_SCALE)
        self._label_size = f"{font.pointSizeF():.0f}pt"
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTickFont(font)
        self.plot.getAxis("bottom").setHeight(QFontMetrics(font).height() + 10)  # else cut off, zoomed
        self.legend.setLabelTextSize(self._label_size)

    def export(self, path: str) -> None:
        """The chart as PNG, or SVG for a ``.svg`` path, written atomically (raises OSError)."""
        if path.lower().endswith(".svg"):
            write_atomic(path, QtSvgExporter(self.plot.getPlotItem()).export(toBytes=True))
            return
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self.plot.grab().save(buffer, "PNG")
        write_atomic(path, bytes(data.data()))
