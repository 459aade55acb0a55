"""The window has the next merge and undo worked out once it is still: after each step, undo
and redo sent as keys to a fresh window, the index soon works out the merge that the next step
or redo makes and the next undo; each takes its own, and so does a run in the background, and
each leaves the state a plain trainer reaches."""

from unittest.mock import patch

import pytest
from PySide6.QtCore import Qt

from app.dialogs.run_dialog import RunDialog
from bpe_core import Trainer
from bpe_core.training import flat_index
from bpe_core.training.answers import pair_key
from tests.gui_helpers import ModalAnswerer, assert_panes_agree_with_core, fresh_focus, press, wait_idle
from tests.helpers import counted_takes, snapshot


@pytest.fixture(autouse=True)
def every_merge_worked_out_ahead():
    with patch.object(flat_index, "PREPARED", 0):  # the sample's merges are all small
        yield


def worked_out_ahead(window) -> str | None:
    """The merge the index works out ahead (and has not dropped)."""
    asked = [ahead.key for ahead in window.bridge.trainer._index._ahead if not ahead.stop.is_set()]
    return next((key for key in asked if isinstance(key, str)), None)


def wait_ahead(qtbot, window, pair: str) -> None:
    """Until the index works out ``pair`` ahead, and all its work ahead is done (a merge takes
    its own only once at least half of it is)."""
    index = window.bridge.trainer._index
    qtbot.waitUntil(
        lambda: worked_out_ahead(window) == pair and all(ahead.work.done() for ahead in index._ahead)
    )


def test_keys_in_a_fresh_window_take_the_work_done_ahead(qtbot, make_window):
    taken, counted = counted_takes()
    with patch.object(flat_index.FlatIndex, "_prepared", counted):
        take_the_merges_worked_out_ahead(qtbot, make_window, taken)


def next_merge(trainer: Trainer) -> str | None:
    """The merge the next step or redo makes: the line's next, else the rule's pick."""
    return pair_key(trainer.record(trainer.position + 1).pair) if trainer.can_redo else trainer._queue.best()


def take_the_merges_worked_out_ahead(qtbot, make_window, taken: list[str]) -> None:
    window = make_window("Shakespeare")
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    trainer = window.bridge.trainer
    plain = Trainer(trainer.corpus, trainer.training)
    wait_ahead(qtbot, window, next_merge(trainer))  # since the window opened
    for keys, action, took in (
        ("Right", plain.step, "merge"),
        ("Right", plain.step, "merge"),
        ("Ctrl+Z", plain.undo, "undo"),
        ("Space", plain.step, "merge"),  # the line's next merge, as redo's
        ("Ctrl+Z", plain.undo, "undo"),
        ("Ctrl+Z", plain.undo, "undo"),
        ("Ctrl+Shift+Z", plain.redo, "merge"),
    ):
        taken.clear()
        press(keys)
        wait_idle(qtbot, window)
        action()
        assert snapshot(trainer) == snapshot(plain) and taken == [took], keys
        wait_ahead(qtbot, window, next_merge(trainer))
    press("Right")  # at once: the next merge may be worked out ahead or not
    press("Right")
    wait_idle(qtbot, window)
    plain.step()
    plain.step()
    assert snapshot(trainer) == snapshot(plain)
    wait_ahead(qtbot, window, next_merge(trainer))
    taken.clear()

    def run_twenty(dialog: RunDialog) -> None:
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        QTest.keyClicks(QApplication.focusWidget(), "20")
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)

    answerer = ModalAnswerer(RunDialog, run_twenty)
    press("Ctrl+R")  # a job, its first merge the one worked out ahead
    wait_idle(qtbot, window)
    answerer.stop()
    plain.run(merges=20)
    assert snapshot(trainer) == snapshot(plain) and taken == ["merge"]  # the run's first merge
    wait_ahead(qtbot, window, next_merge(trainer))  # asked again once the job ended
    press("Right")
    wait_idle(qtbot, window)
    plain.step()
    assert snapshot(trainer) == snapshot(plain) and trainer.history == plain.history
    assert taken == ["merge", "merge"]
    assert_panes_agree_with_core(window)
