"""The Compare view: two branches side by side, another rule from here, the sweep, exports."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from bpe_core.compare import compare, run_of
from tests.gui_helpers import assert_panes_agree_with_core, fresh_focus, press, wait_idle


def branched_window(qtbot, make_window):
    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=40)
    wait_idle(qtbot, window)
    bridge.goto(15)
    wait_idle(qtbot, window)
    bridge.step_pair(bridge.trainer.top_pairs(200)[-1].pair)  # a rare pair: a line of its own
    bridge.run(merges=24)
    wait_idle(qtbot, window)
    return window


def test_two_branches_side_by_side_with_the_first_divergence_marked(
    qtbot, make_window, monkeypatch, tmp_path
):
    window = branched_window(qtbot, make_window)
    trainer = window.bridge.trainer
    fresh_focus(qtbot, window)
    press("Ctrl+Shift+C")
    dialog = window.compare_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.select(0, 1)
    expected = compare(
        run_of(trainer, "main", trainer.branch_history(0)),
        run_of(trainer, "branch 1", trainer.branch_history(1)),
    )
    assert dialog.comparison.first_divergence == expected.first_divergence == 16
    assert dialog.summary.text() == expected.summary()
    assert dialog.merges.item(15, 3).text() == "first divergence"
    assert dialog.merges.item(14, 3).text() == ""  # step 15 is shared
    # Tokens only in A, only in B and shared, with a search over the three lists.
    only_a = {dialog.only_a.item(i).text() for i in range(dialog.only_a.count())}
    assert only_a and dialog.token_titles[0].text().startswith(f"Only in A ({len(only_a):,})")
    dialog.search.setText("zzzz-nothing")
    assert all(dialog.shared.item(i).isHidden() for i in range(dialog.shared.count()))
    dialog.search.clear()
    # The Encode pane's test string, segmented under both.
    assert "A: main" in dialog.encoded.text() and "B: branch 1" in dialog.encoded.text()
    # Exports: CSV and Markdown.
    for name in ("c.csv", "c.md"):
        path = tmp_path / name
        monkeypatch.setattr(
            QFileDialog, "getSaveFileName", staticmethod(lambda *a, p=path, **k: (str(p), ""))
        )
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
        assert path.exists()
    assert (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()[16].startswith("16,")
    assert (tmp_path / "c.md").read_text(encoding="utf-8").startswith(expected.summary())
    # The dialog stays open, and the next key goes to the window: it still steps.
    window.activateWindow()
    fresh_focus(qtbot, window)
    position = trainer.position
    press("Space")
    assert trainer.position == position + 1 and dialog.isVisible()


def test_what_another_rule_would_have_done_from_here_and_the_sweep(qtbot, make_window):
    window = branched_window(qtbot, make_window)
    bridge = window.bridge
    trainer = bridge.trainer
    trainer_branches = len(trainer.branches())
    bridge.switch_branch(0, 10)
    wait_idle(qtbot, window)
    window.show_compare()
    dialog = window.compare_dialog
    dialog.rule_box.setCurrentText("lexicographic")
    dialog.rule_merges.setValue(30)
    qtbot.mouseClick(dialog.rule_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: dialog.b_box.currentData() == trainer.current_branch)
    assert trainer.training.tie_break == "first-seen"  # the session's own rule is kept
    assert len(trainer.branches()) == trainer_branches + 1 and trainer.position == 40
    assert dialog.a_box.currentData() == 0 and dialog.comparison.first_divergence is not None
    # The sweep: every rule to A's length, each pair of runs tabulated; a run opens as a branch.
    qtbot.mouseClick(dialog.sweep_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert dialog.runs_table.rowCount() == 7 and dialog.sweep_table.rowCount() == 21
    dialog.runs_table.selectRow(3)  # lexicographic from step 0
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    # The session now stands at the end of that run: on a branch named after it where it parted
    # from every line, or on the line it followed (here: the lexicographic branch from step 10).
    run_ = dialog.sweep_runs[3]
    assert run_.label == "lexicographic" and trainer.position == len(run_.records)
    assert [r.pair for r in trainer.history[: trainer.position]] == [r.pair for r in run_.records]
    assert QApplication.activeModalWidget() is None
    assert_panes_agree_with_core(window)
