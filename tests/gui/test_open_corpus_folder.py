"""Corpora of many files in the window: a folder dropped or opened from File, a Parquet file,
counted in the background on several processes with progress, and cancelled without a trace."""

import gzip
import json
import multiprocessing
from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq

from app.dialogs.settings_dialog import SettingsDialog
from bpe_core import PipelineConfig, load_corpus
from tests.conftest import data_text
from tests.gui_helpers import ModalAnswerer, drop_file, fresh_focus, press, qt_wait_until, sample


def make_folder(tmp_path, copies: int = 1):
    folder = tmp_path / "corpus"
    (folder / "part").mkdir(parents=True)
    text = data_text("shakespeare_200k.txt")
    for n in range(copies):
        (folder / f"a{n}.txt").write_text(text[:50_000], encoding="utf-8")
        (folder / "part" / f"b{n}.txt.gz").write_bytes(gzip.compress(text[50_000:90_000].encode()))
        records = [{"text": line} for line in text[90_000:110_000].splitlines()]
        (folder / f"c{n}.jsonl").write_text("\n".join(map(json.dumps, records)), encoding="utf-8")
    return folder


def test_a_dropped_folder_opens_as_one_corpus_of_all_its_files(qtbot, make_window, tmp_path):
    window = make_window()
    fresh_focus(qtbot, window)
    folder = make_folder(tmp_path)
    drop_file(window, folder)
    qt_wait_until(lambda: window.bridge.source.name == "corpus" and not window.bridge.busy, timeout_ms=60_000)
    expected = load_corpus(folder, PipelineConfig())
    corpus = window.bridge.trainer.corpus
    assert list(corpus.words) == list(expected.words) and list(corpus.counts) == list(expected.counts)
    assert window.corpus_pane.view.model().rowCount() > 0


def test_several_paths_on_the_command_line_open_as_one_corpus(qtbot, make_window, tmp_path):
    window = make_window()
    (tmp_path / "a.txt").write_text("low lower low", encoding="utf-8")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"newest lower"))
    window.open_paths([str(tmp_path / "a.txt"), str(tmp_path / "b.txt.gz")])  # as ``bpe-studio *.txt*``
    wait_opened(window, "a.txt and 1 more")
    assert counted(window) == {"low": 2, "lower": 2, "newest": 1}


def test_a_parquet_file_opens_as_a_corpus_and_a_counts_parquet_as_counts(qtbot, make_window, tmp_path):
    window = make_window()
    lines = data_text("shakespeare_200k.txt").splitlines()[:2000]
    pq.write_table(pa.table({"text": lines}), tmp_path / "rows.parquet")
    window.open_path(tmp_path / "rows.parquet")
    qt_wait_until(
        lambda: window.bridge.source.name == "rows.parquet" and not window.bridge.busy, timeout_ms=60_000
    )
    expected = load_corpus(tmp_path / "rows.parquet", PipelineConfig())
    assert list(window.bridge.trainer.corpus.counts) == list(expected.counts)

    pq.write_table(pa.table({"word": ["low", "lower"], "count": [5, 2]}), tmp_path / "counts.parquet")
    window.open_path(tmp_path / "counts.parquet")
    qt_wait_until(
        lambda: window.bridge.source.name == "counts.parquet" and not window.bridge.busy, timeout_ms=60_000
    )
    corpus = window.bridge.trainer.corpus
    assert dict(zip(corpus.words, corpus.counts, strict=True)) == {"low": 5, "lower": 2}


def test_cancelling_a_folder_being_counted_keeps_the_session_and_the_next_key_works(
    qtbot, make_window, tmp_path
):
    from bpe_core.io import counting

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    window.bridge.step()
    before = (window.bridge.source.name, window.bridge.trainer.position)
    counting.CHUNK = 4_000  # many small tasks: the count is still going when cancelled
    counting.ONE_WORKER_BELOW = 0  # on worker processes, as a large folder is
    try:
        folder = make_folder(tmp_path, copies=12)
        window.open_path(folder)
        qt_wait_until(lambda: window.bridge.busy, timeout_ms=10_000)
        window.bridge.cancel()
        qt_wait_until(lambda: not window.bridge.busy, timeout_ms=60_000)
    finally:
        counting.CHUNK, counting.ONE_WORKER_BELOW = 1 << 21, 1 << 22
    assert (window.bridge.source.name, window.bridge.trainer.position) == before
    assert not multiprocessing.active_children()  # every worker stopped with the count
    window.bridge.step()
    assert window.bridge.trainer.position == before[1] + 1


def test_a_large_counts_file_opens_with_its_lines_counted_then_a_busy_bar_while_it_is_indexed(
    qtbot, make_window, tmp_path
):
    window = make_window()
    path = tmp_path / "counts.tsv"
    path.write_text("".join(f"w{i}\t{i % 7 + 1}\n" for i in range(60_000)), encoding="utf-8")
    reports, ranges = [], []
    bar = window.status.progress
    window.bridge.sig_progressed.connect(
        lambda _title, done, total: (reports.append((done, total)), ranges.append(bar.maximum()))
    )
    window.open_path(path)
    qt_wait_until(
        lambda: window.bridge.source.name == "counts.tsv" and not window.bridge.busy, timeout_ms=60_000
    )
    assert window.bridge.trainer.word_count == 60_000
    lines = [(done, total) for done, total in reports if total]
    assert lines and all(0 < done <= total for done, total in lines)  # the bar moved over the lines
    assert reports[-1] == (0, 0) and ranges[-1] == 0  # then a busy bar: the index has no known length


def wait_opened(window, name: str) -> None:
    qt_wait_until(lambda: window.bridge.source.name == name and not window.bridge.busy, timeout_ms=60_000)


def counted(window) -> dict[str, int]:
    corpus = window.bridge.trainer.corpus
    return dict(zip(corpus.words, corpus.counts, strict=True))


def test_counts_open_as_counts_by_their_header_and_a_folder_of_shards_by_its_files(
    qtbot, make_window, tmp_path, monkeypatch
):
    window = make_window()
    renamed = tmp_path / "counts.txt"  # a counts file by its first line, whatever its name
    renamed.write_text("#bpe-studio counts 1\nlow\t5\nlower\t2\n", encoding="utf-8")
    window.open_path(renamed)
    wait_opened(window, "counts.txt")
    assert counted(window) == {"low": 5, "lower": 2}

    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "0.tsv").write_text("#bpe-studio counts 1\nlow\t5\nnewest\t6\n", encoding="utf-8")
    (shards / "1.tsv").write_text("#bpe-studio counts 1\nlow\t1\nwidest\t3\n", encoding="utf-8")
    pq.write_table(pa.table({"word": ["newest"], "count": [1]}), shards / "2.parquet")
    chosen = staticmethod(lambda *args, **kwargs: str(shards))
    monkeypatch.setattr("app.files.QFileDialog.getExistingDirectory", chosen)
    window.files.ask_open_corpus_folder()  # File → Open corpus folder…, the folder chosen
    wait_opened(window, "shards")
    assert counted(window) == {"low": 6, "newest": 7, "widest": 3}


def test_counts_open_under_the_pipeline_that_counted_them_and_settings_saying_otherwise_are_refused(
    qtbot, make_window, tmp_path, dialogs
):
    window = make_window()
    fresh_focus(qtbot, window)
    counts = tmp_path / "gpt2.tsv"
    counts.write_text(
        '#bpe-studio counts 1\t{"lowercase": true, "pretokenize": "gpt2"}\n low\t5\n lower\t2\n',
        encoding="utf-8",
    )
    drop_file(window, counts)
    wait_opened(window, "gpt2.tsv")
    config = window.bridge.trainer.corpus.config
    assert (config.pretokenize, config.lowercase, counted(window)) == ("gpt2", True, {" low": 5, " lower": 2})
    shown = []

    def look(dialog: SettingsDialog) -> None:  # the settings the file set are shown, not offered
        shown.append((dialog.pretokenize.currentText(), dialog.pretokenize.isEnabled()))
        shown.append((dialog.lowercase.isChecked(), dialog.lowercase.isEnabled(), dialog.unit.isEnabled()))
        dialog.reject()

    answerer = ModalAnswerer(SettingsDialog, look)
    press("Ctrl+,")
    answerer.stop()
    assert shown == [("gpt2", False), (True, False, True)]
    window.bridge.rebuild(
        replace(config, unit="byte"), window.bridge.trainer.training
    )  # after counting: taken
    qt_wait_until(lambda: window.bridge.trainer.corpus.config.unit == "byte" and not window.bridge.busy)
    window.bridge.step()
    before = (window.bridge.trainer.corpus.config, window.bridge.trainer.position)
    window.bridge.rebuild(replace(config, unit="byte", pretokenize="words"), window.bridge.trainer.training)
    qt_wait_until(lambda: dialogs.shown and not window.bridge.busy, timeout_ms=30_000)
    assert "was counted with pre-tokenizer gpt2, not with pre-tokenizer words" in dialogs.shown[-1][2]
    assert (window.bridge.trainer.corpus.config, window.bridge.trainer.position) == before
    press("Space")  # the keys still step
    assert window.bridge.trainer.position == before[1] + 1


def test_counts_stating_no_pipeline_leave_the_settings_open_and_counts_stated_otherwise_are_not_attached(
    qtbot, make_window, tmp_path, dialogs
):
    window = make_window()
    fresh_focus(qtbot, window)
    bare = tmp_path / "bare.tsv"  # as written before the header said how: the settings are the user's
    bare.write_text("#bpe-studio counts 1\nlow\t5\nlower\t2\n", encoding="utf-8")
    window.open_path(bare)
    wait_opened(window, "bare.tsv")
    shown = []
    answerer = ModalAnswerer(
        SettingsDialog, lambda dialog: (shown.append(dialog.pretokenize.isEnabled()), dialog.reject())
    )
    press("Ctrl+,")
    answerer.stop()
    assert shown == [True]
    window.bridge.step()
    before = (window.bridge.source.name, window.bridge.trainer.position, counted(window))
    stated = tmp_path / "gpt2.tsv"
    stated.write_text('#bpe-studio counts 1\t{"pretokenize": "gpt2"}\n low\t5\n', encoding="utf-8")
    window.bridge.attach(stated, "counts")
    qt_wait_until(lambda: dialogs.shown and not window.bridge.busy, timeout_ms=30_000)
    assert "was counted with pre-tokenizer gpt2, not with pre-tokenizer whitespace" in dialogs.shown[-1][2]
    assert (window.bridge.source.name, window.bridge.trainer.position, counted(window)) == before
    press("Space")  # the keys still step
    assert window.bridge.trainer.position == before[1] + 1


def test_compressed_counts_without_a_suffix_open_as_counts(qtbot, make_window, tmp_path):
    window = make_window()
    packed = tmp_path / "part-00000"  # gzip, as a job names its output
    packed.write_bytes(gzip.compress(b'#bpe-studio counts 1\t{"pretokenize": "gpt2"}\n low\t5\n lower\t2\n'))
    window.open_path(packed)
    wait_opened(window, "part-00000")
    assert counted(window) == {" low": 5, " lower": 2}
    assert window.bridge.trainer.corpus.config.pretokenize == "gpt2"


def test_a_session_saved_into_the_corpus_folder_is_not_counted_as_its_text(qtbot, make_window, tmp_path):
    window = make_window()
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("low lower newest", encoding="utf-8")
    assert window.bridge.save(folder / "work.bpe.json")
    window.open_path(folder)
    wait_opened(window, "corpus")
    assert counted(window) == {"low": 1, "lower": 1, "newest": 1}


def test_files_dropped_together_open_as_one_corpus_and_counts_with_text_are_refused(
    qtbot, make_window, tmp_path, dialogs
):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    (tmp_path / "a.txt").write_text("low lower low", encoding="utf-8")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"newest lower"))
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "c.jsonl").write_text('{"text": "widest low"}\n', encoding="utf-8")
    drop_file(window, [tmp_path / "a.txt", tmp_path / "b.txt.gz", folder])
    wait_opened(window, "a.txt and 2 more")
    assert counted(window) == {"low": 3, "lower": 2, "newest": 1, "widest": 1}
    lowered = window.bridge.trainer.corpus.config  # new settings count them all again
    window.bridge.rebuild(replace(lowered, lowercase=True), window.bridge.trainer.training)
    qt_wait_until(lambda: window.bridge.trainer.corpus.config.lowercase and not window.bridge.busy)
    assert counted(window) == {"low": 3, "lower": 2, "newest": 1, "widest": 1}
    assert not any("a.txt" in path for path in window.files.recent())  # no one file reopens them all
    window.bridge.step()
    before = (window.bridge.source.name, window.bridge.trainer.position, counted(window))

    counts = tmp_path / "c.counts"
    counts.write_text("#bpe-studio counts 1\nhello\t5\n", encoding="utf-8")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a.counts").write_text("#bpe-studio counts 1\nhello\t5\n", encoding="utf-8")
    (mixed / "b.txt").write_text("plain text words", encoding="utf-8")
    for dropped, says in (
        ([counts, tmp_path / "a.txt"], "c.counts holds word counts and a.txt text"),
        ([mixed], "holds word counts (a.counts) and text (b.txt)"),
    ):
        shown = len(dialogs.shown)
        drop_file(window, dropped)
        qt_wait_until(lambda n=shown: len(dialogs.shown) > n and not window.bridge.busy, timeout_ms=30_000)
        assert says in dialogs.shown[-1][2]
        assert (window.bridge.source.name, window.bridge.trainer.position, counted(window)) == before
    press("Space")  # the keys still step
    assert window.bridge.trainer.position == before[1] + 1


def test_a_file_dropped_on_a_text_box_opens_instead_of_typing_its_address(qtbot, make_window, tmp_path):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    (tmp_path / "dropped.txt").write_text("low lower newest", encoding="utf-8")
    for box in (window.encode_pane.input, window.corpus_pane.filter_edit):
        text = box.toPlainText() if hasattr(box, "toPlainText") else box.text()
        centre = box.mapTo(window, box.rect().center())
        drop_file(window, tmp_path / "dropped.txt", at=(centre.x(), centre.y()))
        wait_opened(window, "dropped.txt")
        assert counted(window) == {"low": 1, "lower": 1, "newest": 1}
        assert (box.toPlainText() if hasattr(box, "toPlainText") else box.text()) == text
        window.open_sample(sample("Shakespeare"))
        qt_wait_until(lambda: window.bridge.source.name != "dropped.txt" and not window.bridge.busy)


def test_space_on_the_cancel_button_cancels_and_escape_in_a_text_field_lets_the_load_go_on(
    qtbot, make_window, tmp_path
):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from bpe_core.io import counting

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    before = (window.bridge.source.name, window.bridge.trainer.position)
    folder = make_folder(tmp_path, copies=12)
    counting.CHUNK = 4_000  # many small tasks on worker processes: still counting a moment later
    counting.ONE_WORKER_BELOW = 0
    try:
        window.open_path(folder)
        qt_wait_until(lambda: window.bridge.busy, timeout_ms=10_000)
        button = window.status.cancel_button
        qt_wait_until(button.isVisible, timeout_ms=10_000)
        button.setFocus(Qt.FocusReason.TabFocusReason)
        press("Space")  # the focused button is pressed, as with the mouse
        qt_wait_until(lambda: not window.bridge.busy, timeout_ms=60_000)
        assert (window.bridge.source.name, window.bridge.trainer.position) == before

        window.open_path(folder)  # and Enter presses it too
        qt_wait_until(lambda: window.bridge.busy and button.isVisible(), timeout_ms=10_000)
        assert window.status.progress.accessibleName() == "Progress of the background job"
        button.setFocus(Qt.FocusReason.TabFocusReason)
        press("Return")
        qt_wait_until(lambda: not window.bridge.busy, timeout_ms=60_000)
        assert (window.bridge.source.name, window.bridge.trainer.position) == before

        window.open_path(folder)
        qt_wait_until(lambda: window.bridge.busy, timeout_ms=10_000)
        QTest.mouseClick(window.corpus_pane.filter_edit, Qt.MouseButton.LeftButton)
        press("Escape")  # leaves the field; the load goes on
        assert QApplication.focusWidget() is not window.corpus_pane.filter_edit
        wait_opened(window, "corpus")
    finally:
        counting.CHUNK, counting.ONE_WORKER_BELOW = 1 << 21, 1 << 22


def test_json_lines_named_json_open_as_a_corpus_as_c4_shards_are(qtbot, make_window, tmp_path, dialogs):
    window = make_window()
    lines = '{"text": "the lowest low", "url": "a"}\n{"text": "newer wider", "url": "b"}\n'
    (tmp_path / "train.json").write_text(lines, encoding="utf-8")
    (tmp_path / "c4-train.00000-of-01024.json.gz").write_bytes(gzip.compress(lines.encode()))
    # records naming a model and a version (not a tokenizer), and a first record of megabytes
    # after a blank line (its end read past the first block)
    chat = lines.replace('"url"', '"model"').replace('{"text"', '{"version": 1, "text"')
    (tmp_path / "chat.json").write_text(chat, encoding="utf-8")
    padded = '\n{"text": "the lowest low", "pad": "' + "x" * 3_000_000 + '"}\n{"text": "newer wider"}\n'
    (tmp_path / "padded.json").write_text(padded, encoding="utf-8")
    for name in ("train.json", "c4-train.00000-of-01024.json.gz", "chat.json", "padded.json"):
        window.open_path(tmp_path / name)
        qt_wait_until(lambda name=name: window.bridge.source.name == name and not window.bridge.busy)
        corpus = window.bridge.trainer.corpus
        assert dict(zip(corpus.words, corpus.counts, strict=True)) == {
            "the": 1,
            "lowest": 1,
            "low": 1,
            "newer": 1,
            "wider": 1,
        }
    assert not dialogs.shown
    before = window.bridge.trainer
    (tmp_path / "document.json").write_text('{\n  "text": "one document"\n}\n', encoding="utf-8")
    window.open_path(tmp_path / "document.json")  # neither a session nor JSON lines
    qt_wait_until(lambda: bool(dialogs.shown) and not window.bridge.busy)
    kind, _, text = dialogs.shown[-1]
    assert kind == "warning" and "is JSON but not a BPE Studio session" in text
    assert window.bridge.trainer is before


def test_a_folder_that_fails_to_be_read_again_stays_open_and_among_the_recent_files(
    qtbot, make_window, tmp_path, dialogs
):
    window = make_window()
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("low lower low", encoding="utf-8")
    (folder / "b.txt.gz").write_bytes(gzip.compress(b"newest lower"))
    window.open_path(folder)
    wait_opened(window, "corpus")
    window.bridge.step()
    before = (window.bridge.trainer.position, counted(window))
    assert str(folder) in window.files.recent()
    (folder / "b.txt.gz").write_bytes(gzip.compress(b"newest lower")[:-6])  # damaged since
    config = window.bridge.trainer.corpus.config
    window.bridge.rebuild(replace(config, lowercase=True), window.bridge.trainer.training)
    qt_wait_until(lambda: bool(dialogs.shown) and not window.bridge.busy, timeout_ms=30_000)
    assert "damaged or truncated gzip archive" in dialogs.shown[-1][2]
    assert (window.bridge.trainer.position, counted(window)) == before
    assert str(folder) in window.files.recent()  # still the open source
