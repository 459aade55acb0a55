"""The Encode pane's test string belongs to the session: saved with it, back when it opens."""

import json

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from bpe_core.io.session import session_to_dict
from tests.gui_helpers import fresh_focus, press, qt_wait_until, wait_idle


def test_the_test_string_typed_in_encode_is_saved_and_comes_back(qtbot, make_window, dialogs, tmp_path):
    """A user typed a test string, saved, typed another, reopened the session: the string
    typed before saving was gone."""
    window = make_window()
    encode = window.encode_pane.input
    fresh_focus(qtbot, window)
    press("Space")
    while QApplication.focusWidget() is not encode:
        press("Tab")
    press("Ctrl+A")
    QTest.keyClicks(encode, "slowest lowered")
    press("Escape")  # back to the tables: Space steps again
    press("Space")
    path = tmp_path / "kept.json"
    dialogs.save_path = str(path)
    press("Ctrl+Shift+S")
    assert json.loads(path.read_text(encoding="utf-8"))["test_text"] == "slowest lowered"
    encode.setPlainText("something else")
    dialogs.open_path = str(path)
    press("Ctrl+Shift+O")
    wait_idle(qtbot, window)
    assert window.bridge.path == path and window.bridge.trainer.position == 2
    assert encode.toPlainText() == "slowest lowered"
    qt_wait_until(window.encode_pane.is_current)
    assert window.encode_pane.encoding.tokens  # encoded with the opened session


def test_a_session_without_a_test_string_keeps_the_one_shown(qtbot, make_window, dialogs, tmp_path):
    window = make_window()
    old = tmp_path / "old.json"
    old.write_text(json.dumps(session_to_dict(window.bridge.trainer)), encoding="utf-8")
    window.encode_pane.input.setPlainText("what I was trying")
    fresh_focus(qtbot, window)
    dialogs.open_path = str(old)
    press("Ctrl+Shift+O")
    wait_idle(qtbot, window)
    assert window.bridge.path == old and window.encode_pane.input.toPlainText() == "what I was trying"


def test_a_session_with_a_bad_test_string_is_refused_and_the_window_stays(
    qtbot, make_window, dialogs, tmp_path
):
    window = make_window()
    data = session_to_dict(window.bridge.trainer)
    data["test_text"] = "\ud800"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    trainer = window.bridge.trainer
    fresh_focus(qtbot, window)
    dialogs.open_path = str(bad)
    press("Ctrl+Shift+O")
    wait_idle(qtbot, window)
    assert window.bridge.trainer is trainer
    assert "the Encode test text holds a lone surrogate" in dialogs.messages[-1]
    press("Space")
    assert trainer.position == 1


def test_a_lone_surrogate_from_the_pane_is_saved_as_a_replacement_character(
    qtbot, make_window, dialogs, tmp_path, monkeypatch
):
    """Qt's text can hold a lone surrogate (UTF-8 cannot): saving replaces it, never fails."""
    window = make_window()
    monkeypatch.setattr(window.encode_pane.input, "toPlainText", lambda: "a\ud800b")
    path = tmp_path / "s.json"
    dialogs.save_path = str(path)
    fresh_focus(qtbot, window)
    press("Ctrl+Shift+S")
    assert json.loads(path.read_text(encoding="utf-8"))["test_text"] == "a\ufffdb"


def test_a_text_the_tokenizer_cannot_encode_is_said_in_the_pane_and_the_window_goes_on(
    qtbot, make_window, monkeypatch
):
    """A tokenizer whose split pattern backtracks without end: the refusal was an internal
    error of the window; it is the pane's one sentence, and the next text encodes."""
    from bpe_core.errors import InputError

    window = make_window()
    pane = window.encode_pane
    encoder = window.bridge.encoder()
    encode = encoder.encode

    def refusing(text, **options):
        if "x" * 50 in text:
            raise InputError("The split pattern '(x+x+)+y' took more than 2 s to find one match.")
        return encode(text, **options)

    monkeypatch.setattr(encoder, "encode", refusing)
    pane.input.setPlainText("x" * 60)
    qtbot.waitUntil(lambda: pane.stats.text().startswith("The split pattern"))
    assert pane.ids.toPlainText() == "" and pane.encoding is None and pane.at_cursor.text() == ""
    pane.input.setPlainText("low lower")
    qtbot.waitUntil(lambda: "tokens for 9 characters" in pane.stats.text())
    assert pane.encoding is not None
