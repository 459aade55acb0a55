"""Assistive technology: every control of the window and of each dialog has a name a screen
reader can say, table cells read as text, and the changes that matter are announced."""

from PySide6.QtWidgets import QApplication, QDialog

from app.accessibility import ANNOUNCED, unnamed_controls
from tests.gui_helpers import fresh_focus, press, qt_wait_until, wait_idle


def test_a_step_an_undo_and_a_finished_job_are_announced(qtbot, make_window, tmp_path):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    ANNOUNCED.clear()
    press("Space")
    wait_idle(qtbot, window)
    record = window.bridge.trainer.history[0]
    tokens = window.bridge.trainer.vocab.tokens
    assert ANNOUNCED[-1].startswith(f"Step 1: merged {tokens[record.pair[0]]} and {tokens[record.pair[1]]}")
    press("Ctrl+Z")
    assert ANNOUNCED[-1] == "Undone: back at step 0"
    corpus = tmp_path / "small.txt"
    corpus.write_text("low lower lowest " * 50, encoding="utf-8")
    window.open_path(corpus)
    qt_wait_until(lambda: any(text.startswith("Opened small.txt") for text in ANNOUNCED), timeout_ms=30_000)


def test_the_dialogs_of_a_fresh_window_name_every_control(qtbot, make_window):
    window = make_window("Shakespeare")
    window.show_tokenizers()
    window.show_compare()
    window.show_compression()
    QApplication.processEvents()
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]
    assert len(dialogs) >= 3
    for dialog in dialogs:
        assert not [type(w).__name__ for w in unnamed_controls(dialog)], type(dialog).__name__
