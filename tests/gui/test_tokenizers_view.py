"""The Compare tokenizers view: the session and a tokenizer file on the Encode pane's text, the
places where they part, the figures per tokenizer, and whole files measured and exported."""

from PySide6.QtWidgets import QApplication

from app.dialogs.tokenizers_dialog import PART_MARK
from bpe_core.io.formats import read_tokenizer
from tests.conftest import GPT2_RANKS, data_text
from tests.gui_helpers import fresh_focus, press, qt_wait_until


def test_a_tokenizer_file_is_compared_with_the_session_on_the_encode_text(qtbot, make_window, tmp_path):
    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    text = "To be, or not to be, that is the question"
    window.encode_pane.input.setPlainText(text)
    press("Ctrl+Shift+T")
    dialog = window.tokenizers_dialog
    assert dialog is not None and dialog.isVisible()
    qt_wait_until(lambda: dialog.table.rowCount() == 1)
    assert dialog.table.item(0, 0).text().startswith("this session at step")
    dialog.open_tokenizer(GPT2_RANKS)  # read in the background
    qt_wait_until(lambda: dialog.table.rowCount() == 2, timeout_ms=30_000)
    gpt2 = read_tokenizer(GPT2_RANKS).encoder
    assert dialog.table.item(1, 0).text() == "gpt2.tiktoken"
    assert dialog.table.item(1, 1).text() == f"{len(gpt2.encode_ids(text)):,}"
    assert PART_MARK in dialog.view.toPlainText() and "places where they part" in dialog.status.text()
    window.encode_pane.input.setPlainText(text + " again")  # the view follows the text
    qt_wait_until(lambda: dialog.table.item(1, 1).text() == f"{len(gpt2.encode_ids(text + ' again')):,}")

    corpus = tmp_path / "play.txt"
    corpus.write_text(data_text("shakespeare_200k.txt")[:20_000], encoding="utf-8")
    bad = tmp_path / "binary.txt"
    bad.write_bytes(b"\x00\x01")
    dialog.measure_files([corpus])
    qt_wait_until(lambda: dialog.files.rowCount() == 2, timeout_ms=30_000)
    assert {dialog.files.item(row, 1).text() for row in range(2)} >= {"gpt2.tiktoken"}
    dialog.export(str(tmp_path / "figures.csv"))
    dialog.export(str(tmp_path / "figures.md"))
    csv_lines = (tmp_path / "figures.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("File,Tokenizer,Tokens") and len(csv_lines) == 3
    assert (tmp_path / "figures.md").read_text(encoding="utf-8").startswith("| File | Tokenizer |")

    dialog.remove_last()
    assert dialog.table.rowCount() == 1
    dialog.close()
    QApplication.processEvents()
    press("Space")  # the keys are back on the window
    assert window.bridge.trainer.position == 1


def test_a_piece_taken_whole_by_ignore_merges_says_so_in_its_trace(qtbot, make_window, tmp_path):
    import json

    from tokenizers import Tokenizer

    vocab = {"a": 0, "b": 1, "c": 2, "bc": 3, "ab": 4, "abc": 5}
    model = {"type": "BPE", "vocab": vocab, "merges": ["b c", "a b", "ab c"], "ignore_merges": True}
    path = tmp_path / "tokenizer.json"
    path.write_text(
        json.dumps({"model": model, "pre_tokenizer": {"type": "WhitespaceSplit"}}), encoding="utf-8"
    )
    window = make_window()
    window.bridge.open_tokenizer(path)
    qt_wait_until(lambda: window.bridge.source.name == "tokenizer.json", timeout_ms=20_000)
    pane = window.encode_pane
    pane.input.setPlainText("abc cab")
    qt_wait_until(pane.is_current)
    assert pane.encoding.ids == Tokenizer.from_file(str(path)).encode("abc cab").ids == [5, 2, 4]
    assert "taken whole (ignore_merges)" in pane.tooltip_for(0)
    assert "taken whole" not in pane.tooltip_for(2) and "step 2: a + b → ab" in pane.tooltip_for(2)


def test_an_export_that_cannot_be_written_says_so_and_the_view_goes_on(qtbot, make_window, dialogs, tmp_path):
    window = make_window()
    window.show_tokenizers()
    dialog = window.tokenizers_dialog
    corpus = tmp_path / "t.txt"
    corpus.write_text("low lower lowest", encoding="utf-8")
    dialog.measure_files([corpus])
    qt_wait_until(lambda: dialog.files.rowCount() == 1, timeout_ms=20_000)
    dialog.export(str(tmp_path / "no-such-folder" / "figures.csv"))
    assert dialogs.shown[-1][:2] == ("warning", "Could not export") and "Exported" not in dialog.status.text()
    dialog.export(str(tmp_path / "figures.csv"))
    assert (tmp_path / "figures.csv").read_text(encoding="utf-8").startswith("File,Tokenizer")


def test_files_measured_are_charted_a_bar_per_file_and_tokenizer_and_export_as_png_and_svg(
    qtbot, make_window, tmp_path
):
    import pyqtgraph as pg
    from PySide6.QtGui import QImage

    window = make_window("Shakespeare")
    window.show_tokenizers()
    dialog = window.tokenizers_dialog
    dialog.open_tokenizer(GPT2_RANKS)
    qt_wait_until(lambda: dialog.table.rowCount() == 2, timeout_ms=30_000)
    english, french = tmp_path / "english.txt", tmp_path / "french.txt"
    english.write_text(data_text("shakespeare_200k.txt")[:5_000], encoding="utf-8")
    french.write_text("Être ou ne pas être, telle est la question. " * 40, encoding="utf-8")
    dialog.measure_files([english, french])
    qt_wait_until(lambda: dialog.files.rowCount() == 4, timeout_ms=30_000)

    chart = dialog.chart
    assert chart.files() == sorted([str(english), str(french)])
    bars = [item for item in chart.plot.getPlotItem().items if isinstance(item, pg.BarGraphItem)]
    assert len(bars) == 2  # a series per tokenizer, a bar in it per file
    heights = dict(chart.bars())
    gpt2 = heights["gpt2.tiktoken"]
    rows = {(r[0], r[1]): r for r in dialog.file_rows}
    shown = [float(rows[(name, "gpt2.tiktoken")][3]) for name in ("english.txt", "french.txt")]
    assert [round(h, 2) for h in gpt2] == shown  # the chars/token the table shows, to its 2 places
    chart.figure.setCurrentText("Tokens")
    tokens = rows[("english.txt", "gpt2.tiktoken")][2]
    assert dict(chart.bars())["gpt2.tiktoken"][0] == float(tokens.replace(",", ""))
    ticks = chart.plot.getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["english.txt", "french.txt"]

    # Zoomed for a projector, its labels grow with every other text of the window.
    small = chart.plot.getAxis("bottom").style["tickFont"].pointSizeF()
    room = chart.plot.getAxis("bottom").fixedHeight  # for the files' names under the bars
    fresh_focus(qtbot, window)
    for _ in range(3):
        press("Ctrl++")
    qt_wait_until(lambda: chart.font().pointSizeF() == window.font().pointSizeF())
    pane = window.panes["plots"].plots[0]
    grown = chart.plot.getAxis("bottom").style["tickFont"].pointSizeF()
    assert grown == pane.getAxis("bottom").style["tickFont"].pointSizeF() > small
    assert chart.legend.opts["labelTextSize"] == pane.titleLabel.opts["size"]
    assert chart.plot.getAxis("left").labelStyle["font-size"] == pane.titleLabel.opts["size"]
    assert chart.plot.getAxis("bottom").fixedHeight > room

    dialog.export(str(tmp_path / "chart.png"))
    dialog.export(str(tmp_path / "chart.svg"))
    image = QImage(str(tmp_path / "chart.png"))
    assert not image.isNull() and image.width() > 200
    svg = (tmp_path / "chart.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "english.txt" in svg
    assert "Exported to" in dialog.status.text()
