"""The Compare view: two branches side by side, another rule from here, the sweep, exports."""

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QSpinBox

from bpe_core import Trainer
from bpe_core.tools.compare import compare, run_of, tie_picks
from tests.gui_helpers import assert_panes_agree_with_core, fresh_focus, press, sample, wait_idle


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
    qtbot, make_window, monkeypatch, tmp_path, qtmodeltester
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
    merges = dialog.merges.model()
    qtmodeltester.check(merges)
    assert merges.index(15, 3).data() == "first divergence" and merges.marked == 15
    assert merges.index(14, 3).data() == "" and 14 not in merges.shaded  # step 15 is shared
    assert merges.index(16, 3).data() == "differs" and 16 in merges.shaded
    # Tokens only in A, only in B and shared, with a search over the three lists.
    only_a = {dialog.only_a.item(i).text() for i in range(dialog.only_a.count())}
    assert only_a and dialog.token_titles[0].text().startswith(f"Only in A ({len(only_a):,})")
    texts = [dialog.only_a.item(i).text() for i in range(dialog.only_a.count())]
    assert texts == sorted(texts)
    dialog.token_order.setCurrentIndex(1)
    dialog.token_order.activated.emit(1)  # as a user's pick: by the step that made them, in A
    main = run_of(trainer, "main", trainer.branch_history(0))
    made = {main.display(token): step for step, token in enumerate(main.tokens, start=1)}
    steps = [made.get(dialog.only_a.item(i).text(), 0) for i in range(dialog.only_a.count())]
    assert steps == sorted(steps)
    dialog.search.setText("zzzz-nothing")
    assert all(dialog.shared.item(i).isHidden() for i in range(dialog.shared.count()))
    dialog.search.clear()
    # The Encode pane's test string, segmented under both.
    assert "A: main" in dialog.encoded.text() and "B: branch 1" in dialog.encoded.text()
    # Both runs' curves, the divergence marked.
    _plot, a_curve, b_curve, mark = dialog.curve_plots["corpus_tokens"]
    assert list(a_curve.getData()[1][1:]) == [r.corpus_tokens for r in trainer.branch_history(0)]
    assert list(b_curve.getData()[1][1:]) == [r.corpus_tokens for r in trainer.branch_history(1)]
    assert mark.isVisible() and mark.value() == 16
    # And on the window's Plots pane: the run that is not the current line, dashed.
    other = 1 if trainer.current_branch == 0 else 0
    plots = window.plots_pane
    assert list(plots.other_curves[1].getData()[1][1:]) == [
        r.corpus_tokens for r in trainer.branch_history(other)
    ]
    assert all(line.isVisible() and line.value() == 16 for line in plots.divergence)
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
    dialog.close()  # the comparison leaves the Plots pane with the view
    assert (
        not any(line.isVisible() for line in plots.divergence) and plots.other_curves[0].getData()[0] is None
    )
    # A closed view compares nothing as the session changes (nor draws on the Plots pane) ...
    shown = dialog.comparison
    press("Space")
    press("Space")
    wait_idle(qtbot, window)
    qtbot.wait(120)  # past the view's 50 ms pause after a change
    assert dialog.comparison is shown and plots.other_curves[0].getData()[0] is None
    # ... until it is shown again.
    press("Ctrl+Shift+C")
    qtbot.waitUntil(lambda: dialog.comparison is not shown)
    assert dialog.comparison.b.records == trainer.branch_history(dialog.b_box.currentData())


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
    assert dialog.runs_table.model().rowCount() == 7 and dialog.sweep_table.model().rowCount() == 21
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


def test_another_rule_from_the_end_of_a_line_makes_a_branch_and_leaves_the_line(qtbot, make_window):
    """From the last step of main, "Run this rule from here" appended hf's merges to main: no
    branch, and nothing to compare with. A run that makes no merge leaves no branch."""
    window = make_window()
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    trainer = bridge.trainer
    main = trainer.branch_history(0)
    window.show_compare()
    dialog = window.compare_dialog
    dialog.rule_box.setCurrentText("hf")
    dialog.rule_merges.setValue(3)
    qtbot.mouseClick(dialog.rule_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: dialog.b_box.currentData() == trainer.current_branch)
    assert trainer.branch_history(0) == main and len(trainer.branches()) == 2
    made = trainer.branch_history(trainer.current_branch)
    assert made[:6] == main and [r.decided_by for r in made[6:]] == ["hf"] * 3
    assert dialog.a_box.currentData() == 0 and dialog.comparison.continuation == "B"
    bridge.switch_branch(0)
    wait_idle(qtbot, window)
    # No pair qualifies: the rule makes no merge.
    bridge.configure(replace(bridge.trainer.training, min_frequency=10**6))
    qtbot.mouseClick(dialog.rule_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert len(trainer.branches()) == 2 and trainer.current_branch == 0 and trainer.position == 6


def test_file_export_walkthrough_writes_the_lesson_in_the_background(
    qtbot, make_window, monkeypatch, tmp_path
):
    from app.bridge import ASK

    window = make_window()
    window.open_sample(sample("FRED"))  # as the Samples menu opens it: named
    wait_idle(qtbot, window)
    window.bridge.run(merges=4)
    wait_idle(qtbot, window)
    window.bridge.set_tie_rule(ASK)
    path = tmp_path / "lesson.html"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "")))
    window.commands["walkthrough"].trigger()
    wait_idle(qtbot, window)
    text = path.read_text(encoding="utf-8")
    assert "<h2>Iteration 4</h2>" in text and "<h2>Iteration 5</h2>" not in text
    # A handout says what it walks through, and how ties were decided (not first-seen: by hand)
    assert "<h1>BPE walk-through: FRED FED TED BREAD" in text and "tie rule Ask me" in text
    assert "<td class='n'>" in text  # counts right-aligned, as the Markdown's are
    assert window.status.message.text() == f"Exported to {path}"


def test_tie_statistics_in_the_merges_pane(qtbot, make_window):
    from app.models.merge_model import OTHERS

    window = make_window("Shakespeare")
    window.bridge.run(merges=60)
    wait_idle(qtbot, window)
    trainer = window.bridge.trainer
    pane = window.merges_pane
    tied = [r.step for r in trainer.history if r.ties > 1]
    assert tied and pane.summary.text().endswith(f" · {len(tied):,} met a tie")
    qtbot.mouseClick(pane.ties_only, Qt.MouseButton.LeftButton)
    shown = [row + 1 for row in range(pane.model.rowCount()) if not pane.view.isRowHidden(row)]
    assert shown == tied
    record = trainer.record(tied[0])
    picks, complete = tie_picks(record, trainer.token_string)
    expected = ", ".join(n for n, p in picks.items() if p != record.pair) or "—"
    assert pane.model.index(tied[0] - 1, OTHERS).data() == expected + ("" if complete else " ?")
    untied = next(r.step for r in trainer.history if r.ties <= 1)
    assert pane.model.index(untied - 1, OTHERS).data() == ""
    window.bridge.step()  # new rows follow the filter
    qtbot.waitUntil(lambda: pane.model.rowCount() == 61)
    assert pane.view.isRowHidden(60) == (trainer.record(61).ties <= 1)
    qtbot.mouseClick(pane.ties_only, Qt.MouseButton.LeftButton)
    assert not any(pane.view.isRowHidden(row) for row in range(61))
    # The count of tie steps follows rows as they come and a line replaced (a branch).
    window.bridge.goto(30)
    wait_idle(qtbot, window)
    window.bridge.step_pair(trainer.top_pairs(2)[1].pair)
    wait_idle(qtbot, window)
    history = window.bridge.trainer.history
    assert len(history) == 31 and window.bridge.trainer.current_branch != 0
    ties = sum(1 for r in history if r.ties > 1)
    qtbot.waitUntil(lambda: pane.summary.text().startswith("Step 31 of 31"))
    assert pane.summary.text().endswith(f" · {ties:,} met a tie")


def test_file_export_view_writes_the_last_table_as_shown_and_the_plots_as_png_and_svg(
    qtbot, make_window, monkeypatch, tmp_path
):
    import csv

    window = make_window("Shakespeare")
    window.bridge.run(merges=20)
    wait_idle(qtbot, window)
    chosen = []

    def save_to(name):
        path = tmp_path / name
        monkeypatch.setattr(
            QFileDialog,
            "getSaveFileName",
            staticmethod(lambda *a, **k: chosen.append(a[2]) or (str(path), "")),
        )
        return path

    # The corpus table, filtered as on screen, chips as their tokens.
    window.corpus_pane.filter_edit.setText("the")
    words = window.bridge.trainer.word_count
    qtbot.waitUntil(lambda: window.corpus_pane.view.model().rowCount() < words)
    qtbot.mouseClick(window.corpus_pane.view.viewport(), Qt.MouseButton.LeftButton)
    path = save_to("corpus.csv")
    window.commands["export_view"].trigger()
    rows = list(csv.reader(path.open(encoding="utf-8")))
    model = window.corpus_pane.view.model()
    assert Path(chosen[-1]).name.endswith("-corpus.csv") and rows[0][:2] == ["Word", "Count"]
    assert len(rows) - 1 == model.rowCount() and all("the" in row[0].lower() for row in rows[1:])
    trainer = window.bridge.trainer
    word = trainer.corpus.words.index(rows[1][0])
    assert rows[1][-1] == " ".join(trainer.token_string(t) for t in trainer.segmentation(word))
    # The plots, with the keys on them.
    window.plots_pane.graphics.setFocus()
    for name, start in (("plots.png", b"\x89PNG"), ("plots.svg", b"<?xml")):
        path = save_to(name)
        window.commands["export_view"].trigger()
        assert path.read_bytes().startswith(start) and Path(chosen[-1]).name.endswith("-plots.png")
    assert b"<svg" in (tmp_path / "plots.svg").read_bytes()


def test_check_every_rule_gives_each_rules_pick_at_every_tie_first_seen_too(qtbot, make_window):
    from app.models.merge_model import OTHERS

    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.set_tie_rule("hf")
    bridge.run(merges=40)
    wait_idle(qtbot, window)
    trainer = bridge.trainer
    pane = window.merges_pane
    qtbot.mouseClick(pane.check_rules, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    # The same, computed by hand: at each tie, rule_choices among all the tied pairs.
    fresh = Trainer(trainer.corpus, trainer.training)
    for record in trainer.history:
        if record.ties > 1:
            expected = fresh.rule_choices(fresh.tied_pairs())
            assert pane.model.choices_at(record) == expected
            others = [name for name, pair in expected.items() if pair != record.pair]
            assert pane.model.index(record.step - 1, OTHERS).data() == (", ".join(others) or "—")
        fresh.step(record.pair, decided_by=record.decided_by)
    assert any("first-seen" in (pane.model.index(r, OTHERS).data() or "") for r in range(40))


def test_a_sweep_of_another_corpus_does_not_open_as_a_branch(qtbot, make_window, dialogs):
    from tests.gui_helpers import sample

    window = make_window("Shakespeare")
    window.bridge.run(merges=10)
    wait_idle(qtbot, window)
    window.show_compare()
    dialog = window.compare_dialog
    qtbot.mouseClick(dialog.sweep_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    window.open_sample(sample("FRED"))  # another corpus: the sweep's runs do not fit it
    wait_idle(qtbot, window)
    dialog.runs_table.selectRow(0)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert dialogs.shown[-1][1] == "Cannot open the run" and window.bridge.trainer.history_length == 0


def test_a_rule_run_that_cannot_merge_leaves_a_saved_session_saved(qtbot, make_window, tmp_path):
    """The empty branch it made and deleted changed the history's revision: the title said
    unsaved, closing asked, and the next branch was numbered past the deleted one."""
    window = make_window()
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    bridge.configure(replace(bridge.trainer.training, min_frequency=10**6))
    assert bridge.save(tmp_path / "s.json")
    assert not bridge.dirty
    next_branch = bridge.trainer.next_branch
    bridge.run_rule_from_here("hf", 5)
    wait_idle(qtbot, window)
    assert not bridge.dirty and bridge.trainer.next_branch == next_branch


def test_opening_a_sweep_run_as_a_branch_keeps_who_decided_the_lines_it_follows(qtbot, make_window):
    """Replaying a run counted as choosing each merge: where it followed a line, every record
    was relabelled with the run's rule, a hand-picked merge included (then not worth a save)."""
    window = make_window()
    bridge = window.bridge
    fresh_focus(qtbot, window)
    press("Space")
    made = bridge.trainer.record(1)
    press("Left")
    bridge.step_pair(made.pair)  # the same pair, chosen by hand
    assert bridge.trainer.record(1).decided_by == "user" and bridge.has_unsaved_work()
    window.show_compare()
    dialog = window.compare_dialog
    qtbot.mouseClick(dialog.sweep_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    row = next(
        i
        for i, r in enumerate(dialog.sweep_runs)
        if r.records[0].pair == made.pair and r.label != "first-seen"
    )
    dialog.runs_table.selectRow(row)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert bridge.trainer.branch_history(0)[0].decided_by == "user" and bridge.has_unsaved_work()


def _focus_dialog(qtbot, dialog, widget) -> None:
    """As a user clicking into a field of the Compare view (tabbing to a combo box: a click would
    open its list)."""
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    if isinstance(widget, QComboBox):
        widget.setFocus(Qt.FocusReason.TabFocusReason)
    else:
        clicked = widget.lineEdit() if isinstance(widget, QSpinBox) else widget  # where a click lands
        QTest.mouseClick(clicked, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget)


def _settled(qtbot, window) -> None:
    """Past the Compare view's pause after a change, the comparison made again."""
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: not window.compare_dialog._timer.isActive())


def test_a_number_typed_for_the_rule_run_stays_when_the_window_steps(qtbot, make_window):
    """30 typed in "for N merges" became 87 when the window stepped, and 100 became 88 (the run
    then made 88): every step re-filled the box."""
    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=12)
    wait_idle(qtbot, window)
    bridge.goto(4)  # merges to redo: the box's default is how many
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    press("Ctrl+Shift+C")
    dialog = window.compare_dialog
    qtbot.waitUntil(dialog.isVisible)
    _settled(qtbot, window)
    assert dialog.rule_merges.value() == 8
    _focus_dialog(qtbot, dialog, dialog.rule_merges)
    press("Ctrl+A")
    press("3")
    press("0")
    window.activateWindow()
    fresh_focus(qtbot, window)
    press("Space")
    press("Space")
    _settled(qtbot, window)
    assert bridge.trainer.position == 6 and dialog.rule_merges.value() == 30
    dialog.rule_box.setCurrentText("lexicographic")
    qtbot.mouseClick(dialog.rule_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    assert bridge.trainer.position == 36 and dialog.rule_merges.value() == 30


def _continued_by_hf(qtbot, window, merges: int, more: int):
    """After ``merges`` steps, the Compare view's rule run: hf for ``more`` merges from here,
    typed and clicked as a user does; the dialog once it compares the two lines."""
    window.bridge.run(merges=merges)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    press("Ctrl+Shift+C")
    dialog = window.compare_dialog
    dialog.rule_box.setCurrentText("hf")
    _focus_dialog(qtbot, dialog, dialog.rule_merges)
    press("Ctrl+A")
    press(str(more))
    qtbot.mouseClick(dialog.rule_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    total = merges + more
    qtbot.waitUntil(lambda: dialog.comparison is not None and len(dialog.comparison.b.merges) == total)
    return dialog


def test_a_branch_that_continues_another_is_told_as_such_and_compared_at_equal_length(qtbot, make_window):
    """B = A's 6 merges and 3 more was reported as a "first divergence at step 7", its corpus
    tokens after 9 merges weighed against A's after 6."""
    window = make_window()
    bridge = window.bridge
    dialog = _continued_by_hf(qtbot, window, merges=6, more=3)
    trainer = bridge.trainer
    comparison = dialog.comparison
    main = trainer.branch_history(0)
    assert comparison.first_divergence is None and comparison.continuation == "B"
    text = dialog.summary.text()
    assert "B continues A after step 6" in text and "divergence" not in text
    assert f"the same 6 merges leave {main[-1].corpus_tokens:,} corpus tokens" in text
    assert comparison.tokens_a == comparison.tokens_b == main[-1].corpus_tokens  # at equal length
    # B's further tokens are listed; the merges table says whose they are, marking no divergence.
    made = trainer.branch_history(dialog.b_box.currentData())[6:]
    further = [dialog.further.item(i).text() for i in range(dialog.further.count())]
    assert further == [trainer.token_string(r.token) for r in made] and not dialog.further.isHidden()
    assert dialog.further_title.text() == "B's 3 further merges made"
    model = dialog.merges.model()
    assert [model.index(row, 3).data() for row in range(9)] == [""] * 6 + ["B only"] * 3
    assert model.marked is None


def test_a_and_b_are_never_the_same_branch(qtbot, make_window):
    window = make_window()
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    press("Ctrl+Shift+C")
    dialog = window.compare_dialog
    _settled(qtbot, window)
    # One branch: nothing to compare, and the view says so rather than "no divergence".
    assert "only one branch" in dialog.summary.text() and dialog.merges.model().rowCount() == 0
    window.activateWindow()
    fresh_focus(qtbot, window)
    press("Left")
    press("Left")
    bridge.step_pair(bridge.trainer.top_pairs(3)[-1].pair)  # another line from step 4
    _settled(qtbot, window)
    ids = [dialog.a_box.currentData(), dialog.b_box.currentData()]
    assert ids[0] != ids[1] and dialog.comparison.first_divergence == 5
    # Each box offers every branch but the one the other shows: keys cannot make them one.
    for box, other in ((dialog.a_box, dialog.b_box), (dialog.b_box, dialog.a_box)):
        row = box.findData(other.currentData())
        assert not box.model().item(row).isEnabled()
        _focus_dialog(qtbot, dialog, box)
        for key in ("Down", "Up", "Down", "Home", "End"):
            press(key)
            assert dialog.a_box.currentData() != dialog.b_box.currentData()


def test_one_number_format_across_the_summary_the_runs_and_the_sweep(qtbot, make_window):
    import re

    window = branched_window(qtbot, make_window)
    window.show_compare()
    dialog = window.compare_dialog
    _settled(qtbot, window)
    assert re.search(
        r"overlap \d+\.\d% at \d+ merges; corpus tokens \d{1,3}(,\d{3})+ vs \d{1,3}(,\d{3})+ "
        r"\([+-]\d+\.\d\d%\)",
        dialog.summary.text(),
    )
    qtbot.mouseClick(dialog.sweep_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)
    sweep = dialog.sweep_table.model()
    for row in range(sweep.rowCount()):
        _a, _b, parted, overlap, tokens_a, tokens_b, difference = sweep.rows[row]
        assert re.fullmatch(r"\d{1,3}(,\d{3})*|none.*", parted)
        assert re.fullmatch(r"\d+\.\d%", overlap)
        assert all(re.fullmatch(r"\d{1,3}(,\d{3})+", t) for t in (tokens_a, tokens_b))
        assert re.fullmatch(r"[+-]\d+\.\d\d%", difference) and difference != "-0.00%"
    runs = dialog.runs_table.model()
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})+", runs.rows[r][2]) for r in range(runs.rowCount()))
    # The curves' axes are labelled as on the Plots pane (60k, 1.2M), not 60000 or 1.2e+06.
    plot = dialog.curve_plots["corpus_tokens"][0]
    pane_axis = window.plots_pane.tokens_plot.getAxis("left")
    for values in ([60000.0, 1200000.0], [500.0, 20000.0]):
        assert plot.getAxis("left").tickStrings(values, 1, 1) == pane_axis.tickStrings(values, 1, 1)


def test_one_merge_is_said_in_the_singular_and_the_curves_step_by_whole_steps(qtbot, make_window):
    """A comparison after one merge said "1 merges" and "the same 1 merges leave"; its curves'
    step axes had ticks at 0.5, 1.5."""
    window = make_window()
    dialog = _continued_by_hf(qtbot, window, merges=1, more=1)
    text = dialog.summary.text()
    assert "the same 1 merge leaves" in text and "1 further merge leaves" in text, text
    names = [dialog.a_box.itemText(i) for i in range(dialog.a_box.count())]
    assert any(name.endswith("(1 merge)") for name in names) and not any("1 merges" in n for n in names)
    for plot, *_ in dialog.curve_plots.values():
        for _spacing, values in plot.getAxis("bottom").tickValues(0.0, 2.0, 300.0):
            assert all(float(v).is_integer() for v in values), values


def test_a_question_mark_in_other_rules_is_explained_where_it_is_shown(qtbot, make_window):
    """Fourteen pairs tied, five recorded: "hf, lexicographic ?" said nothing of what "?" means."""
    from app.models.merge_model import OTHERS

    window = make_window()
    bridge = window.bridge
    bridge.open_text("zy zy xw xw vu vu ts ts rq rq po po nm nm", bridge.trainer.corpus.config, "ties")
    qtbot.waitUntil(lambda: not bridge.busy and bridge.source.name == "ties", timeout=10_000)
    bridge.step()
    wait_idle(qtbot, window)
    assert bridge.trainer.record(1).ties == 14  # each word's pair and its pair with </w>
    others = window.merges_pane.model.index(0, OTHERS)
    assert others.data().endswith(" ?")
    assert "? in Other rules: only these pairs were recorded" in others.data(Qt.ItemDataRole.ToolTipRole)


def test_the_curves_labels_follow_the_zoom_as_the_plots_panes_do(qtbot, make_window):
    """Zoomed for a projector, the Compare view's curves kept their small tick labels and titles."""
    window = make_window()
    dialog = _continued_by_hf(qtbot, window, merges=4, more=2)
    plot = dialog.curve_plots["corpus_tokens"][0]
    before = plot.getAxis("bottom").style["tickFont"].pointSizeF(), plot.getAxis("left").fixedWidth
    fresh_focus(qtbot, window)
    for _ in range(3):
        press("Ctrl++")
    qtbot.waitUntil(lambda: dialog.font().pointSizeF() == window.font().pointSizeF())
    pane = window.panes["plots"].plots[0]
    after = plot.getAxis("bottom").style["tickFont"].pointSizeF(), plot.getAxis("left").fixedWidth
    assert after[0] == pane.getAxis("bottom").style["tickFont"].pointSizeF() > before[0]
    assert after[1] == pane.getAxis("left").fixedWidth > before[1]
    assert plot.titleLabel.opts["size"] == pane.titleLabel.opts["size"] == plot.legend.opts["labelTextSize"]
