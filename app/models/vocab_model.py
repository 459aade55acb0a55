"""The vocabulary table: id, token (with visible glyphs), length, frequency now, step created.

Default order is by id, where a step only inserts or removes the newest token's row (at the end,
or where an imported tokenizer's own id puts it: GPT-2's ``<|endoftext|>`` stays last); other
orders and searches are recomputed (a vocabulary is at most tens of thousands of rows). The id
shown is the one exported: an imported tokenizer's (``Trainer.token_numbers``). What does not
change while a token exists (its text, length and step) is cached per id; the frequency
changes with every step and shows a placeholder while a background job runs.
"""

from __future__ import annotations

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
        self._ids: list[int] = []
        self._size = 0
        self._filter = ""
        self._sort_column, self._sort_order = ID, Qt.SortOrder.AscendingOrder
        self._fixed: dict[int, tuple[str, int, int]] = {}  # id -> (visible token, length, step)
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
        fixed = self._fixed_values(token_id)
        return PLACEHOLDER if fixed is None else fixed[0]

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
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        size = trainer.vocab_size
        numbers = trainer.token_numbers() or []
        shared = min(size, self._size)
        renumbered = numbers is not self._numbers and numbers[:shared] != self._numbers[:shared]
        self._numbers = numbers
        for token_id in range(size, self._size):  # undone: the id will name another token
            self._fixed.pop(token_id, None)
        del self._folded[size:]
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
        self._fixed.clear()
        self._folded.clear()
        self._warmed = 0
        self._warm_timer.start()

    def _forget_merged(self) -> None:
        if self._bridge.busy:  # the job's events are announced once it is over: come back then
            return
        vocab = self._bridge.trainer.vocab
        first = vocab.n_special + vocab.n_base
        for token_id in [t for t in self._fixed if t >= first]:
            del self._fixed[token_id]
        del self._folded[first:]
        self._warmed = min(self._warmed, first)
        self._recompute()
        self._warm_timer.start()

    def _warm_labels(self) -> None:
        if self._bridge.busy:
            return  # the refresh after the job starts it again
        size = self._bridge.trainer.vocab_size
        stop = min(size, self._warmed + WARM_SLICE)
        for token_id in range(self._warmed, stop):
            self._fixed_values(token_id)
        self._warmed = stop
        if stop < size:
            self._warm_timer.start()

    def _fixed_values(self, token_id: int) -> tuple[str, int, int] | None:
        """(visible token, length, step created), cached; None if not cached while busy."""
        fixed = self._fixed.get(token_id)
        if fixed is None and not self._bridge.busy:
            trainer = self._bridge.trainer
            shown = visible(trainer.token_string(token_id), trainer.corpus.config)
            fixed = (shown, trainer.token_length(token_id), trainer.token_created_at(token_id))
            self._fixed[token_id] = fixed
        return fixed

    def _number(self, token_id: int) -> int:
        """The id shown: the exported one."""
        return self._numbers[token_id] if self._numbers else token_id

    def _value(self, token_id: int, column: int):
        """The cell's raw value, or None when it cannot be known now (a job is running)."""
        if column == ID:
            return self._number(token_id)
        if column == FREQUENCY:
            return None if self._bridge.busy else self._bridge.trainer.token_frequency(token_id)
        fixed = self._fixed_values(token_id)
        if fixed is None:
            return None
        return fixed[0] if column == TOKEN else fixed[1] if column == LENGTH else fixed[2]

    def _recompute(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        self._n_special = trainer.vocab.n_special
        self._numbers = trainer.token_numbers() or []
        self._size = trainer.vocab_size
        ids: range | list[int] = range(self._size)
        if self._filter:
            folded, wanted = self._folded, self._filter
            for i in range(len(folded), self._size):  # labels as searched, kept while tokens are
                folded.append(self.token_label(i).casefold())
            ids = [i for i in ids if wanted in folded[i]]
        column = self._sort_column
        ordered = sorted(
            ids,
            key=lambda i: self._value(i, column),
            reverse=self._sort_order == Qt.SortOrder.DescendingOrder,
        )
        self.beginResetModel()
        self._ids = ordered
        self.endResetModel()
