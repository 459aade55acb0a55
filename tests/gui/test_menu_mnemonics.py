"""Every menu item is reached by Alt and letters: each has a mnemonic no other item of its menu
has (samples and panes get theirs from their names), and the letters work from a freshly opened
window, whatever has the focus."""

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from app.actions import give_mnemonics
from app.mnemonics import mnemonic
from tests.gui_helpers import fresh_focus, qt_wait_until, read_shortcuts


def menus_with_items(window):
    """(menu title, its items) for the menu bar and every menu and submenu; the recent files
    (paths, shown as they are) aside."""
    out = [("menu bar", window.menuBar().actions())]
    pending = [a.menu() for a in window.menuBar().actions()]
    while pending:
        menu = pending.pop()
        if menu is window.recent_menu:
            continue
        out.append((menu.title(), [a for a in menu.actions() if not a.isSeparator()]))
        pending.extend(a.menu() for a in menu.actions() if a.menu() is not None)
    return out


def test_every_menu_item_has_a_mnemonic_of_its_own(make_window):
    window = make_window()
    for title, items in menus_with_items(window):
        letters = [mnemonic(a.text()) for a in items]
        assert all(letters), (title, [a.text() for a in items])
        assert len(set(letters)) == len(letters), (title, [a.text() for a in items])


def test_mnemonics_given_prefer_word_starts_and_leave_a_literal_ampersand(qtbot):
    menu = QMenu()
    texts = ["&Plots", "Pairs", "Q&&A", "low · lower", "lower"]
    for text in texts:
        menu.addAction(text)
    give_mnemonics(menu)
    assert [a.text() for a in menu.actions()] == ["&Plots", "P&airs", "&Q&&A", "&low · lower", "l&ower"]
    assert mnemonic("Q&&A") == ""


def key(keys: str) -> None:
    """Press ``keys`` on the open menu if there is one, else on the focused widget."""
    combination = QKeySequence(keys)[0]
    target = QApplication.activePopupWidget() or QApplication.focusWidget()
    QTest.keyClick(target, combination.key(), combination.keyboardModifiers())
    QApplication.processEvents()


# Menus grab the keyboard; the offscreen platform cannot, and says so (the keys still reach them).
@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
def test_alt_and_letters_open_a_sample_and_the_shortcuts(qtbot, make_window, dialogs):
    window = make_window()
    fresh_focus(qtbot, window)
    bridge = window.bridge
    wanted = next(a for a in window.samples_menu.actions() if a.text().replace("&", "").startswith("FRED"))
    key("Alt+M")
    qt_wait_until(lambda: QApplication.activePopupWidget() is window.samples_menu)
    key(mnemonic(wanted.text()).upper())
    qt_wait_until(lambda: bridge.source.name.startswith("FRED") and not bridge.busy, timeout_ms=20_000)
    qt_wait_until(lambda: QApplication.activePopupWidget() is None and QApplication.focusWidget() is not None)

    answerer, shown = read_shortcuts()
    key("Alt+H")
    qt_wait_until(lambda: QApplication.activePopupWidget() is not None)
    key("K")
    qt_wait_until(lambda: bool(shown))
    answerer.stop()
    assert "Open corpus folder: Ctrl+Alt+O" in shown[0][1]  # listed without the "&"


def test_the_settings_and_run_dialogs_fields_are_reached_by_their_own_letters(qtbot, make_window):
    from PySide6.QtWidgets import QAbstractButton, QDialogButtonBox, QLabel

    from app.dialogs.run_dialog import RunDialog
    from app.dialogs.settings_dialog import SettingsDialog

    window = make_window()
    trainer = window.bridge.trainer
    for dialog in (
        SettingsDialog(trainer.corpus.config, trainer.training, window.target, window),
        RunDialog(trainer.vocab_size, 2, parent=window),
    ):
        qtbot.addWidget(dialog)
        labels = [w for w in dialog.findChildren(QLabel) if mnemonic(w.text())]
        assert all(label.buddy() is not None for label in labels), [w.text() for w in labels]
        # OK and Cancel are Enter and Esc.
        buttons = [
            b for b in dialog.findChildren(QAbstractButton) if not isinstance(b.parent(), QDialogButtonBox)
        ]
        letters = [mnemonic(w.text()) for w in [*labels, *buttons] if w.text()]
        assert all(letters) and len(set(letters)) == len(letters), str(letters)


def test_the_tie_dialog_buttons_have_letters_of_their_own_and_alt_and_one_lets_its_rule_decide(
    qtbot, make_window
):
    from PySide6.QtCore import Qt

    from app.bridge import ASK
    from app.dialogs.tie_dialog import TieDialog
    from bpe_core import Trainer, TrainingConfig
    from tests.gui_helpers import ModalAnswerer, press, tied_corpus

    window = make_window()
    window.bridge.replace_trainer(Trainer(tied_corpus(5)), window.bridge.source)
    expected = Trainer(tied_corpus(5), TrainingConfig(tie_break="hf")).step().pair
    window.bridge.set_tie_rule(ASK)
    letters = {}

    def press_alt_and_hf_s_letter(dialog: TieDialog) -> None:
        letters["merge"] = mnemonic(dialog.merge_button.text())
        letters.update((rule, mnemonic(b.text())) for rule, b in dialog.rule_buttons.items())
        letter = mnemonic(dialog.rule_buttons["hf"].text())
        QTest.keyClick(QApplication.focusWidget(), letter, Qt.KeyboardModifier.AltModifier)

    answerer = ModalAnswerer(TieDialog, press_alt_and_hf_s_letter)
    fresh_focus(qtbot, window)
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 1)
    answerer.stop()
    assert "" not in letters.values() and len(set(letters.values())) == len(letters)
    assert letters["merge"] == "m" and letters["hf"] == "h" and letters["first-seen"] == "f"
    record = window.bridge.trainer.record(1)
    assert record.pair == expected and record.decided_by == "hf"
