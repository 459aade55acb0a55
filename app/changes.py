"""What one announcement of the bridge changed (a :class:`Change`), so that each view updates only
that instead of working it out again; the engine's events map to it one kind each."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bpe_core.history.events import (
    BranchCreated,
    BranchDeleted,
    BranchRenamed,
    BranchSwitched,
    CorpusReplaced,
    HistoryReset,
    Jumped,
    MergeApplied,
    MergeUndone,
    SettingsChanged,
)


class ChangeKind(StrEnum):
    """What kind of change a :class:`Change` announces."""

    APPLIED = "applied"  # a step or a redo: merges applied from ``before`` to ``after``
    UNDONE = "undone"  # an undo: back from ``before`` to ``after`` along the line
    JUMPED = "jumped"  # several merges at once, either way: a jump, a run, a branch switched
    BRANCHES = "branches"  # a branch made, renamed or deleted
    SETTINGS = "settings"  # a training setting, or whether ties are asked
    RESET = "reset"  # everything: a reset, a new corpus, another session
    SETTLED = "settled"  # a background job ended without a change: what it held back can be read


@dataclass(frozen=True, slots=True)
class Change:
    """What one announcement changed, so that each view updates only that rather than working it
    out again. ``before`` and ``after`` are the positions around it; ``branch_switched``: the
    current line is another one (its merges past the fork are others); ``history_changed``: the
    recorded history changed (merges recorded or forgotten, a branch made), not only the position
    along it. After a background job one Change sums the job up."""

    kind: ChangeKind
    before: int
    after: int
    branch_switched: bool = False
    history_changed: bool = False


KINDS: dict[type, ChangeKind] = {
    MergeApplied: ChangeKind.APPLIED,
    MergeUndone: ChangeKind.UNDONE,
    Jumped: ChangeKind.JUMPED,
    BranchSwitched: ChangeKind.JUMPED,
    BranchCreated: ChangeKind.BRANCHES,
    BranchRenamed: ChangeKind.BRANCHES,
    BranchDeleted: ChangeKind.BRANCHES,
    HistoryReset: ChangeKind.RESET,
    CorpusReplaced: ChangeKind.RESET,
    SettingsChanged: ChangeKind.SETTINGS,
}
