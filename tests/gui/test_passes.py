"""Several merges per pass in the window: set in Settings, a step is a pass, the Merges pane
shows the passes, and undo takes a whole pass back."""

from app.dialogs.settings_dialog import SettingsDialog
from app.models.merge_model import DECIDED, PASS
from tests.gui_helpers import ModalAnswerer, assert_panes_agree_with_core, fresh_focus, press, wait_idle


def test_all_merges_per_pass_from_settings_then_keys_step_and_undo_by_passes(qtbot, make_window):
    window = make_window("FRED")
    trainer = window.bridge.trainer
    merges = window.merges_pane
    assert merges.view.isColumnHidden(PASS)  # classic: nothing to group

    def all_per_pass(dialog: SettingsDialog) -> None:
        dialog.per_pass.setValue(0)
        assert dialog.per_pass.text() == "all"
        dialog.accept()

    fresh_focus(qtbot, window)
    answerer = ModalAnswerer(SettingsDialog, all_per_pass)
    press("Ctrl+,")
    answerer.stop()
    assert trainer.training.merges_per_pass == 0
    fresh_focus(qtbot, window)
    press("Space")  # pass 1: D _, R E, F E, T E
    press("Space")  # pass 2: five more
    wait_idle(qtbot, window)
    assert trainer.position == 9 and [r.pass_number for r in trainer.history] == [1] * 4 + [2] * 5
    qtbot.waitUntil(lambda: not merges.view.isColumnHidden(PASS))
    model = merges.model
    shown = [model.index(row, PASS).data() for row in range(model.rowCount())]
    assert shown == ["1", "", "", "", "2", "", "", "", ""]
    assert model.index(0, DECIDED).data() == "first-seen"
    press("Ctrl+Z")  # the whole second pass
    assert trainer.position == 4
    press("Right")  # steps: the same pass again, followed rather than branched
    assert trainer.position == 9 and len(trainer.branches()) == 1
    assert_panes_agree_with_core(window)
