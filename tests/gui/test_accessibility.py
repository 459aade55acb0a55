"""Assistive technology: every control of the window and of each dialog has a name a screen
reader can say, table cells read as text, and the changes that matter are announced."""

from PySide6.QtWidgets import QApplication, QDialog

from app.accessibility import ANNOUNCED, unnamed_controls
from tests.gui_helpers import fresh_focus, press, qt_wait_until, wait_idle


def test_a_step_an_undo_and_a_finished_job_are_announced(qtbot, make_window, tmp_path):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    ANNOUNCED.clear()
    press("Space")
    wait_idle(qtbot, window)
    record = window.bridge.trainer.history[0]
    tokens = window.bridge.trainer.vocab.tokens
    assert ANNOUNCED[-1].startswith(f"Step 1: merged {tokens[record.pair[0]]} and {tokens[record.pair[1]]}")
    press("Ctrl+Z")
    assert ANNOUNCED[-1] == "Undone: back at step 0"
    corpus = tmp_path / "small.txt"
    corpus.write_text("low lower lowest " * 50, encoding="utf-8")
    window.open_path(corpus)
    qt_wait_until(lambda: any(text.startswith("Opened small.txt") for text in ANNOUNCED), timeout_ms=30_000)


def test_every_tab_of_the_compare_view_and_its_unlabelled_fields_have_names(qtbot, make_window):
    """Controls on a tab shown later are named when it is shown; the branch and rule boxes,
    whose words around them are no labels, have names of their own (Qt on Linux would read A
    and B alike, by their current text), and so does the Settings' target value."""
    from app.dialogs.settings_dialog import SettingsDialog

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    for _ in range(10):
        press("Space")
    window.show_compare()
    dialog = window.compare_dialog
    names = [box.accessibleName() for box in (dialog.a_box, dialog.b_box, dialog.rule_box)]
    assert names == ["Branch A", "Branch B", "Rule to try from here"]
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        QApplication.processEvents()
        page = dialog.tabs.widget(index)
        assert not [type(w).__name__ for w in unnamed_controls(page)], dialog.tabs.tabText(index)
    dialog.close()
    trainer = window.bridge.trainer
    settings = SettingsDialog(trainer.corpus.config, trainer.training, window.target, window)
    assert settings.target_value.accessibleName() == "Target value"
    settings.deleteLater()


def test_a_fresh_window_and_every_dialog_name_every_control(qtbot, make_window, tmp_path):
    from app.dialogs.export_dialog import ExportDialog
    from app.dialogs.local_tokenizers_dialog import LocalTokenizersDialog
    from app.dialogs.ranks_dialog import RanksDialog
    from app.dialogs.run_dialog import RunDialog
    from app.dialogs.settings_dialog import SettingsDialog
    from app.dialogs.tie_dialog import TieDialog
    from bpe_core.io.formats import formats_for
    from tests.conftest import GPT2_RANKS

    window = make_window("Shakespeare")
    assert not [type(w).__name__ for w in unnamed_controls(window)]
    window.show_tokenizers()
    window.show_compare()
    window.show_compression()
    trainer = window.bridge.trainer
    made = [
        RunDialog(trainer.vocab_size, 2, parent=window),
        TieDialog(trainer, trainer.tied_candidates(limit=10), window),
        ExportDialog(formats_for(trainer.encoder()), window),
        RanksDialog(GPT2_RANKS, window),
        LocalTokenizersDialog(str(tmp_path), "All files (*)", window, environ={"HOME": str(tmp_path)}),
        SettingsDialog(trainer.corpus.config, trainer.training, window.target, window),
    ]
    for dialog in made:
        dialog.show()
    QApplication.processEvents()
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]
    assert len(dialogs) >= 9
    for dialog in dialogs:
        assert not [type(w).__name__ for w in unnamed_controls(dialog)], type(dialog).__name__
    from PySide6.QtWidgets import QPushButton

    for dialog in made:  # Enter has a button to press, and Esc closes
        assert any(button.isDefault() for button in dialog.findChildren(QPushButton)), type(dialog).__name__
        dialog.activateWindow()
        qt_wait_until(lambda d=dialog: QApplication.activeWindow() is d)
        press("Escape")
        qt_wait_until(lambda d=dialog: not d.isVisible())


# Roles a user operates: each must have a name a screen reader says.
OPERATED = {
    "push button", "toggle button", "check box", "radio button", "combo box", "slider",
    "spin button", "text", "entry", "table", "tree table", "tree", "list", "page tab",
}  # fmt: skip
SYSTEM_PYTHON = "/usr/bin/python3"
BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"


def _atspi_missing() -> str | None:
    import shutil
    import subprocess
    from pathlib import Path

    for tool in ("Xvfb", "dbus-run-session"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: xvfb, dbus)"
    if not Path(BUS_LAUNCHER).exists():
        return "the AT-SPI bus is not installed (Debian: at-spi2-core)"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True)
    if probe.returncode != 0:
        return "pyatspi is not installed for the system's Python (Debian: python3-pyatspi)"
    return None


def test_a_screen_reader_reads_a_name_for_every_control_through_atspi(tmp_path):
    """The real window under Xvfb with QT_ACCESSIBILITY=1, read over the AT-SPI bus."""
    import json
    import os
    import subprocess
    import sys

    import pytest

    from tests.conftest import REPO

    missing = _atspi_missing()
    if missing is not None:
        pytest.skip(f"no AT-SPI here: {missing}")
    script = tmp_path / "session.sh"
    script.write_text(
        "\n".join(
            [
                "Xvfb :$1 -screen 0 1440x900x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!",
                f"{BUS_LAUNCHER} --launch-immediately >/dev/null 2>&1 & bus=$!",
                "sleep 2",
                f'"{sys.executable}" -m app >"$2/app.log" 2>&1 & app=$!',
                f'"{SYSTEM_PYTHON}" "{REPO}/tests/atspi_reader.py" >"$2/tree.json" 2>"$2/reader.log"',
                "kill $app $bus $xvfb 2>/dev/null; wait 2>/dev/null; exit 0",
            ]
        ),
        encoding="utf-8",
    )
    display = str(90 + os.getpid() % 9)
    env = {
        **os.environ,
        "DISPLAY": f":{display}",
        "QT_QPA_PLATFORM": "xcb",
        "QT_ACCESSIBILITY": "1",
        "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    subprocess.run(
        ["dbus-run-session", "--", "bash", str(script), display, str(tmp_path)],
        env=env, cwd=REPO, timeout=180, capture_output=True,
    )  # fmt: skip
    tree = json.loads((tmp_path / "tree.json").read_text() or "{}")
    assert tree.get("app") == "BPE Studio", (tmp_path / "reader.log").read_text()[-2000:]
    nodes = tree["nodes"]
    assert sum(node["role"] in OPERATED for node in nodes) > 30
    unnamed = [
        node["role"] for node in nodes if node["role"] in OPERATED and node["showing"] and not node["name"]
    ]
    assert not unnamed


def test_a_pairs_cell_reads_naturally_and_a_tie_is_marked_by_more_than_colour(qtbot, make_window):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QAccessible

    window = make_window("low · lower")  # es, st and t</w> tie at 9 at the start
    model = window.pairs_pane.model
    qt_wait_until(lambda: model.rowCount() > 3)
    first = model.index(0, 1)
    spoken = model.data(first, Qt.ItemDataRole.AccessibleTextRole)
    assert spoken == "e s, count 9, tied, picked next"
    assert model.data(model.index(0, 4), Qt.ItemDataRole.AccessibleTextRole) == "Count 9"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.DisplayRole) == "=1"  # not only shaded
    assert model.data(model.index(3, 0), Qt.ItemDataRole.DisplayRole) == "4"
    # And through the accessibility interface, as a screen reader asks the table for a cell.
    table = QAccessible.queryAccessibleInterface(window.pairs_pane.view)
    names = [table.child(i).text(QAccessible.Text.Name) for i in range(min(table.childCount(), 60))]
    assert spoken in names


def test_an_unknown_character_is_marked_by_a_wavy_underline_as_well_as_red(qtbot, make_window):
    from PySide6.QtGui import QTextCharFormat

    window = make_window("low · lower")
    pane = window.encode_pane
    pane.input.setPlainText("low ☃")
    qt_wait_until(pane.is_current)
    styles = {(s.cursor.selectionStart(), s.format.underlineStyle()) for s in pane.input.extraSelections()}
    assert (4, QTextCharFormat.UnderlineStyle.WaveUnderline) in styles
    assert (0, QTextCharFormat.UnderlineStyle.WaveUnderline) not in styles
    assert "unknown (wavy red underline)" in pane.stats.text()


def test_the_painted_status_texts_read_to_a_screen_reader_as_shown(qtbot, make_window):
    from app.widgets import StatusText

    window = make_window("Shakespeare")
    window.bridge.step()
    texts = window.findChildren(StatusText)
    shown = [text for text in texts if text.text()]
    assert any(text.text().startswith("Step 1") for text in shown)
    assert [text.accessibleName() for text in texts] == [text.text() for text in texts]


def test_the_toolbar_labels_name_their_controls(qtbot, make_window):
    from PySide6.QtWidgets import QLabel

    window = make_window("Shakespeare")
    buddies = {label.text().strip(): label.buddy() for label in window.findChildren(QLabel) if label.buddy()}
    assert buddies["Ties:"] is window.rule_box and buddies["speed"] is window.speed


def test_a_merges_step_cell_says_where_it_stands_not_its_marker(qtbot, make_window):
    """The Merges pane marks the current step "▶ 2": a screen reader read the arrow out and
    never said "current"."""
    from PySide6.QtCore import Qt

    from app.models.merge_model import COUNT, STEP

    window = make_window("low · lower")
    for _ in range(3):
        window.bridge.step()
    window.bridge.undo()
    model = window.merges_pane.model
    qt_wait_until(lambda: model.rowCount() == 3)
    spoken = [model.data(model.index(row, STEP), Qt.ItemDataRole.AccessibleTextRole) for row in range(3)]
    assert spoken == ["step 1", "step 2, the current step", "step 3, undone"]
    assert model.data(model.index(1, STEP), Qt.ItemDataRole.DisplayRole) == "▶ 2"
    count = model.data(model.index(0, COUNT), Qt.ItemDataRole.AccessibleTextRole)
    assert count.startswith("Count ") and count.removeprefix("Count ").replace(",", "").isdigit()


def test_typing_a_filter_or_a_test_string_is_answered_aloud(qtbot, make_window):
    """The Corpus filter's "2 of 4 word types shown" and Encode's "14 tokens for 13
    characters" were painted only: a screen reader heard the keys typed and nothing else."""
    from PySide6.QtTest import QTest

    window = make_window("low · lower")
    ANNOUNCED.clear()
    window.go_to_pane("corpus")
    field = window.corpus_pane.filter_edit
    field.setFocus()
    QTest.keyClicks(field, "low")
    qt_wait_until(lambda: any("word types shown" in said for said in ANNOUNCED))
    said = [s for s in ANNOUNCED if "shown" in s][-1]
    assert said == f"{window.corpus_pane.model.rowCount()} of 4 word types shown"
    box = window.encode_pane.input
    box.setFocus()
    qt_wait_until(lambda: box.hasFocus())
    box.selectAll()
    QTest.keyClicks(box, "lowest")
    qt_wait_until(lambda: any(s.endswith(" characters") or "characters (" in s for s in ANNOUNCED))
    assert window.encode_pane.stats.text() in ANNOUNCED


def test_up_and_down_in_the_history_graph_say_the_branch_reached(qtbot, make_window):
    """↑ ↓ in the History graph switch branches: nothing was said of which, or where on it."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = make_window("low · lower")
    bridge = window.bridge
    for _ in range(3):
        bridge.step()
    bridge.goto(1)
    other = next(p.pair for p in bridge.trainer.top_pairs(5) if p.pair != bridge.trainer.history[1].pair)
    bridge.step_pair(other)  # a second branch, current
    window.show_history()
    graph = window.history_pane.graph
    qt_wait_until(lambda: graph.hasFocus())
    ANNOUNCED.clear()
    QTest.keyClick(graph, Qt.Key.Key_Up)
    qt_wait_until(lambda: any(said.startswith("On branch ") for said in ANNOUNCED))
    name = next(b.name for b in bridge.trainer.branches() if b.current)
    assert f"On branch {name}, at step {bridge.trainer.position} of " in ANNOUNCED[-1]


def test_a_new_session_is_not_announced_as_a_branch_reached(qtbot, make_window):
    """Opening a sample replaces the session (every branch new): it was said as "On branch main,
    at step 0 of 0"."""
    from app.gui import sample_trainer
    from tests.gui_helpers import sample

    window = make_window("low · lower")
    ANNOUNCED.clear()
    window.bridge.replace_trainer(sample_trainer(sample("Shakespeare")), window.bridge.source)
    qtbot.wait(50)
    assert not any(said.startswith("On branch") for said in ANNOUNCED)


def test_the_token_at_the_text_cursor_is_named_said_and_traced_by_keys(qtbot, make_window):
    """The Encode pane showed its tokens only as coloured spans, and each one's id and merges
    only in a tooltip under the mouse: nothing said by keys where the tokens begin and end."""
    from PySide6.QtWidgets import QToolTip

    window = make_window()
    fresh_focus(qtbot, window)
    for _ in range(5):  # l + o, lo + w: "low" is a token
        press("Space")
    pane = window.encode_pane
    press("Ctrl+3")
    qt_wait_until(lambda: QApplication.focusWidget() is pane.input)
    press("Ctrl+A")
    for char in "low er":
        qtbot.keyClick(pane.input, char)
    qt_wait_until(pane.is_current)
    ANNOUNCED.clear()
    press("Home")
    assert pane.at_cursor.text().startswith("At the cursor: “low”, id ")
    assert pane.at_cursor.text().endswith(f"(1 of {len(pane.encoding.ids)})")
    assert list(ANNOUNCED) == [pane.at_cursor.text()]
    press("Right")  # within the same token: not said again
    assert list(ANNOUNCED) == [pane.at_cursor.text()]
    press("End")
    assert "“r" in pane.at_cursor.text() and len(ANNOUNCED) == 2
    press("Home")
    press("Shift+F1")
    trace = ANNOUNCED[-1]
    assert trace.startswith("id ") and "starts as: l o w" in trace and "step " in trace
    assert QToolTip.isVisible() and QToolTip.text() == trace
