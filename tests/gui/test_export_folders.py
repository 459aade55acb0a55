"""Where save and export dialogs start: in the last folder the user chose (else home), with a
clean name made from the session's and the format's filter selected; and the export dialog's
reasons said in the window's terms."""

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from app.dialogs.export_dialog import FORMAT_ROLE, ExportDialog
from app.files import clean_stem, file_name
from app.samples import GPT2_SAMPLE_NAME
from tests.gui_helpers import ModalAnswerer, fresh_focus, press, wait_idle


def menu_action(window, text):
    return next(
        action
        for menu in window.menuBar().findChildren(type(window.samples_menu))
        for action in menu.actions()
        if action.text().replace("&", "") == text
    )


class SaveDialogs:
    """Records each save dialog's folder, name and selected filter; answers with ``answers``."""

    def __init__(self, monkeypatch) -> None:
        self.asked: list[tuple[str, str, str, str]] = []  # (title, start, filters, selected)
        self.answers: list[str] = []

        def ask(parent, title, start="", filters="", selected="", *rest, **options):
            self.asked.append((title, start, filters, options.get("selectedFilter", selected)))
            return (self.answers.pop(0) if self.answers else "", "")

        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(ask))


def choose_format(name):
    def choose(dialog):
        items = [dialog.formats.item(i) for i in range(dialog.formats.count())]
        dialog.formats.setCurrentItem(next(i for i in items if i.data(FORMAT_ROLE) == name))
        dialog.accept()

    return choose


def test_clean_names_from_the_session_name():
    assert clean_stem("GPT-2 tokenizer") == "gpt2-tokenizer"
    assert clean_stem("Shakespeare, 60 kB (public domain)") == "shakespeare-60-kb"
    assert file_name("gpt2-tokenizer", "tokenizer.json") == "gpt2-tokenizer.json"  # not said twice
    assert file_name(clean_stem("corpus"), "tokenizer.json") == "corpus-tokenizer.json"
    assert clean_stem("low · lower · newest · widest (a worked example)") == "low-lower-newest-widest"
    assert file_name("shakespeare", ".tiktoken") == "shakespeare.tiktoken"
    assert clean_stem("???") == "session"


def test_every_save_and_export_dialog_starts_in_the_last_folder_chosen(
    qtbot, make_window, dialogs, monkeypatch, tmp_path
):
    """Export as… opened in the install folder (resources/tokenizers) offering "GPT-2
    tokenizer-tokenizer.json" under "All files"; Export view and Export walk-through started
    elsewhere again."""
    saves = SaveDialogs(monkeypatch)
    window = make_window()
    fresh_focus(qtbot, window)
    menu_action(window, GPT2_SAMPLE_NAME).trigger()
    wait_idle(qtbot, window)
    assert window.files.recent() == []  # the install's own file is no recent file of the user's
    home = Path.home()
    chosen = tmp_path / "exports"
    chosen.mkdir()
    saves.answers.append(str(chosen / "mine.json"))
    answerer = ModalAnswerer(ExportDialog, choose_format("hf"))
    press("Ctrl+E")
    answerer.stop()
    wait_idle(qtbot, window)
    _title, start, filters, selected = saves.asked[-1]
    assert start == str(home / "gpt2-tokenizer.json")
    assert selected == filters.split(";;")[0] == "Hugging Face tokenizer (*.json)"
    assert (chosen / "mine.json").exists()
    # Every later dialog starts where the user chose to export.
    window.commands["export_view"].trigger()
    window.commands["walkthrough"].trigger()
    press("Ctrl+Shift+S")
    window.show_compare()
    window.compare_dialog.export_button.click()
    expected = [
        ("Export view", "gpt2-tokenizer-corpus.csv", "CSV (*.csv)"),
        ("Export walk-through", "gpt2-tokenizer-walkthrough.md", "Markdown (*.md)"),
        ("Save session", "gpt2-tokenizer.bpe.json", "BPE Studio sessions (*.bpe.json *.json)"),
        ("Export", "gpt2-tokenizer-comparison.csv", "CSV (*.csv)"),
    ]
    assert [(t, Path(s).parent, Path(s).name, sel) for t, s, _, sel in saves.asked[1:]] == [
        (t, chosen, name, sel) for t, name, sel in expected
    ]


def test_a_folder_that_is_gone_leaves_the_dialogs_at_home(qtbot, make_window, dialogs, monkeypatch, tmp_path):
    saves = SaveDialogs(monkeypatch)
    window = make_window()
    gone = tmp_path / "gone"
    gone.mkdir()
    saves.answers.append(str(gone / "x.md"))
    window.commands["walkthrough"].trigger()
    wait_idle(qtbot, window)
    (gone / "x.md").unlink()
    gone.rmdir()
    window.commands["export_view"].trigger()
    assert Path(saves.asked[-1][1]).parent == Path.home()


def test_the_export_dialog_says_what_to_do_in_the_windows_terms(qtbot, make_window, dialogs):
    """It told a window user to "train with --attach-marker", an option of the command line."""
    window = make_window()  # low · lower: the end-of-word marker is a symbol of its own
    fresh_focus(qtbot, window)
    seen = {}

    def read(dialog):
        items = [dialog.formats.item(i) for i in range(dialog.formats.count())]
        hf = next(i for i in items if i.data(FORMAT_ROLE) == "hf")
        seen.update(why=dialog.why.text(), tip=hf.toolTip())
        dialog.reject()

    answerer = ModalAnswerer(ExportDialog, read)
    press("Ctrl+E")
    answerer.stop()
    assert seen and all("--attach-marker" not in text for text in seen.values())
    assert "Settings" in seen["why"] and "Attach to the last symbol" in seen["tip"]


def test_a_long_export_note_is_shown_whole(qtbot, make_window, dialogs, tmp_path):
    """The tiktoken export's note was cut off at the edge of the status bar."""
    from bpe_core.io.formats import export_notes

    window = make_window()
    fresh_focus(qtbot, window)
    menu_action(window, GPT2_SAMPLE_NAME).trigger()
    wait_idle(qtbot, window)
    notes = export_notes(window.bridge.trainer.encoder(), "tiktoken")
    assert len(notes) == 2  # the split pattern and the special token: more than a status bar holds
    dialogs.save_path = str(tmp_path / "gpt2.tiktoken")
    answerer = ModalAnswerer(ExportDialog, choose_format("tiktoken"))
    press("Ctrl+E")
    answerer.stop()
    wait_idle(qtbot, window)
    kind, _title, text = dialogs.shown[-1]
    assert kind == "information" and all(f"Note: {note}" in text for note in notes)
    assert window.status.message.text() == f"Exported tiktoken ranks to {tmp_path / 'gpt2.tiktoken'}."
    press("Left")  # the keys are back on the window
    assert window.bridge.trainer.position == 49_999
