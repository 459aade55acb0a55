"""The Compression view (the classic variant after Gage 1994) in the window: the rule table, the data, and the
decompression player, driven by clicks, following the session."""

from PySide6.QtCore import Qt

from tests.gui_helpers import wait_idle


def open_view(qtbot, window):
    window.commands["compression"].trigger()
    view = window.compression_dialog
    qtbot.waitExposed(view)
    return view


def rows(view):
    table = view.rules
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()) if not table.isColumnHidden(c))
        for r in range(table.rowCount())
    ]


def test_the_documents_table_and_decompression_back_to_the_input(qtbot, make_window):
    window = make_window("aaabdaaabac")
    window.bridge.set_tie_rule("hf")
    view = open_view(qtbot, window)
    assert rows(view) == [] and view.data.toPlainText() == "aaabdaaabac"
    window.bridge.run()
    wait_idle(qtbot, window)
    assert rows(view) == [
        ("Z", "aa", "2", "ZabdZabac"),
        ("Y", "ab", "2", "ZYdZYac"),
        ("X", "ZY", "2", "XdXac"),
    ]
    assert view.data.toPlainText() == "XdXac"
    # 2 replacements of aa, where the Merges pane counts 4 (overlapping pairs): said apart
    assert view.rules.horizontalHeaderItem(2).text() == "Replaced"
    assert window.bridge.trainer.record(1).count == 4
    seen = []
    for _ in range(3):
        qtbot.mouseClick(view.next_button, Qt.MouseButton.LeftButton)
        seen.append(view.player_view.toPlainText())
    assert seen == ["ZYdZYac", "ZabdZabac", "aaabdaaabac"]
    assert "identical, nothing was lost" in view.player_label.text()
    assert not view.next_button.isEnabled()
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    assert view.player_view.toPlainText() == "XdXac"
    # It follows the session: an undo drops the last rule.
    window.commands["undo"].trigger()
    assert [r[0] for r in rows(view)] == ["Z", "Y"] and view.data.toPlainText() == "ZYdZYac"


def test_play_undoes_every_rule_then_stops(qtbot, make_window):
    window = make_window("aaabdaaabac")
    window.bridge.set_tie_rule("hf")
    window.bridge.run()
    wait_idle(qtbot, window)
    view = open_view(qtbot, window)
    qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.play_button.isChecked(), timeout=10_000)
    assert view.player_view.toPlainText() == "aaabdaaabac"


def test_a_corpus_of_words_is_told_what_the_view_needs(qtbot, make_window):
    window = make_window("low · lower")
    view = open_view(qtbot, window)
    assert "one sequence of characters" in view.summary.text()
    assert view.rules.rowCount() == 0 and not view.next_button.isEnabled()
    # The table the focus lands on says it too: a screen reader does not read the label beside it.
    assert "one sequence of characters" in view.rules.accessibleDescription()
