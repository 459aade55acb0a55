"""Training settings as a new user meets them: typed in Settings, shown in the status bar when
they are not classic BPE, and what a new corpus keeps of them."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.dialogs.settings_dialog import SettingsDialog
from tests.gui_helpers import ModalAnswerer, fresh_focus, open_corpus_by_keys, press, wait_idle

CORPUS = "low lower lowest newer newest wider widest " * 20


def type_into(dialog: SettingsDialog, field, text: str) -> None:
    """Click into a field of the dialog, select what it holds and type, as a user does (into the
    field itself: the platform may not have activated the dialog yet)."""
    field.setFocus(Qt.FocusReason.MouseFocusReason)
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(field, text)


def settings(qtbot, window, **typed: str) -> None:
    """Ctrl+, then type each field's text and press Enter."""

    def answer(dialog: SettingsDialog) -> None:
        try:
            for name, text in typed.items():
                type_into(dialog, getattr(dialog, name), text)
            QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Return)
        finally:
            if dialog.isVisible():  # typing failed: never leave the test waiting
                dialog.reject()

    answerer = ModalAnswerer(SettingsDialog, answer)
    press("Ctrl+,")
    answerer.stop()
    wait_idle(qtbot, window)


def test_merges_per_pass_takes_all_typed_shows_in_the_status_bar_and_resets_with_a_new_corpus(
    qtbot, make_window, dialogs, tmp_path
):
    """A user typed "all" in Merges per pass (refused letter by letter), then opened a new
    corpus: the pipeline settings reset, merges per pass did not, and the new corpus trained in
    passes with nothing on screen saying so."""
    window = make_window()
    mode = window.status.labels["mode"]
    fresh_focus(qtbot, window)
    assert mode.isHidden()  # classic BPE: nothing to say
    settings(qtbot, window, per_pass="all")
    trainer = window.bridge.trainer
    assert trainer.training.merges_per_pass == 0
    assert mode.text() == "merges per pass: all" and mode.isVisible()
    settings(qtbot, window, per_pass="3", min_frequency="4")
    assert (trainer.training.merges_per_pass, trainer.training.min_frequency) == (3, 4)
    assert mode.text() == "merges per pass: 3 · min count: 4" and mode.isVisible()
    assert window.fontMetrics().horizontalAdvance(mode.text()) < mode.width()

    open_corpus_by_keys(qtbot, window, dialogs, tmp_path / "corpus.txt", CORPUS)
    opened = window.bridge.trainer
    assert opened is not trainer and opened.corpus.config == type(opened.corpus.config)()
    assert opened.training.merges_per_pass == 1  # reset, as the pipeline was
    assert opened.training.min_frequency == 4 and mode.text() == "min count: 4"  # kept, and said
    press("Space")
    assert opened.position == 1 and opened.record(1).pass_number == 1
    settings(qtbot, window, min_frequency="2")
    assert mode.isHidden()


def test_the_settings_dialog_shows_all_for_every_pair_a_pass(qtbot, make_window):
    window = make_window()
    shown = []

    def look(dialog: SettingsDialog) -> None:
        dialog.per_pass.setValue(0)
        shown.append(dialog.per_pass.text())
        type_into(dialog, dialog.per_pass, "0")
        shown.append(dialog.per_pass.text())
        dialog.per_pass.setValue(2)
        type_into(dialog, dialog.per_pass, "ALL")
        dialog.per_pass.interpretText()
        shown.append((dialog.per_pass.value(), dialog.per_pass.text()))
        dialog.per_pass.setValue(5)
        type_into(dialog, dialog.per_pass, "x")  # refused: the field keeps what it had
        dialog.per_pass.interpretText()
        shown.append(dialog.per_pass.value())
        dialog.reject()

    fresh_focus(qtbot, window)
    answerer = ModalAnswerer(SettingsDialog, look)
    press("Ctrl+,")
    answerer.stop()
    assert shown == ["all", "0", (0, "all"), 5]


def change_pipeline_and_target(dialog: SettingsDialog) -> None:
    """GPT-2's pre-tokenization, a target of 555 tokens and the hf rule; then OK."""
    dialog.pretokenize.setCurrentIndex(dialog.pretokenize.findText("gpt2"))
    dialog.target_kind.setCurrentIndex(dialog.target_kind.findText("Vocabulary size"))
    dialog.target_value.setValue(555)
    dialog.rule.setCurrentIndex(dialog.rule.findText("hf"))
    dialog.accept()


def test_declining_the_rebuild_keeps_every_setting_and_unsaved_work_is_offered_saving(
    qtbot, make_window, dialogs, tmp_path
):
    """A user changed the pipeline, the target and the rule, then kept the session: the target
    had changed all the same (Ctrl+T ran to a target they declined), and the question offered
    no saving of the merges and branches about to go."""
    from PySide6.QtWidgets import QMessageBox

    window = make_window()
    fresh_focus(qtbot, window)
    open_corpus_by_keys(qtbot, window, dialogs, tmp_path / "corpus.txt", CORPUS)
    press("Space")
    press("Space")
    trainer, target = window.bridge.trainer, window.target
    before = (trainer.corpus.config, trainer.training)
    assert window.bridge.has_unsaved_work()
    dialogs.answer = QMessageBox.StandardButton.Cancel
    answerer = ModalAnswerer(SettingsDialog, change_pipeline_and_target)
    press("Ctrl+,")
    answerer.stop()
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("question", "Unsaved changes") and "2 merges and its branches go" in text
    assert window.bridge.trainer is trainer and (trainer.corpus.config, trainer.training) == before
    assert window.target == target and trainer.position == 2
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)  # the next key lands
    press("Space")
    assert trainer.position == 3

    dialogs.answer = QMessageBox.StandardButton.Discard
    answerer = ModalAnswerer(SettingsDialog, change_pipeline_and_target)
    press("Ctrl+,")
    answerer.stop()
    wait_idle(qtbot, window)
    rebuilt = window.bridge.trainer
    assert rebuilt is not trainer and rebuilt.corpus.config.pretokenize == "gpt2"
    assert (window.target.kind, window.target.value) == ("vocab_size", 555)


def test_each_line_a_text_is_a_setting_of_a_text_corpus_and_counts_as_the_command_line(
    qtbot, make_window, dialogs, tmp_path
):
    """Settings → "Each line is a text" (Alt+H) counts the corpus a line at a time, as
    ``--lines`` and Hugging Face's train(files) do: a Windows line break is one piece."""
    from bpe_core import PipelineConfig
    from bpe_core.io.counting import count_sources
    from bpe_core.io.sources import expand

    window = make_window()
    fresh_focus(qtbot, window)
    path = tmp_path / "windows.txt"
    open_corpus_by_keys(qtbot, window, dialogs, path, "low lower\r\nnewest  \r\nwidest\r\n" * 30)
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    checked = []

    def answer(dialog: SettingsDialog) -> None:
        try:
            assert dialog.lines.isEnabled() and not dialog.lines.isChecked()
            dialog.unit.setCurrentText("byte")
            dialog.pretokenize.setCurrentText("gpt2")
            dialog.marker.setText("")
            QTest.keyClick(QApplication.focusWidget(), "h", Qt.KeyboardModifier.AltModifier)
            qtbot.waitUntil(dialog.lines.isChecked)  # (a mnemonic clicks the box after a moment)
            checked.append(dialog.lines.isChecked())
            QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Return)
        finally:
            if dialog.isVisible():
                dialog.reject()

    answerer = ModalAnswerer(SettingsDialog, answer)
    press("Ctrl+,")
    answerer.stop()
    wait_idle(qtbot, window)
    assert checked == [True] and window.bridge.source.lines
    corpus = window.bridge.trainer.corpus
    expected = count_sources(expand([str(path)]), config, lines=True).counter
    assert dict(zip(corpus.words, corpus.counts, strict=True)) == dict(expected)
    assert expected["\r\n"] == 60 and count_sources(expand([str(path)]), config).counter["\r\n"] == 1

    seen = []
    answerer = ModalAnswerer(
        SettingsDialog, lambda dialog: seen.append(dialog.lines.isChecked()) or dialog.reject()
    )
    press("Ctrl+,")
    answerer.stop()
    assert seen == [True]  # the setting stays with the corpus
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    press("Space")
    qtbot.waitUntil(lambda: window.bridge.trainer.position == 1)  # and the keys still train
