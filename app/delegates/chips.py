"""Paints a segmentation as token chips: rounded boxes in alternating colours, the end-of-word
marker smaller and set back, whitespace as visible glyphs (done by ``app.glyphs``)."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.guard import guard_overrides
from app.theme import chip_colors, marker_color

PAD, GAP, RADIUS = 4.0, 3.0, 4.0


@guard_overrides
class ChipDelegate(QStyledItemDelegate):
    """Draws the ``[(text, marker), ...]`` found under ``role`` as chips.

    Rendered chip rows are cached as pixmaps (keyed by the tokens, size, font and palette): a
    step changes few visible rows, and repainting the rest is then a single ``drawPixmap``.
    """

    CACHE_SIZE = 512

    def __init__(self, role: int, parent=None) -> None:
        super().__init__(parent)
        self._role = role
        self._cache: OrderedDict[tuple, QPixmap] = OrderedDict()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        tokens = index.data(self._role)
        if not tokens:
            super().paint(painter, option, index)
            return
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget else QApplication.style()
        option.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        ratio = option.widget.devicePixelRatioF() if option.widget else 1.0
        key = (
            tokens,
            option.rect.width(),
            option.rect.height(),
            option.font.key(),
            option.palette.cacheKey(),
            ratio,
        )
        pixmap = self._cache.get(key)
        if pixmap is None:
            pixmap = self._render(tokens, option, ratio)
            self._cache[key] = pixmap
            if len(self._cache) > self.CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        painter.drawPixmap(option.rect.topLeft(), pixmap)

    def _render(self, tokens, option: QStyleOptionViewItem, ratio: float) -> QPixmap:
        pixmap = QPixmap(QSize(int(option.rect.width() * ratio), int(option.rect.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont(option.font)
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        metrics, small_metrics = QFontMetricsF(font), QFontMetricsF(small)
        colors = chip_colors(option.palette)
        text_color = option.palette.color(option.palette.ColorRole.Text)
        rect = QRectF(0, 0, option.rect.width(), option.rect.height()).adjusted(3, 3, -3, -3)
        x = rect.left()
        ellipsis_width = metrics.horizontalAdvance("…") + PAD
        for i, (text, marker) in enumerate(tokens):
            width = metrics.horizontalAdvance(text) + small_metrics.horizontalAdvance(marker) + 2 * PAD
            if x + width > rect.right() - (ellipsis_width if i < len(tokens) - 1 else 0):
                painter.setPen(text_color)
                painter.setFont(font)
                painter.drawText(
                    QRectF(x, rect.top(), ellipsis_width, rect.height()), Qt.AlignmentFlag.AlignVCenter, "…"
                )
                break
            chip = QRectF(x, rect.top(), width, rect.height())
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colors[i % 2])
            painter.drawRoundedRect(chip, RADIUS, RADIUS)
            painter.setPen(text_color)
            painter.setFont(font)
            text_width = metrics.horizontalAdvance(text)
            painter.drawText(
                QRectF(x + PAD, rect.top(), text_width + 1, rect.height()),
                Qt.AlignmentFlag.AlignVCenter,
                text,
            )
            if marker:
                painter.setPen(marker_color(option.palette, colors[i % 2]))
                painter.setFont(small)
                painter.drawText(
                    QRectF(x + PAD + text_width, rect.top(), width, rect.height() - 1),
                    Qt.AlignmentFlag.AlignVCenter,
                    marker,
                )
            x += width + GAP
        painter.end()
        return pixmap

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:
        tokens = index.data(self._role)
        hint = super().sizeHint(option, index)
        if not tokens:
            return hint
        metrics = QFontMetricsF(option.font)
        width = sum(metrics.horizontalAdvance(t + m) + 2 * PAD + GAP for t, m in tokens[:40])
        return QSize(int(width) + 8, max(hint.height(), int(metrics.height() + 10)))
