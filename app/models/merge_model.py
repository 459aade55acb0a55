"""The merge history: step, left + right → token, count, ties, who decided and the pass.

The current position is marked; merges after it (redo-able) are dimmed. With several merges per
pass, the pass number is shown on each pass's first merge, so the rows read in groups.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex

from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.glyphs import left_to_right, visible
from app.guard import guard_overrides
from app.models.roles import ACCESSIBLE_TEXT, DISPLAY, FONT, FOREGROUND, TOOLTIP, USER
from app.models.row_cache import PLACEHOLDER
from app.models.table_model import TableModel
from app.theme import muted
from bpe_core.history.merge_line import LineView, MergeLine
from bpe_core.history.records import IMPORTED
from bpe_core.history.records import USER as USER_DECIDED
from bpe_core.pipeline.vocab import display
from bpe_core.tools.compare import tie_picks, tie_steps
from bpe_core.training.trainer import Trainer

STEP, MERGE, COUNT, TIES, DECIDED, OTHERS, PASS = range(7)
HEADERS = ("Step", "Merge", "Count", "Ties", "Decided by", "Other rules", "Pass")
NO_TIE = "no tie"  # who decided a step whose top pair stood alone
KEPT = (USER_DECIDED, IMPORTED)  # deciders named even without a tie
STEP_ROLE = USER + 1
SORT_ROLE = USER


@guard_overrides
class MergeModel(TableModel):
    HEADERS = HEADERS
    NUMERIC = frozenset({STEP, COUNT, TIES, PASS})

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._trainer: Trainer | None = None  # the trainer the rows were read from
        self._history = LineView(MergeLine())  # the trainer's history as last read
        self._tie_steps = 0  # steps of the history that met a tie, kept as rows come and go
        self.largest = (0, 0)  # the largest count and ties shown: the columns' widths follow them
        self._position = 0
        self._muted = muted()
        self._shown: dict[int, str] = {}  # step -> "left + right → token"
        self._differing: dict[int, str] = {}  # step -> the rules that would have picked another pair
        self._choices: dict = {}  # step -> (record, rule -> pair): see set_tie_choices
        self._line_keys: list[str] = []  # every token of the line by id (see _token)
        self._keys_revision = 0
        # Signals
        bridge.sig_change.connect(self._on_change)
        self.refresh()

    # -- answers, one method per role --------------------------------------------------------

    def row_total(self) -> int:
        return len(self._history)

    def answers(self) -> dict:
        return {
            DISPLAY: self._display,
            FOREGROUND: self._foreground,
            FONT: self._font,
            TOOLTIP: self._tooltip_at,
            ACCESSIBLE_TEXT: self._spoken,
            STEP_ROLE: lambda row, _column: self._history[row].step,
            SORT_ROLE: self._sort_key,
        }

    def _display(self, row: int, column: int):
        record = self._history[row]
        if column == STEP:
            return f"▶ {record.step:,}" if record.step == self._position else f"{record.step:,}"
        if column == MERGE:
            return self._merge_text(record.step, record.pair)
        if column == COUNT:
            return f"{record.count:,}"
        if column == TIES:
            return f"{record.ties:,}" if record.ties > 1 else ""
        if column == OTHERS:
            return self._others(record)
        if column == PASS:
            first = row == 0 or self._history[row - 1].pass_number != record.pass_number
            return f"{record.pass_number:,}" if first else ""
        return self._decided(row)

    def _spoken(self, row: int, column: int) -> str:
        """A cell as a screen reader says it: the step with where it stands ("step 3, the
        current step", not "▶ 3"), a figure with its column's name."""
        if column == STEP:
            step, position = self._history[row].step, self._position
            where = ", the current step" if step == position else ", undone" if step > position else ""
            return f"step {step:,}{where}"
        shown = self._display(row, column)
        return f"{HEADERS[column]} {shown}" if column in self.NUMERIC and shown else shown

    def _foreground(self, row: int, _column: int):
        return None if row < self._position else self._muted  # redo-able: dimmed

    def _font(self, row: int, _column: int):
        return self.bold if row + 1 == self._position else None

    def _sort_key(self, row: int, column: int):
        record = self._history[row]
        return (
            record.step,
            self._merge_text(record.step, record.pair),
            record.count,
            record.ties,
            self._decided(row),
            self._others(record),
            record.pass_number,
        )[column]

    def _tooltip_at(self, row: int, _column: int):
        if self._bridge.trainer_busy:
            return None
        record = self._history[row]
        return self._tooltip(record, record.step <= self._position)

    def restyle(self) -> None:
        """The dimmed text for the current palette (light or dark)."""
        self._muted = muted()
        self.repaint_all([FOREGROUND])

    def _on_change(self, change: Change) -> None:
        """Rows move only where the change says: the position alone (an undo, a redo, a jump
        along the line) repaints the rows between; settings and branches made, renamed or
        deleted elsewhere change no row."""
        if self._bridge.trainer_busy or change.kind in (ChangeKind.SETTINGS, ChangeKind.BRANCHES):
            return
        moved_only = not (change.history_changed or change.branch_switched or change.kind == ChangeKind.RESET)
        if moved_only and self._trainer is self._bridge.trainer:
            self._move_to(self._bridge.trainer.position)
            return
        self.refresh()

    def refresh(self) -> None:
        """Read the history again: rows appended where it grew, all of them for another line."""
        if self._bridge.trainer_busy:
            return
        trainer = self._bridge.trainer
        history, position = trainer.history, trainer.position
        old = self._history
        # History only grows at the end, or is cut and regrown (a step after undo): the rows
        # shown stay while the line read now starts with them.
        same = trainer is self._trainer and (not old or history.extends(old))
        if not same:
            self.beginResetModel()
            if trainer is not self._trainer:
                self._choices = {}  # another session: its records are not these
            self._trainer, self._history, self._position = trainer, history, position
            self._tie_steps = tie_steps(history)
            self.largest = (0, 0)
            self._grow_largest(history, 0)
            self._shown.clear()
            self._differing.clear()
            self.endResetModel()
        elif len(history) > len(old):
            self.beginInsertRows(QModelIndex(), len(old), len(history) - 1)
            self._history = history
            self._tie_steps += int((history.column("ties", start=len(old)) > 1).sum())  # the new rows
            self._grow_largest(history, len(old))
            self.endInsertRows()
        else:  # the same line: the merge just followed may have been decided anew (Trainer.step)
            self._differing.pop(position, None)  # not the whole cache, on every step
            self._history = history
        self._move_to(position)

    def _grow_largest(self, history: LineView, start: int) -> None:
        if len(history) > start:
            counts, ties = history.column("count", start), history.column("ties", start)
            self.largest = (max(self.largest[0], int(counts.max())), max(self.largest[1], int(ties.max())))

    def _move_to(self, position: int) -> None:
        """Mark ``position``: the rows from the old mark to the new one (and one beyond each)
        change their look."""
        old_position, self._position = self._position, position
        first, last = sorted((old_position, position))
        self.repaint_rows(first - 1, last)

    @property
    def position(self) -> int:
        return self._position

    @property
    def records(self) -> LineView:
        """The records shown, one per row."""
        return self._history

    def record_at(self, row: int):
        return self._history[row]

    @property
    def tie_steps(self) -> int:
        """How many steps of the history met a tie (counted as rows arrive, not per repaint)."""
        return self._tie_steps

    @property
    def has_passes(self) -> bool:
        """Whether some pass made several merges (pass numbers then fall behind step numbers)."""
        return bool(self._history) and self._history[-1].pass_number < self._history[-1].step

    def find(self, text: str, after: int = -1) -> int | None:
        """The first row after ``after`` (wrapping around) whose merge contains ``text``."""
        needle = text.casefold()
        rows = len(self._history)
        if not needle or not rows or self._bridge.trainer_busy:
            return None
        pairs = self._history.pairs()  # read from the columns: no record made per row
        for offset in range(1, rows + 1):
            row = (after + offset) % rows
            if needle in self._merge_text(row + 1, pairs[row]).casefold():
                return row
        return None

    def _merge_text(self, step: int, pair: tuple[int, int]) -> str:
        """``left + right → token`` as shown; a placeholder if not cached while a job runs."""
        text = self._shown.get(step)
        if text is None:
            if self._bridge.trainer_busy:
                return PLACEHOLDER
            config = self._bridge.trainer.corpus.config
            left, right = (self._token(t) for t in pair)
            text = self._shown[step] = (
                f"{visible(left, config)} + {visible(right, config)} → {visible(left + right, config)}"
            )
        return text

    def _token(self, token_id: int) -> str:
        """A token's string, also for tokens only recorded in the redo part of the history."""
        trainer = self._bridge.trainer
        if token_id < trainer.vocab_size:
            return trainer.token_string(token_id)
        if self._keys_revision != trainer.revision:  # the tokens of this line, redo part included
            self._line_keys, self._keys_revision = trainer.line_keys(), trainer.revision
        keys = self._line_keys
        return display(keys[token_id], trainer.corpus.config.end_of_word) if token_id < len(keys) else "?"

    def set_tie_choices(self, choices: dict) -> None:
        """Every rule's pick at each tie step (``bpe_core.tools.compare.tie_choices``): shown instead
        of the estimate from the recorded pairs, for the records they were computed for."""
        self._choices = choices
        self._differing.clear()
        self.repaint_all()

    def choices_at(self, record) -> dict | None:
        """Every rule's pick at this tie step, if computed for this very record."""
        found = self._choices.get(record.step)
        if found is None:
            return None
        computed = found[0]  # the same merge, whoever decided it since
        same = replace(computed, decided_by=record.decided_by) == record
        return found[1] if same else None

    def _decided(self, row: int) -> str:
        """Who decided the step: the rule only where it had something to decide (a tie, or the
        ranking of a pass of several merges); where the top pair stood alone, "no tie" (the rule
        in the settings, "Ask me" included, played no part)."""
        history, record = self._history, self._history[row]
        alone = record.ties <= 1 and record.count == record.top_count and record.decided_by not in KEPT
        in_pass = any(
            0 <= other < len(history) and history[other].pass_number == record.pass_number
            for other in (row - 1, row + 1)
        )
        return NO_TIE if alone and not in_pass else record.decided_by

    def _others(self, record) -> str:
        """At a tie step, the rules that would have merged another pair ("—": none). Until
        every rule has been checked (the Merges pane's button), the position-free ones among
        the recorded tied pairs ("?" after them: only some of the tied pairs were recorded)."""
        if record.ties <= 1:
            return ""
        text = self._differing.get(record.step)
        if text is None:
            if self._bridge.trainer_busy:
                return PLACEHOLDER
            exact = self.choices_at(record)
            picks, complete = (exact, True) if exact is not None else tie_picks(record, self._token)
            others = [name for name, pair in picks.items() if pair != record.pair]
            text = self._differing[record.step] = (", ".join(others) or "—") + ("" if complete else " ?")
        return text

    def _tooltip(self, record, applied: bool) -> str:
        trainer = self._bridge.trainer
        config = trainer.corpus.config
        lines = [
            f"Step {record.step}: {self._merge_text(record.step, record.pair)}, count {record.count:,}, "
            f"{record.replacements:,} replacements."
        ]
        if record.count != record.top_count:
            over = ", ".join(
                f"{visible(self._token(a), config)} + {visible(self._token(b), config)}"
                for a, b in record.candidates
            )
            lines.append(
                f"The highest count then was {record.top_count:,}"
                + (
                    f" ({over}{' and others' if record.ties > len(record.candidates) else ''})"
                    if over
                    else ""
                )
                + ": chosen by hand."
            )
        if record.ties > 1:
            shown = ", ".join(
                f"{visible(self._token(a), config)} + {visible(self._token(b), config)}"
                for a, b in record.candidates
            )
            more = record.ties - len(record.candidates)
            lines.append(
                f"{record.ties:,} pairs were tied at {record.top_count:,}: {shown}"
                + (f" and {more:,} more" if more > 0 else "")
                + f". Decided by {record.decided_by}."
            )
            exact = self.choices_at(record)
            picks, complete = (exact, True) if exact is not None else tie_picks(record, self._token)
            chosen = "; ".join(
                f"{name}: {visible(self._token(a), config)} + {visible(self._token(b), config)}"
                for name, (a, b) in picks.items()
            )
            among = "the tied pairs" if complete else f"the {len(record.candidates)} listed"
            lines.append(f"Among {among}, each rule picks: {chosen}.")
            if not complete:  # what the "?" in Other rules says
                lines.append(
                    "? in Other rules: only these pairs were recorded, so another rule may pick an "
                    "unlisted one; Check every rule replays the line to be sure."
                )
        if not record.new_token:
            lines.append("The merged string already existed: its id was reused.")
        lines.append("Applied." if applied else "Undone: redo or click to jump here.")
        return "\n".join(map(left_to_right, lines))
