"""A view's refresh, started by each change the bridge announces and run only while no job runs.

Views that read the trainer do it from a :class:`RefreshTimer` or from a slot of
``Bridge.sig_change`` (never emitted while a job runs), so none needs to ask the bridge whether
it is busy before reading.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from app.bridge import Bridge
from app.changes import Change


class RefreshTimer(QTimer):
    """A single-shot timer that calls ``refresh`` ``interval_ms`` after it is started: by each
    :class:`Change` of the bridge that ``wanted`` accepts (all by default), or by the view
    (``start()``, after an edit). It holds a refresh back while a job runs: the Change the bridge
    announces as the job ends starts it again, wanted or not.

    ``throttle``: a change while the timer runs does not restart it, so a view keeps refreshing
    at that pace during fast stepping instead of waiting for the stepping to stop.
    """

    def __init__(
        self,
        bridge: Bridge,
        refresh: Callable[[], object],
        interval_ms: int,
        parent: QObject,
        wanted: Callable[[Change], bool] | None = None,
        throttle: bool = False,
    ) -> None:
        super().__init__(parent, singleShot=True, interval=interval_ms)
        self._bridge = bridge
        self._refresh = refresh
        self._wanted = wanted
        self._throttle = throttle
        self._held = False  # a refresh came due while a job ran
        self.timeout.connect(self._fire)
        bridge.sig_change.connect(self._on_change)

    def _on_change(self, change: Change) -> None:
        if self._held or self._wanted is None or self._wanted(change):
            self._held = False
            if not (self._throttle and self.isActive()):
                self.start()

    def _fire(self) -> None:
        if self._bridge.trainer_busy:
            self._held = True
            return
        self._refresh()
