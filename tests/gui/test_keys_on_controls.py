"""The keys a focused control works with are the control's, not the window's training keys:
Space ticks a box or presses a button (it made a merge instead, whatever the button was), a
combo box opens on Space, a dock's tab bar turns on the arrows."""

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QTabBar

from app.mnemonics import mnemonic
from tests.gui_helpers import fresh_focus, open_corpus_by_keys, press


def test_space_ticks_the_box_that_has_the_focus_and_merges_nothing(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    boxes = (window.merges_pane.ties_only, window.corpus_pane.only_check, window.encode_pane.allow_special)
    for box in boxes:
        if not box.isVisible() or not box.isEnabled():
            continue
        box.setFocus()
        qtbot.waitUntil(lambda box=box: QApplication.focusWidget() is box)
        ticked = box.isChecked()
        press("Space")
        assert box.isChecked() is not ticked and window.bridge.trainer.position == 0, box.text()


def test_space_on_merge_selected_merges_the_selected_pair_not_the_rules_pick(qtbot, make_window):
    window = make_window("low · lower")
    fresh_focus(qtbot, window)
    pane = window.pairs_pane
    pane.view.setFocus()
    pane.view.selectRow(3)
    qtbot.waitUntil(lambda: pane.merge_button.isEnabled())
    chosen = pane._selected
    assert chosen is not None and chosen != pane.model.pair_at(0)
    pane.merge_button.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.merge_button)
    press("Space")
    trainer = window.bridge.trainer
    qtbot.waitUntil(lambda: trainer.position == 1)
    assert trainer.record(1).pair == chosen


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")  # the popup, offscreen
def test_the_tie_rule_box_opens_on_space_and_a_dock_tab_bar_turns_on_the_arrows(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    window.rule_box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.rule_box)
    press("Space")
    qtbot.waitUntil(lambda: window.rule_box.view().isVisible())
    window.rule_box.hidePopup()
    assert window.bridge.trainer.position == 0
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.count() > 1]
    assert bars, "the docks share no tabs"
    bar = bars[0]
    bar.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is bar)
    before = bar.currentIndex()
    press("Right" if before < bar.count() - 1 else "Left")
    assert bar.currentIndex() != before and window.bridge.trainer.position == 0


def test_the_paste_dialog_moves_on_with_tab_and_gives_its_text_with_ctrl_enter(qtbot):
    from PySide6.QtWidgets import QPlainTextEdit, QWidget

    from app.widgets import ask_text

    parent = QWidget()
    qtbot.addWidget(parent)
    seen = {}

    def type_into_it() -> None:
        dialog = QApplication.activeModalWidget()
        field = dialog.findChild(QPlainTextEdit)
        field.setFocus()
        seen["name"] = field.accessibleName()
        QTest.keyClicks(field, "low lower")
        press("Tab")
        seen["moved"] = QApplication.focusWidget() is not field
        field.setFocus()
        press("Ctrl+Return")

    QTimer.singleShot(50, type_into_it)  # once the dialog is open
    given = ask_text(parent, "Paste text as corpus", "Text:", "Text to use as the corpus")
    assert given == ("low lower", True)
    assert seen == {"name": "Text to use as the corpus", "moved": True}

    def type_over_it() -> None:
        field = QApplication.activeModalWidget().findChild(QPlainTextEdit)
        QTest.keyClicks(field, "new")  # the text offered is selected: typing replaces it
        QTest.keyClick(field, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    QTimer.singleShot(50, type_over_it)
    assert ask_text(parent, "Paste text as corpus", "Text:", "the corpus", "kept text") == ("new", True)


def test_text_pasted_then_kept_from_replacing_unsaved_work_is_offered_again(
    qtbot, make_window, dialogs, monkeypatch, tmp_path
):
    """Cancelling the question about unsaved work threw the pasted text away."""
    from PySide6.QtWidgets import QMessageBox

    window = make_window()
    fresh_focus(qtbot, window)
    open_corpus_by_keys(
        qtbot, window, dialogs, tmp_path / "corpus.txt", "low lower lowest newer newest " * 10
    )
    press("Space")
    offered = []
    monkeypatch.setattr("app.files.ask_text", lambda *a: (offered.append(a[4]), ("a pasted corpus", True))[1])
    dialogs.answer = QMessageBox.StandardButton.Cancel
    press("Ctrl+Shift+V")
    assert dialogs.shown[-1][1] == "Unsaved changes" and window.bridge.source.name == "corpus.txt"
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    press("Ctrl+Shift+V")
    assert offered == ["", "a pasted corpus"]


def test_tab_in_the_special_tokens_field_moves_on_and_types_no_token(qtbot, make_window):
    from app.dialogs.settings_dialog import SettingsDialog

    window = make_window("Shakespeare")
    trainer = window.bridge.trainer
    dialog = SettingsDialog(trainer.corpus.config, trainer.training, window.target, window)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.specials.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.specials)
    press("Tab")
    assert QApplication.focusWidget() is not dialog.specials and dialog.specials.toPlainText() == ""


def test_cancel_of_a_job_begun_as_a_dialog_closed_gives_the_keys_to_the_last_table(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    QApplication.focusWidget().clearFocus()  # as when the Run dialog has just closed
    window.bridge.run(min_frequency=1)  # long enough to be cancelled
    assert window.bridge.busy
    window.status.cancel_button.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.status.cancel_button)
    press("Space")
    qtbot.waitUntil(lambda: not window.bridge.busy)
    assert QApplication.focusWidget() is window.corpus_pane.view
    press("Space")
    assert window.bridge.trainer.position == window.bridge.trainer.history_length


def test_after_renaming_a_branch_with_f2_the_graph_has_the_keys(qtbot, make_window):
    window = make_window("low · lower")
    fresh_focus(qtbot, window)
    press("Space")
    press("Ctrl+H")
    graph = window.history_pane.graph
    qtbot.waitUntil(lambda: QApplication.focusWidget() is graph)

    def name_it() -> None:
        field = QApplication.focusWidget()
        QTest.keyClicks(field, "first try")
        press("Return")

    QTimer.singleShot(100, name_it)
    press("F2")
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    assert next(branch.name for branch in window.bridge.trainer.branches()) == "first try"
    qtbot.waitUntil(lambda: QApplication.focusWidget() is graph)


def test_tab_leaves_the_tables_of_the_side_windows(qtbot, make_window):
    from PySide6.QtWidgets import QTableView

    window = make_window("aaabdaaabac")
    fresh_focus(qtbot, window)
    for _ in range(3):
        press("Space")
    before = set(QApplication.topLevelWidgets())
    for name in ("compression", "compare", "tokenizers"):
        window.commands[name].trigger()
    side = [w for w in QApplication.topLevelWidgets() if w not in before and w.isVisible()]
    tables = [table for w in side for table in w.findChildren(QTableView) if table.isVisible()]
    assert len(tables) >= 3
    for table in tables:
        table.window().activateWindow()
        qtbot.waitUntil(table.window().isActiveWindow)
        table.setFocus()
        qtbot.waitUntil(lambda table=table: QApplication.focusWidget() is table)
        press("Tab")
        assert QApplication.focusWidget() is not table, table.window().windowTitle()
    for w in side:
        w.close()


def test_space_ticks_a_box_in_a_pane_floated_off_the_window(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    dock = window.docks["merges"]
    dock.setFloating(True)
    dock.show()
    dock.activateWindow()
    qtbot.waitUntil(dock.isActiveWindow)
    box = window.merges_pane.ties_only
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    press("Space")
    assert box.isChecked() and window.bridge.trainer.position == 0


def test_a_pane_gone_to_by_its_keys_has_them_on_its_table(qtbot, make_window):
    from PySide6.QtWidgets import QAbstractItemView

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    for number, name in ((1, "corpus"), (4, "merges"), (5, "vocab")):
        press(f"Ctrl+{number}")
        focus = QApplication.focusWidget()
        assert isinstance(focus, QAbstractItemView) and window.docks[name].widget().isAncestorOf(focus)
        assert focus in window.tables, name  # the pane's table, not a helper view beside it
    press("Ctrl+1")
    press("Space")
    assert window.bridge.trainer.position == 1 and window.corpus_pane.filter_edit.text() == ""


def test_a_file_that_is_no_text_is_refused_before_unsaved_work_is_asked_about(
    qtbot, make_window, dialogs, tmp_path
):
    """Space (a step: unsaved work), Ctrl+O, a picture: the window asked to save or discard
    the session first, and only then said the file cannot be read. Now it says that at once,
    asks nothing, and the session stays as it was."""
    window = make_window()
    fresh_focus(qtbot, window)
    open_corpus_by_keys(qtbot, window, dialogs, tmp_path / "corpus.txt", "low lower lowest newer " * 10)
    press("Space")
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    dialogs.open_path = str(picture)
    shown = len(dialogs.shown)
    press("Ctrl+O")
    [(kind, _title, text)] = dialogs.shown[shown:]
    assert kind == "warning" and "not valid UTF-8" in text and "picture.png" in text
    assert window.bridge.trainer.position == 1 and window.bridge.has_unsaved_work()


def test_a_message_box_s_buttons_have_mnemonics(qtbot, make_window):
    """Save / Discard / Cancel showed no underlined letter: D (or Alt+D) discarded nothing."""
    from PySide6.QtWidgets import QMessageBox

    window = make_window()
    buttons = QMessageBox.StandardButton
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Unsaved changes",
        "Save?",
        buttons.Save | buttons.Discard | buttons.Cancel,
        window,
    )
    texts = []

    def press_d() -> None:  # a message box takes its buttons' letters without Alt too
        texts.extend(b.text() for b in box.buttons())
        QTest.keyClick(box, Qt.Key.Key_D)
        QTimer.singleShot(2000, box, lambda: box.isVisible() and box.reject())  # D did nothing: it fails

    QTimer.singleShot(50, press_d)
    box.exec()
    assert all("&" in text for text in texts) and len({mnemonic(t) for t in texts}) == len(texts)
    assert box.standardButton(box.clickedButton()) == buttons.Discard
