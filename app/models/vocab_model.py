"""The vocabulary table: id, token (with visible glyphs), length, frequency now, step created.

Default order is by id, where a step only inserts or removes the newest token's row (at the end,
or where an imported tokenizer's own id puts it: GPT-2's ``<|endoftext|>`` stays last); other
orders and searches are recomputed (a vocabulary is at most tens of thousands of rows). The id
shown is the one exported: an imported tokenizer's (``Trainer.token_numbers``). What does not
change while a token exists (its text, length and step) is kept per id, in columns: a label
string each, the numbers as machine integers (a tuple and its numbers per token would cost
about 150 bytes more, megabytes over a long history); the frequency changes with every step
and shows a placeholder while a background job runs.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QFont

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.glyphs import visible
from app.guard import guard_overrides
from app.models.roles import DISPLAY, FONT, TOOLTIP, USER
from app.models.row_cache import PLACEHOLDER
from app.models.table_model import TableModel

ID, TOKEN, LENGTH, FREQUENCY, CREATED = range(5)
HEADERS = ("Id", "Token", "Length", "Frequency", "Step")
TOKEN_ID_ROLE = USER + 1
SORT_ROLE = USER
WARM_SLICE = 2000  # labels computed per turn of the event loop (a few milliseconds)
SPECIAL_TIP = "Special token: never merged, matched in text only when allowed."


@guard_overrides
class VocabModel(TableModel):
    HEADERS = HEADERS
    NUMERIC = frozenset({ID, LENGTH, FREQUENCY, CREATED})
    HEADER_TIPS = (
        "Token id",
        "Token (␣ space, ↵ newline; markers shown as written)",
        "Length in units (characters or bytes), markers excluded",
        "Occurrences in the corpus as segmented now",
        "Merge step that created it (0: base)",
    )

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._ids = array("i")  # the token id of each row
        self._size = 0
        self._filter = ""
        self._sort_column, self._sort_order = ID, Qt.SortOrder.AscendingOrder
        # Per token id, what does not change while it exists: its label (None until made),
        # length and step created.
        self._labels: list[str | None] = []
        self._lengths = array("i")
        self._steps = array("i")
        self._numbers: list[int] = []  # the exported id of each token, when not its own
        self._folded: list[str] = []  # casefolded labels of the first tokens, for searches
        self._n_special = 0
        self._italic = QFont()
        self._italic.setItalic(True)
        # Signals
        bridge.sig_change.connect(self._on_change)
        # The labels a search looks through are computed ahead, a slice per turn of the event
        # loop, so that the first search in a vocabulary of 50,000 tokens is as quick as the next.
        self._warmed = 0
        self._warm_timer = QTimer(self, singleShot=True, interval=0)
        self._warm_timer.timeout.connect(self._warm_labels)
        self._warm_timer.start()
        self.refresh()

    def row_total(self) -> int:
        return len(self._ids)

    def answers(self) -> dict:
        return {
            DISPLAY: self._display,
            SORT_ROLE: self._sort_key,
            TOKEN_ID_ROLE: lambda row, _column: self._ids[row],
            FONT: lambda row, _column: self._italic if self._ids[row] < self._n_special else None,
            TOOLTIP: lambda row, _column: SPECIAL_TIP if self._ids[row] < self._n_special else None,
        }

    def _display(self, row: int, column: int):
        value = self._value(self._ids[row], column)
        if value is None:
            return PLACEHOLDER
        return value if column == TOKEN else f"{value:,}"

    def _sort_key(self, row: int, column: int):
        value = self._value(self._ids[row], column)
        return PLACEHOLDER if value is None else value

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self._recompute()

    # -- what the pane asks for ------------------------------------------------------------

    def token_label(self, token_id: int) -> str:
        """The token as shown."""
        return self._label(token_id) if self._kept(token_id) else PLACEHOLDER

    def token_at(self, row: int) -> int | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, token_id: int) -> int | None:
        try:
            return self._ids.index(token_id)
        except ValueError:
            return None

    def set_filter(self, text: str) -> None:
        """Show only the tokens containing ``text`` as shown, its ends trimmed."""
        self._filter = text.strip().casefold()
        self._recompute()

    @property
    def filtered(self) -> bool:
        return bool(self._filter)

    def refresh(self) -> None:
        if self._bridge.trainer_busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        size = trainer.vocab_size
        numbers = trainer.token_numbers() or []
        shared = min(size, self._size)
        renumbered = numbers is not self._numbers and numbers[:shared] != self._numbers[:shared]
        self._numbers = numbers
        self._forget_from(size)  # undone: the ids will name other tokens
        self._warmed = min(self._warmed, size)
        if self._warmed < size and not self._warm_timer.isActive():
            self._warm_timer.start()
        if self._sort_column == ID and self._sort_order == Qt.SortOrder.AscendingOrder and not self._filter:
            # Steps add or remove the newest tokens: move only their rows, kept in id order.
            if renumbered or len(self._ids) != self._size or abs(size - self._size) > 64:
                self._recompute()
            for token_id in range(self._size, size):
                row = bisect_left(self._ids, self._number(token_id), key=self._number)
                self.beginInsertRows(QModelIndex(), row, row)
                self._ids.insert(row, token_id)
                self._size += 1
                self.endInsertRows()
            for token_id in reversed(range(size, self._size)):
                row = self._ids.index(token_id)
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._ids[row]
                self._size -= 1
                self.endRemoveRows()
            if self._ids:
                self.dataChanged.emit(self.index(0, FREQUENCY), self.index(len(self._ids) - 1, FREQUENCY))
            return
        self._recompute()

    # -- helpers ---------------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        """Tokens come and go with the position; another line of the history (a branch made or
        switched to) may hold other merged tokens at the same ids; settings change no token."""
        if change.kind == ChangeKind.RESET:
            self._on_reset()
        elif change.kind == ChangeKind.BRANCHES or change.branch_switched:
            self._forget_merged()
        if change.kind != ChangeKind.SETTINGS:
            self.refresh()

    def _on_reset(self) -> None:
        self._filter = ""  # a new session: all its tokens shown (the pane clears its field)
        self._forget_from(0)
        self._warm_timer.start()

    def _forget_merged(self) -> None:
        if self._bridge.trainer_busy:  # the job's events are announced once it is over: come back then
            return
        vocab = self._bridge.trainer.vocab
        self._forget_from(vocab.n_special + vocab.n_base)
        self._recompute()
        self._warm_timer.start()

    def _warm_labels(self) -> None:
        if self._bridge.trainer_busy:
            return  # the refresh after the job starts it again
        size = self._bridge.trainer.vocab_size
        stop = min(size, self._warmed + WARM_SLICE)
        for token_id in range(self._warmed, stop):
            self._kept(token_id)
        self._warmed = stop
        if stop < size:
            self._warm_timer.start()

    def _forget_from(self, first: int) -> None:
        """Forget what is kept of the tokens from id ``first`` on."""
        for column in (self._labels, self._lengths, self._steps, self._folded):
            del column[first:]
        self._warmed = min(self._warmed, first)

    def _kept(self, token_id: int) -> bool:
        """Whether the token's label, length and step are kept (made now unless a job runs)."""
        labels = self._labels
        if token_id < len(labels) and labels[token_id] is not None:
            return True
        if self._bridge.trainer_busy:
            return False
        trainer = self._bridge.trainer
        if token_id >= len(labels):
            missing = trainer.vocab_size - len(labels)
            labels.extend([None] * missing)
            self._lengths.frombytes(bytes(4 * missing))
            self._steps.frombytes(bytes(4 * missing))
        labels[token_id] = visible(trainer.token_string(token_id), trainer.corpus.config)
        self._lengths[token_id] = trainer.token_length(token_id)
        self._steps[token_id] = trainer.token_created_at(token_id)
        return True

    def _label(self, token_id: int) -> str:
        label = self._labels[token_id]
        assert label is not None, "read only once kept"
        return label

    def _number(self, token_id: int) -> int:
        """The id shown: the exported one."""
        return self._numbers[token_id] if self._numbers else token_id

    def _value(self, token_id: int, column: int):
        """The cell's raw value, or None when it cannot be known now (a job is running)."""
        if column == ID:
            return self._number(token_id)
        if column == FREQUENCY:
            return None if self._bridge.trainer_busy else self._bridge.trainer.token_frequency(token_id)
        if not self._kept(token_id):
            return None
        if column == TOKEN:
            return self._label(token_id)
        return self._lengths[token_id] if column == LENGTH else self._steps[token_id]

    def _recompute(self) -> None:
        if self._bridge.trainer_busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        self._numbers = trainer.token_numbers() or []
        self._size = trainer.vocab_size
        ids: range | list[int] = range(self._size)
        if self._filter:
            folded, wanted = self._folded, self._filter
            for i in range(len(folded), self._size):  # labels as searched, kept while tokens are
                label = self.token_label(i)
                casefolded = label.casefold()
                folded.append(label if casefolded == label else casefolded)  # one string when equal
            ids = [i for i in ids if wanted in folded[i]]
        column = self._sort_column
        ordered = sorted(
            ids,
            key=lambda i: self._value(i, column),
            reverse=self._sort_order == Qt.SortOrder.DescendingOrder,
        )
        self.beginResetModel()
        self._ids = array("i", ordered)
        self.endResetModel()
