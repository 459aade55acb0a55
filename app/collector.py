"""Cyclic garbage collection on the GUI thread only.

Python's collector runs on whichever thread allocates past its threshold. Run on a background
job's thread, it may free a reference cycle that holds a Qt object, and PySide then destroys
that object on the job's thread. That deadlocks against the GUI thread (seen in the stress
test: the job's thread held the object's lock while waiting for the GIL; the GUI thread held
the GIL while waiting for that lock). So while the window lives, automatic collection is off,
and a timer on the GUI thread collects instead, as pyqtgraph's ``GarbageCollector`` does.
Nothing is lost: reference counting still frees everything not in a cycle at once.

A collection of the oldest generation walks every container the engine keeps: with millions of
word types that takes 50 ms or more, a visible hitch in the middle of stepping. So it waits for
a pause: until no change was announced (:func:`note_activity`) for ``QUIET_SECONDS``, or for at
most ``LONGEST_WAIT_SECONDS`` while changes keep coming, so that cycles are still freed.

A pause is also when the memory the steps freed is handed back to the system: an early step on
millions of word types makes and frees tens of megabytes of passing arrays, which the C library
otherwise keeps inside its heap (two hundred such steps left 220 MB so held; handing it back
took 15 ms).
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from bpe_core.runtime.memory import release_free_memory

INTERVAL_MS = 500
QUIET_SECONDS = 1.0  # no change announced for this long: the user has paused
LONGEST_WAIT_SECONDS = 60.0  # a full collection is never put off longer than this

_collector: _GuiThreadCollector | None = None


class _GuiThreadCollector(QObject):
    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self.last_activity = float("-inf")
        self._last_full = time.monotonic()
        self._released = float("-inf")  # when free memory was last handed back
        gc.disable()
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self._on_tick)
        self._timer.start()

    def _on_tick(self) -> None:
        self.collect()
        now = time.monotonic()
        if self._released < self.last_activity <= now - QUIET_SECONDS:  # once a pause
            self._released = now
            release_free_memory()

    def collect(self) -> None:
        """What the automatic collector would do now: the youngest generation over its
        threshold, with the older ones when they are over theirs too."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
        if generation == 2:
            now = time.monotonic()
            if now - self.last_activity < QUIET_SECONDS and now - self._last_full < LONGEST_WAIT_SECONDS:
                generation = 1  # the full one on a later tick, once stepping pauses
            else:
                self._last_full = now
        gc.collect(generation)

    def restore(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def collect_on_gui_thread() -> None:
    """Switch automatic collection to the GUI thread (idempotent; needs the application)."""
    global _collector
    app = QCoreApplication.instance()
    if _collector is None and app is not None:
        _collector = _GuiThreadCollector(app)


def note_activity() -> None:
    """The window changed (a step, an undo, a new order of the Corpus pane's rows): a full
    collection waits for a pause, and so does handing back the memory that work freed."""
    if _collector is not None:
        _collector.last_activity = time.monotonic()


def restore_automatic_collection() -> None:
    """Undo :func:`collect_on_gui_thread` (tests, between windows), after a last collection."""
    global _collector
    if _collector is not None:
        _collector.restore()
        _collector.deleteLater()
        _collector = None
        gc.collect()
