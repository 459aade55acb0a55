"""The Help menu and the Samples menu as a new user reads them: every key (History's and Tab
among them), About (version, licences, the manual), and samples named after their sources."""

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

import bpe_core
from app.dialogs.text_dialog import TextDialog
from app.samples import SAMPLES
from tests.gui_helpers import ModalAnswerer, fresh_focus, press, read_shortcuts

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("close_key", [Qt.Key.Key_Escape, Qt.Key.Key_Return])
def test_f1_lists_the_keys_of_the_panes_history_and_tab_among_them(qtbot, make_window, close_key):
    window = make_window()
    fresh_focus(qtbot, window)
    answerer, shown = read_shortcuts(close_key)
    press("F1")
    qtbot.waitUntil(lambda: bool(shown))
    answerer.stop()
    title, text, _ = shown[0]
    assert title == "Keyboard shortcuts"
    for keys in ("History of branches: Ctrl+H", "Tab / Shift+Tab", "↑ ↓", "Home / End", "F2", "Step: Space"):
        assert keys in text, keys
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.corpus_pane.view)  # where it was
    press("Space")  # the dialog closed: the next key works
    assert window.bridge.trainer.position == 1


def test_the_keys_zoomed_for_a_projector_fit_the_screen_and_scroll_to_every_line(qtbot, make_window):
    """Zoomed in eight times, the shortcuts' second column was cut off: a message box caps its
    width and never scrolls."""
    window = make_window()
    fresh_focus(qtbot, window)
    for _ in range(8):
        press("Ctrl+=")
    seen: list = []

    def measure_and_close(dialog: TextDialog) -> None:
        seen.append(_reach(dialog))
        dialog.reject()

    answerer = ModalAnswerer(TextDialog, measure_and_close)
    press("F1")
    qtbot.waitUntil(lambda: bool(seen))
    answerer.stop()
    room, frame, font, ideal, viewport, scroll = seen[0]
    assert room.contains(frame), (room, frame)
    assert font.pointSizeF() >= window._base_points + 16
    assert ideal <= viewport + scroll  # every column can be scrolled to


def _reach(dialog: TextDialog):
    browser = dialog.browser
    document = browser.document()
    return (
        dialog.screen().availableGeometry(),
        dialog.frameGeometry(),
        browser.font(),
        document.idealWidth(),
        browser.viewport().width(),
        browser.horizontalScrollBar().maximum(),
    )


def test_the_pane_keys_are_short_enough_to_be_kept_whole_in_their_column():
    """The keys of a line are kept whole (no break inside "Shift+F10"); one of 45 characters was
    wider than its column at 1280 x 720 and broke at its hyphen ("Right-" alone on a line)."""
    from app.help_texts import PANE_KEYS

    assert max(len(keys) for keys, _ in PANE_KEYS) <= 34


def test_about_gives_the_version_the_licences_and_a_link_to_the_manual(qtbot, make_window):
    window = make_window()
    fresh_focus(qtbot, window)
    shown = []

    def read_and_close(box: QMessageBox) -> None:
        shown.append(box.text())
        QTest.keyClick(QApplication.focusWidget() or box, Qt.Key.Key_Escape)

    about = next(a for a in window.menuBar().actions() if a.text() == "&Help").menu().actions()
    answerer = ModalAnswerer(QMessageBox, read_and_close)
    next(a for a in about if a.text() == "&About BPE Studio").trigger()
    answerer.stop()
    text = shown[0]
    assert f"BPE Studio {bpe_core.__version__}" in text and "Licence: MIT" in text
    for library, licence in (
        ("Qt", "LGPLv3"),
        ("PySide6", "LGPLv3"),
        ("pyqtgraph", "MIT"),
        ("numpy", "BSD"),
        ("regex", "Apache-2.0"),
    ):
        assert f">{library}</a>" in text and licence in text.split(f">{library}</a>", 1)[1].split("</li>")[0]
    assert "GPT-2's ranks" in text and "MIT" in text
    assert f'href="file://{README}"' in text  # the manual, beside the program
    fresh_focus(qtbot, window)  # the box closed: the window has the keys again
    press("Space")
    assert window.bridge.trainer.position == 1


def test_samples_are_named_after_their_sources(qtbot, make_window):
    window = make_window()
    shown = [a.text().replace("&", "") for a in window.samples_menu.actions() if a.text()]
    sources = {
        "low · lower": "Sennrich, Haddow and Birch 2016",
        "old · older": "subword tokenization primer",
        "FRED": "Pharo",
        "aaabdaaabac": "Gage 1994",
        "hug pug": "Hugging Face LLM course",
        "FloydHub": "FloydHub BPE notebook",
        "<|endoftext|>": "Hugging Face LLM course",
        "Shakespeare": "public domain",
    }
    for sample in SAMPLES:
        source = next(v for k, v in sources.items() if k in sample.name)
        assert f"({source}" in sample.name or source in sample.name, sample.name
        assert sample.name in shown
        assert "seed" not in (sample.name + sample.description).lower()
        assert Path(sample.name).stem == sample.name  # Save as suggests the whole name
