"""Encode pane: type a test string; it is re-encoded as you type (debounced, never blocking the
keyboard) with the merges up to the current step, tokens painted as coloured spans over the
text, ids listed; hovering a span shows its id, token and merge trace. The token at the text
cursor is named under the text (and said to a screen reader as the cursor enters it), and
Shift+F1 shows its trace there: the keyboard reaches what the mouse does. Below, ids typed in
the decode field are decoded back to text with the model as of the current step."""

from __future__ import annotations

import html
import math
import re
from bisect import bisect_right

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QHelpEvent, QKeyEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.accessibility import announce
from app.bridge import Bridge
from app.encode_worker import EncodeWorker
from app.glyphs import left_to_right, visible
from app.guard import guard_overrides
from app.refresh_timer import RefreshTimer
from app.theme import chip_colors
from app.widgets import status_label
from bpe_core.encoding.encoder import UNKNOWN_ID, Encoder, Encoding
from bpe_core.errors import BpeError

DEBOUNCE_MS = 120
# Only the tokens in view, and this many characters around it, are painted (again on scrolling):
# a selection per token of a whole long text made every keystroke slow (bench/gui_latency.py).
PAINT_MARGIN = 4_000
BACKGROUND_CHARS = 10_000  # longer texts are encoded off the GUI thread
SHOWN_IDS = 5_000
DECODED_IDS = 5_000  # ids decoded at most (a pasted list of a million would stall the window)
MARK_COLOR = "#d32f2f"  # what could not be decoded, in the result


@guard_overrides
class EncodePane(QWidget):
    sig_encoded = Signal()
    """A new encoding is shown."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._encoding: Encoding | None = None
        self._encoder: Encoder | None = None  # the encoder that made ``_encoding`` (tooltips trace with it)
        self._worker = EncodeWorker(self)
        self._encoded_text = ""
        self._starts: list[int] = []
        self._qt: list[int] | None = None  # character index -> Qt (UTF-16) position, if they differ
        self._generation = 0
        self._highlight_token: int | None = None
        self._encoded_state: tuple = ()
        self._pending_state: tuple = ()
        # Edits of the text so far, and at the encoding shown: whether it is of the text as it
        # is now, told without copying a long text out of the editor at every key or scroll.
        self._edits = 0
        self._pending_edits = self._encoded_edits = -1
        # Widgets
        self.input = QPlainTextEdit()
        self.ids = QPlainTextEdit()
        self.stats = status_label()
        self.at_cursor = status_label()  # the token at the text cursor
        self._token_said: int | None = None  # the token at the cursor last said to a screen reader
        self.allow_special = QCheckBox("Match special tokens")
        self.decode_input = QLineEdit(clearButtonEnabled=True)
        self.decode_output = QTextEdit()
        self.decode_status = status_label()
        # Encoding and decoding follow every change, after a pause in typing.
        self._timer = RefreshTimer(bridge, self.encode_now, DEBOUNCE_MS, self)
        self._decode_timer = RefreshTimer(
            bridge, self.decode_now, DEBOUNCE_MS, self, wanted=lambda _: bool(self.decode_input.text())
        )
        self._decoder: tuple[tuple, Encoder] | None = None  # (revision, position) -> its encoder
        # Setup
        self.input.setAccessibleName("Text to encode")
        self.input.setAccessibleDescription(
            "Encoded live with the merges up to the current step; the token at the text cursor is "
            "named below it, and Shift+F1 shows how it was merged"
        )
        self.ids.setAccessibleName("Token ids of the text")
        self.decode_input.setAccessibleName("Token ids to decode")
        self.decode_input.setAccessibleDescription("Ids separated by spaces or commas")
        self.decode_output.setAccessibleName("Decoded text")
        self.input.setPlaceholderText("Type or paste text to encode with the merges up to the current step…")
        self.input.setPlainText("the lowest newer widest")
        self.ids.setReadOnly(True)
        # Tab moves on to the next pane, so the keyboard alone reaches every pane (a tab
        # character can still be pasted into the text).
        self.input.setTabChangesFocus(True)
        self.ids.setTabChangesFocus(True)
        self.ids.setPlaceholderText("Token ids of the text above")
        self.ids.setToolTip(
            "The ids of the text above (read-only): to decode ids, type them in the field below"
        )
        self.decode_input.setPlaceholderText("Ids to decode, e.g. 12 40 7…")
        self.decode_input.setToolTip(
            "Decoded with the merges up to the current step, as the engine decodes; ids it cannot "
            "decode are marked in red"
        )
        self.decode_output.setReadOnly(True)
        self.decode_output.setTabChangesFocus(True)
        self._fit_heights()
        self.decode_output.setPlaceholderText("The decoded text")
        self.input.viewport().installEventFilter(self)
        self.input.installEventFilter(self)  # Shift+F1
        self.input.viewport().setMouseTracking(True)
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.input, 3)
        layout.addWidget(self.ids, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.stats, 1)
        bottom.addWidget(self.allow_special)
        layout.addLayout(bottom)
        layout.addWidget(self.at_cursor)
        decode = QHBoxLayout()
        decode.addWidget(self.decode_input, 3)
        decode.addWidget(self.decode_status, 2)
        layout.addLayout(decode)
        layout.addWidget(self.decode_output, 1)
        # Signals
        self.input.textChanged.connect(self.schedule)
        # (before the cursor's signal, which a typed key sends before textChanged)
        self.input.document().contentsChange.connect(self._count_edit)
        self.input.cursorPositionChanged.connect(self._name_token_at_cursor)
        self.allow_special.toggled.connect(lambda _: self.schedule())
        self._repaint = QTimer(self, singleShot=True, interval=30)  # after scrolling or resizing
        self._repaint.timeout.connect(self._paint)
        self.input.verticalScrollBar().valueChanged.connect(lambda _: self._repaint.start())
        self._worker.sig_done.connect(self._on_result)
        self.decode_input.textChanged.connect(lambda _: self._decode_timer.start())
        self.schedule()

    @property
    def encoding(self) -> Encoding | None:
        return self._encoding

    def is_current(self) -> bool:
        """Whether the shown encoding is of the current text at the current step."""
        return (
            self._encoding is not None
            and self._encoded_edits == self._edits
            and self._encoded_state == self._state()
        )

    def _state(self) -> tuple:
        trainer = self._bridge.trainer
        return (trainer.revision, trainer.position, self.allow_special.isChecked())

    def schedule(self) -> None:
        self._timer.start()

    def highlight_token(self, token_id: int | None) -> None:
        """Outline the spans of a token selected in the vocabulary pane."""
        self._highlight_token = token_id
        self._paint()

    def encode_now(self) -> None:
        """Encode the text as of the current step (the refresh timer's work: not while a job runs)."""
        text = self.input.toPlainText()
        encoder = self._bridge.encoder()
        upto = self._bridge.trainer.position
        allow = self.allow_special.isChecked()
        self._pending_state = self._state()
        self._pending_edits = self._edits
        self._generation += 1
        generation = self._generation

        def task(cancelled=None):
            try:
                encoding = encoder.encode(text, upto=upto, allow_special=allow, cancelled=cancelled)
            except BpeError as error:  # a tokenizer's split pattern that cannot be applied to it
                return text, encoder, error
            return text, encoder, encoding

        if len(text) <= BACKGROUND_CHARS:
            self._on_result(generation, task())
            return
        self.stats.setText("Encoding…")
        self._worker.submit(generation, task)

    def decode_now(self) -> None:
        """Decode the ids typed in the decode field with the model as of the current step."""
        pieces = [p for p in re.split(r"[\s,;]+", self.decode_input.text()) if p][:DECODED_IDS]
        if not pieces:
            self.decode_output.clear()
            self.decode_status.setText("")
            return
        trainer = self._bridge.trainer
        key = (trainer.revision, trainer.position)
        if self._decoder is None or self._decoder[0] != key:
            self._decoder = (key, trainer.encoder())
        parts, decoded, marked = decode_pieces(self._decoder[1], pieces, trainer.position)
        # A mark is English between left-to-right marks: in right-to-left text it would else be
        # laid out from the right ("[not in the vocabulary at step 14 :99]").
        self.decode_output.setHtml(
            '<p style="white-space: pre-wrap">'
            + "".join(
                html.escape(text)
                if ok
                else f'<span style="color: {MARK_COLOR}">\u200e{html.escape(text)}\u200e</span>'
                for text, ok in parts
            )
            + "</p>"
        )
        status = f"{decoded:,} id{'' if decoded == 1 else 's'} decoded"
        if marked:
            status += f" · {marked:,} not decoded (red)"
        self.decode_status.setText(status)

    def decoded_text(self) -> str:
        """The decode field's result as plain text (marks included)."""
        return self.decode_output.toPlainText()

    def shutdown(self) -> None:
        """Stop the background encoder (closing the window)."""
        self._timer.stop()
        self._worker.stop()

    def _on_result(self, generation: int, result: tuple[str, Encoder, Encoding | BpeError]) -> None:
        if generation != self._generation:
            return  # the text or the step changed meanwhile
        encoding: Encoding
        self._encoded_text, self._encoder, outcome = result
        if isinstance(outcome, BpeError):  # said where the counts go; the text is kept as typed
            self._encoding, self._starts = None, []
            self.input.setExtraSelections([])
            self.ids.clear()
            self.at_cursor.setText("")
            self.stats.setText(str(outcome))
            announce(self.input, str(outcome))
            self.sig_encoded.emit()
            return
        encoding = outcome
        self._encoding = encoding
        self._encoded_state = self._pending_state
        self._encoded_edits = self._pending_edits
        self._starts = [start for start, _ in encoding.spans]
        self._qt = utf16_offsets(self._encoded_text)
        self._paint()
        count = len(encoding.ids)
        shown = " ".join(map(str, encoding.ids[:SHOWN_IDS])) + (" …" if count > SHOWN_IDS else "")
        self.ids.setPlainText(shown)
        characters = len(self._encoded_text)
        unknown = sum(encoding.unknown)
        ratio = f" ({characters / count:.2f} per token)" if count else ""
        flagged = f" · {unknown:,} unknown (wavy red underline)" if unknown else ""
        self.stats.setText(f"{count:,} tokens for {characters:,} characters{ratio}{flagged}")
        if self.input.hasFocus():  # typed: heard as well as seen (a screen reader hears only the keys)
            announce(self.input, self.stats.text())
        self._token_said = self.token_at_cursor()  # typing is said by the counts above, not twice
        self._name_token_at_cursor()
        self.sig_encoded.emit()

    def _count_edit(self, *_change) -> None:
        self._edits += 1

    def token_at_cursor(self) -> int | None:
        """Index of the token at the text cursor (or just before it, at a token's end), in the
        encoding shown if it is of the text as it is now."""
        if self._encoding is None or self._encoded_edits != self._edits:
            return None
        position = self._character_at(self.input.textCursor().position())
        index = self.token_at(position)
        return self.token_at(position - 1) if index is None and position > 0 else index

    def _name_token_at_cursor(self) -> None:
        index, encoding, encoder = self.token_at_cursor(), self._encoding, self._encoder
        if index is None or encoding is None or encoder is None:
            self.at_cursor.setText("")
            return
        token = visible(encoding.tokens[index], encoder.config)
        which = "unknown" if encoding.unknown[index] else f"id {encoding.ids[index]}"
        self.at_cursor.setText(
            left_to_right(f"At the cursor: “{token}”, {which} ({index + 1:,} of {len(encoding.ids):,})")
        )
        if self.input.hasFocus() and index != self._token_said:  # said once as the cursor enters it
            self._token_said = index
            announce(self.input, self.at_cursor.text())

    def _paint(self) -> None:
        encoding = self._encoding
        if encoding is None or self._encoded_edits != self._edits:
            return
        colors = chip_colors(self.palette())
        unknown_color = QColor("#ff8a80")
        selections = []
        document = self.input.document()
        low, high = self._characters_in_view()
        first = max(0, bisect_right(self._starts, low - PAINT_MARGIN) - 1)
        last = bisect_right(self._starts, high + PAINT_MARGIN)
        for i in range(first, last):
            (start, end), token_id, unknown = encoding.spans[i], encoding.ids[i], encoding.unknown[i]
            if end <= start:
                continue
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(document)
            if self._qt is not None:
                start, end = self._qt[start], self._qt[end]
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            fmt = QTextCharFormat()
            fmt.setBackground(unknown_color if unknown else colors[i % 2])
            if unknown:  # a shape as well as a colour: a wavy underline, as a misspelling has
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            if token_id == self._highlight_token and token_id >= 0:
                fmt.setFontUnderline(True)
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                fmt.setFontWeight(700)
            selection.format = fmt
            selections.append(selection)
        self.input.setExtraSelections(selections)

    def _characters_in_view(self) -> tuple[int, int]:
        """The character indices at the top left and the bottom right of the input's view."""
        viewport = self.input.viewport()
        corners = (QPoint(0, 0), QPoint(viewport.width(), viewport.height()))
        low, high = (self._character_at(self.input.cursorForPosition(c).position()) for c in corners)
        return low, high

    def _character_at(self, position: int) -> int:
        """The character index of a Qt position (UTF-16 units differ past the BMP)."""
        return position if self._qt is None else max(0, bisect_right(self._qt, position) - 1)

    def _fit_heights(self) -> None:
        """Two lines and a bit at most for the ids and the decoded text, whatever the zoom: the
        test string above keeps the room. At least a line each (two for the test string), not
        Qt's fixed 70 pixels: zoomed for a projector, the pane would otherwise take its column's
        height from the Corpus pane."""
        line = self.fontMetrics().lineSpacing()
        for box, lines in ((self.input, 2), (self.ids, 1), (self.decode_output, 1)):
            # a line's room without a scroll bar: the frame's and the document's margins too
            margins = 2 * (box.frameWidth() + math.ceil(box.document().documentMargin())) + 2
            box.setMinimumHeight(lines * line + margins)
        for box in (self.ids, self.decode_output):
            box.setMaximumHeight(round(line * 2.6) + 8)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # the window zoomed
            self._fit_heights()
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._repaint.start()

    def token_at(self, position: int) -> int | None:
        """Index of the token whose span contains character ``position``."""
        if not self._starts:
            return None
        encoding = self._encoding
        if encoding is None:
            return None
        i = bisect_right(self._starts, position) - 1
        if i >= 0 and encoding.spans[i][0] <= position < encoding.spans[i][1]:
            return i
        return None

    def tooltip_for(self, index: int) -> str:
        """The token's id, and how its word was merged: from the encoder and step that produced
        the shown encoding, never from the trainer (which a background job may be changing)."""
        encoding, encoder = self._encoding, self._encoder
        if encoding is None or encoder is None:
            return ""
        config = encoder.config
        token_id, token = encoding.ids[index], encoding.tokens[index]
        if encoding.unknown[index]:
            return f"{visible(token, config)!s}: never seen in training (unknown)"
        lines = [f"id {token_id} · {visible(token, config)}"]
        start, _ = encoding.spans[index]
        piece = encoder.piece_of(self._encoded_text, start)
        if piece is not None and encoder.taken_whole(piece, self._encoded_state[1]) is not None:
            lines.append(
                f"“{visible(piece, config)}” is a token of the vocabulary: taken whole (ignore_merges)"
            )
        elif piece is not None:
            initial, steps = encoder.trace(piece, upto=self._encoded_state[1])  # the position
            name = lambda t: "?" if t < 0 else visible(encoder.tokens[t], config)  # noqa: E731
            lines.append(f"“{visible(piece, config)}” starts as: {' '.join(map(name, initial))}")
            for step in steps[:24]:
                merge = step.merge
                lines.append(
                    f"  step {merge.rank + 1}: {name(merge.left)} + {name(merge.right)} → "
                    f"{name(merge.token)} (count {merge.count:,})"
                )
            if len(steps) > 24:
                lines.append(f"  … {len(steps) - 24} more merges")
            if not steps:
                lines.append("  no merge applies")
        return "\n".join(map(left_to_right, lines))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.input
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
            and event.key() == Qt.Key.Key_F1
            and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
        ):
            self.show_trace_at_cursor()
            return True
        if (
            watched is self.input.viewport()
            and isinstance(event, QHelpEvent)
            and event.type() == QEvent.Type.ToolTip
        ):
            position = self._character_at(self.input.cursorForPosition(event.pos()).position())
            index = self.token_at(position)
            if index is None and position > 0:
                index = self.token_at(position - 1)
            if index is not None and self._encoding is not None:
                QToolTip.showText(event.globalPos(), self.tooltip_for(index), self.input)
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(watched, event)

    def show_trace_at_cursor(self) -> str:
        """Shift+F1: the tooltip of the token at the text cursor, shown at the cursor and said
        to a screen reader; returns it."""
        index = self.token_at_cursor()
        text = "" if index is None else self.tooltip_for(index)
        if text:
            where = self.input.viewport().mapToGlobal(self.input.cursorRect().bottomLeft())
            QToolTip.showText(where, text, self.input)
            announce(self.input, text)
        return text


def decode_pieces(encoder: Encoder, pieces: list[str], step: int) -> tuple[list[tuple[str, bool]], int, int]:
    """Decode typed ids as ``encoder`` does, a run of valid ids at a time (bytes and word
    boundaries join within a run), anything else marked in its place. Returns the parts as
    (text, decoded or not), and how many ids were decoded and marked.

    Example: ["12", "x"] -> [("low", True), ("[x: not an id]", False)], 1, 1
    """
    keys, specials = encoder.keys, encoder.special_ids
    parts: list[tuple[str, bool]] = []
    run: list[int] = []
    decoded = marked = 0

    def flush() -> None:
        if run:
            parts.append((encoder.decode(run), True))
            run.clear()

    for piece in pieces:
        number = re.fullmatch(r"-?[0-9]+", piece)
        if number is None or (piece.startswith("-") and piece != str(UNKNOWN_ID)):
            mark = f"[{piece[:20]}: not an id]"
        else:
            value = int(piece) if len(piece) <= 18 else None  # int() refuses 4,300 digits and more
            if value is not None and (
                value == UNKNOWN_ID or (0 <= value < len(keys) and (keys[value] or value in specials))
            ):
                run.append(value)
                decoded += 1
                continue
            mark = f"[{piece[:20]}: not in the vocabulary at step {step:,}]"
        flush()
        parts.append((mark, False))
        marked += 1
    flush()
    return parts, decoded, marked


def utf16_offsets(text: str) -> list[int] | None:
    """Qt positions (UTF-16 units) of every character index, or None when they coincide."""
    if text.isascii() or len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text):
        return None
    offsets, position = [], 0
    for char in text:
        offsets.append(position)
        position += 2 if ord(char) >= 0x10000 else 1
    offsets.append(position)
    return offsets
