"""Real tokenizers in the window: the GPT-2 sample, import, attach, export, and keys."""

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLabel
from tokenizers import Tokenizer

from app.dialogs.export_dialog import FORMAT_ROLE, ExportDialog
from app.dialogs.ranks_dialog import RanksDialog
from app.models.vocab_model import ID, TOKEN
from app.samples import GPT2_SAMPLE_NAME, SAMPLES
from tests.conftest import GPT2_RANKS, data_text
from tests.gui_helpers import ModalAnswerer, drop_file, fresh_focus, press, qt_wait_until, wait_idle


def menu_action(window, text):
    for menu in window.menuBar().findChildren(type(window.samples_menu)):
        for action in menu.actions():
            if action.text().replace("&", "") == text:
                return action
    raise AssertionError(f"no menu action {text!r}")


class RanksAnswerer(ModalAnswerer):
    """Answers the ranks dialog with keys: ``keys`` pressed into its focus (the pattern first),
    then Enter; records what it offered and what was chosen. Any other dialog is cancelled (the
    window once asked for special tokens only, in a QInputDialog)."""

    def __init__(self, *keys: str) -> None:
        self.offered: list[tuple[str, tuple[str, ...], str]] = []
        self.chosen: list[tuple[str, tuple[str, ...]]] = []

        def answer(dialog) -> None:
            if not isinstance(dialog, RanksDialog):
                dialog.reject()
                return
            pattern, specials = dialog.chosen()
            self.offered.append((pattern, specials, dialog.findChild(QLabel).text()))
            for key in [*keys, "Escape" if "Escape" in keys else "Return"]:
                if key != "Escape":
                    self.chosen.append(dialog.chosen())
                sequence = QKeySequence(key)[0]
                # Into the dialog's focus (the platform may not have activated it yet).
                QTest.keyClick(dialog.focusWidget() or dialog, sequence.key(), sequence.keyboardModifiers())
            self.chosen = self.chosen[-1:]

        super().__init__(QDialog, answer)


@pytest.fixture
def gpt2_window(qtbot, make_window):
    window = make_window()
    fresh_focus(qtbot, window)
    menu_action(window, GPT2_SAMPLE_NAME).trigger()
    wait_idle(qtbot, window)
    return window


def test_the_gpt2_sample_opens_with_gpt2s_ids_and_counts_and_steps_with_the_keys(qtbot, gpt2_window):
    window = gpt2_window
    trainer = window.bridge.trainer
    assert (trainer.position, trainer.vocab_size, trainer.history_length) == (50_000, 50_257, 50_000)
    assert trainer.word_count > 1000 and trainer.record(1).count > 0  # Shakespeare attached
    assert "GPT-2 tokenizer" in window.windowTitle()
    encode = window.encode_pane
    qt_wait_until(encode.is_current)
    assert encode.encoding.ids[:2] == [15496, 995] and encode.encoding.ids[-1] == 50256  # "Hello world", EOT
    model = window.vocab_pane.model
    last = model.rowCount() - 1
    assert model.index(last, ID).data() == "50,256" and model.index(last, TOKEN).data() == "<|endoftext|>"
    assert model.index(0, ID).data() == "0" and model.index(0, TOKEN).data() == "!"
    window.corpus_pane.view.setFocus()
    press("Left")  # undo the last merge: "Ġgazed" leaves the vocabulary
    assert trainer.position == 49_999 and model.rowCount() == 50_256
    assert model.index(model.rowCount() - 1, TOKEN).data() == "<|endoftext|>"
    press("Space")  # the tokenizer's next merge, not the rule's pick on Shakespeare
    assert trainer.position == 50_000 and trainer.current_branch == trainer.branches()[0].id
    assert len(trainer.branches()) == 1
    assert model.index(model.rowCount() - 2, ID).data() == "50,255"


def test_import_without_a_corpus_then_attach_one_then_continue_training(
    qtbot, make_window, dialogs, tmp_path, monkeypatch
):
    window = make_window()
    fresh_focus(qtbot, window)
    dialogs.open_path = str(GPT2_RANKS)
    asked = RanksAnswerer()
    press("Ctrl+I")
    asked.stop()
    wait_idle(qtbot, window)
    assert asked.chosen == [("r50k_base", ())]  # recognised as GPT-2's: its encoding, specials at their ids
    trainer = window.bridge.trainer
    assert (trainer.position, trainer.word_count, trainer.vocab_size) == (50_000, 0, 50_257)
    assert "tiktoken ranks, 50,000 merges" in window.status.message.text()
    window.bridge.goto(10)
    wait_idle(qtbot, window)
    corpus = tmp_path / "genesis.txt"
    corpus.write_text(data_text("kjv_genesis_100k.txt")[:20_000], encoding="utf-8")
    dialogs.open_path = str(corpus)
    menu_action(window, "Attach corpus…").trigger()
    wait_idle(qtbot, window)
    attached = window.bridge.trainer
    assert attached is not trainer and attached.position == 10 and attached.word_count > 100
    assert attached.record(1).count > 0 and attached.numbering == trainer.numbering
    assert "genesis.txt attached" in window.status.message.text()
    window.bridge.goto(50_000)
    wait_idle(qtbot, window)
    window.corpus_pane.view.setFocus()
    press("Space")  # past the tokenizer's merges: the rule picks on Genesis
    assert attached.position == 50_001 and attached.record(50_001).decided_by == "first-seen"
    window.encode_pane.input.setPlainText("In the beginning")
    qt_wait_until(window.encode_pane.is_current)
    assert window.encode_pane.encoding.ids[0] == 818  # "In", GPT-2's id


def test_export_as_lists_what_fits_and_writes_what_hf_loads(qtbot, gpt2_window, dialogs, tmp_path):
    window = gpt2_window
    seen = {}

    def choose_hf(dialog):
        items = [dialog.formats.item(i) for i in range(dialog.formats.count())]
        seen.update(
            {item.data(FORMAT_ROLE): bool(item.flags() & item.flags().ItemIsEnabled) for item in items}
        )
        dialog.formats.setCurrentItem(next(i for i in items if i.data(FORMAT_ROLE) == "hf"))
        dialog.accept()

    answerer = ModalAnswerer(ExportDialog, choose_hf)
    dialogs.save_path = str(tmp_path / "gpt2.json")
    press("Ctrl+E")
    answerer.stop()
    wait_idle(qtbot, window)
    assert seen == {"hf": True, "gpt2": True, "codes": False, "tiktoken": True}
    theirs = Tokenizer.from_file(str(tmp_path / "gpt2.json"))
    text = "Hello world! GPT-2 splits unusual words."
    assert theirs.encode(text, add_special_tokens=False).ids == window.bridge.encoder().encode_ids(text)
    assert json.loads((tmp_path / "gpt2.json").read_text(encoding="utf-8"))["added_tokens"][0]["id"] == 50256
    assert QApplication.focusWidget() is not None  # the keys came back to the window
    press("Left")
    assert window.bridge.trainer.position == 49_999


def test_a_codes_file_dropped_on_the_window_opens_as_a_session(qtbot, make_window, tmp_path):
    window = make_window()
    codes = tmp_path / "model.codes"
    codes.write_text("#version: 0.2\nl o\nlo w</w>\ne r</w>\n", encoding="utf-8")
    drop_file(window, codes)
    wait_idle(qtbot, window)
    trainer = window.bridge.trainer
    assert trainer.history_length == 3 and trainer.record(2).decided_by == "imported"
    assert window.bridge.encoder().encode("low lower").tokens == ["low</w>", "lo", "w", "er</w>"]
    assert window.files.recent()[0] == str(codes.resolve())
    window.open_sample(SAMPLES[0])
    wait_idle(qtbot, window)
    window.files.open_recent(window.files.recent()[0])  # File > Recent files imports it again
    wait_idle(qtbot, window)
    assert window.bridge.trainer.history_length == 3 and window.bridge.source.name == "model.codes"


def test_the_pipeline_of_an_imported_tokenizer_cannot_be_changed_in_settings(
    qtbot, gpt2_window, dialogs, monkeypatch
):
    from app.dialogs.settings_dialog import SettingsDialog

    window = gpt2_window
    trainer = window.bridge.trainer

    def change_pipeline(dialog):
        dialog.lowercase.setChecked(True)
        dialog.accept()

    answerer = ModalAnswerer(SettingsDialog, change_pipeline)
    press("Ctrl+,")
    answerer.stop()
    wait_idle(qtbot, window)
    assert window.bridge.trainer is trainer and trainer.history_length == 50_000
    assert any("pipeline of an imported tokenizer is its own" in m for m in dialogs.messages)


def test_keys_during_an_import_then_escape_keep_the_session_and_the_next_import_lands(qtbot, make_window):
    window = make_window()
    fresh_focus(qtbot, window)
    before = window.bridge.trainer
    window.bridge.run(merges=3)
    wait_idle(qtbot, window)
    position = before.position
    menu_action(window, GPT2_SAMPLE_NAME).trigger()
    assert window.bridge.busy
    for key in ("Space", "Left", "Right", "Ctrl+Z"):
        press(key)  # nothing happens to the session being replaced, nothing breaks
    press("Escape")
    wait_idle(qtbot, window)
    assert window.bridge.trainer is before and before.position == position
    assert window.status.message.text() == "Cancelled"
    menu_action(window, GPT2_SAMPLE_NAME).trigger()
    wait_idle(qtbot, window)
    assert window.bridge.trainer.history_length == 50_000
    press("Left")
    assert window.bridge.trainer.position == 49_999


def test_escape_closes_the_export_dialog_and_the_next_key_steps(qtbot, gpt2_window):
    window = gpt2_window

    def escape(dialog):
        assert dialog.focusWidget() is dialog.formats  # the keys are in the list of formats
        QTest.keyClick(dialog.formats, Qt.Key.Key_Escape)

    answerer = ModalAnswerer(ExportDialog, escape)
    press("Ctrl+E")
    answerer.stop()
    assert answerer.seen and not answerer.seen[0].isVisible()
    # The window is active again, the keys where they were (activation is asynchronous).
    qtbot.waitUntil(
        lambda: QApplication.focusWidget() is not None and QApplication.focusWidget().window() is window
    )
    press("Left")
    assert window.bridge.trainer.position == 49_999


def test_ranks_split_by_cl100k_are_imported_with_its_pattern_chosen_by_keys(
    qtbot, make_window, dialogs, tmp_path
):
    """Ctrl+I on a .tiktoken file asked only for special tokens and always split the GPT-2
    way: ranks trained with cl100k's pattern encoded otherwise than their tokenizer."""
    from bpe_core import Corpus, PipelineConfig, Trainer
    from bpe_core.io.formats import write_tokenizer
    from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, read_ranks

    config = PipelineConfig(unit="byte", pretokenize="gpt4", end_of_word=None)
    text = "(the cat) (the dog) x.hello y.hello IT'S it's 123456 7890\n\n  " * 40
    trainer = Trainer(Corpus.from_text(text, config))
    trainer.run(merges=40)
    original = trainer.encoder()
    ranks = tmp_path / "mine.tiktoken"
    write_tokenizer(original, "tiktoken", ranks)
    sample = "(the dog) z.hello IT'S 1234567\n\n  x"
    assert encoder_from_ranks(read_ranks(ranks), "gpt2").encode(sample).ids != original.encode(sample).ids
    window = make_window()
    fresh_focus(qtbot, window)
    dialogs.open_path = str(ranks)
    asked = RanksAnswerer("Down")  # the pattern has the keys: Down picks cl100k
    press("Ctrl+I")
    asked.stop()
    wait_idle(qtbot, window)
    pattern, specials, intro = asked.offered[0]
    assert (pattern, specials) == ("gpt2", ()) and "does not recognise these ranks" in intro
    assert asked.chosen == [("cl100k", ())]
    imported = window.bridge.trainer
    merges = len(original.merges)
    assert imported.corpus.config.pretokenize == "gpt4" and imported.history_length == merges > 20
    assert window.bridge.encoder().encode(sample).ids == original.encode(sample).ids
    press("Left")  # the keys are back on the window
    assert imported.position == merges - 1


def test_ranks_the_size_of_cl100k_s_are_offered_its_pattern_and_a_drop_asks_too(qtbot, make_window, tmp_path):
    import base64

    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [f"{base64.b64encode(f'tok{i}'.encode()).decode()} {256 + i}" for i in range(100_000)]
    ranks = tmp_path / "cl100k_like.tiktoken"
    ranks.write_text("\n".join(lines) + "\n", encoding="utf-8")
    window = make_window()
    trainer = window.bridge.trainer
    fresh_focus(qtbot, window)
    asked = RanksAnswerer("Escape")
    drop_file(window, ranks)
    asked.stop()
    pattern, specials, intro = asked.offered[0]
    assert (pattern, specials) == ("cl100k_base", ()) and "100,256 ranks, as cl100k_base has" in intro
    assert window.bridge.trainer is trainer and not window.bridge.busy  # cancelled: nothing changed
    fresh_focus(qtbot, window)
    press("Space")
    assert trainer.position == 1


def test_a_tokenizer_without_a_corpus_says_how_to_get_counts_and_offers_what_works(
    qtbot, make_window, dialogs, tmp_path
):
    """Imported without a corpus, the window said "0 tokens (0.00×)", drew count plots with
    meaningless axes, and Step at the last merge said "every word is a single token"."""
    from app.bridge import NO_CORPUS
    from app.dialogs.run_dialog import RunDialog

    window = make_window()
    codes = tmp_path / "model.codes"
    codes.write_text("#version: 0.2\nl o\nlo w</w>\ne r</w>\n", encoding="utf-8")
    fresh_focus(qtbot, window)
    dialogs.open_path = str(codes)
    press("Ctrl+I")
    wait_idle(qtbot, window)
    trainer, commands, plots = window.bridge.trainer, window.commands, window.plots_pane
    assert (trainer.word_count, trainer.position) == (0, 3)
    tokens = window.status.labels["tokens"]
    assert tokens.text() == NO_CORPUS and tokens.isVisible()
    assert window.fontMetrics().horizontalAdvance(NO_CORPUS) < tokens.width()
    qtbot.waitUntil(lambda: not plots._timer.isActive())
    window.resize(1600, 1100)  # plots with room for the note (a small pane shows none)
    qtbot.waitUntil(lambda: all(note.isVisible() for note in plots.no_corpus_notes))
    assert not plots.top_curve.isVisible() and not plots.tokens_curve.isVisible()
    assert plots.vocab_curve.isVisible()  # the vocabulary per step needs no corpus
    # At the tokenizer's last merge nothing can step or run; the keys do nothing, say nothing wrong.
    assert not any(commands[name].isEnabled() for name in ("step", "play", "run", "run_target"))
    assert "needs a corpus" in commands["run"].toolTip()
    runs = ModalAnswerer(RunDialog, lambda dialog: dialog.reject())
    for key in ("Space", "Right", "P", "Ctrl+R", "Ctrl+T"):
        press(key)
    wait_idle(qtbot, window)
    runs.stop()
    assert trainer.position == 3 and not runs.seen and dialogs.shown == []
    assert "single token" not in window.status.message.text()
    assert window.bridge.run() is None and "no corpus to train on" in window.status.message.text()
    press("Left")  # Space takes the tokenizer's next merge while there is one
    assert commands["step"].isEnabled() and not commands["run"].isEnabled()
    press("Space")
    assert trainer.position == 3 and trainer.record(3).decided_by == "imported"

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low loer " * 5, encoding="utf-8")  # made of the tokenizer's symbols
    dialogs.open_path = str(corpus)
    menu_action(window, "Attach corpus…").trigger()
    wait_idle(qtbot, window)
    attached = window.bridge.trainer
    assert attached.word_count > 0 and tokens.text().endswith("×)")
    qtbot.waitUntil(lambda: not plots._timer.isActive())
    assert not any(note.isVisible() for note in plots.no_corpus_notes) and plots.top_curve.isVisible()
    assert commands["run"].isEnabled() and "needs a corpus" not in commands["run"].toolTip()
    fresh_focus(qtbot, window)
    press("Space")  # past the tokenizer's merges: the rule picks on the corpus
    assert attached.position == 4 and attached.record(4).decided_by == "first-seen"
