"""The panes' filters and searches as a new user meets them: typed with real keys, trimmed, told
as "N of M shown", cleared by a new session; and the keys back on the tables after a side view
closes and another sample opens."""

import csv

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QToolButton

from tests.gui_helpers import fresh_focus, press, qt_wait_until, wait_idle


def type_into(qtbot, field, text: str) -> None:
    """Click into a field and type, key by key, as a user does."""
    QTest.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    for char in text:
        press("Space" if char == " " else char)


def settle(pane) -> None:
    """Past the pane's pause after typing."""
    timer = getattr(pane, "_filter_timer", None) or getattr(pane, "_search_timer", None)
    qt_wait_until(lambda: not timer.isActive())


def test_a_space_typed_in_the_corpus_filter_hides_nothing_and_the_footer_counts_what_is_shown(
    qtbot, make_window
):
    """A Space typed in the filter hid every word, while the footer still said "4 word types"."""
    window = make_window()
    pane = window.corpus_pane
    words = window.bridge.trainer.word_count
    fresh_focus(qtbot, window)
    type_into(qtbot, pane.filter_edit, " ")
    settle(pane)
    assert pane.model.rowCount() == words and pane.summary.text().startswith(f"{words} word types ·")
    type_into(qtbot, pane.filter_edit, "st ")  # " st ": trimmed, the words containing "st"
    settle(pane)
    shown = [pane.model.index(r, 0).data() for r in range(pane.model.rowCount())]
    assert shown and all("st" in word for word in shown) and len(shown) < words
    assert pane.summary.text().startswith(f"{len(shown)} of {words} word types shown ·")
    press("Escape")  # the keys back on the table, which still steps
    press("Space")
    assert window.bridge.trainer.position == 1 and pane.model.rowCount() == len(shown)


def test_the_vocabulary_search_and_the_merges_find_are_trimmed_and_counted(qtbot, make_window):
    window = make_window()
    window.bridge.run(merges=4)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    window.docks["vocab"].raise_()
    vocab = window.vocab_pane
    size = window.bridge.trainer.vocab_size
    type_into(qtbot, vocab.search, " es ")
    settle(vocab)
    shown = [vocab.model.index(r, 1).data() for r in range(vocab.model.rowCount())]
    assert shown and all("es" in token for token in shown)
    assert vocab.summary.text().startswith(f"{len(shown)} of {size} tokens shown ·")
    window.docks["merges"].raise_()
    merges = window.merges_pane
    type_into(qtbot, merges.search, " es ")
    assert merges.found.text() == "step 1"


@pytest.mark.parametrize("how", ["sample", "file", "reset"])
def test_a_new_session_clears_every_filter_and_search(
    qtbot, make_window, dialogs, monkeypatch, tmp_path, how
):
    """A filter carried over to a newly opened corpus emptied its tables, and File → Export view
    then wrote a header-only CSV."""
    window = make_window()
    window.bridge.run(merges=3)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    fields = (window.corpus_pane.filter_edit, window.vocab_pane.search, window.merges_pane.search)
    for field, dock in zip(fields, ("corpus", "vocab", "merges"), strict=True):
        window.docks[dock].raise_()
        type_into(qtbot, field, "zzz")
    settle(window.corpus_pane)
    settle(window.vocab_pane)
    assert window.corpus_pane.model.rowCount() == 0 and window.vocab_pane.model.rowCount() == 0
    if how == "sample":
        next(
            a for a in window.samples_menu.actions() if a.text().replace("&", "").startswith("old")
        ).trigger()
    elif how == "file":
        path = tmp_path / "words.txt"
        path.write_text("zebra zebras zebra\n", encoding="utf-8")
        dialogs.open_path = str(path)
        window.commands["open_corpus"].trigger()
    else:
        dialogs.answer = QMessageBox.StandardButton.Yes
        window.commands["reset"].trigger()
    wait_idle(qtbot, window)
    trainer = window.bridge.trainer
    assert all(field.text() == "" for field in fields)
    assert window.corpus_pane.model.rowCount() == trainer.word_count > 0
    assert window.vocab_pane.model.rowCount() == trainer.vocab_size
    assert window.corpus_pane.summary.text().startswith(f"{trainer.word_count} word types ·")
    qtbot.wait(200)  # past any typing pause: nothing filters the new session later
    assert window.corpus_pane.model.rowCount() == trainer.word_count
    path = tmp_path / "corpus.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "")))
    window.corpus_pane.view.setFocus()
    window.commands["export_view"].trigger()
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert len(rows) == 1 + trainer.word_count


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")  # the menu, offscreen
@pytest.mark.parametrize("view", ["compression", "compare"])
def test_after_a_view_closed_with_esc_and_another_sample_space_steps(qtbot, make_window, dialogs, view):
    """Twice, after closing the Compression or Compare view with Esc and switching samples, Space
    went into the Corpus filter instead of stepping: the keys went back to the filter they had
    been in before the view opened, and the new session kept its text."""
    window = make_window()
    fresh_focus(qtbot, window)
    type_into(qtbot, window.corpus_pane.filter_edit, "lo")
    window.commands[view].trigger()  # from the View menu
    dialog = window.compression_dialog if view == "compression" else window.compare_dialog
    qtbot.waitUntil(dialog.isActiveWindow)
    press("Escape")
    qtbot.waitUntil(lambda: not dialog.isVisible() and window.isActiveWindow())
    press("Alt+M")  # Samples, by the keyboard
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    menu = QApplication.activePopupWidget()
    QTest.keyClick(menu, Qt.Key.Key_Down)  # the second sample
    QTest.keyClick(menu, Qt.Key.Key_Return)
    wait_idle(qtbot, window)
    window.activateWindow()  # as the window manager does once the menu has closed
    qtbot.waitUntil(lambda: window.isActiveWindow() and QApplication.focusWidget() is not None)
    press("Space")
    assert window.bridge.source.name.startswith("old") and window.bridge.trainer.position == 1
    assert window.corpus_pane.filter_edit.text() == ""
    clear_button = window.corpus_pane.filter_edit.findChild(QToolButton)  # its ×: gone with the text
    assert clear_button is not None and not clear_button.isVisible()


def test_a_window_activated_with_the_keys_nowhere_gives_them_to_the_last_table(qtbot, make_window):
    """Qt gives the keys of a window activated with no focus widget to the first field of its
    tab chain: the Corpus filter, where Space then typed a space."""
    from PySide6.QtWidgets import QWidget

    window = make_window()
    fresh_focus(qtbot, window)
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(other.isActiveWindow)
    window.corpus_pane.view.clearFocus()  # the window keeps no focus widget
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow() and QApplication.focusWidget() is not None)
    press("Space")
    assert window.bridge.trainer.position == 1 and window.corpus_pane.filter_edit.text() == ""
