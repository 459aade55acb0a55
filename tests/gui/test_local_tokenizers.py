"""File → Open tokenizer…: the tokenizers of fake Hugging Face and tiktoken caches (named by
the environment, as the libraries find theirs), listed, filtered and opened with the keys."""

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QPushButton

from app.dialogs import local_tokenizers_dialog as module
from app.dialogs.local_tokenizers_dialog import NAME, LocalTokenizersDialog
from app.dialogs.ranks_dialog import RanksDialog
from bpe_core.io.formats import read_tokenizer
from tests.conftest import GPT2_RANKS
from tests.formats.test_local_tokenizers import add_model, small_tokenizer, tiktoken_cache
from tests.gui_helpers import ModalAnswerer, fresh_focus, qt_wait_until, wait_idle

MAIN = "0123456789abcdef0123456789abcdef01234567"
KEY_NAMES = {"Return", "Escape", "Tab", "Down", "Up"}


@pytest.fixture
def caches(tmp_path, monkeypatch) -> dict[str, Path]:
    """A Hugging Face cache with two models and a tiktoken cache with GPT-2's ranks (r50k_base),
    named by the environment; the real caches are out of reach."""
    files = small_tokenizer(tmp_path)
    hub = tmp_path / "hub"
    add_model(hub, "openai-community/gpt2", {MAIN: {"tokenizer.json": files["tokenizer.json"]}}, main=MAIN)
    gpt2_files = {f: files[f] for f in ("vocab.json", "merges.txt")}
    add_model(hub, "distilgpt2", {MAIN: gpt2_files}, main=MAIN)
    [ranks] = tiktoken_cache(tmp_path / "tiktoken", GPT2_RANKS)
    for variable in ("HF_HOME", "HUGGINGFACE_HUB_CACHE", "DATA_GYM_CACHE_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    return {"hub": hub, "ranks": ranks, "tokenizer.json": files["tokenizer.json"]}


class KeyAnswerer(ModalAnswerer):
    """Answers the Open tokenizer dialog with keys pressed in its focus, as a user would (a key's
    name, "Return", "Down"…, is pressed; other text is typed); records the rows it listed, its
    note and where the focus went after each key."""

    def __init__(self, *keys: str) -> None:
        self.rows: list[tuple[str, str, str]] = []
        self.note = ""
        self.focus: list[str] = []

        def answer(dialog) -> None:
            qt_wait_until(lambda: not dialog.note.text().startswith("Looking"))
            items = [dialog.list.topLevelItem(r) for r in range(dialog.list.topLevelItemCount())]
            self.rows = [(item.text(0), item.text(1), item.text(2)) for item in items]
            self.note = dialog.note.text()
            self.focus.append(named(dialog.focusWidget()))
            for key in keys:
                target = dialog.focusWidget() or dialog
                if key in KEY_NAMES:
                    sequence = QKeySequence(key)[0]
                    QTest.keyClick(target, sequence.key(), sequence.keyboardModifiers())
                else:
                    QTest.keyClicks(target, key)
                if dialog.isVisible():
                    self.focus.append(named(dialog.focusWidget()))

        super().__init__(LocalTokenizersDialog, answer)


def named(widget) -> str:
    """A button by its text, another widget by its class."""
    return widget.text() if isinstance(widget, QPushButton) else type(widget).__name__


def open_dialog(qtbot, window, answerer) -> None:
    window.commands["open_tokenizer"].trigger()
    answerer.stop()
    wait_idle(qtbot, window)


def test_a_cached_model_is_listed_filtered_and_opened_with_the_keys(qtbot, make_window, caches, dialogs):
    window = make_window()
    fresh_focus(qtbot, window)
    answerer = KeyAnswerer("comm", "Return")  # openai-community/gpt2 alone
    open_dialog(qtbot, window, answerer)
    assert answerer.rows == [
        ("distilgpt2", "GPT-2 vocab.json + merges.txt", "Hugging Face cache"),
        ("openai-community/gpt2", "Hugging Face tokenizer.json", "Hugging Face cache"),
        ("r50k_base", "tiktoken ranks", "tiktoken cache"),
    ]
    assert answerer.note == f"3 found in {caches['hub']} and {caches['ranks'].parent}"
    trainer = window.bridge.trainer
    expected = read_tokenizer(caches["tokenizer.json"]).encoder
    assert trainer.history_length == len(expected.merges) == 200
    assert "openai-community/gpt2" in window.windowTitle()
    assert window.bridge.encoder().encode_ids("In the beginning") == expected.encode_ids("In the beginning")
    snapshot_file = caches["hub"] / "models--openai-community--gpt2" / "snapshots" / MAIN / "tokenizer.json"
    assert window.files.recent()[0] == str(snapshot_file)  # the snapshot's name, not its blob's hash
    assert dialogs.shown == [] and QApplication.focusWidget() is not None  # the keys came back


def test_a_tiktoken_encoding_opens_with_its_pattern_and_special_tokens_unasked(
    qtbot, make_window, caches, dialogs
):
    window = make_window()
    fresh_focus(qtbot, window)
    asked = ModalAnswerer(RanksDialog, lambda dialog: dialog.reject())
    answerer = KeyAnswerer("Down", "Down", "Return")  # the third row, moved to from the filter
    open_dialog(qtbot, window, answerer)
    asked.stop()
    assert asked.seen == []
    assert "r50k_base" in window.windowTitle()
    encoder = window.bridge.encoder()
    assert encoder.encode_ids("Hello world<|endoftext|>", allow_special=True) == [15496, 995, 50256]


def test_tab_goes_round_the_dialog_and_escape_closes_it_opening_nothing(qtbot, make_window, caches):
    window = make_window()
    fresh_focus(qtbot, window)
    before = window.bridge.trainer
    answerer = KeyAnswerer("Tab", "Tab", "Tab", "Tab", "Tab", "Escape")
    open_dialog(qtbot, window, answerer)
    assert answerer.focus == ["QLineEdit", "QTreeWidget", "Browse…", "Open", "Cancel", "QLineEdit"]
    assert window.bridge.trainer is before


def test_with_nothing_found_it_says_where_it_looked_and_browse_opens_any_file(
    qtbot, make_window, tmp_path, monkeypatch, dialogs
):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "no-hub"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "no-tiktoken"))
    codes = tmp_path / "model.codes"
    codes.write_text("#version: 0.2\nl o\nlo w</w>\n", encoding="utf-8")
    dialogs.open_path = str(codes)
    window = make_window()
    fresh_focus(qtbot, window)
    answerer = KeyAnswerer("Return")  # with nothing to open, Enter is Browse…
    open_dialog(qtbot, window, answerer)
    assert answerer.rows == []
    assert answerer.note == f"No tokenizers found in {tmp_path / 'no-hub'} and {tmp_path / 'no-tiktoken'}."
    assert window.bridge.trainer.history_length == 2 and window.bridge.source.name == "model.codes"


def test_the_list_arrives_from_its_thread_when_slow_filters_and_opens_on_a_double_click(
    qtbot, caches, monkeypatch
):
    release = threading.Event()
    real = module.find_local_tokenizers
    monkeypatch.setattr(module, "find_local_tokenizers", lambda environ: release.wait(10) and real(environ))
    dialog = LocalTokenizersDialog(environ=os.environ)
    qtbot.addWidget(dialog)
    assert dialog.note.text().startswith(f"Looking in {caches['hub']}")
    assert dialog.chosen() is None and not dialog.open_button.isEnabled()
    release.set()
    qtbot.waitUntil(lambda: dialog.list.topLevelItemCount() == 3)
    assert dialog.chosen().name == "distilgpt2" and dialog.open_button.isEnabled()
    dialog.filter.setText("  TIKTOKEN  ")
    assert dialog.note.text() == "1 of 3 shown" and dialog.chosen().encoding == "r50k_base"
    dialog.filter.setText("nothing like it")
    assert dialog.note.text() == "0 of 3 shown" and dialog.chosen() is None
    assert not dialog.open_button.isEnabled()
    dialog.filter.clear()
    dialog.show()
    qtbot.waitExposed(dialog)
    item = dialog.list.topLevelItem(1)
    assert item.data(NAME, Qt.ItemDataRole.UserRole).name == "openai-community/gpt2"
    where = dialog.list.visualItemRect(item).center()
    QTest.mouseClick(dialog.list.viewport(), Qt.MouseButton.LeftButton, pos=where)
    QTest.mouseDClick(dialog.list.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert dialog.result() == QDialog.DialogCode.Accepted and not dialog.isVisible()
    assert dialog.chosen().name == "openai-community/gpt2"
