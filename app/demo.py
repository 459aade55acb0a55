"""A window staged mid-training, as the README screenshot and the screenshot test show it."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer

from app.main_window import MainWindow

DEMO_TEXT = "Before we proceed any further, hear me speak."


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    """Run a local event loop until ``condition()`` holds. A real event loop, not a
    ``processEvents`` spin: only an event loop carries out ``deleteLater``, and jobs rely on it."""
    loop = QEventLoop()
    timer = QTimer(interval=10)
    deadline = time.monotonic() + timeout_s

    def check() -> None:
        if condition() or time.monotonic() > deadline:
            loop.quit()

    timer.timeout.connect(check)
    timer.start()
    if not condition():
        loop.exec()
    timer.stop()
    return condition()


def stage(window: MainWindow, merges: int = 60, undone: int = 5) -> None:
    """Train ``merges`` steps, undo ``undone`` of them, select a pair and encode a sentence."""
    window.bridge.run(merges=merges)
    wait_until(lambda: not window.bridge.busy)
    for _ in range(undone):
        window.bridge.undo()
    window.pairs_pane.view.selectRow(1)
    window.encode_pane.input.setPlainText(DEMO_TEXT)
    wait_until(window.encode_pane.is_current)
    settle = time.monotonic() + 0.2  # the coalesced plot refresh
    wait_until(lambda: time.monotonic() > settle)
