"""Play/Pause: steps at a chosen speed, stopping at the end, at a tie in Ask-me mode, or when a
background job starts; held while a modal dialog is open (Go to step, Settings, a question), so
that what the dialog shows and asks about stays still until it is answered."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication

from app.bridge import Bridge


class Playback(QObject):
    sig_playing_changed = Signal(bool)
    """Playback started (True) or stopped (False)."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.interrupted_by_tie = False  # paused at a tie in Ask-me mode: resumes once decided
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self.set_speed(4)
        bridge.sig_busy_changed.connect(lambda busy: self.pause() if busy else None)
        bridge.sig_tie_reached.connect(self._on_tie)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def set_speed(self, steps_per_second: float) -> None:
        self._timer.setInterval(max(1, int(1000 / steps_per_second)))

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        if not self.playing and not self._bridge.busy:
            self._timer.start()
            self.sig_playing_changed.emit(True)

    def pause(self) -> None:
        if self.playing:
            self._timer.stop()
            self.sig_playing_changed.emit(False)

    def _on_tie(self) -> None:
        if self.playing:
            self.interrupted_by_tie = True
            self.pause()

    def _tick(self) -> None:
        if QApplication.activeModalWidget() is not None:
            return  # held: its range, its question, its choices are of the step it opened at
        if not self._bridge.step():
            self.pause()
