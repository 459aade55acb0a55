"""The ranked pair table: rank, left, right, merged, count, real replacements, words.

Lazy: rows arrive a page at a time (``fetchMore``) from the engine's ranked queue, so a table of
100k+ pairs costs a step only its first page. Replacements equal the count unless both sides are
the same symbol (only then can occurrences overlap); the number of words containing a pair is
computed for visible rows only and kept while the pair's count stays the same. Counting a
pair's words goes through every word listed as once holding it (hundreds of thousands for a
frequent pair, or for a rare one that was frequent) and can take the engine a tenth of a second
or more, so a long count waits until stepping pauses and is then done one per turn of the
event loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QTimer, Signal

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.glyphs import left_to_right, visible
from app.guard import guard_overrides
from app.models.roles import ACCESSIBLE_TEXT, BACKGROUND, DISPLAY, FONT, TOOLTIP, USER
from app.models.row_cache import PLACEHOLDER
from app.models.table_model import TableModel
from app.theme import tie_background
from bpe_core.history.merge_line import LineView, MergeLine

RANK, LEFT, RIGHT, MERGED, COUNT, REPLACEMENTS, WORDS = range(7)
HEADERS = ("#", "Left", "Right", "Merged", "Count", "Replaces", "Words")
PAGE = 50  # rows ranked per fetch: a step re-ranks only the first page
# Pairs whose count goes through at most this many word entries (``Trainer.pair_words_work``)
# have their words counted at once (within about a millisecond); the others once
# stepping pauses for WORDS_PAUSE_MS.
COUNTED_AT_ONCE = 2_000
WORDS_PAUSE_MS = 200
PAIR_ROLE = USER + 1
SORT_ROLE = USER


@dataclass(frozen=True, slots=True)
class PairRow:
    pair: tuple[int, int]
    count: int


@guard_overrides
class PairModel(TableModel):
    HEADERS = HEADERS
    NUMERIC = frozenset({RANK, COUNT, REPLACEMENTS, WORDS})
    HEADER_TIPS = (
        "Rank in the current tie-break rule's order",
        "Left symbol",
        "Right symbol",
        "The token a merge would create",
        "Adjacent occurrences (overlaps counted, as trainers do)",
        "Replacements a merge would really make (non-overlapping)",
        "Word types containing the pair",
    )

    sig_reranked = Signal()
    """The rows were ranked again (the table reset or repainted): a selection may have moved."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._rows: list[PairRow] = []
        self._total = 0
        self._top = 0
        self._word_types = 0
        self._ties = 0
        self._tie_color = tie_background()
        self._words: dict[tuple[int, int], tuple[int, int]] = {}  # pair -> (count, words containing it)
        self._replacements: dict[tuple[int, int], tuple[int, int]] = {}
        self._words_wanted: dict[tuple[int, int], int] = {}  # pair -> count, to count once paused
        self._words_timer = QTimer(self, singleShot=True, interval=WORDS_PAUSE_MS)
        self._next_words = QTimer(self, singleShot=True, interval=0)  # the next pair, next turn
        self._lineage = LineView(MergeLine())  # the history as last read
        self._fetch_pending = False
        self._strings: dict[int, str] = {}  # token id -> shown string
        self._merged_strings: dict[tuple[int, int], str] = {}
        self._rule = bridge.trainer.rule.spec
        self._trainer = bridge.trainer
        # Signals
        self._words_timer.timeout.connect(self._count_wanted_words)
        self._next_words.timeout.connect(self._count_wanted_words)
        bridge.sig_change.connect(self._on_change)
        self.refresh()

    # -- Qt model interface ----------------------------------------------------------------

    def row_total(self) -> int:
        return len(self._rows)

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return not parent.isValid() and len(self._rows) < self._total and not self._bridge.trainer_busy

    def fetchMore(self, parent=QModelIndex()) -> None:
        # The next page is inserted on the next turn of the event loop, never inside whatever
        # change (a reset, another insertion) the caller may be reacting to.
        if not parent.isValid() and not self._fetch_pending:
            self._fetch_pending = True
            QTimer.singleShot(0, self._fetch_page)

    def _fetch_page(self) -> None:
        self._fetch_pending = False
        if self._bridge.trainer_busy:
            return
        wanted = min(self._total, len(self._rows) + PAGE)
        rows = self._ranked(wanted)[len(self._rows) :]
        if rows:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
            self._rows.extend(rows)
            self.endInsertRows()

    def answers(self) -> dict:
        return {
            DISPLAY: self._display,
            SORT_ROLE: self._sort_key,
            PAIR_ROLE: lambda row, _column: self._rows[row].pair,
            BACKGROUND: self._background,
            FONT: lambda row, _column: self.bold if row == 0 else None,
            TOOLTIP: self._tooltip,
            ACCESSIBLE_TEXT: self._spoken,
        }

    def _tied(self, row: int) -> bool:
        return self._rows[row].count == self._top and self._ties > 1

    def _background(self, row: int, _column: int):
        return self._tie_color if self._rows[row].count == self._top and self._ties > 1 else None

    def _display(self, row: int, column: int):
        item = self._rows[row]
        if column == RANK:  # "=1", "=2": tied, as joint places are written (not colour alone)
            return f"={row + 1:,}" if self._tied(row) else f"{row + 1:,}"
        if column == LEFT:
            return self._shown(item.pair[0])
        if column == RIGHT:
            return self._shown(item.pair[1])
        if column == MERGED:
            return self._merged(item.pair)
        if column == COUNT:
            return f"{item.count:,}"
        value = self._replacement_count(item) if column == REPLACEMENTS else self._word_count(item)
        return PLACEHOLDER if value is None else f"{value:,}"

    def _spoken(self, row: int, column: int) -> str:
        """A cell as a screen reader says it: the pair's cells as the pair, its count and how it
        stands ("e s, count 13, tied, picked next"); a figure with its column's name."""
        item = self._rows[row]
        if column in (COUNT, REPLACEMENTS, WORDS):
            return f"{HEADERS[column]} {self._display(row, column)}"
        left, right = self._shown(item.pair[0]), self._shown(item.pair[1])
        notes = [f"count {item.count:,}"]
        if self._tied(row):
            notes.append("tied")
        if row == 0:
            notes.append("picked next")
        return f"{left} {right}, " + ", ".join(notes)

    def _sort_key(self, row: int, column: int):
        if column in (LEFT, RIGHT, MERGED):
            return self._display(row, column)
        return row if column == RANK else self._rows[row].count

    def _tooltip(self, row: int, _column: int) -> str:
        item = self._rows[row]
        note = ""
        if row == 0:
            note = f"\nThe {self._rule} rule picks this pair next."
        if self._tied(row):
            note += f"\nTied with {self._ties - 1:,} other pair(s) at count {self._top:,}."
        merged = self._merged(item.pair)
        return left_to_right(f"{self.pair_label(item.pair)} → {merged}: {item.count:,} occurrences{note}")

    # -- what the pane asks for ------------------------------------------------------------

    def pair_label(self, pair: tuple[int, int]) -> str:
        """``left + right`` as shown."""
        return f"{self._shown(pair[0])} + {self._shown(pair[1])}"

    def pair_at(self, row: int) -> tuple[int, int] | None:
        return self._rows[row].pair if 0 <= row < len(self._rows) else None

    def row_of(self, pair: tuple[int, int]) -> int | None:
        for row, item in enumerate(self._rows):
            if item.pair == pair:
                return row
        return None

    @property
    def total(self) -> int:
        """Distinct pairs in the corpus now (the table fetches them a page at a time)."""
        return self._total

    @property
    def top(self) -> int:
        """The top pair's count (no pair in the table counts more)."""
        return self._top

    @property
    def word_types(self) -> int:
        """Word types in the corpus (no pair is in more)."""
        return self._word_types

    @property
    def ties(self) -> int:
        return self._ties

    def restyle(self) -> None:
        """The tie shading for the current palette (light or dark)."""
        self._tie_color = tie_background()
        self.repaint_all([BACKGROUND])

    def _on_change(self, change: Change) -> None:
        """A branch made, renamed or deleted leaves the state, and so the pairs, as they are;
        every other change re-ranks them."""
        if change.kind != ChangeKind.BRANCHES:
            self._words_wanted.clear()  # what is shown next asks again
            self._next_words.stop()
            self._words_timer.start()  # (re)started: stepping has not paused yet
            self.refresh()

    def refresh(self) -> None:
        """Back to the first page of the current ranking (after every change).

        A table keeping its number of rows (a step, most often) is repainted, not reset: a
        reset makes the view lay out every row and its scroll bars again, a millisecond a step
        on millions of word types. Either way ``sig_reranked`` follows."""
        if self._bridge.trainer_busy:
            return
        trainer = self._bridge.trainer
        if trainer is not self._trainer:  # a new corpus or session
            self._trainer, self._lineage = trainer, LineView(MergeLine())
            self._forget()
        total = trainer.pair_total
        rows = self._ranked(min(PAGE, total))
        reset = len(rows) != len(self._rows)
        if reset:
            self.beginResetModel()
        self._total = total
        self._top = trainer.top_count()
        self._word_types = trainer.word_count
        self._ties = trainer.ties_at_top()
        self._rule = trainer.rule.spec
        self._rows = rows
        if not self._same_lineage(trainer.history):
            self._forget()
        if reset:
            self.endResetModel()
        else:
            self.repaint_all()
        self.sig_reranked.emit()

    def _forget(self) -> None:
        for cache in (self._words, self._replacements, self._strings, self._merged_strings):
            cache.clear()

    # -- helpers ---------------------------------------------------------------------------

    def _same_lineage(self, history: LineView) -> bool:
        """Whether cached (count, value) pairs are still sound: along one history a pair only
        loses occurrences, so an equal count means the same words. A new branch, or a merge
        that re-created an existing string (which can add occurrences), ends that."""
        old, self._lineage = self._lineage, history
        if old and not history.extends(old):
            return False
        return bool(history.column("new_token", start=len(old)).all())

    def _ranked(self, n: int) -> list[PairRow]:
        return [PairRow(stat.pair, stat.count) for stat in self._bridge.trainer.top_pairs(n)]

    def _shown(self, token_id: int) -> str:
        """A token as shown, formatted only for rows actually displayed (an id keeps its string
        within one history; the cache is cleared with the word counts when that ends). While a
        job runs the trainer is not read: what is not cached yet shows as a placeholder."""
        shown = self._strings.get(token_id)
        if shown is None:
            if self._bridge.trainer_busy:
                return PLACEHOLDER
            trainer = self._bridge.trainer
            shown = self._strings[token_id] = visible(trainer.token_string(token_id), trainer.corpus.config)
        return shown

    def _merged(self, pair: tuple[int, int]) -> str:
        merged = self._merged_strings.get(pair)
        if merged is None:
            if self._bridge.trainer_busy:
                return PLACEHOLDER
            trainer = self._bridge.trainer
            tokens = trainer.token_string
            merged = self._merged_strings[pair] = visible(
                tokens(pair[0]) + tokens(pair[1]), trainer.corpus.config
            )
        return merged

    def _replacement_count(self, row: PairRow) -> int | None:
        if row.pair[0] != row.pair[1]:
            return row.count  # distinct symbols cannot overlap
        return self._counted(self._replacements, row)

    def _word_count(self, row: PairRow) -> int | None:
        return self._counted(self._words, row)

    def _counted(self, cache: dict[tuple[int, int], tuple[int, int]], row: PairRow) -> int | None:
        """The pair's words or replacements, from ``cache`` while its count stays the same; a
        frequent pair's are counted once stepping pauses (``None`` until then)."""
        cached = cache.get(row.pair)
        if cached is None or cached[0] != row.count:
            if self._bridge.trainer_busy:
                return None
            if self._bridge.trainer.pair_words_work(row.pair) > COUNTED_AT_ONCE:
                self._words_wanted[row.pair] = row.count
                if not self._words_timer.isActive() and not self._next_words.isActive():
                    self._words_timer.start()
                return None
            cached = cache[row.pair] = (row.count, self._count(cache, row.pair))
        return cached[1]

    def _count(self, cache: dict, pair: tuple[int, int]) -> int:
        trainer = self._bridge.trainer
        return trainer.word_count_with_pair(pair) if cache is self._words else trainer.replacements(pair)

    def _count_wanted_words(self) -> None:
        """Count the words (and replacements) of one pair asked for while stepping, and come
        back for the next on the event loop's next turn (a repaint or a key press may come
        between)."""
        if self._bridge.trainer_busy or not self._words_wanted:
            self._words_wanted.clear()
            return
        pair, count = self._words_wanted.popitem()
        row = self.row_of(pair)
        if row is not None and self._rows[row].count == count:  # still shown, still so counted
            caches = (self._words, self._replacements) if pair[0] == pair[1] else (self._words,)
            for cache in caches:
                if cache.get(pair, (None,))[0] != count:
                    cache[pair] = (count, self._count(cache, pair))
            self.repaint_rows(row, row, [DISPLAY])
        if self._words_wanted:
            self._next_words.start()
