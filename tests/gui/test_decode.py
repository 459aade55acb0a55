"""Decoding in the window: ids typed in the Encode pane's decode field become text as the
engine's encoder decodes them at the current step, junk marked, never a crash; and no text
field, read-only or not, ever trains when a step key is typed in it."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app import guard
from tests.gui_helpers import fresh_focus, press, qt_wait_until, wait_idle

STEP_KEYS = ("Space", "Right", "Left", "Ctrl+Z", "Ctrl+Y", "Ctrl+Shift+Z", "P")


def type_into(qtbot, field, text: str) -> None:
    """Click into a field, select what it holds and type over it, key by key, as a user does."""
    QTest.mouseClick(field.viewport() if hasattr(field, "viewport") else field, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    press("Ctrl+A")
    QTest.keyClicks(field, text)


def decoded(window) -> str:
    pane = window.encode_pane
    qt_wait_until(lambda: not pane._decode_timer.isActive())
    return pane.decoded_text()


def test_ids_typed_in_the_decode_field_become_text_as_the_engine_decodes_them(qtbot, make_window):
    window = make_window()
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    pane = window.encode_pane
    qt_wait_until(pane.is_current)
    ids = pane.encoding.ids
    type_into(qtbot, pane.decode_input, " ".join(map(str, ids)))
    trainer = bridge.trainer
    expected = trainer.encoder().decode(ids)
    assert decoded(window) == expected and expected.endswith("lowest newer widest")
    assert pane.decode_status.text() == f"{len(ids)} ids decoded"
    # As of the current step: the newest token's id is not in the vocabulary one step back.
    newest = trainer.vocab_size - 1
    type_into(qtbot, pane.decode_input, f"{ids[0]} {newest}")
    assert decoded(window) == trainer.encoder().decode([ids[0], newest])
    press("Escape")  # back to the table, where ← undoes
    press("Left")
    assert trainer.position == 5
    text = decoded(window)
    assert f"[{newest}: not in the vocabulary at step 5]" in text
    assert pane.decode_status.text() == "1 id decoded · 1 not decoded (red)"


def test_junk_in_the_decode_field_is_marked_and_never_crashes(qtbot, make_window):
    reported = []
    window = make_window()
    guard.reporter().sig_reported.connect(lambda *a: reported.append(a))
    fresh_focus(qtbot, window)
    pane = window.encode_pane
    position, vocab = window.bridge.trainer.position, window.bridge.trainer.vocab_size
    type_into(qtbot, pane.decode_input, "1, x, -3, 99999999999")
    text = decoded(window)
    first = window.bridge.trainer.encoder().decode([1])
    assert text.startswith(first)
    for mark in ("[x: not an id]", "[-3: not an id]", "[99999999999: not in the vocabulary at step 0]"):
        assert mark in text
    assert pane.decode_status.text() == "1 id decoded · 3 not decoded (red)"
    assert "color:#d32f2f" in pane.decode_output.toHtml()  # the marks are red in the result
    # The unknown id the ids box shows for a character the vocabulary lacks decodes as U+FFFD.
    type_into(qtbot, pane.decode_input, "-1")
    assert decoded(window) == "\ufffd"
    assert reported == [] and window.bridge.trainer.position == position
    assert window.bridge.trainer.vocab_size == vocab


def test_step_keys_typed_in_any_text_field_never_make_merges(qtbot, make_window):
    """Space in the Encode pane's read-only ids box fell through to the window's Step."""
    window = make_window()
    bridge = window.bridge
    bridge.run(merges=4)
    wait_idle(qtbot, window)
    bridge.goto(2)  # redo-able merges: Ctrl+Y would make one
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    fields = {
        "corpus filter": window.corpus_pane.filter_edit,
        "vocabulary search": window.vocab_pane.search,
        "merges find": window.merges_pane.search,
        "encode text": window.encode_pane.input,
        "ids (read-only)": window.encode_pane.ids,
        "decode": window.encode_pane.decode_input,
    }
    trainer = bridge.trainer
    for name, field in fields.items():
        dock = next(d for d in window.docks.values() if d.isAncestorOf(field))
        dock.raise_()
        QTest.mouseClick(field.viewport() if hasattr(field, "viewport") else field, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda f=field: QApplication.focusWidget() is f)
        for keys in STEP_KEYS:
            press(keys)
            assert (trainer.position, trainer.history_length) == (2, 4), f"{keys} in the {name}"
            assert not window.playback.playing, f"{keys} in the {name}"
        press("Escape")
    press("Space")  # from the table, Space steps as ever
    assert trainer.position == 3


@pytest.mark.parametrize("text", ["", "   ", ",,,", "\t3\t"])
def test_blank_or_separator_only_input_decodes_quietly(qtbot, make_window, text):
    window = make_window()
    pane = window.encode_pane
    pane.decode_input.setText(text)
    result = decoded(window)
    assert result == (window.bridge.trainer.encoder().decode([3]) if "3" in text else "")


def test_a_mark_in_right_to_left_decoded_text_reads_left_to_right(qtbot, make_window):
    """Among Arabic text, "[99: not in the vocabulary at step 3]" was laid out from the right,
    its id carried to the far end ("[not in the vocabulary at step 3 :99]")."""
    window = make_window()
    bridge = window.bridge
    bridge.open_text("مرحبا مرحبا بالعالم", bridge.trainer.corpus.config, "arabic")
    qtbot.waitUntil(lambda: not bridge.busy and bridge.source.name == "arabic", timeout=10_000)
    bridge.run(merges=3)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    pane = window.encode_pane
    ids = bridge.trainer.encoder().encode_ids("مرحبا")
    type_into(qtbot, pane.decode_input, " ".join(map(str, [*ids, 99999])))
    text = decoded(window)
    mark = "[99999: not in the vocabulary at step 3]"
    assert mark in text.replace("\u200e", "")
    block = pane.decode_output.document().firstBlock()
    line = block.layout().lineAt(0)
    start = text.index("[")

    def x(i: int) -> float:
        return line.cursorToX(i)[0]

    # left to right within the mark: "[", the id, "not", "step 3", "]"
    at = [start, text.index("99999"), text.index("not"), text.index("step"), text.index("]")]
    assert at == sorted(at) and [x(i) for i in at] == sorted(x(i) for i in at)
