"""Never lose or mislabel work: opening while another file loads, Cancel during loading, JSON
files that are not sessions (a step after an undo keeps the redo line: see test_gui_history)."""

import os
import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app import bridge as bridge_module
from app.models.corpus_model import WORD
from app.models.row_cache import PLACEHOLDER
from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.io.session import load_session, save_session
from tests.gui_helpers import drop_file, fresh_focus, press, sample, wait_idle


def saved_session(path: Path, merges: int) -> Path:
    trainer = Trainer(Corpus.from_text(sample("Shakespeare").text(), PipelineConfig()))
    trainer.run(merges=merges)
    save_session(trainer, path)
    return path


class Gate:
    """Holds a background load at a chosen point until the test releases it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def hold(self) -> None:
        self.reached.set()
        assert self.release.wait(30)


class StallProbe:
    """The longest gap between ticks of a 10 ms timer: how long the GUI thread was blocked."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self._timer = QTimer(interval=10)
        self._timer.timeout.connect(lambda: self.ticks.append(time.monotonic()))
        self._timer.start()

    def longest(self) -> float:
        self._timer.stop()
        return max((b - a for a, b in pairwise(self.ticks)), default=0.0)


@pytest.mark.parametrize("second", ["dropped session", "recent file", "sample"])
def test_opening_while_a_file_loads_replaces_the_load_and_keeps_name_path_and_content_together(
    qtbot, make_window, tmp_path, monkeypatch, second
):
    session = saved_session(tmp_path / "b.json", merges=30)
    big = tmp_path / "a.txt"
    big.write_text(sample("Shakespeare").text() * 4, encoding="utf-8")
    gate = Gate()
    real_load = bridge_module.load_corpus

    def slow_load(path, *args, **kwargs):
        if Path(path).name == "a.txt":
            gate.hold()
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(bridge_module, "load_corpus", slow_load)
    window = make_window()
    probe = StallProbe()
    drop_file(window, big)
    assert gate.reached.wait(10) and window.bridge.busy
    if second == "dropped session":
        drop_file(window, session)
    elif second == "recent file":
        window.files.remember(session)
        window.files.open_recent(str(session))
    else:
        window.open_sample(sample("FRED"))
    qtbot.wait(50)
    gate.release.set()
    wait_idle(qtbot, window)
    assert probe.longest() < 0.25  # the GUI thread never waited for a load
    bridge, trainer = window.bridge, window.bridge.trainer
    if second == "sample":
        assert bridge.source.name.startswith("FRED") and bridge.path is None
        assert trainer.corpus.words[0] == "FRED"
        return
    assert bridge.path == session and window.windowTitle().startswith("b.json")
    assert trainer.history_length == 30 and trainer.corpus.words[:2] == ("First", "Citizen:")
    fresh_focus(qtbot, window)
    press("Ctrl+S")  # saves what is shown, to where it came from
    assert load_session(session).history == trainer.history


def test_cancel_while_opening_a_session_keeps_the_previous_one(qtbot, make_window, tmp_path, monkeypatch):
    session = saved_session(tmp_path / "big.json", merges=200)
    gate = Gate()
    real = bridge_module.trainer_from_session

    def held(data, path, progress=None):
        def report(done, total):
            if not gate.reached.is_set():  # the first report: replaying has begun
                gate.hold()
            progress(done, total)

        return real(data, path, report)

    monkeypatch.setattr(bridge_module, "trainer_from_session", held)
    window = make_window()
    window.bridge.run(merges=3)
    wait_idle(qtbot, window)
    before = window.bridge.trainer
    title = window.windowTitle()
    window.open_path(session)
    assert gate.reached.wait(10)
    qtbot.mouseClick(window.status.cancel_button, Qt.MouseButton.LeftButton)
    gate.release.set()
    wait_idle(qtbot, window)
    assert window.bridge.trainer is before and before.position == 3
    assert window.windowTitle() == title and window.bridge.path is None
    assert window.status.message.text() == "Cancelled"


@pytest.fixture
def held_corpus(tmp_path, monkeypatch):
    """A corpus file whose opening is held, once counted, while its trainer is being built,
    until the test releases the gate."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(sample("Shakespeare").text(), encoding="utf-8")
    gate = Gate()

    def trainer_after_counting(corpus, training):
        gate.hold()
        return Trainer(corpus, training)

    monkeypatch.setattr(bridge_module, "Trainer", trainer_after_counting)
    return corpus, gate


@pytest.mark.parametrize("by", ["a click", "Tab and Space"])
def test_after_cancel_the_keys_are_where_they_were_and_the_next_one_steps(
    qtbot, make_window, held_corpus, by
):
    corpus, gate = held_corpus
    window = make_window()
    fresh_focus(qtbot, window)
    table = QApplication.focusWidget()
    before = window.bridge.trainer.position
    window.open_path(corpus)
    assert gate.reached.wait(10)
    if by == "a click":
        qtbot.mouseClick(window.status.cancel_button, Qt.MouseButton.LeftButton)
    else:  # as a keyboard user reaches it
        window.status.cancel_button.setFocus(Qt.FocusReason.TabFocusReason)
        press("Space")
    gate.release.set()
    wait_idle(qtbot, window)
    assert QApplication.focusWidget() is table
    press("Space")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == before + 1


def test_while_a_corpus_loads_the_session_shown_still_scrolls_filters_and_encodes(
    qtbot, make_window, held_corpus
):
    corpus, gate = held_corpus
    window = make_window()
    window.bridge.run(merges=5)
    wait_idle(qtbot, window)
    model, trainer = window.corpus_pane.model, window.bridge.trainer
    window.open_path(corpus)
    assert gate.reached.wait(10)
    try:
        assert window.bridge.busy and window.bridge.trainer is trainer
        last = model.index(model.rowCount() - 1, WORD)  # never shown before: read now, not "…"
        assert model.data(last) not in (None, PLACEHOLDER)
        model.set_filter("est")
        qtbot.waitUntil(lambda: 0 < model.rowCount() < trainer.word_count)
        assert all("est" in model.data(model.index(row, WORD)) for row in range(model.rowCount()))
        window.encode_pane.input.setPlainText("lowest")
        qtbot.waitUntil(window.encode_pane.is_current)
        pairs = window.pairs_pane
        pairs.view.selectRow(0)  # a pair may be looked at, not merged: the session is being replaced
        assert pairs._selected is not None and not pairs.merge_button.isEnabled()
    finally:
        gate.release.set()
    wait_idle(qtbot, window)
    assert window.bridge.trainer is not trainer  # and then the corpus opened


def test_cancel_after_counting_a_corpus_keeps_the_previous_session(qtbot, make_window, held_corpus):
    corpus, gate = held_corpus
    window = make_window()
    before = window.bridge.trainer
    window.open_path(corpus)
    assert gate.reached.wait(10)
    qtbot.mouseClick(window.status.cancel_button, Qt.MouseButton.LeftButton)
    gate.release.set()
    wait_idle(qtbot, window)
    assert window.bridge.trainer is before
    assert window.status.message.text() == "Cancelled"
    assert str(corpus.resolve()) not in window.files.recent()


@pytest.mark.parametrize(
    "content, message",
    [
        ("[1, 2, 3]\n", "is neither a BPE Studio session nor JSON lines (one JSON object a line)"),
        ('{\n  "a": 1\n}\n', "is JSON but not a BPE Studio session"),
        ("{not json", "is not valid JSON"),
        ("", "is neither a BPE Studio session nor JSON lines"),
    ],
)
def test_a_json_file_that_is_not_a_session_is_refused_with_one_sentence(
    qtbot, make_window, dialogs, tmp_path, content, message
):
    window = make_window()
    before = window.bridge.trainer
    path = tmp_path / "x.json"
    path.write_text(content)
    window.open_path(path)
    wait_idle(qtbot, window)
    kind, _, text = dialogs.shown[-1]
    assert kind == "warning" and message in text and text.endswith(".") and "\n" not in text
    assert window.bridge.trainer is before


def test_sessions_are_recognised_by_parsing_not_by_name(qtbot, make_window, tmp_path):
    session = tmp_path / "renamed.txt"
    saved_session(session, merges=12)
    text = tmp_path / "braces.txt"
    text.write_text("{ curly braces start this text } and more words words\n")
    window = make_window()
    window.open_path(session)
    wait_idle(qtbot, window)
    assert window.bridge.trainer.history_length == 12 and window.bridge.path == session
    window.open_path(text)
    wait_idle(qtbot, window)
    assert window.bridge.trainer.history_length == 0 and "curly" in window.bridge.trainer.corpus.words


def test_open_corpus_on_a_session_file_opens_the_session(qtbot, make_window, dialogs, tmp_path):
    session = saved_session(tmp_path / "s.json", merges=7)
    window = make_window()
    fresh_focus(qtbot, window)
    dialogs.open_path = str(session)
    press("Ctrl+O")
    wait_idle(qtbot, window)
    assert window.bridge.trainer.history_length == 7 and window.bridge.path == session
    assert not [m for m in dialogs.shown if m[0] == "warning"]


def test_a_pipe_is_refused_with_a_dialog_and_the_keys_still_step(qtbot, make_window, dialogs, tmp_path):
    """``bpe-studio <(command)`` or a FIFO dropped on the window: the job waited forever to open
    it a second time (its head was read to tell its format). A pipe can be read only once, and
    the window reads its source again when a setting changes, so it is refused."""
    fifo = tmp_path / "stream"
    os.mkfifo(fifo)
    window = make_window()
    fresh_focus(qtbot, window)
    before = window.bridge.trainer
    for opening in (lambda: window.open_path(fifo), lambda: drop_file(window, fifo)):
        dialogs.shown.clear()
        opening()
        wait_idle(qtbot, window)
        [(kind, _, text)] = dialogs.shown
        assert kind == "warning" and "pipe" in text and window.bridge.trainer is before
    press("Space")
    assert before.position == 1


def test_play_stops_before_opening_asks_to_save_so_the_session_asked_about_stays_still(
    qtbot, make_window, dialogs, monkeypatch, tmp_path
):
    """Found at the keyboard: with Play on, Ctrl+O asked whether to save while merges went on
    under the question (and an Ask-me tie opened a second dialog over it)."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    window.bridge.step_pair(window.bridge.trainer.top_pairs(3)[2].pair)  # picked by hand: work to save
    press("P")
    qtbot.waitUntil(lambda: window.bridge.trainer.position >= 3)
    name = window.bridge.source.name
    asked = []

    def question(parent, title, text, *args, **kwargs):
        before = window.bridge.trainer.position
        qtbot.wait(400)  # the question's own event loop turns meanwhile, as it waits for an answer
        asked.append((window.playback.playing, before, window.bridge.trainer.position))
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    (tmp_path / "other.txt").write_text("other words", encoding="utf-8")
    dialogs.open_path = str(tmp_path / "other.txt")
    press("Ctrl+O")
    qtbot.waitUntil(lambda: bool(asked))
    playing, before, after = asked[0]
    assert not playing and before == after
    wait_idle(qtbot, window)
    assert window.bridge.source.name == name and window.bridge.trainer.position == after
    assert not window.playback.playing and "*" in window.windowTitle()  # kept, still unsaved


def test_an_open_that_fails_after_stopping_a_run_is_titled_as_a_refusal_and_says_the_run_stopped(
    qtbot, make_window, dialogs, monkeypatch, tmp_path
):
    """Ctrl+O during a run, Discard, and a file that cannot be opened: the dialog was titled
    "Opening broken.json" (a refusal before the job is titled "Cannot open …"), and nothing
    said that the run had been stopped for it."""
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    window.bridge.step_pair(window.bridge.trainer.top_pairs(3)[2].pair)  # picked by hand: work to save
    gate = Gate()
    trainer = window.bridge.trainer
    run = trainer.run

    def held_run(**options):
        gate.hold()
        return run(**options)

    monkeypatch.setattr(trainer, "run", held_run)
    window.bridge.run(merges=500)
    assert gate.reached.wait(10)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    dialogs.open_path = str(broken)
    press("Ctrl+O")  # the run is cancelled first, then the question is asked
    gate.release.set()
    qtbot.waitUntil(lambda: any(kind == "question" for kind, _, _ in dialogs.shown))
    wait_idle(qtbot, window)
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "Cannot open broken.json") and "is not valid JSON" in text
    assert window.bridge.trainer is trainer
    assert window.status.message.text() == f"Running merges stopped at step {trainer.position:,}"
    stopped_at = trainer.position
    press("Space")  # the keys are back on the session kept
    assert trainer.position == stopped_at + 1


@pytest.mark.parametrize("keys", ["Ctrl+G", "Ctrl+,"])
def test_play_is_held_while_a_dialog_asks_and_goes_on_once_it_is_closed(qtbot, make_window, keys):
    """Play merged on under Go to step (whose range and default were then out of date) and under
    Settings: a dialog's question is about the step it opened at."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialog

    from tests.gui_helpers import ModalAnswerer

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    window.playback.set_speed(50)
    press("P")
    qtbot.waitUntil(lambda: window.bridge.trainer.position >= 2)
    seen = []

    def look_and_close(dialog) -> None:
        before = window.bridge.trainer.position
        qtbot.wait(400)  # the dialog's own event loop turns meanwhile
        seen.append((before, window.bridge.trainer.position, window.playback.playing))
        QTest.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Escape)

    answerer = ModalAnswerer(QDialog, look_and_close)
    press(keys)
    qtbot.waitUntil(lambda: bool(seen))
    answerer.stop()
    before, after, playing = seen[0]
    assert before == after and playing  # held, not stopped
    qtbot.waitUntil(lambda: window.bridge.trainer.position > after)  # and on it goes
    press("P")
    assert not window.playback.playing
