"""One background thread for encoding long texts: a new request cancels the one in progress.

Typing in a long text would otherwise start a thread per pause, each encoding a text already
out of date. The thread exists only while there is work, so nothing is left running when the
window closes (``stop`` also waits for it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.guard import reporter
from bpe_core.errors import Cancelled

Task = Callable[[Callable[[], bool]], Any]  # task(cancelled) -> result


class EncodeWorker(QObject):
    sig_done = Signal(int, object)
    """A request finished: (its generation, its result), delivered on the GUI thread."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._request: tuple[int, Task] | None = None
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def submit(self, generation: int, task: Task) -> None:
        """Run ``task`` next, cancelling the one running (its result is never delivered)."""
        with self._lock:
            self._request = (generation, task)
            self._cancel.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="bpe-studio-encode", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Cancel everything and wait for the thread to end."""
        with self._lock:
            self._request = None
            self._cancel.set()
            thread = self._thread
        if thread is not None:
            thread.join()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def _serve(self) -> None:
        while True:
            with self._lock:
                request, self._request = self._request, None
                if request is None:
                    self._thread = None
                    return
                self._cancel.clear()
            generation, task = request
            try:
                result = task(self._cancel.is_set)
            except Cancelled:
                continue
            except Exception as error:  # a thread's exception would otherwise vanish
                reporter().report("EncodeWorker", error)
                continue
            if not self._cancel.is_set():
                self.sig_done.emit(generation, result)
