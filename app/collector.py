"""Cyclic garbage collection on the GUI thread only.

Python's collector runs on whichever thread allocates past its threshold. Run on a background
job's thread, it may free a reference cycle that holds a Qt object, and PySide then destroys
that object on the job's thread. That deadlocks against the GUI thread (seen in the stress
test: the job's thread held the object's lock while waiting for the GIL; the GUI thread held
the GIL while waiting for that lock). So while the window lives, automatic collection is off,
and a timer on the GUI thread collects instead, as pyqtgraph's ``GarbageCollector`` does.
Nothing is lost: reference counting still frees everything not in a cycle at once.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500

_collector: _GuiThreadCollector | None = None


class _GuiThreadCollector(QObject):
    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self, interval=INTERVAL_MS)
        self._timer.timeout.connect(self.collect)
        self._timer.start()

    def collect(self) -> None:
        """What the automatic collector would do now: the youngest generation over its
        threshold, with the older ones when they are over theirs too."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return
        generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
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


def restore_automatic_collection() -> None:
    """Undo :func:`collect_on_gui_thread` (tests, between windows), after a last collection."""
    global _collector
    if _collector is not None:
        _collector.restore()
        _collector.deleteLater()
        _collector = None
        gc.collect()
