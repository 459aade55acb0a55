"""Tokenizers side by side on the same text: the session (at its current step) and any tokenizer
files added, each segmentation painted, the places where they part marked, and per tokenizer
the figures people compare (tokens, characters and bytes per token, tokens per word, unknown
and byte-fallback tokens). The same figures over whole files, a row per file and tokenizer and
a bar chart, export as CSV, Markdown, PNG or SVG.

It stays open beside the window and follows the Encode pane's text and the session's steps.
Files are read and measured off the GUI thread (``app.jobs``).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
)

from app.bridge import Bridge
from app.dialogs.figures_chart import FiguresChart
from app.files import file_name
from app.guard import guard_overrides
from app.jobs import Job, Outcome
from app.refresh_timer import RefreshTimer
from app.theme import chip_colors
from app.widgets import SideDialog
from bpe_core.encoding.encoder import Encoder, Encoding
from bpe_core.errors import BpeError
from bpe_core.io.formats import read_tokenizer
from bpe_core.runtime.fileio import text_blocks, write_atomic
from bpe_core.tools.compare import to_csv, to_markdown
from bpe_core.tools.measure import Counts, counts_of, differing_boundaries, measure

SHOWN_CHARS = 3_000  # characters painted per tokenizer (the figures count the whole text)
LIVE_CHARS = 100_000  # characters of the Encode pane's text compared (a whole file: Measure files…)
PART_MARK = "¦"  # drawn where the segmentations part: a glyph, not only a colour
UNKNOWN_COLOR = "#ff8a80"
COLUMNS = ["Tokenizer", "Tokens", "Chars/token", "Bytes/token", "Tokens/word", "Unknown", "Byte fallback"]
FILE_COLUMNS = ["File", *COLUMNS]


def figures(counts: Counts) -> list[str]:
    """A row's figures, as the tables and the exports show them."""
    return [
        f"{counts.tokens:,}",
        f"{counts.characters_per_token:.2f}",
        f"{counts.bytes_per_token:.2f}",
        f"{counts.tokens_per_word:.2f}",
        f"{counts.unknown:,}",
        f"{counts.byte_fallback:,}",
    ]


def painted(text: str, encoding: Encoding, parted: set[int], colors: list[str]) -> str:
    """HTML of the text's first characters with each token on its own background, unknown
    tokens red, and a mark where this tokenizer ends a token and another does not. Text no token
    covers (the spaces a whitespace split drops) is shown plain."""
    out: list[str] = []
    done = 0
    for i, ((start, end), unknown) in enumerate(zip(encoding.spans, encoding.unknown, strict=True)):
        if start >= SHOWN_CHARS:
            break
        if end <= start or start < done:  # an end-of-word marker, or a byte of a character shown
            continue
        out.append(_shown(text[done:start]))
        color = UNKNOWN_COLOR if unknown else colors[i % 2]
        out.append(f'<span style="background:{color}">{_shown(text[start:end])}</span>')
        if end in parted:
            out.append(f'<b style="color:#d32f2f">{PART_MARK}</b>')
        done = end
    out.append(_shown(text[done:SHOWN_CHARS]) + ("…" if len(text) > SHOWN_CHARS else ""))
    return "".join(out)


def _shown(text: str) -> str:
    return html.escape(text).replace("\n", "↵<br>").replace(" ", "&nbsp;")


@guard_overrides
class TokenizersDialog(SideDialog):
    """The session and added tokenizers on the Encode pane's text, and on whole files."""

    def __init__(self, bridge: Bridge, text: Callable[[], str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare tokenizers")
        self.setModal(False)
        # Attributes
        self._bridge = bridge
        self._text = text
        self.added: list[tuple[str, Encoder]] = []  # (name, encoder) of each tokenizer file added
        self._job: Job | None = None
        self.file_rows: list[list[str]] = []
        self._timer = RefreshTimer(bridge, self.refresh, 120, self)
        # Widgets
        self.add_button = QPushButton("Add tokenizer…")
        self.remove_button = QPushButton("Remove last")
        self.allow_special = QCheckBox("Match special tokens")
        self.view = QTextBrowser()
        self.table = self._table(COLUMNS)
        self.measure_button = QPushButton("Measure files…")
        self.export_button = QPushButton("Export…")
        self.files = self._table(FILE_COLUMNS)
        self.chart = FiguresChart()
        self.file_tabs = QTabWidget()
        self.status = QLabel()
        self.status.setWordWrap(True)
        # Setup
        self.add_button.setToolTip(
            "A tokenizer file or folder (tokenizer.json, .tiktoken, codes, a session…)"
        )
        self.view.setAccessibleName("Segmentations of the Encode pane's text")
        self.view.setAccessibleDescription(f"Each tokenizer's tokens; {PART_MARK} marks where they part")
        self.table.setAccessibleName("Figures per tokenizer")
        self.files.setAccessibleName("Figures per file and tokenizer")
        self.export_button.setEnabled(False)
        self.export_button.setToolTip("The files' table as CSV or Markdown, or the chart as PNG or SVG")
        self.file_tabs.addTab(self.files, "&Table")
        self.file_tabs.addTab(self.chart, "C&hart")
        self.file_tabs.setAccessibleName("Figures per file: table and chart")
        # Layout
        top = QHBoxLayout()
        for widget in (self.add_button, self.remove_button, self.allow_special):
            top.addWidget(widget)
        top.addStretch()
        bottom = QHBoxLayout()
        bottom.addWidget(self.measure_button)
        bottom.addWidget(self.export_button)
        bottom.addStretch()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 3)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)
        layout.addWidget(self.file_tabs, 2)
        layout.addWidget(self.status)
        self.resize(860, 760)
        # Signals
        self.add_button.clicked.connect(self.ask_tokenizer)
        self.remove_button.clicked.connect(self.remove_last)
        self.allow_special.toggled.connect(lambda _: self._timer.start())
        self.measure_button.clicked.connect(self.ask_files)
        self.export_button.clicked.connect(self.ask_export)

    def _table(self, columns: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(columns))
        table.setTabKeyNavigation(False)  # Tab goes on to the window's next control, not the next cell
        table.setHorizontalHeaderLabels(columns)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().hide()
        return table

    # -- what is compared ---------------------------------------------------------------------

    def tokenizers(self) -> list[tuple[str, Encoder, int | None]]:
        """(name, encoder, merges to use: the session's current step, or all) of each one."""
        trainer = self._bridge.trainer
        session = f"this session at step {trainer.position:,}"
        return [(session, self._bridge.encoder(), trainer.position)] + [(n, e, None) for n, e in self.added]

    def add(self, name: str, encoder: Encoder) -> None:
        self.added.append((name, encoder))
        self.refresh()

    def remove_last(self) -> None:
        if self.added:
            self.added.pop()
            self.refresh()

    def refresh(self) -> None:
        """Encode the text with every tokenizer; paint and count (not while a job runs)."""
        if self._bridge.busy or not self.isVisible():
            return
        whole = self._text()
        text = whole[:LIVE_CHARS]  # encoded on the GUI thread as the text is typed: kept short
        allow = self.allow_special.isChecked()
        rows = []
        for name, encoder, upto in self.tokenizers():
            encoding = encoder.encode(text, upto=upto, allow_special=allow)
            rows.append((name, encoder, encoding))
        parted = differing_boundaries([encoding.spans for _, _, encoding in rows])
        colors = [color.name() for color in chip_colors(self.palette())]
        blocks = [
            f"<p><b>{html.escape(name)}</b><br>{painted(text, encoding, parted, colors)}</p>"
            for name, _, encoding in rows
        ]
        self.view.setHtml("".join(blocks))
        self.table.setRowCount(len(rows))
        for row, (name, encoder, encoding) in enumerate(rows):
            counts = counts_of(encoding.ids, encoding.unknown, encoder, text)
            self._fill(self.table, row, [name, *figures(counts)])
        where = (
            f"{len(parted):,} places where they part ({PART_MARK})" if len(rows) > 1 else "add a tokenizer"
        )
        shown = f"{len(text):,} characters of the Encode pane's text"
        if len(whole) > len(text):
            shown = f"the first {shown} (Measure files… for all of a file)"
        self.status.setText(f"{shown} · {where}")

    def _fill(self, table: QTableWidget, row: int, cells: list[str]) -> None:
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if column >= table.columnCount() - 6:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, column, item)

    def schedule(self) -> None:
        """Compare again shortly (the text is being typed)."""
        self._timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._timer.start()

    # -- reading tokenizers and measuring files, off the GUI thread ---------------------------

    def ask_tokenizer(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Add a tokenizer to compare")
        if path:
            self.open_tokenizer(Path(path))

    def open_tokenizer(self, path: Path) -> None:
        self._start(
            f"Reading {path.name}",
            lambda progress, cancelled: read_tokenizer(path).encoder,
            lambda encoder: self.add(path.name, encoder),
        )

    def ask_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Files to measure every tokenizer on")
        if paths:
            self.measure_files([Path(p) for p in paths])

    def measure_files(self, paths: list[Path]) -> None:
        """Every tokenizer on every file (a row per file and tokenizer), in the background."""
        if self._bridge.busy:
            return
        models = {
            name: (encoder if upto is None else _at_step(encoder, upto))
            for name, encoder, upto in self.tokenizers()
        }

        def work(progress, cancelled):
            texts = {str(path): partial(text_blocks, path) for path in paths}
            return measure(models, texts)

        self._start("Measuring", work, self._show_files)

    def _show_files(self, counts: dict[str, dict[str, Counts]]) -> None:
        self.chart.show_counts(counts)
        self.file_rows = [
            [Path(file).name, model, *figures(file_counts)]
            for model, by_file in counts.items()
            for file, file_counts in by_file.items()
        ]
        self.file_rows.sort(key=lambda row: row[0])
        self.files.setRowCount(len(self.file_rows))
        for row, cells in enumerate(self.file_rows):
            self._fill(self.files, row, cells)
        self.export_button.setEnabled(bool(self.file_rows))

    def _start(self, title: str, work, done: Callable) -> None:
        if self._job is not None:
            return
        self.status.setText(f"{title}…")
        job = Job(title, work)
        self._job = job

        def finished() -> None:
            self._job = None
            job.wait()
            if job.outcome is Outcome.SUCCEEDED:
                self.status.setText("")
                done(job.result)
            else:
                self.status.setText("")
                QMessageBox.warning(self, title, job.message or "It did not finish.")
            job.release()
            job.deleteLater()

        job.finished.connect(finished)
        job.start()

    # -- export --------------------------------------------------------------------------------

    def ask_export(self) -> None:
        kinds = "CSV (*.csv);;Markdown (*.md);;PNG image (*.png);;SVG image (*.svg)"
        files = getattr(self.parent(), "files", None)  # the window's: the last folder chosen
        if files is not None:
            path = files.ask_save_path(
                "Export the figures", file_name(files.session_stem(), "tokenizers.csv"), kinds
            )
        else:
            path, _ = QFileDialog.getSaveFileName(self, "Export the figures", "tokenizers.csv", kinds)
        if path:
            self.export(path)

    def export(self, path: str) -> None:
        """The per-file table as CSV (numbers without thousands separators), or Markdown for a
        ``.md`` path; the chart for a ``.png`` or ``.svg`` path; written atomically, a failure
        said in a dialog."""
        if path.lower().endswith((".png", ".svg")):
            try:
                self.chart.export(path)
            except (OSError, BpeError) as error:
                QMessageBox.warning(self, "Could not export", str(error))
                return
            self.status.setText(f"Exported to {path}")
            return
        if path.lower().endswith(".md"):
            text = to_markdown(FILE_COLUMNS, self.file_rows)
        else:
            plain = [
                [cell.replace(",", "") if cell[:1].isdigit() else cell for cell in row]
                for row in self.file_rows
            ]
            text = to_csv(FILE_COLUMNS, plain)
        try:
            write_atomic(path, text)
        except (OSError, BpeError) as error:
            QMessageBox.warning(self, "Could not export", str(error))
            return
        self.status.setText(f"Exported to {path}")


def _at_step(encoder: Encoder, upto: int) -> Encoder:
    """The encoder with only its first ``upto`` merges (measure encodes with all of them)."""
    return Encoder(
        encoder.config, encoder.keys, encoder.merges[:upto], sorted(encoder.special_ids), encoder.unknown_id
    )
