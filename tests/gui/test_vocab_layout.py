"""The Vocabulary pane's share of its dock, at the default size and zoomed, and Ctrl+0 bringing
the default dock sizes back."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui_helpers import fresh_focus, press, wait_idle


def rows_in_view(view) -> float:
    return view.viewport().height() / view.rowHeight(0)


def settle(qtbot) -> None:
    for _ in range(5):
        QApplication.processEvents()
    qtbot.wait(20)


def test_the_vocabulary_table_shows_enough_rows_beside_its_tree_also_zoomed(qtbot, make_window):
    """At 1440×900 it showed 2 to 4 rows above the merge tree, and under one at Ctrl++ ×3."""
    window = make_window("Shakespeare")
    window.resize(1440, 900)
    window.bridge.run(merges=30)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    window.docks["vocab"].raise_()
    pane = window.vocab_pane
    pane.select_token(70)  # a tree to show
    settle(qtbot)
    assert rows_in_view(pane.view) >= 8 and pane.tree.isVisible() and pane.tree.topLevelItemCount() == 1
    for _ in range(3):
        press("Ctrl++")
    settle(qtbot)
    assert rows_in_view(pane.view) >= 3 and pane.tree.height() > 0


def test_ctrl_0_brings_the_default_dock_sizes_back(qtbot, make_window):
    window = make_window("Shakespeare")
    window.resize(1440, 900)
    fresh_focus(qtbot, window)
    settle(qtbot)
    docks = window.docks
    names = ("corpus", "encode", "pairs", "merges", "plots")

    def sizes():
        return {name: (docks[name].width(), docks[name].height()) for name in names}

    press("Ctrl+0")  # the default sizes at this window size (a test's window opens smaller)
    settle(qtbot)
    default = sizes()
    for _ in range(3):
        press("Ctrl++")
    settle(qtbot)
    window.resizeDocks([docks["pairs"], docks["plots"]], [120, 500], Qt.Orientation.Vertical)  # dragged too
    settle(qtbot)
    assert sizes() != default
    press("Ctrl+0")
    settle(qtbot)
    now = sizes()
    for name in names:
        assert abs(now[name][0] - default[name][0]) <= 4 and abs(now[name][1] - default[name][1]) <= 4, name
