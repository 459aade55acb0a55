"""One whole tie-breaking experiment by keys alone, from a freshly opened window: open a sample
from the menu, set the tie rule to Ask me, step to a tie and choose a pair, undo, take the other
pair, compare the two branches and export the comparison. Every key goes to whatever has the
focus, as a keyboard user's would."""

import pytest
from PySide6.QtWidgets import QApplication

from app.dialogs.tie_dialog import TieDialog
from tests.gui_helpers import ModalAnswerer, fresh_focus, qt_wait_until, wait_idle


def key(keys: str) -> None:
    """Press ``keys`` on the open menu if there is one, else on the focused widget."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest

    combination = QKeySequence(keys)[0]
    # A window activated again (a dialog closed) gets its focus back when the platform says so.
    qt_wait_until(lambda: (QApplication.activePopupWidget() or QApplication.focusWidget()) is not None)
    target = QApplication.activePopupWidget() or QApplication.focusWidget()
    QTest.keyClick(target, combination.key(), combination.keyboardModifiers())
    QApplication.processEvents()


# Menus grab the keyboard; the offscreen platform cannot, and says so (the keys still reach them).
@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
def test_a_tie_breaking_experiment_by_keys_alone(qtbot, make_window, dialogs, tmp_path):
    window = make_window()
    fresh_focus(qtbot, window)
    bridge = window.bridge

    # Samples -> aaabdaaabac (the fourth sample), by the menu's mnemonic and arrows.
    key("Alt+M")
    qt_wait_until(lambda: QApplication.activePopupWidget() is not None)
    menu = QApplication.activePopupWidget()
    target = next(
        i for i, a in enumerate(menu.actions()) if a.text().replace("&", "").startswith("aaabdaaabac")
    )
    for _ in range(target):
        key("Down")
    key("Return")
    qt_wait_until(lambda: bridge.source.name.startswith("aaabdaaabac") and not bridge.busy, timeout_ms=20_000)

    # Train -> Tie rule -> Ask me.
    key("Alt+T")
    qt_wait_until(lambda: QApplication.activePopupWidget() is not None)
    key("T")  # Tie rule (R is Redo's, once there is a merge to redo)
    qt_wait_until(
        lambda: (
            QApplication.activePopupWidget() is not None
            and "Ask me" in str([a.text() for a in QApplication.activePopupWidget().actions()])
        )
    )
    key("A")
    qt_wait_until(lambda: bridge.tie_rule_spec() == "ask")

    # Step to the tie; in the dialog, Down to the second pair and Enter.
    chosen = []

    def choose(rows_down: int):
        def answer(dialog: TieDialog) -> None:
            chosen.append(dialog)
            # As a user would: keys once the dialog has them.
            qt_wait_until(
                lambda: (
                    QApplication.focusWidget() is not None and QApplication.focusWidget().window() is dialog
                )
            )
            for _ in range(rows_down):
                key("Down")
            key("Return")

        return answer

    key("Space")  # aa: no tie
    qt_wait_until(lambda: bridge.trainer.position == 1)
    answerer = ModalAnswerer(TieDialog, choose(1))
    key("Space")  # Za and ab tie at 2
    qt_wait_until(lambda: bridge.trainer.position == 2, timeout_ms=10_000)
    answerer.stop()
    first = bridge.trainer.history[1]
    assert first.ties > 1 and first.decided_by == "user"

    # Undo, then take the other pair: a second branch.
    key("Ctrl+Z")
    assert bridge.trainer.position == 1
    answerer = ModalAnswerer(TieDialog, choose(0))
    key("Space")
    qt_wait_until(lambda: bridge.trainer.position == 2, timeout_ms=10_000)
    answerer.stop()
    assert bridge.trainer.history[1].pair != first.pair and len(chosen) == 2
    wait_idle(qtbot, window)

    # Compare the two branches, and export the comparison (Alt+E in the view).
    key("Ctrl+Shift+C")
    compare = window.compare_dialog
    qt_wait_until(lambda: compare is not None and compare.isVisible() and compare.comparison is not None)
    compare.activateWindow()
    qt_wait_until(lambda: QApplication.activeWindow() is compare)
    assert compare.a_box.currentText() != compare.b_box.currentText()
    dialogs.save_path = str(tmp_path / "comparison.md")
    key("Alt+E")
    qt_wait_until(lambda: (tmp_path / "comparison.md").exists())
    text = (tmp_path / "comparison.md").read_text(encoding="utf-8")
    assert "| 2 |" in text and "first divergence" in text and "branch 1" in text
    key("Escape")  # the view closes; the keys are the window's again
    qt_wait_until(lambda: not compare.isVisible())
    window.activateWindow()
    qt_wait_until(lambda: window.isActiveWindow())
    key("Space")
    wait_idle(qtbot, window)
    assert bridge.trainer.position == 3 or QApplication.activeModalWidget() is not None


def _when_a_menu_opens(act, tries: int = 500) -> None:
    """Call ``act(menu)`` once a menu pops up (its ``exec`` blocks the test meanwhile), looking
    for it every 20 ms for up to 10 s (a loaded machine may show it late)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMenu

    menu = QApplication.activePopupWidget()
    if isinstance(menu, QMenu):
        act(menu)
    elif tries:
        QTimer.singleShot(20, lambda: _when_a_menu_opens(act, tries - 1))


def _close_menus() -> None:
    while (menu := QApplication.activePopupWidget()) is not None:
        menu.close()


def _menu_key(widget) -> None:
    """The Menu key (or Shift+F10) as the platform delivers it: a keyboard context-menu event."""
    from PySide6.QtGui import QContextMenuEvent

    centre = widget.rect().center()
    QApplication.sendEvent(
        widget, QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, centre, widget.mapToGlobal(centre))
    )


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
def test_the_history_graph_and_the_plots_take_keys_and_their_menus_open_from_the_keyboard(qtbot, make_window):
    from PySide6.QtCore import QTimer

    from app.panes.history_pane import HistoryGraph

    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    bridge.goto(3)
    bridge.step()  # a second branch
    wait_idle(qtbot, window)
    window.show_history()
    graph = window.findChild(HistoryGraph)
    qt_wait_until(lambda: graph.isVisible())
    for widget in (graph, window.plots_pane.graphics):
        widget.setFocus()
        qt_wait_until(lambda w=widget: QApplication.focusWidget() is w)
        before = bridge.trainer.position
        key("Left")
        assert bridge.trainer.position == before - 1
        key("Right")
        assert bridge.trainer.position == before

    seen = []

    def read_menu() -> None:
        menu = QApplication.activePopupWidget()
        seen.append([menu.accessibleName(), *(action.text() for action in menu.actions())] if menu else None)
        if menu is not None:
            menu.close()

    graph.setFocus()
    QTimer.singleShot(100, read_menu)
    _menu_key(graph)
    qt_wait_until(lambda: seen)
    assert seen[0] is not None and seen[0][0] == "Branch main"  # what a screen reader says of it
    assert seen[0][1].startswith(f"&Go to step {bridge.trainer.position}")  # each item a letter of its own
    assert seen[0][2:] == ["&Rename…", "&Delete branch", "Delete a&nother branch"]

    _menu_key(window.plots_pane.graphics)
    scene = window.plots_pane.graphics.scene()
    qt_wait_until(lambda: scene.exportDialog is not None and scene.exportDialog.isVisible())
    scene.exportDialog.close()


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
@pytest.mark.parametrize("pane", ["corpus", "vocab"])
def test_the_menu_key_on_a_table_sorts_it_by_any_column(qtbot, make_window, pane):
    """The headers sort on a click and take no focus: by the keys, nothing sorted. The Menu key
    (or Shift+F10) now opens the columns, each ascending or descending, the current order
    ticked; an item's letter picks it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = make_window("Shakespeare")
    view = {"corpus": window.corpus_pane.view, "vocab": window.vocab_pane.view}[pane]
    window.go_to_pane(pane)
    qt_wait_until(lambda: QApplication.focusWidget() is view)
    header, model = view.horizontalHeader(), view.model()
    shown: list[tuple[str, bool]] = []
    wanted: list[str] = []

    def answer(menu) -> None:
        items = [a for a in menu.actions() if not a.isSeparator()]
        shown.extend((a.text(), a.isChecked()) for a in items)
        pick = next(a for a in items if a.text().endswith("descending") and not a.isChecked())
        wanted.append(pick.text())
        QTest.keyClick(menu, pick.text()[pick.text().index("&") + 1])
        if menu.isVisible():  # the letter did nothing: close, and the test fails below
            menu.close()

    _when_a_menu_opens(answer)
    _menu_key(view.viewport())
    names = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert [text.replace("&", "") for text, _ in shown] == [
        f"{name}, {order}"
        for c, name in enumerate(names)
        if not view.isColumnHidden(c)
        for order in ("ascending", "descending")
    ]
    assert sum(ticked for _, ticked in shown) == 1
    column = names.index(wanted[0].replace("&", "").removesuffix(", descending"))
    qt_wait_until(lambda: header.sortIndicatorSection() == column)
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
@pytest.mark.parametrize("pane", ["corpus", "history"])
def test_shift_f10_pressed_opens_the_menu_the_menu_key_opens(qtbot, make_window, pane):
    """Qt on Linux makes a context-menu request of the Menu key only: Shift+F10, which the
    help lists beside it, did nothing there."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from app.panes.history_pane import HistoryGraph

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    if pane == "history":
        window.show_history()
        graph = window.findChild(HistoryGraph)
        qt_wait_until(lambda: graph.isVisible())
        graph.setFocus()
        qt_wait_until(lambda: QApplication.focusWidget() is graph)
    seen = []

    def read_menu(menu) -> None:
        seen.append([action.text().replace("&", "") for action in menu.actions() if action.text()])
        QTest.keyClick(menu, Qt.Key.Key_Escape)  # as a user leaves it

    _when_a_menu_opens(read_menu)
    key("Shift+F10")
    qt_wait_until(lambda: seen)
    expected = "Word, ascending" if pane == "corpus" else "Go to step 0"
    assert any(text.startswith(expected) for text in seen[0]), seen
    key("Space")  # the menu closed, the keys where they were
    wait_idle(qtbot, window)
    assert window.bridge.trainer.position == 1


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
def test_the_plots_export_dialog_names_its_fields_and_closes_on_escape(qtbot, make_window):
    """Opened by Shift+F10 on the plots, pyqtgraph's dialog said only "tree", "list" and
    "button" to a screen reader, and Esc did nothing there."""
    from PySide6.QtGui import QAccessible

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    key("Ctrl+6")
    key("Shift+F10")
    dialog = window.plots_pane.graphics.scene().exportDialog
    qt_wait_until(lambda: dialog is not None and dialog.isVisible())
    qt_wait_until(lambda: dialog.isAncestorOf(QApplication.focusWidget()))
    unnamed, seen, names = [], [], []
    while QApplication.focusWidget() not in seen:  # once round the Tab stops
        widget = QApplication.focusWidget()
        seen.append(widget)
        interface = QAccessible.queryAccessibleInterface(widget)
        names.append(interface.text(QAccessible.Text.Name))
        if not names[-1]:
            unnamed.append(f"{type(widget).__name__} {widget.objectName()!r}")
        key("Tab")
    assert len(seen) >= 5 and not unnamed
    resets = [name for name in names if name.startswith("Reset ")]  # each says which option
    assert resets and len(set(resets)) == len(resets), names
    key("Escape")
    qt_wait_until(lambda: not dialog.isVisible())
    qt_wait_until(lambda: window.plots_pane.graphics.hasFocus())


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")
@pytest.mark.parametrize("answer", ["No", "Yes"])
def test_deleting_a_branch_by_keys_asks_first_with_no_as_the_default(qtbot, make_window, dialogs, answer):
    """Menu key, N (Delete another branch), Enter: the branch went at once, with its merges
    picked by hand and no undo. Now it is asked, and Enter on the question keeps it."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from app.panes.history_pane import HistoryGraph

    window = make_window("Shakespeare")
    bridge = window.bridge
    bridge.run(merges=6)
    wait_idle(qtbot, window)
    bridge.goto(3)
    bridge.step_pair(bridge.trainer.top_pairs(3)[2].pair)  # picked by hand: a second branch
    wait_idle(qtbot, window)
    bridge.switch_branch(0)
    wait_idle(qtbot, window)
    assert len(bridge.trainer.branches()) == 2
    window.show_history()
    graph = window.findChild(HistoryGraph)
    qt_wait_until(lambda: graph.isVisible())
    graph.setFocus()
    dialogs.answer = getattr(QMessageBox.StandardButton, answer)
    _when_a_menu_opens(lambda menu: (key("N"), _when_a_menu_opens(lambda submenu: key("Return"))))
    QTimer.singleShot(10_000, _close_menus)  # a menu the keys did not close fails the test, not hangs it
    _menu_key(graph)
    qt_wait_until(lambda: bool(dialogs.shown))
    kind, title, text = dialogs.shown[-1]
    assert (
        (kind, title) == ("question", "Delete branch") and "'branch 1'" in text and "cannot be undone" in text
    )
    assert dialogs.defaults[-1] == QMessageBox.StandardButton.No
    assert len(bridge.trainer.branches()) == (1 if answer == "Yes" else 2)


@pytest.mark.parametrize("view", ["compare", "compression", "tokenizers"])
def test_a_side_view_with_the_keys_undoes_saves_and_goes_back_to_a_pane_by_the_windows_keys(
    qtbot, make_window, dialogs, tmp_path, view
):
    """With a side view in front, none of the window's keys worked: a keyboard user had to
    close the view (or ask the window manager) to undo, save or step."""
    window = make_window()
    fresh_focus(qtbot, window)
    bridge = window.bridge
    for _ in range(3):
        key("Space")
    window.commands[view].trigger()  # View → Compare runs, Compression view, Compare tokenizers
    side = {
        "compare": lambda: window.compare_dialog,
        "compression": lambda: window.compression_dialog,
        "tokenizers": lambda: window.tokenizers_dialog,
    }[view]
    qt_wait_until(lambda: side() is not None and side().isVisible())
    side().activateWindow()
    qt_wait_until(lambda: getattr(QApplication.focusWidget(), "window", lambda: None)() is side())
    key("Ctrl+Z")
    qt_wait_until(lambda: bridge.trainer.position == 2)
    dialogs.save_path = str(tmp_path / "kept.json")
    key("Ctrl+S")
    qt_wait_until(lambda: (tmp_path / "kept.json").exists())
    key("Ctrl+1")  # the window comes forward, the Corpus table with the keys: Space steps there
    qt_wait_until(lambda: QApplication.focusWidget() is window.corpus_pane.view)
    key("Space")
    assert bridge.trainer.position == 3
