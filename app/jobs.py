"""Background jobs: long engine work (runs, far jumps, loading) off the GUI thread.

A job runs one Python callable in a ``QThread``. The callable receives ``progress(done, total)``
and ``cancelled()``; progress reaches the GUI throttled, and the result (or a failure message)
arrives through queued signals, so receivers always run on the GUI thread.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QThread, Signal

from bpe_core.errors import BpeError

Work = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]


class Cancelled(Exception):
    """Raised inside a job's work to stop it early (e.g. loading a corpus)."""


class Job(QThread):
    """One unit of background work with progress and cancel."""

    sig_progressed = Signal(int, int)
    """Emitted with (done, total), at most every 50 ms."""
    sig_succeeded = Signal(object)
    """Emitted with the work's return value."""
    sig_failed = Signal(str)
    """Emitted with one sentence for the user when the work raised."""
    sig_cancelled = Signal()
    """Emitted when the work stopped because cancel was requested."""

    def __init__(self, title: str, work: Work, parent=None) -> None:
        super().__init__(parent)
        self.title = title
        self._work = work
        self._cancel = threading.Event()
        self._last_report = 0.0
        self.error_details = ""

    def cancel(self) -> None:
        self._cancel.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last_report >= 0.05:
            self._last_report = now
            self.sig_progressed.emit(done, total)

    def run(self) -> None:  # Qt override, runs in the worker thread
        try:
            result = self._work(self._progress, self.is_cancelled)
        except Cancelled:
            self.sig_cancelled.emit()
        except BpeError as error:
            self.sig_failed.emit(str(error))
        except MemoryError:
            self.sig_failed.emit("There is not enough memory for this corpus.")
        except Exception as error:  # reported to the user with details; never lost silently
            self.error_details = traceback.format_exc()
            self.sig_failed.emit(f"Unexpected error: {error}.")
        else:
            self.sig_succeeded.emit(result)  # a run that was cancelled still ends consistently
