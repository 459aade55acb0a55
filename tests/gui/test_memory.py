"""After a background job the window hands the memory its thread freed back to the system."""

from app import bridge as bridge_module
from app import memory
from app.bridge import Bridge
from app.gui import sample_trainer


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


def test_asking_the_allocator_is_harmless_wherever_it_runs():
    assert memory.release_free_memory() in (True, False)
