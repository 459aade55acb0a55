"""The window's own garbage collector puts a full collection off while the user steps, and
never for long."""

import gc

import pytest

from app import collector
from app.bridge import Bridge
from app.gui import sample_trainer


@pytest.fixture
def running(qtbot, monkeypatch):
    """The GUI thread's collector, with every generation over its threshold and the
    collections it asks for recorded instead of done."""
    collector.collect_on_gui_thread()
    asked: list[int] = []
    monkeypatch.setattr(gc, "get_count", lambda: (10_000, 100, 100))
    monkeypatch.setattr(gc, "collect", lambda generation=2: asked.append(generation))
    yield collector._collector, asked
    monkeypatch.undo()
    collector.restore_automatic_collection()


def test_a_full_collection_waits_for_a_pause_in_the_changes(running, monkeypatch):
    timer, asked = running
    clock = [1000.0]
    monkeypatch.setattr(collector.time, "monotonic", lambda: clock[0])
    timer._last_full = clock[0]
    collector.note_activity()
    timer.collect()
    assert asked == [1]  # changes are coming: the younger generations only
    clock[0] += collector.QUIET_SECONDS + 0.1
    timer.collect()
    assert asked == [1, 2]  # paused: the full one


def test_a_full_collection_is_put_off_no_longer_than_the_longest_wait(running, monkeypatch):
    timer, asked = running
    clock = [1000.0]
    monkeypatch.setattr(collector.time, "monotonic", lambda: clock[0])
    timer._last_full = clock[0]
    clock[0] += collector.LONGEST_WAIT_SECONDS + 1
    collector.note_activity()
    timer.collect()
    assert asked == [2]


def test_every_change_the_bridge_announces_is_activity(running):
    timer, _asked = running
    bridge = Bridge(sample_trainer())
    timer.last_activity = float("-inf")
    bridge.step()
    assert timer.last_activity > float("-inf")
