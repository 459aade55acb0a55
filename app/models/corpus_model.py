"""The corpus table: word types with count, token count and current segmentation (as chips).

Sorting and filtering happen here, on an array of word indices (sorting 100k rows through a
proxy's Python ``lessThan`` would take seconds; a list of a million Python ints would take 50
MB), with whole-array searches and orders worked out once per corpus (``app.models.word_lookup``).
After a step only the changed words' rows are recomputed, and of those only the ones on screen
repainted (a step early in a large corpus changes hundreds of thousands of words, of which a
screenful at most is shown); the token-count order, which a step can change, is re-sorted
after a short pause.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QModelIndex, Qt, QTimer

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.collector import note_activity
from app.glyphs import show_whitespace, token_parts
from app.guard import guard_overrides
from app.models.roles import BACKGROUND, DISPLAY, TOOLTIP, USER
from app.models.row_cache import PLACEHOLDER, RowCache
from app.models.table_model import TableModel
from app.models.word_lookup import WordLookup
from app.models.word_search import stable_order
from app.theme import changed_background, highlight_background

WORD, COUNT, TOKENS, SEGMENTATION = range(4)
HEADERS = ("Word", "Count", "Tokens", "Segmentation")
TOKENS_ROLE = USER + 1  # [(text, marker), ...] for the chip delegate
SORT_ROLE = USER  # raw sort key
SHOWN_TOKENS = 400  # a single-sequence corpus has one enormous "word": show its start
TARGETED_UPDATES = 300  # more changed rows than this on screen (no view says which): all repainted
NO_WORDS = np.zeros(0, dtype=np.int64)
LOOKED_UP = 4096  # rows' answers kept from one step's lookups
NO_CHANGE = array("i")  # the words a step changed, as the engine names them (LastChange.words)


@dataclass(frozen=True, slots=True)
class CorpusRow:
    word: str
    count: int
    tokens: tuple[tuple[str, str], ...]
    token_count: int


@guard_overrides
class CorpusModel(TableModel):
    HEADERS = HEADERS
    NUMERIC = frozenset({COUNT, TOKENS})

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._rows = array("i")  # word indices in display order (indexing gives Python ints)
        self._filter = ""
        self._only: frozenset[int] | None = None  # show only these words (selection filter)
        self._sort_column, self._sort_order = COUNT, Qt.SortOrder.DescendingOrder
        self._cache: RowCache[int, CorpusRow] = RowCache(self._compute, lambda: bridge.trainer_busy)
        self._highlight: frozenset[int] = frozenset()
        # The last step's words: as the engine gives them, and ascending for lookups (a step
        # early in a large corpus changes hundreds of thousands: a set of them costs tens of
        # ms, and a mask over every word a millisecond a step to set and clear).
        self._changed = NO_CHANGE
        self._changed_array: np.ndarray = NO_WORDS  # the same, ascending, as a numpy array
        self._looked_up: dict[int, bool] = {}  # word -> changed, for the rows painted since
        self._lookup: WordLookup | None = None
        self._lengths: np.ndarray | None = None  # token counts as of the last change (sorting)
        self._colors = (highlight_background(), changed_background())
        self._resort = QTimer(self, singleShot=True, interval=250)
        self._positions: np.ndarray | None = None  # word -> row, -1 for words not shown
        self.largest = (0, 0)  # the corpus' largest count and longest word in bytes (column widths)
        # The rows a view shows now, (first, last), set by the view: a step repaints only those.
        self.shown_rows: Callable[[], tuple[int, int]] | None = None
        # Signals
        self._resort.timeout.connect(self._reorder)
        bridge.sig_change.connect(self._on_change)
        self._on_reset()

    # -- Qt model interface ----------------------------------------------------------------

    def row_total(self) -> int:
        return len(self._rows)

    def answers(self) -> dict:
        return {
            DISPLAY: self._display,
            BACKGROUND: self._background,
            TOKENS_ROLE: self._tokens,
            SORT_ROLE: self._sort_key,
            TOOLTIP: self._tooltip_at,
        }

    def _background(self, row: int, _column: int):
        w = self._rows[row]
        if w in self._highlight:
            return self._colors[0]
        if self._is_changed(w):
            return self._colors[1]
        return None

    def _display(self, row: int, column: int):
        item = self._cache.get(self._rows[row])
        if item is None:
            return PLACEHOLDER
        if column == WORD:
            return item.word
        if column == COUNT:
            return f"{item.count:,}"
        if column == TOKENS:
            return f"{item.token_count:,}"
        return " ".join(text + marker for text, marker in item.tokens)  # for copy and search

    def _tokens(self, row: int, column: int):
        item = self._cache.get(self._rows[row]) if column == SEGMENTATION else None
        return None if item is None else item.tokens

    def _sort_key(self, row: int, column: int):
        item = self._cache.get(self._rows[row])
        return None if item is None else (item.word, item.count, item.token_count, item.token_count)[column]

    def _tooltip_at(self, row: int, _column: int):
        w = self._rows[row]
        item = self._cache.get(w)
        return None if item is None else self._tooltip(w, item)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self._reorder()

    # -- what the pane asks for ------------------------------------------------------------

    def word_index(self, row: int) -> int:
        return self._rows[row]

    def row_of(self, word: int) -> int | None:
        row = int(self._position()[word])
        return row if row >= 0 else None

    def set_filter(self, text: str) -> None:
        """Show only the words containing ``text``, its ends trimmed (a Space typed alone hid
        every word)."""
        self._filter = text.strip().casefold()
        self._reorder()

    @property
    def filtered(self) -> bool:
        """Whether rows are left out (a filter, or only the words with the selection)."""
        return bool(self._filter) or self._only is not None

    def set_highlight(self, words, only: bool = False) -> None:
        """Mark (and with ``only``, show only) the words containing the selected pair or token."""
        was_filtered = self._only is not None
        self._highlight = frozenset(words)
        self._only = self._highlight if only else None
        if only or was_filtered:  # the rows shown change: all of them, or only the selection's
            self._reorder()
        else:
            self.repaint_all([BACKGROUND])

    def restyle(self) -> None:
        """Row colours for the current palette (light or dark)."""
        self._colors = (highlight_background(), changed_background())
        self.repaint_all([BACKGROUND])

    @property
    def changed_words(self) -> frozenset[int]:
        """The words the last single step or undo changed."""
        return frozenset(self._changed)

    @property
    def changed_count(self) -> int:
        """How many words the last single step or undo changed (without a set of them)."""
        return len(self._changed)

    # -- updates ---------------------------------------------------------------------------

    def _compute(self, w: int) -> CorpusRow:
        trainer = self._bridge.trainer
        config = trainer.corpus.config
        ids = trainer.segmentation(w)
        shown = [token_parts(trainer.token_string(t), config) for t in ids[:SHOWN_TOKENS]]
        if len(ids) > SHOWN_TOKENS:
            shown.append((f"… {len(ids) - SHOWN_TOKENS:,} more", ""))
        return CorpusRow(
            show_whitespace(trainer.corpus.words[w]), trainer.corpus.counts[w], tuple(shown), len(ids)
        )

    def _tooltip(self, w: int, row: CorpusRow) -> str:
        after = " ".join(text + marker for text, marker in row.tokens)
        if not self._is_changed(w) or self._bridge.trainer_busy:
            return f"{row.word}: {row.count:,}× — {after}"
        change = self._bridge.trainer.last_change
        if change is None:
            return f"{row.word}: {row.count:,}× — {after}"
        before = " ".join(text + marker for text, marker in self._before(w, change))
        verb = "merged" if change.applied else "undid"
        return f"Step {change.record.step} {verb}:\n{before}\n→ {after}"

    def _before(self, w: int, change) -> list[tuple[str, str]]:
        """The word's segmentation before the last single step or undo."""
        trainer = self._bridge.trainer
        left, right = change.record.pair
        token = change.record.token
        ids = trainer.segmentation(w)
        before: list[int] = []
        if change.applied:  # split the merged token back
            for t in ids:
                before.extend((left, right) if t == token else (t,))
        else:  # merge the pair again, left to right
            i = 0
            while i < len(ids):
                if i + 1 < len(ids) and ids[i] == left and ids[i + 1] == right:
                    before.append(token)
                    i += 2
                else:
                    before.append(ids[i])
                    i += 1
        config = trainer.corpus.config
        # After an undo the merged token is gone from the vocabulary: spell it from its pair.
        merged = trainer.token_string(left) + trainer.token_string(right)
        return [
            token_parts(merged if t == token and not change.applied else trainer.token_string(t), config)
            for t in before[:SHOWN_TOKENS]
        ]

    def _on_change(self, change: Change) -> None:
        """One step or undo repaints the words it changed; a jump, a run or another line, all."""
        kind = change.kind
        self._lengths = None
        if kind == ChangeKind.RESET:
            self._on_reset()
        elif kind in (ChangeKind.APPLIED, ChangeKind.UNDONE):
            self._on_single_change()
        elif kind == ChangeKind.JUMPED:
            self._on_jumped()

    def _on_reset(self) -> None:
        self.beginResetModel()
        corpus = self._bridge.trainer.corpus  # never changes: safe to read while a job runs
        ends = corpus.words.byte_ends()
        if len(ends):
            self.largest = (int(corpus.counts.numpy().max()), int(np.diff(ends, prepend=0).max()))
        self._cache.clear()
        self._highlight = frozenset()
        self._set_changed(NO_CHANGE)
        self._lookup = WordLookup(corpus.words, corpus.counts)
        self._only = None
        self._filter = ""  # a new session: its words all shown (the pane clears its field)
        self._rows = self._ordered() if not self._bridge.trainer_busy else array("i")
        self._positions = None
        self.endResetModel()

    def _on_single_change(self) -> None:
        change = self._bridge.trainer.last_change
        words = change.words if change is not None else NO_CHANGE
        old = self._changed_array
        # Only the rows that changed (now or in the last step's highlight) need repainting, and
        # of those only the ones on screen: looked up from those few rows, not from the tens of
        # thousands of words an early step on millions of word types changes.
        shown = self._shown_words()
        self._set_changed(words)
        new = self._changed_array
        # Rows are cached for what was on screen: far fewer than the words a step may change.
        if len(new) < self._cache.size:
            self._cache.drop(words)
        else:
            cached = np.fromiter(self._cache.keys(), dtype=np.int32, count=self._cache.size)
            self._cache.drop(cached[_among(cached, new)].tolist())
        if shown is None:  # no view says which rows it shows
            rows = self._position()[np.concatenate((old, new))]
            rows = rows[rows >= 0]
        else:
            now = _among(shown[1], new)
            self._looked_up.update(zip(shown[1].tolist(), now.tolist()))  # the rows about to be painted
            rows = shown[0] + np.flatnonzero(_among(shown[1], old) | now)
        if len(rows) > TARGETED_UPDATES:
            self.repaint_all()
        else:
            for row in np.unique(rows).tolist():
                self.repaint_rows(row, row)
        if self._sort_column == TOKENS:
            self._resort.start()

    def _shown_words(self) -> tuple[int, np.ndarray] | None:
        """The first row on screen and the words of the rows on screen (None: no view says)."""
        if self.shown_rows is None:
            return None
        first, last = self.shown_rows()
        first, last = max(first, 0), min(last, len(self._rows) - 1)
        rows = np.frombuffer(self._rows, dtype=np.int32) if len(self._rows) else NO_WORDS
        return first, rows[first : last + 1] if last >= first else NO_WORDS

    def _set_changed(self, words: array[int]) -> None:
        changed: np.ndarray = np.frombuffer(words, dtype=np.int32) if len(words) else NO_WORDS
        if np.count_nonzero(changed[1:] <= changed[:-1]):  # the engine promises no order
            changed = np.unique(changed)
        self._changed_array = changed
        self._changed = words
        self._looked_up = {}

    def _is_changed(self, w: int) -> bool:
        """Whether the last step changed word ``w`` (asked for each row painted)."""
        changed = self._looked_up.get(w)
        if changed is None:
            if len(self._looked_up) >= LOOKED_UP:
                self._looked_up.clear()  # a long scroll through one step's words
            ascending = self._changed_array
            # Searched for in the array's own type: a Python int would have numpy convert the
            # whole array first (0.14 ms a row at a million words).
            at = int(ascending.searchsorted(ascending.dtype.type(w)))
            changed = self._looked_up[w] = at < len(ascending) and int(ascending[at]) == w
        return changed

    def _position(self) -> np.ndarray:
        """Word index -> row (-1 if not shown), rebuilt only when the order changes."""
        if self._positions is None:
            positions = np.full(self._bridge.trainer.word_count, -1, dtype=np.int32)
            positions[np.frombuffer(self._rows, dtype=np.int32)] = np.arange(len(self._rows), dtype=np.int32)
            self._positions = positions
        return self._positions

    def _on_jumped(self) -> None:
        self._set_changed(NO_CHANGE)
        self._cache.clear()
        self._refresh_all()

    def _refresh_all(self) -> None:
        self.repaint_all()
        if self._sort_column == TOKENS:
            self._resort.start()  # token counts changed: re-sort once stepping pauses

    def _ordered(self) -> array[int]:
        trainer = self._bridge.trainer
        lookup = self._lookup
        assert lookup is not None
        descending = self._sort_order == Qt.SortOrder.DescendingOrder
        rows = None if self._only is None else np.array(sorted(self._only), dtype=np.int64)  # None: all
        if self._filter:
            found = lookup.containing(self._filter)
            rows = found if rows is None else np.intersect1d(rows, found, assume_unique=True)
        if self._sort_column in (WORD, COUNT):  # orders that never change: kept, and filtered
            order = lookup.by_word(descending) if self._sort_column == WORD else lookup.by_count(descending)
            ordered = order if rows is None else order[self._shown_mask(rows)[order]]
        else:  # token counts: a stable sort, descending as Python's sorted(reverse=True) is
            if self._lengths is None:
                self._lengths = trainer.segmentation_lengths()
            keys = self._lengths
            ordered = stable_order(keys if rows is None else keys[rows], descending)
            ordered = ordered if rows is None else rows[ordered]
        indices = array("i")
        indices.frombytes(ordered.astype(np.int32).data.cast("B"))  # no bytes copy of a million rows
        return indices

    def _shown_mask(self, rows: np.ndarray) -> np.ndarray:
        mask = np.zeros(self._bridge.trainer.word_count, dtype=bool)
        mask[rows] = True
        return mask

    def _reorder(self) -> None:
        if self._bridge.trainer_busy:
            self._resort.start()
            return
        note_activity()  # ordering millions of rows frees large passing arrays: handed back at a pause
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_words = [self._rows[i.row()] if i.row() < len(self._rows) else None for i in old]
        self._rows = self._ordered()
        self._positions = None
        position = self._position()
        new = [
            self.index(int(position[w]), i.column()) if w is not None and position[w] >= 0 else QModelIndex()
            for i, w in zip(old, old_words, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()


def _among(words: np.ndarray, ascending: np.ndarray) -> np.ndarray:
    """Whether each of ``words`` is in ``ascending`` (sorted, distinct)."""
    if not len(ascending):
        return np.zeros(len(words), dtype=bool)
    at = np.searchsorted(ascending, words)
    at[at == len(ascending)] = 0
    return ascending[at] == words
