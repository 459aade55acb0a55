"""Defects a line-by-line review of the window found, each reproduced here before its fix."""

import textwrap

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.bridge import ASK
from app.dialogs.tie_dialog import TieDialog
from app.models.vocab_model import FREQUENCY, TOKEN
from bpe_core.io.session import load_session, save_session
from tests.gui_helpers import ModalAnswerer, fresh_focus, press, run_app_process, sample, wait_idle


def test_two_quick_steps_at_a_tie_never_stack_two_dialogs_nor_decide_an_old_tie(qtbot, make_window):
    window = make_window()
    window.bridge.set_tie_rule(ASK)
    open_at_once = []

    def answer(dialog: TieDialog) -> None:
        open_at_once.append(
            sum(isinstance(w, TieDialog) and w.isVisible() for w in QApplication.topLevelWidgets())
        )
        dialog.list.setCurrentItem(dialog.list.topLevelItem(dialog.list.topLevelItemCount() - 1))
        dialog.merge_button.click()

    answerer = ModalAnswerer(TieDialog, answer)
    fresh_focus(qtbot, window)
    press("Space")
    press("Space")  # before the first question has even opened
    qtbot.waitUntil(lambda: window.bridge.trainer.position >= 1)
    qtbot.wait(200)
    answerer.stop()
    assert open_at_once and max(open_at_once) == 1
    for record in window.bridge.trainer.history:  # every choice was among the pairs tied then
        assert record.count == record.top_count


def test_cancel_as_a_load_finishes_keeps_the_current_session(qtbot, make_window, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("some words and more words\n")
    window = make_window()
    before = window.bridge.trainer
    window.open_path(corpus)
    window.bridge.wait()  # the work is done; its outcome is not announced yet
    window.bridge.cancel()
    wait_idle(qtbot, window)
    assert window.bridge.trainer is before and str(corpus.resolve()) not in window.files.recent()


CLOSE_DURING_RUN = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from app.gui import sample_trainer
    from app.main_window import MainWindow
    from app.samples import SAMPLES
    settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
    window = MainWindow(sample_trainer(SAMPLES[-1]), settings=settings)
    window.show()

    def go():
        window.bridge.run(min_frequency=1)
        window.files.open_path(sys.argv[2])  # waits for the run to stop
        window.close()

    QTimer.singleShot(100, go)
    code = app.exec()
    print("closed", code, window.bridge.busy)
    """
)


def test_closing_while_a_run_stops_for_a_dropped_file_does_not_crash(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text(sample("Shakespeare").text() * 10, encoding="utf-8")
    result = run_app_process(["-c", CLOSE_DURING_RUN, str(tmp_path / "s.ini"), str(big)], tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "closed 0 False" in result.stdout and "QThread" not in result.stderr


def test_the_vocabulary_sorted_or_filtered_shows_a_reused_id_by_its_new_token(qtbot, make_window):
    window = make_window("low · lower")
    model = window.vocab_pane.model
    model.sort(FREQUENCY, Qt.SortOrder.DescendingOrder)
    bridge, trainer = window.bridge, window.bridge.trainer
    bridge.step()  # e + s -> es
    new_id = trainer.vocab_size - 1
    row = model.row_of(new_id)
    assert model.index(row, TOKEN).data() == trainer.token_string(new_id)
    bridge.undo()
    other = trainer.top_pairs(3)[2].pair
    bridge.step_pair(other)
    assert trainer.vocab_size - 1 == new_id and trainer.token_string(new_id) != "es"
    assert model.index(model.row_of(new_id), TOKEN).data() == trainer.token_string(new_id)


def test_a_run_that_makes_no_merge_keeps_the_redo_history(qtbot, make_window):
    window = make_window("Shakespeare")
    bridge, trainer = window.bridge, window.bridge.trainer
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    bridge.goto(2)
    bridge.run(merges=5, min_frequency=10**9)  # nothing qualifies
    wait_idle(qtbot, window)
    assert (trainer.position, trainer.history_length) == (2, 6)
    assert window.status.labels["step"].text() == "Step 2 of 6"


def test_new_settings_on_a_saved_session_leave_it_unsaved(qtbot, make_window, dialogs, tmp_path):
    window = make_window("Shakespeare")
    window.bridge.run(merges=5)
    wait_idle(qtbot, window)
    session = tmp_path / "s.json"
    save_session(window.bridge.trainer, session)
    window.open_path(session)
    wait_idle(qtbot, window)
    config = window.bridge.trainer.corpus.config
    window.bridge.rebuild(type(config)(end_of_word="_"), window.bridge.trainer.training)
    wait_idle(qtbot, window)
    assert window.bridge.path == session and window.bridge.dirty
    # Nothing trained yet under the new settings, so closing does not ask; saving writes them.
    window.bridge.save(session)
    wait_idle(qtbot, window)
    assert load_session(session).corpus.config.end_of_word == "_"
