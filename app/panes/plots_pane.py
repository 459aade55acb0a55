"""Plots pane (pyqtgraph): top pair count per step (ties marked), corpus tokens and vocabulary
size per step, and the token length histogram; a cursor marks the current step. Plot items are
created once and updated in place; undo and redo only move the cursor."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.bridge import Bridge
from app.theme import is_dark


class PlotsPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._history: tuple = ()
        self._trainer = None
        # Widgets
        self.graphics = pg.GraphicsLayoutWidget()
        self.top_plot = self.graphics.addPlot(row=0, col=0, title="Top pair count per step")
        self.length_plot = self.graphics.addPlot(row=0, col=1, title="Token lengths")
        self.tokens_plot = self.graphics.addPlot(row=1, col=0, title="Corpus tokens")
        self.vocab_plot = self.graphics.addPlot(row=1, col=1, title="Vocabulary size")
        # Setup
        self._style()
        pen = pg.mkPen("#3b82f6", width=2)
        self.top_curve = self.top_plot.plot(pen=pen)
        self.tie_points = self.top_plot.plot(
            pen=None, symbol="o", symbolSize=5, symbolBrush="#f97316", symbolPen=None, name="tie"
        )
        self.tokens_curve = self.tokens_plot.plot(pen=pg.mkPen("#10b981", width=2))
        self.vocab_curve = self.vocab_plot.plot(pen=pg.mkPen("#a855f7", width=2))
        self.histogram = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#60a5fa")
        self.length_plot.addItem(self.histogram)
        self.length_plot.setLabel("bottom", "length (units)")
        self.cursors = []
        for plot in (self.top_plot, self.tokens_plot, self.vocab_plot):
            plot.setLabel("bottom", "step")
            plot.showGrid(x=True, y=True, alpha=0.2)
            cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#ef4444", width=1))
            plot.addItem(cursor)
            self.cursors.append(cursor)
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        # Signals
        bridge.sig_changed.connect(self.refresh)
        bridge.sig_busy_changed.connect(lambda busy: None if busy else self.refresh())
        self.refresh()

    def _style(self) -> None:
        dark = is_dark(self.palette())
        self.graphics.setBackground("#1e1e1e" if dark else "w")
        color = "#d4d4d4" if dark else "#333333"
        for plot in (self.top_plot, self.length_plot, self.tokens_plot, self.vocab_plot):
            plot.setTitle(plot.titleLabel.text, color=color, size="10pt")
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(color)
                plot.getAxis(axis).setPen(color)

    def set_font_size(self, points: float) -> None:
        """Follow the window's zoom."""
        font = self.font()
        font.setPointSizeF(points)
        for plot in (self.top_plot, self.length_plot, self.tokens_plot, self.vocab_plot):
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTickFont(font)
            plot.setTitle(plot.titleLabel.text, size=f"{points:.0f}pt")

    def refresh(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        history = trainer.history
        old = self._history
        same = trainer is self._trainer and len(history) == len(old) and (not old or history[-1] is old[-1])
        if not same:  # new merges or a new branch: redraw the series (undo/redo leave it)
            self._trainer, self._history = trainer, history
            initial = trainer.initial_point
            steps = np.arange(len(history) + 1)
            top = np.array([initial.top_count] + [r.top_count for r in history], dtype=float)
            tokens = np.array([initial.corpus_tokens] + [r.corpus_tokens for r in history], dtype=float)
            vocab = np.array([initial.vocab_size] + [r.vocab_size for r in history], dtype=float)
            tied = np.array([0] + [r.step for r in history if r.ties > 1], dtype=int)[1:]
            self.top_curve.setData(steps, top)
            self.tie_points.setData(tied, top[tied] if len(tied) else [])
            self.tokens_curve.setData(steps, tokens)
            self.vocab_curve.setData(steps, vocab)
            # The x range is the whole history (redo-able merges included); y follows the data.
            for plot in (self.top_plot, self.tokens_plot, self.vocab_plot):
                plot.setXRange(0, max(1, len(history)), padding=0.02)
                plot.enableAutoRange(axis="y")
        for cursor in self.cursors:
            cursor.setValue(trainer.position)
        self._update_histogram()

    def _update_histogram(self) -> None:
        trainer = self._bridge.trainer
        marker = trainer.corpus.config.end_of_word or ""
        vocab = trainer.vocab
        lengths = []
        for token in vocab.tokens[vocab.n_special :]:
            if marker and token.endswith(marker):
                token = token[: -len(marker)]
            if token:  # the marker on its own covers no text
                lengths.append(len(token))
        counts = np.bincount(np.array(lengths, dtype=int))[1:] if lengths else np.zeros(0)
        self.histogram.setOpts(x=np.arange(1, len(counts) + 1), height=counts, width=0.8)
