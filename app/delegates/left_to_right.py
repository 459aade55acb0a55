"""Paints a cell of tokens and signs ("left + right → token"), or of one token, left to right
whatever the tokens' script (see ``app.glyphs.left_to_right``), while the model's text, which
is copied, exported, searched and read out, stays as it is."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QStyleOptionViewItem

from app.glyphs import left_to_right
from app.guard import guard_overrides


@guard_overrides
class LeftToRightDelegate(QStyledItemDelegate):
    def initStyleOption(self, option: QStyleOptionViewItem, index) -> None:
        super().initStyleOption(option, index)
        option.text = left_to_right(option.text)


def tokens_left_to_right(view: QAbstractItemView, *columns: int) -> None:
    """Paint ``columns`` of ``view``, which show tokens, left to right: a cell holding one token
    with right-to-left letters would otherwise be laid out from the right, its end-of-word
    marker read backwards ("<w/>العالم") and on the other side of the word than in the
    Corpus pane's chips."""
    delegate = LeftToRightDelegate(view)
    for column in columns:
        view.setItemDelegateForColumn(column, delegate)
