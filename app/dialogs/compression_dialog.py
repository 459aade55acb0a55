"""The Compression view: the session as the classic compression variant writes it (the
``aaabdaaabac`` walk-through: each merge a new symbol standing for a pair), with a decompression
player that undoes the rules one by one back to the input.

It stays open beside the window and follows every step. It needs a corpus trained as one
sequence of characters (pre-tokenizer "none", no end-of-word marker); otherwise it says so.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.bridge import Bridge
from app.glyphs import show_whitespace
from app.guard import guard_overrides
from app.widgets import SideDialog
from bpe_core.tools.compress import Compression, compression_of, is_one_sequence

WINDOW = 3000  # characters of data shown at once: large inputs show a window around the cursor
SMALL = 400  # data up to this length is shown after every step in the rule table
PLAY_MS = 600


def window_around(data: str, symbol: str | None, size: int = WINDOW) -> tuple[str, int]:
    """At most ``size`` characters of ``data`` around the first ``symbol`` (the cursor), and the
    offset of the window's start."""
    if len(data) <= size:
        return data, 0
    at = data.find(symbol) if symbol else 0
    start = max(0, min(len(data) - size, max(at, 0) - size // 2))
    return data[start : start + size], start


RULE_HEADERS = ("Symbol", "Stands for", "Replaced", "Data after the step")
RULES = "Each merge as a rule: its new symbol, what it stands for, how many times it replaced its pair."


@guard_overrides
class CompressionDialog(SideDialog):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compression view")
        self.setModal(False)
        # Attributes
        self._bridge = bridge
        self._compression: Compression | None = None
        self._states: list[str] = []  # decompression: the data with 0, 1, 2, … rules undone
        self._undoing: Iterator[str] = iter(())  # the states not reached yet
        self._undone = 0
        self._timer = QTimer(self, interval=PLAY_MS)
        # Widgets
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.rules = QTableWidget(0, 4)
        self.rules.setTabKeyNavigation(False)  # Tab goes on to the window's next control, not the next cell
        # "Replaced", not "Count": the Merges pane's count of aa in aaab is 2 (overlapping pairs
        # counted), the replacements 1; a student comparing the two saw 4 beside 2 for one merge.
        self.rules.setHorizontalHeaderLabels(list(RULE_HEADERS))
        self.rules.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.rules.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.rules.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.rules.setFont(mono)
        self.rules.setAccessibleName("Compression rules")
        self.rules.setAccessibleDescription(RULES)
        self.data = QPlainTextEdit(readOnly=True)
        self.data.setAccessibleName("The data now")
        self.data.setFont(mono)
        self.data.setMaximumBlockCount(0)
        player = QGroupBox("Decompression: the rules undone in reverse")
        self.player_view = QPlainTextEdit(readOnly=True)
        self.player_view.setFont(mono)
        self.player_view.setAccessibleName("Decompressed data")
        self.player_label = QLabel()
        self.start_button = QPushButton("Back to the compressed data")
        self.back_button = QPushButton("◀ Redo a rule")
        self.next_button = QPushButton("Undo a rule ▶")
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        # Layout
        buttons = QHBoxLayout()
        for button in (self.start_button, self.back_button, self.next_button, self.play_button):
            buttons.addWidget(button)
        buttons.addStretch()
        player_layout = QVBoxLayout(player)
        player_layout.addLayout(buttons)
        player_layout.addWidget(self.player_label)
        player_layout.addWidget(self.player_view)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.rules, 3)
        layout.addWidget(QLabel("The data now:"))
        layout.addWidget(self.data, 2)
        layout.addWidget(player, 3)
        self.resize(760, 720)
        # Signals
        self.start_button.clicked.connect(lambda: self.show_undone(0))
        self.back_button.clicked.connect(lambda: self.show_undone(self._undone - 1))
        self.next_button.clicked.connect(lambda: self.show_undone(self._undone + 1))
        self.play_button.toggled.connect(self._toggle_play)
        self._timer.timeout.connect(self._play_step)
        bridge.sig_change.connect(lambda _change: self.refresh())  # also as a job ends

    @property
    def compression(self) -> Compression | None:
        return self._compression

    def _summarize(self, text: str) -> None:
        """The summary above the rules, which a screen reader hears with the table too: focus
        lands on the table, and a plain label beside it is not read (an empty table said
        nothing of why it was empty)."""
        self.summary.setText(text)
        self.rules.setAccessibleDescription(f"{text} {RULES}")

    def refresh(self) -> None:
        """Follow the session: its rules up to the current step, and the data now."""
        if self._bridge.busy or not self.isVisible():  # showEvent refreshes when it opens
            return
        trainer = self._bridge.trainer
        config = trainer.corpus.config
        self.play_button.setChecked(False)
        if not is_one_sequence(config) or trainer.word_count != 1:
            self._compression = None
            self._summarize(
                "The compression variant needs the corpus as one sequence of characters: in Settings, "
                "choose the pre-tokenizer “none” and no end-of-word marker (the sample “aaabdaaabac as "
                "one sequence” is set up so)."
            )
            self._fill_rules()
            self.data.setPlainText("")
            self._set_player_enabled(False)
            return
        small = len(trainer.corpus.words[0]) <= SMALL
        compression = self._compression = compression_of(trainer, every_step=small)
        original, compressed = compression.original, compression.compressed
        self._summarize(
            f"{len(original):,} symbols → {len(compressed):,} with {len(compression.steps):,} rules "
            f"(step {trainer.position:,}). Each merged pair is written as a new symbol that the data "
            "never holds; undoing the rules in reverse gives the input back."
        )
        self._fill_rules()
        last = compression.steps[-1].symbol if compression.steps else None
        self._show(self.data, compressed, last)
        self._states = [compressed]
        self._undoing = compression.decompression()
        self._set_player_enabled(True)
        self.show_undone(0)

    def _fill_rules(self) -> None:
        steps = self._compression.steps if self._compression else ()
        self.rules.setRowCount(len(steps))
        self.rules.setColumnHidden(3, not steps or not steps[0].data)
        for row, step in enumerate(steps):
            cells = (
                step.symbol,
                show_whitespace(step.pair[0] + step.pair[1]),
                f"{step.count:,}",
                show_whitespace(step.data),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.rules.setItem(row, column, item)
        self.rules.resizeColumnsToContents()
        header = self.rules.horizontalHeader()
        metrics = header.fontMetrics()
        for column, label in enumerate(RULE_HEADERS[:3]):  # Qt's fit cut a header's end ("Stands fo")
            wide = metrics.horizontalAdvance(label) + 2 * metrics.averageCharWidth() + 8
            self.rules.setColumnWidth(column, max(self.rules.columnWidth(column), wide))

    def show_undone(self, undone: int) -> None:
        """Show the data with the last ``undone`` rules undone (0: compressed; all: the input)."""
        compression = self._compression
        if compression is None:
            return
        steps = compression.steps
        undone = max(0, min(undone, len(steps)))
        while len(self._states) <= undone:  # each state once, as the player reaches it
            self._states.append(next(self._undoing))
        self._undone = undone
        data = self._states[undone]
        if undone == 0:
            text = "The compressed data. Undo the rules one by one, last rule first."
            cursor = steps[-1].symbol if steps else None
        else:
            step = steps[len(steps) - undone]
            rule = f"{step.symbol} = {show_whitespace(step.pair[0] + step.pair[1])}"
            text = f"Undid {rule} ({undone} of {len(steps)})."
            cursor = step.pair[0]
        if undone == len(steps):
            same = data == compression.original
            text += " Back to the input: " + ("identical, nothing was lost." if same else "DIFFERENT.")
        self.player_label.setText(text)
        self._show(self.player_view, data, cursor)
        self.start_button.setEnabled(undone > 0)
        self.back_button.setEnabled(undone > 0)
        self.next_button.setEnabled(undone < len(steps))

    def _show(self, view: QPlainTextEdit, data: str, cursor: str | None) -> None:
        shown, start = window_around(data, cursor)
        prefix = f"… (from character {start + 1:,} of {len(data):,})\n" if len(shown) < len(data) else ""
        view.setPlainText(prefix + shown)

    def _set_player_enabled(self, enabled: bool) -> None:
        for button in (self.start_button, self.back_button, self.next_button, self.play_button):
            button.setEnabled(enabled)
        if not enabled:
            self.player_label.setText("")
            self.player_view.setPlainText("")

    def _toggle_play(self, playing: bool) -> None:
        if playing:
            if self._compression and self._undone >= len(self._compression.steps):
                self.show_undone(0)
            self._timer.start()
        else:
            self._timer.stop()

    def _play_step(self) -> None:
        if self._compression is None or self._undone >= len(self._compression.steps):
            self.play_button.setChecked(False)
            return
        self.show_undone(self._undone + 1)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh()

    def closeEvent(self, event) -> None:
        self.play_button.setChecked(False)
        super().closeEvent(event)
