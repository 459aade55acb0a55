"""Background jobs: long engine work (runs, far jumps, loading) off the GUI thread.

A job runs one Python callable in a ``QThread``. The callable receives ``progress(done, total)``
and ``cancelled()``; progress reaches the GUI throttled. The outcome is kept on the job and read
when Qt's ``finished`` signal arrives (queued, on the GUI thread): by then the thread is over,
so reading it never waits. A finished job lets go of its work and result (``release``), so an
old trainer is never kept alive by a job object Qt has not deleted yet.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from enum import Enum
from typing import Any

from PySide6.QtCore import QThread, Signal

from app.guard import guard_overrides
from bpe_core.errors import BpeError, Cancelled

Work = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]


class Outcome(Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@guard_overrides
class Job(QThread):
    """One unit of background work with progress and cancel.

    With ``discard_on_cancel`` (loading), a Cancel that arrives while the work is finishing
    still counts: the result is dropped, so the current session stays. Without it (runs,
    jumps), cancelled work ends early but consistently and its result counts.
    """

    sig_progressed = Signal(int, int)
    """Emitted with (done, total), at most every 50 ms, but always when the total changes (a
    new phase: ``total`` 0 says its length is not known)."""

    def __init__(self, title: str, work: Work, discard_on_cancel: bool = False) -> None:
        super().__init__()
        self.title = title
        self.started_at = time.monotonic()
        self.outcome: Outcome | None = None
        self.result: Any = None
        self.message = ""  # one sentence for the user when the work failed
        self.error_details = ""
        self._work: Work | None = work
        self._discard_on_cancel = discard_on_cancel
        self._cancel = threading.Event()
        self._last_report = 0.0
        self._last_total = -1

    def cancel(self) -> None:
        self._cancel.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def release(self) -> None:
        """Drop the work and its result (after the outcome has been handled)."""
        self._work = None
        self.result = None

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last_report >= 0.05 or total != self._last_total:
            self._last_report, self._last_total = now, total
            self.sig_progressed.emit(done, total)

    def run(self) -> None:  # Qt override, runs in the worker thread
        work, self._work = self._work, None
        if work is None:
            return
        try:
            result = work(self._progress, self.is_cancelled)
        except Cancelled:
            self.outcome = Outcome.CANCELLED
        except BpeError as error:
            self.outcome, self.message = Outcome.FAILED, str(error)
        except MemoryError:
            self.outcome, self.message = Outcome.FAILED, "There is not enough memory for this corpus."
        except Exception as error:  # reported to the user with details; never lost silently
            self.error_details = traceback.format_exc()
            self.outcome, self.message = Outcome.FAILED, f"Unexpected error: {error}."
        else:
            if self._discard_on_cancel and self.is_cancelled():
                self.outcome = Outcome.CANCELLED
            else:
                self.outcome, self.result = Outcome.SUCCEEDED, result
        del work  # the closure may hold a whole trainer: let it go here, off the GUI thread
