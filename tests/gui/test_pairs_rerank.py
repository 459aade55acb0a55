"""The Pairs table re-ranked by a step, as a keyboard user meets it: the pair they selected stays
selected at its new row, or, merged away, leaves nothing selected and Merge selected disabled."""

from PySide6.QtCore import Qt

from app.panes.pairs_pane import PairsPane
from tests.gui_helpers import assert_panes_agree_with_core, press, wait_idle


def _select_row(qtbot, pairs, row: int) -> None:
    pairs.view.setFocus()
    qtbot.waitUntil(lambda: pairs.view.hasFocus())
    qtbot.keyClick(pairs.view, Qt.Key.Key_Home)
    for _ in range(row):
        qtbot.keyClick(pairs.view, Qt.Key.Key_Down)
    assert pairs.selected_pair == pairs.model.pair_at(row)


def test_a_selected_pair_below_the_top_stays_selected_after_a_step(qtbot, make_window):
    window = make_window("Shakespeare")
    wait_idle(qtbot, window)
    pairs = window.pairs_pane
    resets = []
    pairs.model.modelReset.connect(lambda: resets.append(True))
    rows = pairs.model.rowCount()
    _select_row(qtbot, pairs, 3)
    chosen = pairs.selected_pair
    press("Right")  # Step, from the Pairs table
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 1
    assert pairs.model.rowCount() == rows and not resets  # repainted, not reset
    assert pairs.selected_pair == chosen
    row = pairs.model.row_of(chosen)
    assert row is not None and pairs.view.currentIndex().row() == row
    assert [index.row() for index in pairs.view.selectionModel().selectedRows()] == [row]
    assert pairs.merge_button.isEnabled()
    qtbot.keyClick(pairs.view, Qt.Key.Key_Return)  # merges the pair still selected
    wait_idle(qtbot, window)
    assert window.bridge.trainer.record(2).pair == chosen
    assert_panes_agree_with_core(window)


def test_a_selected_pair_merged_away_leaves_nothing_selected(qtbot, make_window):
    window = make_window("Shakespeare")
    wait_idle(qtbot, window)
    pairs = window.pairs_pane
    heard = []
    pairs.sig_pair_selected.connect(heard.append)
    _select_row(qtbot, pairs, 0)  # the pair the next step merges
    heard.clear()
    press("Right")
    wait_idle(qtbot, window)
    assert pairs.selected_pair is None and heard == [None]
    assert not pairs.view.selectionModel().selectedRows()
    assert not pairs.merge_button.isEnabled()
    qtbot.keyClick(pairs.view, Qt.Key.Key_Return)  # nothing selected: nothing merged
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 1
    assert_panes_agree_with_core(window)


def test_the_count_column_widens_again_when_an_undo_raises_the_top_count(qtbot, make_window, tmp_path):
    """Its width follows the top count (the widest number it holds): re-fitted at each re-rank,
    not only when the table resets."""
    from app.models.pair_model import COUNT

    counts = tmp_path / "counts.tsv"
    others = [x + y for x in "cdefghij" for y in "klmnopqrst"]  # pairs enough for a full page
    lines = ["#bpe-studio counts 1", "ab\t123456789", *(f"{word}\t2" for word in others)]
    counts.write_text("\n".join(lines) + "\n", encoding="utf-8")
    window = make_window()
    window.open_path(counts)
    wait_idle(qtbot, window)
    pairs = window.pairs_pane
    assert pairs.model.top == 123_456_789
    wide = pairs.view.columnWidth(COUNT)
    pairs.view.setFocus()
    rows = pairs.model.rowCount()
    for _ in range(2):  # a b, then ab with its end of word: the top count falls to 16
        press("Right")
        wait_idle(qtbot, window)
    assert pairs.model.top == 16 and pairs.view.columnWidth(COUNT) < wide
    assert pairs.model.rowCount() == rows  # re-ranked without a reset
    for _ in range(2):  # undone: back to 123,456,789, which must not be cut
        press("Left")
        wait_idle(qtbot, window)
    assert pairs.model.top == 123_456_789
    needed = pairs.view.fontMetrics().horizontalAdvance("123,456,789") + 16
    assert pairs.view.columnWidth(COUNT) == wide >= needed


def test_scroll_bars_laid_over_the_rows_leave_the_rows_visible_beneath(qtbot, make_window):
    """Where the style lays scroll bars over a table's rows (as macOS does), their containers
    stay transparent; elsewhere they paint their background (a step then repaints only them)."""
    from PySide6.QtWidgets import QProxyStyle, QStyle

    class OverlaidBars(QProxyStyle):
        def pixelMetric(self, metric, option=None, widget=None):
            if metric == QStyle.PixelMetric.PM_ScrollView_ScrollBarOverlap:
                return 12
            return super().pixelMetric(metric, option, widget)

    window = make_window("Shakespeare")
    table = window.pairs_pane.view
    containers = [table.horizontalScrollBar().parentWidget(), table.verticalScrollBar().parentWidget()]
    assert all(container.autoFillBackground() for container in containers)
    style = OverlaidBars("Fusion")
    table.setStyle(style)
    assert not any(container.autoFillBackground() for container in containers)
    table.setStyle(None)  # the application's style again
    assert all(container.autoFillBackground() for container in containers)


def test_a_table_taller_than_its_rows_shows_the_pairs_a_step_adds(qtbot, make_window, tmp_path):
    """Fifty pairs fill the first page; a step making fifty-five must show all fifty-five in a
    pane tall enough for them (no scroll bar is there to ask for more)."""
    letters = "klmnopqrstuvwxyz"
    fillers = [x + y for x in letters for y in letters if x != y][:23]
    words = {
        "cabf": 100,
        "dabg": 100,
        "eabh": 100,
        **dict.fromkeys(["ca", "da", "ea", "bf", "bg", "bh", *fillers], 1),
    }
    counts = tmp_path / "counts.tsv"
    counts.write_text(
        "\n".join(["#bpe-studio counts 1", *(f"{w}\t{n}" for w, n in words.items())]) + "\n", encoding="utf-8"
    )
    window = make_window()
    window.open_path(counts)
    wait_idle(qtbot, window)
    pairs = PairsPane(window.bridge)  # a pane of its own, as tall as a portrait screen
    qtbot.addWidget(pairs)
    pairs.resize(900, 1700)
    pairs.show()
    qtbot.waitExposed(pairs)
    qtbot.wait(100)  # laid out: nothing is left for Qt's own look at the last row
    assert pairs.view.viewport().height() > 60 * pairs.view.rowHeight(0)
    assert window.bridge.trainer.pair_total == pairs.model.rowCount() == 50
    window.bridge.step()
    wait_idle(qtbot, window)
    assert window.bridge.trainer.pair_total == 55
    qtbot.wait(300)  # the next page is ranked on a later turn of the event loop
    assert pairs.model.rowCount() == 55
