"""Paints a segmentation as token chips: rounded boxes in alternating colours, the end-of-word
marker muted and smaller, whitespace as visible glyphs (done by ``app.glyphs``)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.theme import chip_colors, muted

PAD, GAP, RADIUS = 4.0, 3.0, 4.0


class ChipDelegate(QStyledItemDelegate):
    """Draws the ``[(text, marker), ...]`` found under ``role`` as chips."""

    def __init__(self, role: int, parent=None) -> None:
        super().__init__(parent)
        self._role = role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        tokens = index.data(self._role)
        if not tokens:
            super().paint(painter, option, index)
            return
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget else QApplication.style()
        option.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont(option.font)
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() * 0.72))
        metrics, small_metrics = QFontMetricsF(font), QFontMetricsF(small)
        colors = chip_colors(option.palette)
        text_color = option.palette.color(option.palette.ColorRole.Text)
        rect = QRectF(option.rect).adjusted(3, 3, -3, -3)
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
                painter.setPen(muted(option.palette))
                painter.setFont(small)
                painter.drawText(
                    QRectF(x + PAD + text_width, rect.top(), width, rect.height() - 1),
                    Qt.AlignmentFlag.AlignVCenter,
                    marker,
                )
            x += width + GAP
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:
        tokens = index.data(self._role)
        hint = super().sizeHint(option, index)
        if not tokens:
            return hint
        metrics = QFontMetricsF(option.font)
        width = sum(metrics.horizontalAdvance(t + m) + 2 * PAD + GAP for t, m in tokens[:40])
        return QSize(int(width) + 8, max(hint.height(), int(metrics.height() + 10)))
