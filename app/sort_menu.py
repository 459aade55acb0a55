"""Sorting a table by the keys: the Menu key or Shift+F10 (and a right-click) open a menu of its
columns, each ascending or descending. The headers, which sort on a click, take no focus: a
keyboard-only user could not sort at all."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu, QTableView

from app.mnemonics import with_mnemonics

ORDERS = ((Qt.SortOrder.AscendingOrder, "ascending"), (Qt.SortOrder.DescendingOrder, "descending"))


def give_sort_menu(view: QTableView) -> None:
    """Open :func:`sort_menu` where the view's context menu is asked for."""
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    view.customContextMenuRequested.connect(partial(_open, view))


def sort_menu(view: QTableView) -> QMenu:
    """Every shown column, ascending and descending; the order shown now is ticked."""
    model, header = view.model(), view.horizontalHeader()
    choices = [
        (column, order, f"{model.headerData(column, Qt.Orientation.Horizontal)}, {word}")
        for column in range(model.columnCount())
        if not view.isColumnHidden(column)
        for order, word in ORDERS
    ]
    menu = QMenu(view)
    menu.setAccessibleName("Sort the table by")
    menu.addSection("Sort by")
    texts = with_mnemonics([text for _, _, text in choices])
    for (column, order, _), text in zip(choices, texts, strict=True):  # each a letter of its own
        action = menu.addAction(text, partial(view.sortByColumn, column, order))
        action.setCheckable(True)
        action.setChecked(header.sortIndicatorSection() == column and header.sortIndicatorOrder() == order)
    return menu


def _open(view: QTableView, point: QPoint) -> None:
    menu = sort_menu(view)
    menu.exec(view.viewport().mapToGlobal(point))
    menu.deleteLater()
