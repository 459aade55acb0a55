"""Paints a cell of tokens and signs ("left + right → token") left to right, whatever the
tokens' script (see ``app.glyphs.left_to_right``), while the model's text, which is copied,
exported, searched and read out, stays as it is."""

from __future__ import annotations

from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from app.glyphs import left_to_right
from app.guard import guard_overrides


@guard_overrides
class LeftToRightDelegate(QStyledItemDelegate):
    def initStyleOption(self, option: QStyleOptionViewItem, index) -> None:
        super().initStyleOption(option, index)
        option.text = left_to_right(option.text)
