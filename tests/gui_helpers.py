"""Fixtures for the GUI tests: fresh windows with private settings, and recorded dialogs."""

import gc
import time

import pytest
import shiboken6
from PySide6.QtCore import QEvent, QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from app import guard
from app.collector import restore_automatic_collection
from app.dialogs.text_dialog import TextDialog
from app.gui import sample_trainer
from app.main_window import MainWindow
from app.models.corpus_model import SEGMENTATION, TOKENS_ROLE
from app.samples import SAMPLES
from bpe_core import Corpus, PipelineConfig
from tests.helpers import recount


class Dialogs:
    """Stands in for QMessageBox / QFileDialog: records what was shown, answers as told."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str, str]] = []
        self.defaults: list[object] = []  # each question's default button, if it named one
        self.answer = QMessageBox.StandardButton.Discard
        self.open_path = ""
        self.save_path = ""
        self.text = ""

    def _record(self, kind):
        def show(parent, title, text, *args, **kwargs):
            self.shown.append((kind, title, text))
            self.defaults.append(args[1] if len(args) > 1 else kwargs.get("defaultButton"))
            return self.answer if kind == "question" else QMessageBox.StandardButton.Ok

        return show

    @property
    def messages(self) -> list[str]:
        return [text for _, _, text in self.shown]


@pytest.fixture(autouse=True)
def automatic_collection_afterwards():
    """A window collects garbage on its own timer (app.collector); the next test starts with
    Python's automatic collection back on."""
    yield
    restore_automatic_collection()


@pytest.fixture
def dialogs(monkeypatch) -> Dialogs:
    recorded = Dialogs()
    for kind in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(recorded._record(kind)))
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (recorded.open_path, ""))
    )
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (recorded.save_path, ""))
    )
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: recorded.open_path))
    monkeypatch.setattr("app.files.ask_text", lambda *a, **k: (recorded.text, True))
    return recorded


def sample(name_part: str):
    return next(s for s in SAMPLES if name_part in s.name)


@pytest.fixture
def make_window(qtbot, tmp_path, dialogs):
    """make_window(sample name part) -> a shown MainWindow with its own settings file."""
    windows = []
    guard._reporter = None  # each test's windows hear only their own internal errors

    def make(name_part: str = "low · lower", settings_file: str | None = None):
        settings_path = tmp_path / (settings_file or f"settings{len(windows)}.ini")
        settings = QSettings(str(settings_path), QSettings.Format.IniFormat)
        window = MainWindow(sample_trainer(sample(name_part)), settings=settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        delete_window(window)
    windows.clear()


def delete_window(window) -> None:
    """Close and delete a window now, on this thread, and collect what referred to it. Left to
    Python's cyclic collector, it could be collected on a worker thread of a later test, and
    PySide would then delete it in the middle of whatever the GUI thread is doing."""
    if not shiboken6.isValid(window):  # pytest-qt closed and deleted it already
        gc.collect()
        return
    window.bridge.shutdown()
    window.bridge.dirty = False
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    gc.collect()


def wait_idle(qtbot, window, timeout=60_000) -> None:
    """Until no background job runs, nor starts from what the last one queued (a run resumed
    after an Ask-me answer), and its outcome has been announced."""
    while True:
        qtbot.waitUntil(lambda: not window.bridge.busy, timeout=timeout)
        QApplication.processEvents()
        if not window.bridge.busy:
            return


class ModalAnswerer:
    """Answers every modal dialog of a given class as it appears (a repeating timer), as a
    user would: ``answer(dialog)`` clicks something in it."""

    def __init__(self, kind, answer) -> None:
        self.seen: list = []
        shown: list = []  # polls that found the dialog before the keys had reached it

        def poll() -> None:
            dialog = QApplication.activeModalWidget()
            if not (isinstance(dialog, kind) and dialog.isVisible() and dialog not in self.seen):
                return
            # As a user, once the dialog has the keys: answered at the first poll after its
            # showing, a key typed into "whatever has the focus" went elsewhere, and the dialog
            # waited for ever (on a loaded machine). Ten polls on, it is answered regardless.
            focus = QApplication.focusWidget()
            has_keys = focus is not None and (focus is dialog or dialog.isAncestorOf(focus))
            if not has_keys and len(shown) < 10:
                shown.append(dialog)
                return
            shown.clear()
            self.seen.append(dialog)
            answer(dialog)

        self._timer = QTimer(interval=20)
        self._timer.timeout.connect(poll)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()


def assert_panes_agree_with_core(window) -> None:
    trainer = window.bridge.trainer
    corpus = window.corpus_pane.model
    assert corpus.rowCount() == trainer.word_count
    for row in range(min(corpus.rowCount(), 50)):
        w = corpus.word_index(row)
        shown = corpus.index(row, SEGMENTATION).data(TOKENS_ROLE)
        expected = [trainer.token_string(t) for t in trainer.segmentation(w)]
        assert ["".join(part) for part in shown] == expected
    pairs = window.pairs_pane.model
    ranked = trainer.top_pairs(pairs.rowCount())
    assert [pairs.pair_at(r) for r in range(pairs.rowCount())] == [p.pair for p in ranked]
    assert window.vocab_pane.model.rowCount() == trainer.vocab_size
    merges = window.merges_pane.model
    assert merges.rowCount() == len(trainer.history) and merges.position == trainer.position
    encode = window.encode_pane
    qt_wait_until(encode.is_current)
    expected_encoding = trainer.encoder().encode(encode.input.toPlainText())
    assert encode.encoding.ids == expected_encoding.ids and encode.encoding.spans == expected_encoding.spans
    assert all(cursor.value() == trainer.position for cursor in window.plots_pane.cursors)
    assert window.status.labels["step"].text() == f"Step {trainer.position:,} of {len(trainer.history):,}"
    assert window.status.labels["vocab"].text() == f"Vocabulary {trainer.vocab_size:,}"
    qt_wait_until(lambda: not window.history_pane._timer.isActive())
    lanes = window.history_pane.graph.lanes
    assert sorted(lanes, key=lambda b: b.id) == sorted(trainer.branches(), key=lambda b: b.id)
    pair_counts, _, total = recount(trainer)
    assert trainer.pair_counts() == dict(pair_counts) and trainer.corpus_tokens == total


def qt_wait_until(condition, timeout_ms=5000) -> None:
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        QApplication.processEvents()
        assert time.monotonic() < deadline, "condition not met in time"


def drop_file(window, path, at=(300, 300)) -> None:
    """Drag a file (or a list of files) over the window and drop it, as the platform delivers
    it (drag enter, then drop, to the window under the pointer)."""
    from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(one)) for one in (path if isinstance(path, list) else [path])])
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    handle = window.windowHandle()
    enter = QDragEnterEvent(QPoint(*at), Qt.DropAction.CopyAction, data, buttons, modifiers)
    QApplication.sendEvent(handle, enter)
    QApplication.sendEvent(
        handle, QDropEvent(QPointF(*at), Qt.DropAction.CopyAction, data, buttons, modifiers)
    )


def press(keys: str) -> None:
    """Type a key sequence ("Ctrl+Shift+Z", "Space") into whatever has the keyboard focus."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest

    combination = QKeySequence(keys)[0]
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard focus"
    QTest.keyClick(widget, combination.key(), combination.keyboardModifiers())


def open_corpus_by_keys(qtbot, window, dialogs, path, text: str) -> None:
    """Write ``text`` to ``path`` and open it as the corpus by Ctrl+O, as a user would, the
    file dialog answering ``path``; returns once it is counted."""
    path.write_text(text, encoding="utf-8")
    dialogs.open_path = str(path)
    press("Ctrl+O")
    qtbot.waitUntil(lambda: window.bridge.source.name == path.name)
    wait_idle(qtbot, window)


def tied_corpus(n: int = 60) -> Corpus:
    """``n`` two-symbol words, each twice: ``n`` pairs tied at 2. First-seen order runs from the
    highest code points down, so hf's pick (the smallest ids) is the very last in it."""
    words = [chr(0x4E00 + 2 * i) + chr(0x4E01 + 2 * i) for i in reversed(range(n))]
    return Corpus.from_text(" ".join(words * 2), PipelineConfig(end_of_word=None))


def fresh_focus(qtbot, window) -> None:
    """A freshly opened window, active, its focus wherever it put it."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None and window.isActiveWindow())


def run_app_process(args: list[str], home, **environment: str):
    """Run Python (``-m app …`` or ``-c SCRIPT …``) from the repository, offscreen, with
    ``home`` as its home and XDG folders: it never writes into the user's own settings or logs."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    folders = {name: str(home) for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
    env = {**os.environ, **folders, "QT_QPA_PLATFORM": "offscreen", **environment}
    return subprocess.run(
        [sys.executable, *args],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def read_shortcuts(close_key: Qt.Key | None = None) -> tuple[ModalAnswerer, list]:
    """Answers the Keyboard shortcuts dialog once shown: (title, text, the dialog), then the key."""
    shown: list = []

    def read_and_close(dialog: TextDialog) -> None:
        shown.append((dialog.windowTitle(), dialog.browser.toPlainText(), dialog))
        QTest.keyClick(QApplication.focusWidget() or dialog, close_key or Qt.Key.Key_Escape)

    return ModalAnswerer(TextDialog, read_and_close), shown
