"""Branching history in the window: nothing is discarded, and the History pane walks the tree
with clicks and keys."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from app.panes.history_pane import fork_label, lane_order
from bpe_core.history.branches import BranchInfo
from tests.gui_helpers import assert_panes_agree_with_core, fresh_focus, press, wait_idle


def fork_by_keys(qtbot, window):
    """Ten merges, four undone with ←, then the Pairs pane's second pair merged with Enter."""
    bridge = window.bridge
    bridge.run(merges=10)
    wait_idle(qtbot, window)
    fresh_focus(qtbot, window)
    for _ in range(4):
        press("Left")
    pairs = window.pairs_pane.view
    pairs.setFocus()
    pairs.setCurrentIndex(pairs.model().index(1, 0))  # not the rule's pick: another line
    press("Return")
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    return bridge.trainer


def test_a_step_after_undo_keeps_the_redo_line_as_a_branch_without_asking(qtbot, make_window, dialogs):
    window = make_window("Shakespeare")
    trainer = fork_by_keys(qtbot, window)
    assert dialogs.shown == []
    assert [(b.name, b.fork, b.length, b.current) for b in trainer.branches()] == [
        ("main", 0, 10, False),
        ("branch 1", 6, 7, True),
    ]
    assert window.history_pane.summary.text() == "2 branches, on 'branch 1' at step 7 of 7"
    assert [b.name for b in window.history_pane.graph.lanes] == ["main", "branch 1"]
    # The fork is labelled with the merge that made the branch, who decided it and its ties.
    fork = trainer.branch_history(1)[6]
    merged = " + ".join(trainer.token_string(t) for t in fork.pair)
    label = window.history_pane.graph._labels[1]
    assert label.startswith(f"{merged} · user")
    if fork.count < fork.top_count:  # picked below the top: not "tied with" the top pairs
        assert f"· count {fork.count:,}, chosen over " in label and f"({fork.top_count:,}" in label
        assert "tied with" not in label
    else:
        assert ("tied with" in label) == (fork.ties > 1)
    assert_panes_agree_with_core(window)


def test_the_history_pane_walks_the_tree_with_keys_and_clicks(qtbot, make_window, monkeypatch):
    window = make_window("Shakespeare")
    trainer = fork_by_keys(qtbot, window)
    graph = window.history_pane.graph
    press("Ctrl+H")
    assert QApplication.focusWidget() is graph and window.history_pane.isVisible()
    press("Up")  # to main, at the same step
    assert (trainer.current_branch, trainer.position) == (0, 7)
    press("End")
    assert trainer.position == 10
    press("Down")  # to branch 1: its last step is 7
    assert (trainer.current_branch, trainer.position) == (1, 7)
    press("Home")
    assert trainer.position == 0 and trainer.current_branch == 1
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    qtbot.mouseClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=graph.node_point(0, 9))
    assert (trainer.current_branch, trainer.position) == (0, 9)
    assert_panes_agree_with_core(window)

    names = iter(["first try", "second"])
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (next(names), True)))
    graph.setFocus()
    press("F2")  # renames the current branch
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    qtbot.mouseDClick(graph.viewport(), Qt.MouseButton.LeftButton, pos=graph.node_point(1, 3))
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    assert [b.name for b in trainer.branches()] == ["first try", "second"]
    assert [b.name for b in graph.lanes] == ["first try", "second"]
    assert window.bridge.dirty  # renaming is a change worth saving
    # Keys still step and undo from the graph: only ↑ ↓ Home End F2 are its own.
    press("Left")
    assert trainer.position == 8


def test_deleting_a_branch_keeps_its_children_and_refuses_the_current_one(qtbot, make_window, dialogs):
    window = make_window("Shakespeare")
    trainer = fork_by_keys(qtbot, window)
    bridge = window.bridge
    assert not bridge.delete_branch(trainer.current_branch)
    assert dialogs.shown[-1][1] == "Cannot delete"
    bridge.switch_branch(0, 3)
    pairs = trainer.top_pairs(3)
    bridge.step_pair(pairs[2].pair)  # a grandchild of nothing: a second child of main
    assert len(trainer.branches()) == 3
    assert bridge.delete_branch(1)
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    assert [b.id for b in window.history_pane.graph.lanes] == [0, 2]
    assert_panes_agree_with_core(window)


def test_a_far_switch_runs_in_the_background_while_the_panes_repaint(qtbot, make_window):
    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=400)
    wait_idle(qtbot, window)
    bridge.goto(2)
    wait_idle(qtbot, window)
    bridge.step_pair(bridge.trainer.top_pairs(2)[1].pair)
    bridge.run(merges=300)
    wait_idle(qtbot, window)
    window.show_history()
    bridge.switch_branch(0)  # 300 back, 398 forward: a job
    assert bridge.busy
    for _ in range(5):
        window.history_pane.graph.viewport().repaint()
        window.merges_pane.view.viewport().repaint()
        QApplication.processEvents()
    wait_idle(qtbot, window)
    trainer = bridge.trainer
    assert (trainer.current_branch, trainer.position) == (0, 400)
    assert_panes_agree_with_core(window)


def test_lanes_put_each_branch_below_its_parent_earlier_forks_first():
    def info(id, parent, fork):
        return BranchInfo(id, f"b{id}", parent, fork, 20, "user", False)

    branches = [info(0, None, 0), info(1, 0, 10), info(2, 0, 3), info(3, 2, 5), info(4, 9, 2)]
    # 4's parent was deleted (unknown here): it is a root of its own, after the first.
    assert [b.id for b in lane_order(branches)] == [0, 2, 3, 1, 4]


def test_the_vocabulary_shows_the_tokens_of_the_branch_switched_to(qtbot, make_window):
    from app.glyphs import visible
    from app.models.vocab_model import TOKEN

    window = make_window("Shakespeare")
    trainer = fork_by_keys(qtbot, window)
    window.docks["vocab"].raise_()
    model = window.vocab_pane.model
    press("Ctrl+H")
    press("Up")  # to main at step 7: the same ids, other tokens after the fork
    QApplication.processEvents()
    config = trainer.corpus.config
    shown = [model.index(model.row_of(t), TOKEN).data() for t in range(trainer.vocab_size)]
    assert shown == [visible(trainer.token_string(t), config) for t in range(trainer.vocab_size)]
    model.set_filter(visible(trainer.token_string(trainer.vocab_size - 1), config))
    assert trainer.vocab_size - 1 in [model.token_at(r) for r in range(model.rowCount())]


def test_a_saved_branch_that_does_not_fit_is_refused_by_keys_and_the_panes_stay_right(
    qtbot, make_window, dialogs, tmp_path
):
    """A hand-edited branch: walking into its bad merge (History ↑ ↓, Ctrl+Y) gives one
    warning each time, and the window stays where it was, every pane agreeing."""
    import json

    from bpe_core.io.session import session_to_dict
    from tests.formats.test_session import branched

    data = session_to_dict(branched())  # three lines; the current is branch 2, at step 8
    main = next(b for b in data["branches"] if b["id"] == 0)
    main["merges"][-1]["count"] += 1  # main's merge 6
    main["merges"][-1]["top_count"] = main["merges"][-1]["count"]  # as if a rule had taken it
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    window = make_window()
    window.open_path(path)
    wait_idle(qtbot, window)
    trainer = window.bridge.trainer
    press("Ctrl+H")
    for key in ("Up", "Up", "End"):  # branch 1, then main, then main's last step
        press(key)
        qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    refusals = [title for kind, title, _ in dialogs.shown if kind == "warning"]
    assert refusals and set(refusals) <= {"Cannot switch", "Cannot jump"}
    assert trainer.position < 6 or trainer.current_branch != 0
    assert_panes_agree_with_core(window)
    window.bridge.switch_branch(0, 5)  # just before the merge that does not fit
    wait_idle(qtbot, window)
    assert (trainer.current_branch, trainer.position) == (0, 5)
    dialogs.shown.clear()
    press("Ctrl+Y")
    assert [title for _, title, _ in dialogs.shown] == ["Cannot redo"]
    assert (trainer.current_branch, trainer.position) == (0, 5)
    assert_panes_agree_with_core(window)
    press("Left")  # the next key works as ever
    assert trainer.position == 4
    assert_panes_agree_with_core(window)


def test_a_fork_picked_below_the_top_count_is_not_labelled_as_tied(qtbot, make_window):
    """Found by hand: a pair of count 6 picked while three pairs tied at 9 was labelled
    "tied with es + t, t + </w>"."""
    window = make_window()  # low · lower
    bridge, trainer = window.bridge, window.bridge.trainer
    for _ in range(2):
        bridge.step()
    for _ in range(2):
        bridge.undo()
    low = trainer.ranked_pairs()[-1]
    assert low.count < trainer.top_count() and trainer.ties_at_top() > 1
    assert bridge.step_pair(low.pair, decided_by="user")
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    label = window.history_pane.graph._labels[trainer.current_branch]
    assert "tied with" not in label
    top = trainer.record(1).top_count
    assert f"· count {low.count:,}, chosen over " in label and label.endswith(f"({top:,} each)")


def pair_text(trainer, pair) -> str:
    return " + ".join(trainer.token_string(t) for t in pair)


def pick_the_lowest_pair_by_keys(qtbot, window, steps: int) -> None:
    """Space ``steps`` + 2 times, ← twice, Tab to the Pairs pane, Ctrl+End (the lowest pair),
    Enter: a pair picked by hand below the top, a branch beside the line ahead."""
    fresh_focus(qtbot, window)
    for key in ["Space"] * (steps + 2) + ["Left", "Left"]:
        press(key)
    while not window.pairs_pane.isAncestorOf(QApplication.focusWidget()):
        press("Tab")
    press("Ctrl+End")
    press("Return")
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())


def test_a_pair_picked_below_the_top_names_the_pairs_it_was_chosen_over(
    qtbot, make_window, dialogs, tmp_path
):
    """Found by a new user: a hand-picked pair below the top read "l + o · user · count 7,
    below  and 1 more (9)", naming nothing. Picked with the keys, its fork names the pairs at
    the top, one or several; a session saved before a pick without a tie recorded the pair it
    was chosen over still reads well-formed."""
    import json

    window = make_window()  # low · lower: e + s, s + t and t + </w> tie at 9
    trainer = window.bridge.trainer
    pick_the_lowest_pair_by_keys(qtbot, window, 0)
    fork = trainer.record(1)
    assert fork.count < fork.top_count == 9 and fork.ties == 3
    tops = [pair_text(trainer, p) for p in fork.candidates]
    assert window.history_pane.graph._labels[trainer.current_branch] == (
        f"{pair_text(trainer, fork.pair)} · user · count {fork.count:,}, "
        f"chosen over {tops[0]}, {tops[1]} and {tops[2]} (9 each)"
    )

    window = make_window()
    trainer = window.bridge.trainer
    pick_the_lowest_pair_by_keys(qtbot, window, 8)  # after step 8 low + </w> (5) tops alone
    fork = trainer.record(9)
    assert fork.count < fork.top_count == 5 and fork.ties == 1
    picked = pair_text(trainer, fork.pair)
    label = f"{picked} · user · count {fork.count:,}, chosen over low + </w> (5)"
    assert window.history_pane.graph._labels[trainer.current_branch] == label
    # Saved by a version that recorded no candidates for a pick without a tie.
    path = tmp_path / "old.json"
    dialogs.save_path = str(path)
    press("Ctrl+Shift+S")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["merges"][8]["candidates"] = []  # the current line's ninth
    path.write_text(json.dumps(data), encoding="utf-8")
    dialogs.open_path = str(path)
    press("Ctrl+Shift+O")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    opened = window.bridge.trainer
    assert opened is not trainer and dialogs.shown == []
    label = window.history_pane.graph._labels[opened.current_branch]
    assert label == f"{picked} · user · count {fork.count:,}, chosen over the top pair (5)"


def record(pair, count=7, top=9, ties=1, candidates=()):
    from bpe_core.history.records import MergeRecord

    return MergeRecord(
        step=1,
        pair=pair,
        token=99,
        count=count,
        top_count=top,
        replacements=count,
        ties=ties,
        candidates=tuple(candidates),
        decided_by="user",
        new_token=True,
        vocab_size=30,
        corpus_tokens=100,
    )


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        (record((1, 2)), "1+2 · user · count 7, chosen over the top pair (9)"),
        (record((1, 2), ties=4), "1+2 · user · count 7, chosen over the 4 top pairs (9 each)"),
        (record((1, 2), candidates=[(3, 4)]), "1+2 · user · count 7, chosen over 3+4 (9)"),
        (
            record((1, 2), ties=2, candidates=[(3, 4), (5, 6)]),
            "1+2 · user · count 7, chosen over 3+4 and 5+6 (9 each)",
        ),
        (
            record((1, 2), ties=9, candidates=[(3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]),
            "1+2 · user · count 7, chosen over 3+4, 5+6, 7+8 and 6 more (9 each)",
        ),
        (record((1, 2), count=9), "1+2 · user"),
        (record((1, 2), count=9, ties=2, candidates=[(1, 2), (3, 4)]), "1+2 · user · tied with 3+4"),
        (record((1, 2), count=9, ties=2), "1+2 · user · tied with another pair"),
        (record((1, 2), count=9, ties=6), "1+2 · user · tied with 5 others"),
        (
            record((1, 2), count=9, ties=3, candidates=[(3, 4), (1, 2), (5, 6)]),
            "1+2 · user · tied with 3+4 and 5+6",
        ),
        (
            record((1, 2), count=9, ties=40, candidates=[(3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]),
            "1+2 · user · tied with 3+4, 5+6, 7+8 and 36 more",
        ),
    ],
)
def test_a_fork_label_is_well_formed_whatever_was_recorded(made, expected):
    assert fork_label(made, lambda pair: f"{pair[0]}+{pair[1]}") == expected


def test_a_fork_label_stays_in_view_when_the_graph_is_scrolled(qtbot, make_window, tmp_path):
    """Scrolled along a long branch, its fork's label went off the left edge under the names;
    a long one ran off the right edge. It now stays right of the names, elided at the edge,
    and its full text is in the lane's tooltip."""
    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=20)
    wait_idle(qtbot, window)
    bridge.goto(2)
    bridge.step_pair(bridge.trainer.top_pairs(3)[2].pair)
    bridge.run(merges=300)
    wait_idle(qtbot, window)
    window.show_history()
    window.docks["history"].resize(500, 200)
    graph = window.history_pane.graph
    qtbot.waitUntil(lambda: not window.history_pane._timer.isActive())
    lane = next(i for i, b in enumerate(graph.lanes) if b.current)
    for scroll in (0, graph.horizontalScrollBar().maximum()):
        graph.horizontalScrollBar().setValue(scroll)
        point, text = graph.label_place(lane)
        metrics = graph.fontMetrics()
        assert point.x() >= graph.name_width
        assert point.x() + metrics.horizontalAdvance(text) <= graph.viewport().width()
        assert text.startswith(graph._labels[graph.lanes[lane].id][:5])
    graph.viewport().grab().save(str(tmp_path / "history.png"))


def test_a_false_tie_claim_met_by_undo_gives_one_warning_and_the_panes_stay_right(
    qtbot, make_window, dialogs, tmp_path, monkeypatch
):
    """A large session checks a merge's decision data where the trainer first stands before
    it: Ctrl+Z onto a merge that claims a tie that never happened is refused, in a dialog."""
    import json

    from bpe_core.io.session import session_to_dict
    from bpe_core.training import replay_by_words
    from tests.formats.test_session import branched

    monkeypatch.setattr(replay_by_words, "EXACT_REPLAY_SYMBOLS", -1)  # opened as a large one is
    data = session_to_dict(branched())
    merge = data["merges"][2]
    others = [p for p in (["l", "o"], ["o", "w"], ["e", "s"], ["s", "t"], ["w", "i"]) if p != merge["pair"]]
    merge.update(ties=7, candidates=[merge["pair"], *others[:4]])
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    window = make_window()
    window.open_path(path)
    wait_idle(qtbot, window)
    trainer = window.bridge.trainer
    assert trainer.position == 8 and not dialogs.shown
    fresh_focus(qtbot, window)
    for _ in range(8):  # five undos to step 3, then three refusals: one dialog each
        press("Ctrl+Z")
    wait_idle(qtbot, window)
    assert [title for kind, title, _ in dialogs.shown if kind == "warning"] == ["Cannot undo"] * 3
    assert "Merge 3 " in dialogs.shown[0][2] and "7 pairs" in dialogs.shown[0][2]
    assert trainer.position == 3
    assert_panes_agree_with_core(window)


def test_the_merges_tooltip_of_a_pick_below_the_top_names_the_pair_it_was_chosen_over(qtbot, make_window):
    from app.models.merge_model import STEP
    from app.models.roles import TOOLTIP

    window = make_window()
    trainer = window.bridge.trainer
    top = trainer.top_pairs(1)[0]
    below = next(p for p in trainer.pair_counts() if trainer.pair_count(p) < top.count)
    window.bridge.step_pair(below)
    model = window.merges_pane.view.model()
    tip = model.data(model.index(0, STEP), TOOLTIP)
    tied = ", ".join(
        " + ".join(trainer.token_string(t) for t in pair) for pair in trainer.history[0].candidates
    )
    assert f"The highest count then was {top.count:,} ({tied}): chosen by hand." in tip
    below_text = " + ".join(trainer.token_string(t) for t in below)
    assert f": {below_text}" not in tip.split("each rule picks")[1]  # no rule picks a pair below the top
