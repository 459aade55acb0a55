"""Defence in depth and hygiene: an exception wherever Qt calls Python never ends the process;
no thread, job, cache or collector pause outlives its purpose."""

import gc
import os
import textwrap
import threading
import weakref
from importlib import import_module
from pathlib import Path
from pkgutil import walk_packages

import pytest
from PySide6.QtCore import QObject, QSettings, QThread

import app
from app import guard
from app.gui import sample_trainer
from app.main_window import MainWindow
from app.panes.encode_pane import BACKGROUND_CHARS
from bpe_core.encoding.encoder import CACHED_POSITIONS
from bpe_core.runtime import gc_pause
from tests.gui_helpers import delete_window, fresh_focus, run_app_process, sample, wait_idle

REPO = Path(__file__).resolve().parents[2]


def our_qt_classes() -> list[type]:
    classes = []
    for module_info in walk_packages(app.__path__, "app."):
        if module_info.name in ("app.__main__",):
            continue
        module = import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == module.__name__ and issubclass(value, QObject):
                classes.append(value)
    return classes


def test_every_qt_override_of_ours_is_guarded():
    classes = our_qt_classes()
    assert len(classes) > 15
    unguarded = [
        f"{cls.__qualname__}.{name}"
        for cls in classes
        for name in guard.overrides(cls)
        if not getattr(vars(cls)[name], "__bpe_guarded__", False)
    ]
    assert not unguarded
    overridden = {name for cls in classes for name in guard.overrides(cls)}
    assert {"data", "headerData", "paint", "sizeHint", "eventFilter", "paintEvent", "dropEvent"} <= overridden


SCRIPT = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    app = QApplication([])

    from PySide6.QtCore import QSettings
    from app import gui, guard
    from app.delegates import chips
    from app.main_window import MainWindow
    from app.models.corpus_model import SEGMENTATION
    from app.models.pair_model import PairModel
    from tests.gui_helpers import drop_file

    settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
    window = MainWindow(gui.sample_trainer(), settings=settings)
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    window.bridge.run(merges=5)
    while window.bridge.busy:
        app.processEvents()
    sys.excepthook = gui.report_uncaught

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    class Exploding(tuple):
        def __getitem__(self, i):
            raise RuntimeError("boom")

    kinds = {}

    def attempt(kind, action):
        before = guard.reporter().count
        action()
        app.processEvents()
        kinds[kind] = guard.reporter().count - before

    PairModel._shown = boom  # data()
    attempt("data", lambda: window.pairs_pane.view.viewport().repaint())
    window.vocab_pane.model.HEADERS = Exploding(window.vocab_pane.model.HEADERS)  # headerData()
    attempt("headerData", lambda: window.vocab_pane.view.horizontalHeader().viewport().repaint())
    chips.ChipDelegate._render = boom  # paint(), once the rendered chips are no longer cached
    window.corpus_pane.view.itemDelegateForColumn(SEGMENTATION)._cache.clear()
    attempt("paint", lambda: window.corpus_pane.view.viewport().repaint())
    chips.QFontMetricsF = boom  # sizeHint()
    attempt("sizeHint", lambda: window.corpus_pane.view.sizeHintForColumn(SEGMENTATION))
    window.status.labels["step"].palette = boom  # paintEvent()
    attempt("paintEvent", lambda: window.status.labels["step"].repaint())
    window.pairs_pane.merge_selected = boom  # eventFilter()
    attempt("eventFilter", lambda: QTest.keyClick(window.pairs_pane.view, Qt.Key.Key_Return))
    window.open_path = boom  # dropEvent()
    attempt("dropEvent", lambda: drop_file(window, "/nonexistent.txt"))
    window.bridge.sig_change.connect(boom)  # a slot
    attempt("slot", window.bridge.step)
    attempt("timer", lambda: QTimer.singleShot(0, boom) or app.processEvents())

    # Still alive, still working.
    position = window.bridge.trainer.position
    window.bridge.step()
    assert window.bridge.trainer.position == position + 1
    print("survived", sorted(kind for kind, count in kinds.items() if count > 0), guard.reporter().count)
    window.bridge.dirty = False
    """
)


def test_an_exception_in_each_kind_of_override_is_contained_and_the_process_lives(tmp_path):
    result = run_app_process(["-c", SCRIPT, str(tmp_path / "settings.ini")], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("survived"))
    for kind in ("data", "headerData", "paint", "sizeHint", "paintEvent", "eventFilter", "dropEvent", "slot"):
        assert f"'{kind}'" in line, line
    assert "Internal error in" in result.stderr  # logged with its traceback


def python_threads() -> list[threading.Thread]:
    """Threads started from Python (Qt's threads appear as never-ending dummies: left out)."""
    return [
        t
        for t in threading.enumerate()
        if t is not threading.main_thread() and t.is_alive() and not isinstance(t, threading._DummyThread)
    ]


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def test_ten_sessions_opened_trained_and_closed_leave_no_memory_or_threads(qtbot, tmp_path, dialogs):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(sample("Shakespeare").text() * 3, encoding="utf-8")
    memory, threads = [], []
    others = set(python_threads())  # other libraries' threads (tqdm's monitor, say)
    for _ in range(10):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(sample_trainer(sample("low · lower")), settings=settings)
        window.show()
        window.open_path(corpus)
        wait_idle(qtbot, window)
        window.bridge.run(merges=400)
        wait_idle(qtbot, window)
        window.encode_pane.input.setPlainText("the lowest " * (BACKGROUND_CHARS // 10))  # in the background
        window.encode_pane.encode_now()
        window.bridge.goto(0)  # a far jump: a second job
        wait_idle(qtbot, window)
        delete_window(window)
        del window
        memory.append(_rss_mb())
        threads.append(os_threads())
        assert set(python_threads()) <= others
    assert max(memory[1:]) <= memory[0] * 1.10, memory
    assert max(threads[1:]) <= threads[0], threads  # Qt's own threads start once; ours never stay
    assert not [o for o in gc.get_objects() if isinstance(o, QThread)]


def _rss_mb() -> float:
    with open("/proc/self/statm") as stream:
        return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_finished_jobs_let_go_of_the_trainer_they_worked_on(qtbot, make_window):
    window = make_window("Shakespeare")
    for _ in range(8):
        window.bridge.run(merges=20)
        wait_idle(qtbot, window)
    old = weakref.ref(window.bridge.trainer)
    window.open_sample(sample("FRED"))
    wait_idle(qtbot, window)
    qtbot.wait(20)  # deleteLater
    gc.collect()
    assert old() is None


def test_the_collector_pause_nests_and_never_happens_on_a_worker_thread():
    assert gc.isenabled()
    with gc_pause.gc_paused():
        assert not gc.isenabled()
        with gc_pause.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not switch it back on
    assert gc.isenabled()
    seen = []
    worker = threading.Thread(target=lambda: gc_pause.gc_paused().__enter__() or seen.append(gc.isenabled()))
    worker.start()
    worker.join()
    assert seen == [True] and gc.isenabled()


def test_cycles_are_collected_on_the_gui_thread_never_on_a_jobs_thread(qtbot, make_window):
    # A collection on a job's thread can destroy a Qt object there and deadlock the window
    # (seen in the stress test); while a window lives, only the GUI thread collects.
    window = make_window("Shakespeare")
    collected_on = []

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            collected_on.append(threading.current_thread())

    for _ in range(3):
        Cycle()
        window.bridge.run(merges=300)
        while window.bridge.busy:
            assert not gc.isenabled()  # nothing collects on the job's thread
            qtbot.wait(1)
    qtbot.waitUntil(lambda: len(collected_on) == 3, timeout=5_000)  # the GUI thread's timer
    assert all(thread is threading.main_thread() for thread in collected_on)


def test_the_encoders_per_step_caches_are_bounded(qtbot, make_window):
    window = make_window("Shakespeare")
    window.bridge.run(merges=320)
    wait_idle(qtbot, window)
    pane = window.encode_pane
    for _ in range(300):
        window.bridge.undo()
        pane.encode_now()
    assert len(window.bridge.encoder()._cache) <= CACHED_POSITIONS


def test_the_encode_pane_uses_one_cancellable_worker(qtbot, make_window):
    window = make_window("Shakespeare")
    pane = window.encode_pane
    long_text = "Before we proceed any further, hear me speak. " * (BACKGROUND_CHARS // 40)
    running, most, lock = [0], [0], threading.Lock()
    submit = pane._worker.submit

    def counted_submit(generation, task):
        def counted(cancelled):
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            try:
                return task(cancelled)
            finally:
                with lock:
                    running[0] -= 1

        submit(generation, counted)

    pane._worker.submit = counted_submit
    for i in range(12):  # twelve edits in a row, each past the debounce
        pane.input.setPlainText(long_text + str(i))
        pane.encode_now()
    qtbot.waitUntil(pane.is_current, timeout=20_000)
    # One encoding at a time: a new request cancels the one running (a busy host may let one
    # finish between two edits, and the worker's thread end and start again).
    assert most[0] == 1
    assert pane.encoding is not None and pane._encoded_text.endswith("11")
    qtbot.waitUntil(lambda: not pane._worker.running)


@pytest.mark.parametrize("twice", [False, True])
def test_closing_stops_the_background_encoder(qtbot, make_window, twice):
    window = make_window("Shakespeare")
    window.encode_pane.input.setPlainText("x " * BACKGROUND_CHARS)
    window.encode_pane.encode_now()
    if twice:
        window.encode_pane.input.setPlainText("y " * BACKGROUND_CHARS)
        window.encode_pane.encode_now()
    window.bridge.dirty = False
    window.close()
    assert not window.encode_pane._worker.running


def test_command_keys_pressed_during_a_job_do_not_fall_through_to_the_focused_widget(qtbot, make_window):
    """Found by hand: while "Check every rule" ran, ← moved the focus to "Ties only" and Space
    ticked it (Step and Undo, disabled, let their keys through). The arrows now move no focus,
    Space ticks only the box the user moved to (twice here: as it was), typing still types."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    window = make_window("Shakespeare")
    pane = window.merges_pane
    fresh_focus(qtbot, window)
    window.bridge.run(merges=100_000, min_frequency=1)  # long enough to press keys during
    qtbot.waitUntil(lambda: window.bridge.busy)
    pane.ties_only.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.ties_only)
    for key in (Qt.Key.Key_Space, Qt.Key.Key_Left, Qt.Key.Key_Space, Qt.Key.Key_Right):
        QTest.keyClick(QApplication.focusWidget(), key)
    assert window.bridge.busy and QApplication.focusWidget() is pane.ties_only
    assert not pane.ties_only.isChecked()
    pane.search.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.search)
    QTest.keyClicks(pane.search, "a b")
    assert pane.search.text() == "a b"
    window.status.cancel_button.click()
    wait_idle(qtbot, window)
    pane.ties_only.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.ties_only)
    position = window.bridge.trainer.position
    QTest.keyClick(pane.ties_only, Qt.Key.Key_Space)  # the box's key, busy or not: it ticks it
    assert pane.ties_only.isChecked() and window.bridge.trainer.position == position
