"""The window hands the memory freed by a background job, and by steps once they pause, back to
the system."""

from app import bridge as bridge_module
from app import collector
from app.bridge import Bridge
from app.gui import sample_trainer
from bpe_core.runtime import memory


def test_the_free_pages_are_handed_back_once_a_job_ends(qtbot, monkeypatch):
    released = []
    monkeypatch.setattr(bridge_module, "release_free_memory", lambda: released.append(True))
    bridge = Bridge(sample_trainer())
    bridge.step()
    qtbot.wait(10)
    assert not released  # a step runs no job
    bridge.run(merges=3)
    qtbot.waitUntil(lambda: not bridge.busy)
    qtbot.waitUntil(lambda: bool(released))


def test_the_free_pages_are_handed_back_once_stepping_pauses_and_once_a_pause(qtbot, monkeypatch):
    released = []
    monkeypatch.setattr(collector, "release_free_memory", lambda: released.append(True))
    monkeypatch.setattr(collector, "QUIET_SECONDS", 0.3)
    bridge = Bridge(sample_trainer())
    qtbot.wait(2 * collector.INTERVAL_MS)
    released.clear()  # whatever an earlier test's steps left to hand back
    for _ in range(3):
        bridge.step()
    qtbot.waitUntil(lambda: len(released) == 1, timeout=5000)
    qtbot.wait(3 * collector.INTERVAL_MS)
    assert len(released) == 1  # nothing changed since: nothing more to hand back
    bridge.undo()
    qtbot.waitUntil(lambda: len(released) == 2, timeout=5000)


def test_asking_the_allocator_is_harmless_wherever_it_runs():
    memory.release_free_memory()
