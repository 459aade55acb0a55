"""The first minute with a fresh window, driven with real key presses from wherever the window
puts the focus: every README shortcut, Esc out of text fields, transient status messages, and
"Let a rule decide" among more ties than the dialog lists."""

import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from app import status_bar
from app.accessibility import ANNOUNCED
from app.bridge import ASK
from app.dialogs.export_dialog import ExportDialog
from app.dialogs.run_dialog import RunDialog
from app.dialogs.settings_dialog import SettingsDialog
from app.dialogs.tie_dialog import TieDialog
from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.session import load_session, save_session
from tests.gui_helpers import (
    ModalAnswerer,
    fresh_focus,
    press,
    read_shortcuts,
    sample,
    tied_corpus,
    wait_idle,
)

README = Path(__file__).resolve().parents[2] / "README.md"
ARROWS = {"→": "Right", "←": "Left", "Esc": "Escape"}


def readme_shortcuts() -> set[str]:
    """Every key sequence the README's shortcut table lists."""
    text = README.read_text(encoding="utf-8")
    table = text.split("### Shortcuts", 1)[1].split("\n\n", 2)[1]
    keys = set()
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for key in re.split(r", | / ", cells[-1]):
            keys.add(ARROWS.get(key, key))
    return keys


def test_a_fresh_window_has_the_keys_on_the_corpus_table(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    assert QApplication.focusWidget() is window.corpus_pane.view
    press("Space")
    press("Right")
    assert window.bridge.trainer.position == 2 and window.corpus_pane.filter_edit.text() == ""


def test_tab_alone_reaches_every_pane_and_comes_back_round(qtbot, make_window):
    """Tab moved from cell to cell of the Corpus table and never left it; the Encode text then
    took a Tab as a character. A keyboard-only user reached no other pane."""
    window = make_window("Shakespeare")
    window.resize(1400, 900)
    fresh_focus(qtbot, window)
    panes = {
        "corpus": window.corpus_pane,
        "pairs": window.pairs_pane,
        "encode": window.encode_pane,
        "merges": window.merges_pane,
    }
    reached, text = set(), window.encode_pane.input.toPlainText()
    for _ in range(40):
        press("Tab")
        focus = QApplication.focusWidget()
        reached |= {name for name, pane in panes.items() if pane.isAncestorOf(focus)}
        if focus is window.corpus_pane.view:
            break
    assert reached == set(panes) and focus is window.corpus_pane.view
    assert window.encode_pane.input.toPlainText() == text
    press("Space")
    assert window.bridge.trainer.position == 1


def test_escape_in_a_text_field_hands_the_keys_back_to_the_last_table(qtbot, make_window):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    for table, field in (
        (window.corpus_pane.view, window.corpus_pane.filter_edit),
        (window.pairs_pane.view, window.merges_pane.search),
        (window.merges_pane.view, window.encode_pane.input),
    ):
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton)
        QTest.mouseClick(field, Qt.MouseButton.LeftButton)
        assert QApplication.focusWidget() is field or QApplication.focusWidget() is field.viewport()
        position = window.bridge.trainer.position
        press("Space")  # types a space: no step
        assert window.bridge.trainer.position == position
        press("Escape")
        assert QApplication.focusWidget() is table
        press("Space")  # steps again
        assert window.bridge.trainer.position == position + 1


def test_every_readme_shortcut_works_as_a_key_press_in_a_fresh_window(qtbot, make_window, dialogs, tmp_path):
    listed = readme_shortcuts()
    window = make_window("Shakespeare")
    bridge = window.bridge
    fresh_focus(qtbot, window)
    trainer = lambda: bridge.trainer  # noqa: E731 (opening files replaces it)
    checked: set[str] = set()

    def expect(keys: str, check, before=None) -> None:
        state = before() if before else None
        press(keys)
        wait_idle(qtbot, window)
        assert check(state) if before else check(), keys
        checked.add(keys)

    position = lambda: trainer().position  # noqa: E731
    expect("Space", lambda p: position() == p + 1, position)
    expect("Right", lambda p: position() == p + 1, position)
    expect("Ctrl+Z", lambda p: position() == p - 1, position)
    expect("Left", lambda p: position() == p - 1, position)
    expect("Ctrl+Shift+Z", lambda p: position() == p + 1, position)
    expect("Ctrl+Y", lambda p: position() == p + 1, position)

    def run_five(dialog: RunDialog) -> None:  # typed at once, into whatever has the focus
        QTest.keyClicks(QApplication.focusWidget(), "5")
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)

    answerer = ModalAnswerer(RunDialog, run_five)
    expect("Ctrl+R", lambda p: position() == p + 5, position)
    answerer.stop()
    expect("Ctrl+T", lambda p: position() > p + 100 and trainer().stop_reason() is not None, position)

    def go_to_three(dialog: QInputDialog) -> None:
        dialog.setIntValue(3)
        dialog.accept()

    answerer = ModalAnswerer(QInputDialog, go_to_three)
    expect("Ctrl+G", lambda: position() == 3)
    answerer.stop()
    expect("Ctrl+H", lambda: QApplication.focusWidget() is window.history_pane.graph)
    expect("Ctrl+Shift+C", lambda: window.compare_dialog is not None and window.compare_dialog.isVisible())
    window.compare_dialog.close()  # the keys come back to the window, where they were
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.history_pane.graph)
    expect(
        "Ctrl+Shift+T", lambda: window.tokenizers_dialog is not None and window.tokenizers_dialog.isVisible()
    )
    window.tokenizers_dialog.close()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.history_pane.graph)
    expect("P", lambda: window.commands["play"].isChecked() and window.commands["play"].text() == "&Pause")
    qtbot.waitUntil(lambda: position() > 3)
    expect("P", lambda: not window.playback.playing)
    dialogs.answer = QMessageBox.StandardButton.Yes
    expect("Ctrl+Shift+R", lambda: trainer().history_length == 0)
    settings_shown = []
    answerer = ModalAnswerer(SettingsDialog, lambda dialog: settings_shown.append(1) or dialog.reject())
    expect("Ctrl+,", lambda: settings_shown == [1])
    answerer.stop()

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider widest\n", encoding="utf-8")
    dialogs.open_path = str(corpus)
    expect("Ctrl+O", lambda: bridge.source.name == "corpus.txt")
    folder = tmp_path / "folder"
    (folder / "part").mkdir(parents=True)
    (folder / "part" / "a.txt").write_text("folder words in a folder", encoding="utf-8")
    dialogs.open_path = str(folder)
    expect("Ctrl+Alt+O", lambda: bridge.source.name == "folder" and "folder" in trainer().corpus.words)
    dialogs.text = "pasted words and pasted words"
    expect("Ctrl+Shift+V", lambda: bridge.source.name == "pasted text" and "pasted" in trainer().corpus.words)
    session = tmp_path / "session.json"
    saved = Trainer(Corpus.from_text("a b a b c c a b", PipelineConfig()), TrainingConfig())
    saved.run(merges=2)
    save_session(saved, session)
    dialogs.open_path = str(session)
    expect("Ctrl+Shift+O", lambda: bridge.path == session and trainer().history_length == 2)
    window.bridge.undo()
    expect(
        "Ctrl+S", lambda: load_session(session).position == 1 and "Saved to" in window.status.message.text()
    )
    dialogs.save_path = str(tmp_path / "copy.json")
    expect(
        "Ctrl+Shift+S", lambda: (tmp_path / "copy.json").exists() and bridge.path == tmp_path / "copy.json"
    )
    codes = tmp_path / "model.codes"
    codes.write_text("#version: 0.2\nl o\nlo w</w>\n", encoding="utf-8")
    dialogs.open_path = str(codes)
    expect("Ctrl+I", lambda: bridge.source.name == "model.codes" and trainer().history_length == 2)

    def as_codes(dialog: ExportDialog) -> None:
        dialog.formats.setCurrentRow(2)  # subword-nmt codes
        dialog.accept()

    answerer = ModalAnswerer(ExportDialog, as_codes)
    dialogs.save_path = str(tmp_path / "again.codes")
    expect(
        "Ctrl+E",
        lambda: (tmp_path / "again.codes").read_text(encoding="utf-8") == codes.read_text(encoding="utf-8"),
    )
    answerer.stop()

    size = lambda: window.corpus_pane.view.font().pointSizeF()  # noqa: E731
    expect("Ctrl++", lambda s: size() == s + 2, size)
    expect("Ctrl+-", lambda s: size() == s - 2, size)
    expect("Ctrl++", lambda s: size() == s + 2, size)
    expect("Ctrl+0", lambda: size() == window._base_points)
    expect("F11", lambda: window.isFullScreen() and window.commands["fullscreen"].isChecked())
    press("F11")
    assert not window.isFullScreen()
    answerer, shown = read_shortcuts()
    expect("F1", lambda: bool(shown) and "Go to step: Ctrl+G" in shown[0][1])
    answerer.stop()

    press("Ctrl+3")  # the Encode pane's text: the token at the cursor, by keys
    assert QApplication.focusWidget() is window.encode_pane.input
    encode = window.encode_pane
    trace = lambda: encode.tooltip_for(encode.token_at_cursor())  # noqa: E731
    expect("Shift+F1", lambda: bool(ANNOUNCED) and ANNOUNCED[-1] == trace())

    for number, dock in enumerate(window.docks.values(), start=1):  # in front, with the keys
        pane = dock.widget()
        expect(
            f"Ctrl+{number}",
            lambda pane=pane: pane.isVisible() and pane.isAncestorOf(QApplication.focusWidget()),
        )

    window.open_sample(sample("Shakespeare"))
    wait_idle(qtbot, window)
    bridge.run(min_frequency=1)  # long enough to be cancelled
    assert bridge.busy
    press("Escape")
    wait_idle(qtbot, window)
    assert window.status.message.text() == "Cancelled" and trainer().position == trainer().history_length
    checked.add("Escape")
    assert listed == checked, (
        f"README shortcuts without a check: {listed - checked}; checked, not listed: {checked - listed}"
    )


def test_status_messages_report_the_outcome_then_clear(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setattr(status_bar, "MESSAGE_MS", 300)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(sample("Shakespeare").text(), encoding="utf-8")
    window = make_window()
    message = window.status.message
    window.open_path(corpus)
    assert message.text() == "Opening corpus.txt…"
    wait_idle(qtbot, window)
    assert re.fullmatch(r"Opened corpus\.txt in \d+\.\d s", message.text())
    qtbot.waitUntil(lambda: message.text() == "", timeout=2000)


def test_let_hf_decide_picks_hf_s_choice_among_all_ties_not_the_first_fifty(qtbot, make_window):
    window = make_window()
    window.bridge.replace_trainer(Trainer(tied_corpus()), window.bridge.source)
    expected = Trainer(tied_corpus(), TrainingConfig(tie_break="hf")).step().pair
    window.bridge.set_tie_rule(ASK)
    listed = []

    def let_hf_decide(dialog: TieDialog) -> None:
        listed.extend(dialog._candidates)
        dialog.rule_buttons["hf"].click()

    answerer = ModalAnswerer(TieDialog, let_hf_decide)
    fresh_focus(qtbot, window)
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 1)
    answerer.stop()
    record = window.bridge.trainer.record(1)
    assert record.pair == expected and record.decided_by == "hf" and record.ties == 60
    assert expected in listed and listed.index(expected) >= 50  # listed, beyond the first 50


def test_a_tie_choice_the_undone_line_had_made_shows_who_chose_it(qtbot, make_window):
    """Space (first-seen merges a pair at a tie), ←, Ask me, Space, and merge that same pair in
    the tie dialog: the Merges pane said "first-seen", as the undone line had it."""
    from app.models.merge_model import DECIDED

    window = make_window()
    fresh_focus(qtbot, window)
    for keys in ("Space", "Space", "Space", "Left", "Left", "Left"):  # the line goes on past it
        press(keys)
    made = window.bridge.trainer.record(1)
    assert made.decided_by == "first-seen" and made.ties > 1
    window.bridge.set_tie_rule(ASK)

    def choose_the_same(dialog: TieDialog) -> None:
        dialog.select(made.pair)
        dialog.merge_button.click()

    answerer = ModalAnswerer(TieDialog, choose_the_same)
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 1)
    answerer.stop()
    assert window.bridge.trainer.record(1).decided_by == "user"
    merges = window.merges_pane.model
    assert merges.index(0, DECIDED).data() == "user"
    assert len(window.bridge.trainer.branches()) == 1  # followed, not branched


def test_a_step_whose_top_pair_stood_alone_says_no_tie_whatever_the_rule(qtbot, make_window):
    """Ask me, then Space on "ab ab ab cd cd xy xy": a+b (3) stands alone, so no dialog comes and
    the Merges pane says "no tie" (not the rule Ask me falls back on); Space again meets the tie
    of c+d and x+y, which hf decides in the dialog, and the pane says so."""
    from app.models.merge_model import DECIDED, NO_TIE

    window = make_window()
    corpus = Corpus.from_text("ab ab ab cd cd xy xy", PipelineConfig(end_of_word=None))
    window.bridge.replace_trainer(Trainer(corpus), window.bridge.source)
    window.bridge.set_tie_rule(ASK)
    fresh_focus(qtbot, window)
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 1)
    merges = window.merges_pane.model
    assert window.bridge.trainer.record(1).ties == 1
    assert merges.index(0, DECIDED).data() == NO_TIE

    answerer = ModalAnswerer(TieDialog, lambda dialog: dialog.rule_buttons["hf"].click())
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 2)
    answerer.stop()
    assert len(answerer.seen) == 1 and window.bridge.trainer.record(2).ties == 2
    assert merges.index(1, DECIDED).data() == "hf"


def _unseen(window, widget) -> bool:
    """Whether ``widget`` is in a pane tabbed away behind another (Qt calls it visible)."""
    return any(dock.isAncestorOf(widget) and dock.visibleRegion().isEmpty() for dock in window.docks.values())


def test_tab_passes_over_panes_tabbed_away_behind_another(qtbot, make_window):
    """At 1280×800 the Vocabulary and History panes are tabs behind Merges: Tab stopped in
    them five times, with no focus frame anywhere on screen, and ↓ there changed what the
    Corpus pane highlighted. Now Tab and Shift+Tab go round the panes that can be seen."""
    window = make_window("Shakespeare")
    window.resize(1280, 800)
    fresh_focus(qtbot, window)
    qtbot.waitUntil(lambda: any(dock.visibleRegion().isEmpty() for dock in window.docks.values()))
    for key in ("Tab", "Shift+Tab"):
        stops = []
        for _ in range(60):
            press(key)
            focus = QApplication.focusWidget()
            assert not _unseen(window, focus), (key, focus.accessibleName())
            stops.append(focus)
            if focus is window.corpus_pane.view:
                break
        assert focus is window.corpus_pane.view and len(stops) > 5


def test_escape_after_the_last_tables_pane_was_closed_gives_the_keys_to_an_open_table(qtbot, make_window):
    """Ctrl+2, then View → Pairs closes that pane: Qt moves the keys to a text field. Esc there
    hands them to a table whose pane is open, and Space steps again."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    press("Ctrl+2")
    assert QApplication.focusWidget() is window.pairs_pane.view
    window.docks["pairs"].toggleViewAction().trigger()
    QApplication.processEvents()
    assert not window.pairs_pane.view.isVisible()
    if QApplication.focusWidget() not in window.tables:
        press("Escape")
    assert QApplication.focusWidget() in window.tables and QApplication.focusWidget().isVisible()
    position = window.bridge.trainer.position
    press("Space")
    assert window.bridge.trainer.position == position + 1


def test_a_jump_back_past_the_token_selected_in_vocabulary_clears_it_without_an_error(qtbot, make_window):
    """Space ×13, Ctrl+5, Home, Down ×12 (a merged token), then Ctrl+7 and Home (step 0): the
    selection named a token undone since, which raised an internal error."""
    from app import guard

    window = make_window("low · lower")
    fresh_focus(qtbot, window)
    for _ in range(13):
        press("Space")
    press("Ctrl+5")
    press("Home")
    for _ in range(12):
        press("Down")
    assert window.vocab_pane.selected_token == 12
    before = guard.reporter().count
    press("Ctrl+7")
    press("Home")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 0
    assert guard.reporter().count == before
    press("Ctrl+1")
    press("Space")
    assert window.bridge.trainer.position == 1


def test_escape_to_a_table_whose_pane_went_behind_another_brings_it_forward(qtbot, make_window):
    """Ctrl+5 (Vocabulary), Ctrl+6 (Plots, in front of it), Ctrl+3, a word, Esc: the keys went
    back to the Vocabulary table, unseen behind Plots; now its pane comes to the front."""
    window = make_window("Shakespeare")
    window.resize(1280, 720)
    fresh_focus(qtbot, window)
    for keys in ("Ctrl+5", "Ctrl+6", "Ctrl+3"):
        press(keys)
    vocabulary = window.vocab_pane.view
    if not _unseen(window, vocabulary):
        window.tabifyDockWidget(window.docks["vocab"], window.docks["plots"])  # whatever the layout
        window.docks["plots"].raise_()
        qtbot.waitUntil(lambda: _unseen(window, vocabulary))
    QTest.keyClicks(QApplication.focusWidget(), "lowest")
    press("Escape")
    assert QApplication.focusWidget() is vocabulary
    qtbot.waitUntil(lambda: not _unseen(window, vocabulary))


def test_merge_selected_pressed_by_keys_leaves_them_on_the_pairs_table(qtbot, make_window):
    """Ctrl+2, Down, Tab to "Merge selected", Space: the button disables itself once the pair is
    merged, and Qt passed the keys on to the Encode text box, where the next Space was typed."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    press("Ctrl+2")
    press("Down")
    press("Tab")
    assert QApplication.focusWidget() is window.pairs_pane.merge_button
    text = window.encode_pane.input.toPlainText()
    press("Space")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 1
    assert QApplication.focusWidget() is window.pairs_pane.view
    press("Space")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 2 and window.encode_pane.input.toPlainText() == text


def test_closing_the_pane_that_has_the_keys_gives_them_to_a_table(qtbot, make_window):
    """Ctrl+3 (the Encode text), then View → Encode closes that pane: Qt handed the keys to the
    next field in line, where Space typed; a table takes them, and Space steps."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    press("Ctrl+3")
    assert window.encode_pane.isAncestorOf(QApplication.focusWidget())
    window.docks["encode"].toggleViewAction().trigger()
    qtbot.waitUntil(lambda: QApplication.focusWidget() in window.tables)
    assert QApplication.focusWidget().isVisible()
    position = window.bridge.trainer.position
    press("Space")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == position + 1


def test_pane_keys_reach_a_floating_pane_and_come_back_from_it(qtbot, make_window):
    """A floating pane is a window of its own, and the keys go only to the active window:
    Ctrl+2 left them on Corpus, and Ctrl+1 pressed in the floating Pairs left them there."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    dock = window.docks["pairs"]
    dock.setFloating(True)  # as its float button does
    qtbot.waitExposed(dock)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    press("Ctrl+1")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.corpus_pane.view)
    press("Ctrl+2")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.pairs_pane.view)
    assert dock.isActiveWindow()
    position = window.bridge.trainer.position
    press("Space")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == position + 1
    press("Ctrl+1")
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.corpus_pane.view)
    assert window.isActiveWindow()


def test_a_pane_floated_and_docked_again_by_its_button_keeps_the_keys(qtbot, make_window):
    """Floating the Pairs pane that had the keys (its title bar's button), then docking it
    again: under X11 Qt handed them to the Encode text each time, where Space typed."""
    from PySide6.QtWidgets import QAbstractButton

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    press("Ctrl+2")
    dock = window.docks["pairs"]
    button = dock.findChild(QAbstractButton, "qt_dockwidget_floatbutton")
    text = window.encode_pane.input.toPlainText()
    for floating in (True, False):
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda floating=floating: dock.isFloating() == floating)
        qtbot.waitUntil(lambda: QApplication.focusWidget() is window.pairs_pane.view)
        position = window.bridge.trainer.position
        press("Space")
        wait_idle(qtbot, window)
        assert window.bridge.trainer.position == position + 1
    assert window.encode_pane.input.toPlainText() == text
