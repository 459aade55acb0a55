"""The bridge says what changed (a Change before the coarse signals), the table models' shared
base answers roles by dispatch, and Enter on a table acts on its current row."""

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableView

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.gui import sample_trainer
from app.models.merge_model import MergeModel
from app.models.roles import ALIGNMENT, DISPLAY, FONT, RIGHT_ALIGNED
from app.models.rows_model import RowsModel
from app.panes.enter_key import EnterKey
from tests.gui_helpers import sample


@pytest.fixture
def bridge(qtbot):
    return Bridge(sample_trainer(sample("Shakespeare")))


def changes_of(bridge: Bridge) -> list[Change]:
    heard: list[Change] = []
    bridge.sig_change.connect(heard.append)
    return heard


def test_each_command_says_what_changed(bridge):
    heard = changes_of(bridge)
    bridge.step()
    bridge.step()
    bridge.undo()
    bridge.redo()
    bridge.goto(0)
    bridge.set_tie_rule("hf")
    bridge.reset()
    assert heard == [
        Change(ChangeKind.APPLIED, 0, 1, history_changed=True),
        Change(ChangeKind.APPLIED, 1, 2, history_changed=True),
        Change(ChangeKind.UNDONE, 2, 1),
        Change(ChangeKind.APPLIED, 1, 2),  # a redo records nothing new
        Change(ChangeKind.JUMPED, 2, 0),
        Change(ChangeKind.SETTINGS, 0, 0),
        Change(ChangeKind.RESET, 0, 0, history_changed=True),
    ]


def test_a_change_comes_before_the_document_state_it_leaves(bridge):
    order = []
    bridge.sig_change.connect(lambda change: order.append(change.kind))
    bridge.sig_document_changed.connect(lambda: order.append("document"))
    bridge.step()
    assert order == [ChangeKind.APPLIED, "document"]


def test_a_step_after_an_undo_that_parts_makes_a_branch_and_says_so(bridge):
    bridge.step()
    first = bridge.trainer.record(1).pair
    bridge.undo()
    other = next(stat.pair for stat in bridge.trainer.top_pairs(5) if stat.pair != first)
    heard = changes_of(bridge)
    bridge.step_pair(other)
    assert [c.kind for c in heard] == [ChangeKind.BRANCHES, ChangeKind.APPLIED]
    assert heard[0].branch_switched and not heard[1].branch_switched
    assert heard[1].history_changed and (heard[1].before, heard[1].after) == (0, 1)


def test_a_background_job_is_summed_up_in_one_change_after_it_ends(qtbot, bridge):
    heard = []
    bridge.sig_change.connect(lambda change: heard.append((change, bridge.busy)))
    bridge.run(merges=120)
    qtbot.waitUntil(lambda: not bridge.busy, timeout=30_000)
    assert heard == [(Change(ChangeKind.JUMPED, 0, 120, history_changed=True), False)]
    heard.clear()
    bridge.compute_tie_choices(lambda _: None)  # reads only
    qtbot.waitUntil(lambda: not bridge.busy, timeout=30_000)
    assert heard == [(Change(ChangeKind.SETTLED, 120, 120), False)]


def test_the_merges_model_moves_its_mark_without_rereading_rows_on_undo(bridge):
    model = MergeModel(bridge)
    for _ in range(3):
        bridge.step()
    inserted, reset = [], []
    model.rowsInserted.connect(lambda *args: inserted.append(args[1:]))
    model.modelReset.connect(lambda: reset.append(True))
    bridge.undo()
    bridge.step()  # follows the line: no row added
    bridge.goto(0)
    assert not inserted and not reset and model.rowCount() == 3
    bridge.goto(3)
    bridge.step()
    assert inserted == [(3, 3)] and not reset
    assert model.index(3, 0).data(DISPLAY) == "▶ 4" and model.index(3, 0).data(FONT) is not None


def test_the_table_base_dispatches_roles_aligns_numbers_and_repaints_ranges(qtbot):
    class Numbers(RowsModel):
        NUMERIC = frozenset({1})

    model = Numbers(["Name", "Count"])
    model.set_rows([["a", "1"], ["b", "2"], ["c", "3"]], marked=1)
    assert model.index(2, 0).data(DISPLAY) == "c"
    assert model.index(0, 1).data(ALIGNMENT) == RIGHT_ALIGNED and model.index(0, 0).data(ALIGNMENT) is None
    assert model.index(1, 0).data(FONT) == model.bold and model.index(0, 0).data(FONT) is None
    assert model.data(model.index(0, 0), Qt.ItemDataRole.DecorationRole) is None  # not answered
    assert model.rowCount(model.index(0, 0)) == 0 and model.rowCount(QModelIndex()) == 3
    changed = []
    model.dataChanged.connect(lambda first, last, _roles: changed.append((first.row(), last.row())))
    model.repaint_rows(-5, 1)
    model.repaint_rows(2, 99)
    model.repaint_rows(3, 4)  # past the end: nothing
    model.repaint_all()
    assert changed == [(0, 1), (2, 2), (0, 2)]


def test_enter_on_a_table_acts_and_is_kept_from_it(qtbot):
    view = QTableView()
    qtbot.addWidget(view)
    model = RowsModel(["Name"])
    model.set_rows([["a"], ["b"]])
    view.setModel(model)
    pressed = []
    EnterKey(view, lambda: pressed.append(view.currentIndex().row()))
    view.setCurrentIndex(model.index(1, 0))
    QTest.keyClick(view, Qt.Key.Key_Return)
    QTest.keyClick(view, Qt.Key.Key_Enter)
    QTest.keyClick(view, Qt.Key.Key_Up)  # other keys reach the table
    assert pressed == [1, 1] and view.currentIndex().row() == 0
