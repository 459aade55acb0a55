"""The window has the next merge worked out once it is still: after each step, undo and redo
sent as keys to a fresh window, the index soon holds the merge that the next step or redo
makes, the step takes it, and so does a run in the background; each leaves the state a plain
trainer reaches."""

from unittest.mock import patch

import pytest
from PySide6.QtCore import Qt

from app.dialogs.run_dialog import RunDialog
from bpe_core import Trainer
from bpe_core.training import flat_index
from bpe_core.training.answers import pair_key
from tests.gui_helpers import ModalAnswerer, assert_panes_agree_with_core, fresh_focus, press, wait_idle
from tests.helpers import snapshot


@pytest.fixture(autouse=True)
def every_merge_worked_out_ahead():
    with patch.object(flat_index, "PREPARED", 0):  # the sample's merges are all small
        yield


def worked_out_ahead(window) -> str | None:
    ahead = window.bridge.trainer._index._ahead
    return None if ahead is None else ahead.pair


def wait_ahead(qtbot, window, pair: str) -> None:
    qtbot.waitUntil(lambda: worked_out_ahead(window) == pair)


def test_keys_in_a_fresh_window_take_the_merge_worked_out_ahead(qtbot, make_window):
    written = []
    write = flat_index.FlatIndex._write
    with patch.object(
        flat_index.FlatIndex, "_write", lambda index, *args: written.append(write(index, *args))
    ):
        take_the_merges_worked_out_ahead(qtbot, make_window, written)


def next_merge(trainer: Trainer) -> str | None:
    """The merge the next step or redo makes: the line's next, else the rule's pick."""
    return pair_key(trainer.record(trainer.position + 1).pair) if trainer.can_redo else trainer._queue.best()


def take_the_merges_worked_out_ahead(qtbot, make_window, written: list) -> None:
    window = make_window("Shakespeare")
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    trainer = window.bridge.trainer
    plain = Trainer(trainer.corpus, trainer.training)
    wait_ahead(qtbot, window, next_merge(trainer))  # since the window opened
    for keys, action, taken in (
        ("Right", plain.step, 1),
        ("Right", plain.step, 2),
        ("Ctrl+Z", plain.undo, 2),  # dropped
        ("Space", plain.step, 3),  # the line's next merge, as redo's
        ("Ctrl+Z", plain.undo, 3),
        ("Ctrl+Z", plain.undo, 3),
        ("Ctrl+Shift+Z", plain.redo, 4),
    ):
        press(keys)
        wait_idle(qtbot, window)
        action()
        assert snapshot(trainer) == snapshot(plain) and len(written) == taken, keys
        wait_ahead(qtbot, window, next_merge(trainer))
    press("Right")  # at once: the next merge may be worked out ahead or not
    press("Right")
    wait_idle(qtbot, window)
    plain.step()
    plain.step()
    assert snapshot(trainer) == snapshot(plain)
    wait_ahead(qtbot, window, next_merge(trainer))
    taken = len(written)

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
    assert snapshot(trainer) == snapshot(plain) and len(written) == taken + 1  # the run's first merge
    wait_ahead(qtbot, window, next_merge(trainer))  # asked again once the job ended
    press("Right")
    wait_idle(qtbot, window)
    plain.step()
    assert snapshot(trainer) == snapshot(plain) and trainer.history == plain.history
    assert len(written) == taken + 2
    assert_panes_agree_with_core(window)
