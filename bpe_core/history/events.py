"""Past-tense events the trainer emits, and a minimal observer list.

A batch (``run``, ``goto``, a multi-step redo) emits one :class:`Jumped`, not one event per
merge, so views refresh once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bpe_core.history.records import MergeRecord, StopReason


@dataclass(frozen=True)
class MergeApplied:
    """One merge was applied (a step, or a redo when ``redo`` is true)."""

    record: MergeRecord
    redo: bool = False


@dataclass(frozen=True)
class MergeUndone:
    """The last applied merge was undone; ``record`` stays available for redo."""

    record: MergeRecord


@dataclass(frozen=True)
class Jumped:
    """Several merges were applied or undone at once (run, goto)."""

    old_position: int
    new_position: int
    stop_reason: StopReason | None = None


@dataclass(frozen=True)
class BranchCreated:
    """A step after an undo made a new branch (the other line of the history is kept)."""

    branch: int
    parent: int
    fork: int  # steps it shares with its parent


@dataclass(frozen=True)
class BranchSwitched:
    """The current branch changed (undone to where the two lines meet, redone along the other)."""

    old_branch: int
    new_branch: int
    old_position: int
    new_position: int


@dataclass(frozen=True)
class BranchRenamed:
    branch: int
    name: str


@dataclass(frozen=True)
class BranchDeleted:
    branch: int


@dataclass(frozen=True)
class HistoryReset:
    """Back to the initial segmentation with no merges and a single, empty branch."""


@dataclass(frozen=True)
class CorpusReplaced:
    """A new corpus (or pipeline) was loaded; everything derived from it changed."""


@dataclass(frozen=True)
class SettingsChanged:
    """The tie-break rule or the minimum frequency changed (the ranked pairs may reorder)."""


Event = (
    MergeApplied
    | MergeUndone
    | Jumped
    | BranchCreated
    | BranchSwitched
    | BranchRenamed
    | BranchDeleted
    | HistoryReset
    | CorpusReplaced
    | SettingsChanged
)
Listener = Callable[[Event], None]


class EventSource:
    """Holds listeners and calls them in subscription order."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` on every event; returns a function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: Event) -> None:
        for listener in list(self._listeners):
            listener(event)
