"""Branch navigation, mixed into the trainer: the lines of the history tree, walking from one to
another (undo to where they part, redo along the other), making, renaming and deleting them.

A walk is all or nothing: one that meets a saved merge that does not fit the corpus goes back to
where it began before the error is raised (see :func:`all_or_nothing`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Concatenate, ParamSpec, Protocol, TypeVar

from bpe_core.errors import MergeError, quoted
from bpe_core.history.branches import Branch, BranchInfo, HistoryTree
from bpe_core.history.events import (
    BranchCreated,
    BranchDeleted,
    BranchRenamed,
    BranchSwitched,
    EventSource,
    Jumped,
)
from bpe_core.history.merge_line import LineView, MergeLine, common_length
from bpe_core.history.records import MergeRecord
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.answers import LastChange

Progress = Callable[[int, int], None]
# Every change of any trainer's recorded history (not of its position) gets a new number, so
# "is this still the history I cached?" is one integer comparison, even across trainers.
REVISIONS = itertools.count(1)


class Walker(Protocol):
    """What a walk needs of the trainer it walks: where it stands, and the way back."""

    _tree: HistoryTree

    @property
    def position(self) -> int: ...

    def _back_to(self, branch: Branch, position: int) -> None: ...


P = ParamSpec("P")
R = TypeVar("R")
W = TypeVar("W", bound=Walker)


def all_or_nothing(walk: Callable[Concatenate[W, P], R]) -> Callable[Concatenate[W, P], R]:
    """A walk that meets a saved merge that does not fit the corpus (see ``Trainer._verify``)
    goes back to where it began before the error is raised: the state stays the one the views
    were last told of, and the command can be tried again."""

    @wraps(walk)
    def guarded(self: W, *args: P.args, **kwargs: P.kwargs) -> R:
        branch, position = self._tree.current, self.position
        try:
            return walk(self, *args, **kwargs)
        except MergeError:
            self._back_to(branch, position)
            raise

    return guarded


class Branching:
    """The trainer's branch navigation (a mixin of :class:`~bpe_core.training.trainer.Trainer`)."""

    _tree: HistoryTree
    _records: MergeLine
    _last_change: LastChange | None
    events: EventSource
    revision: int

    if TYPE_CHECKING:  # the trainer's own, which walks use

        @property
        def position(self) -> int: ...

        def _before_walk(self, steps: int) -> None: ...

        def _unmerge(self, check: bool = True) -> MergeRecord: ...

        def _remerge(self, check: bool = True) -> MergeRecord: ...

        def _to_node(self, forward: bool) -> None: ...

    def branches(self) -> list[BranchInfo]:
        """Every line of the history, in the order they were made (see ``bpe_core.history.branches``)."""
        return self._tree.infos()

    @property
    def current_branch(self) -> int:
        return self._tree.current.id

    def branch_history(self, branch: int) -> LineView:
        """A branch's merges from step 1."""
        return LineView(self._tree.get(branch).records)

    @all_or_nothing
    @without_gc
    def switch(
        self,
        branch: int,
        step: int | None = None,
        progress: Progress | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> None:
        """Go to ``branch`` after its merge ``step`` (default: its last; a step inside a pass
        goes to the pass's end): undo to where the two lines part, then redo along the other,
        exactly and without a recount. A cancelled switch stops on whichever line it was
        walking, at the last node it passed."""
        target = self._tree.get(branch)
        step = len(target.records) if step is None else step
        if not 0 <= step <= len(target.records):
            raise MergeError(
                f"Step {step} is outside branch {quoted(target.name)} (0 to {len(target.records)})."
            )
        step = target.records.pass_end(step)
        old, start = self._tree.current.id, self.position
        meet = min(common_length(self._records, target.records), step)
        self._last_change = None
        total = max(start - meet, 0) + step - min(meet, start)
        self._before_walk(total)
        done = 0
        while self.position > meet and not (cancel is not None and cancel()):
            self._unmerge()
            done += 1
            if progress is not None:
                progress(done, total)
        forward = False
        if self.position <= meet:
            self._set_current(target)
            forward = True
            while self.position < step and not (cancel is not None and cancel()):
                self._remerge()
                done += 1
                if progress is not None:
                    progress(done, total)
        self._to_node(forward)
        if self._tree.current.id != old:
            self.events.emit(BranchSwitched(old, self._tree.current.id, start, self.position))
        elif self.position != start:
            self.events.emit(Jumped(start, self.position))

    def start_branch(self) -> int:
        """A new branch from here, made current, with no merge of its own yet: the next merges
        go there and the line left stays as it is, also from the end of a line (where merges
        would otherwise extend it). Returns its id."""
        self._fork()
        return self._tree.current.id

    def rename_branch(self, branch: int, name: str) -> None:
        name = self._tree.rename(branch, name)
        self.revision = next(REVISIONS)
        self.events.emit(BranchRenamed(branch, name))

    def delete_branch(self, branch: int) -> None:
        """Forget a branch other than the current one."""
        self._tree.delete(branch)
        self.revision = next(REVISIONS)
        self.events.emit(BranchDeleted(branch))

    def _back_to(self, branch: Branch, position: int) -> None:
        """Walk back to ``position`` on ``branch``, where a failed walk began: every merge of
        that way was made before, so none can fail again."""
        failed_branch, failed_position = self._tree.current.id, self.position
        if branch is self._tree.current and position == failed_position:
            return
        meet = min(common_length(self._records, branch.records), position)
        while self.position > meet:
            self._unmerge(check=False)
        self._set_current(branch)
        while self.position < position:
            self._remerge(check=False)
        self._last_change = None
        if branch.id != failed_branch:
            self.events.emit(BranchSwitched(failed_branch, branch.id, failed_position, position))
        else:
            self.events.emit(Jumped(failed_position, position))

    def _set_current(self, branch: Branch) -> None:
        """Make ``branch`` current; its line must contain the state as it is now."""
        if branch is not self._tree.current:
            self._tree.current = branch
            self._records = branch.records
            self.revision = next(REVISIONS)

    def _fork(self) -> None:
        """Merges follow the position and a different one is about to be made: a new branch."""
        branch = self._tree.fork(self.position)
        self._set_current(branch)
        self.events.emit(BranchCreated(branch.id, branch.parent or 0, branch.fork))

    def _enter(self, branch: Branch) -> None:
        """Follow another line that makes the same merge from here."""
        old = self._tree.current.id
        self._set_current(branch)
        if branch.id != old:
            self.events.emit(BranchSwitched(old, branch.id, self.position, self.position))

    @property
    def next_branch(self) -> int:
        """The number the next branch will take (saved, so that a reopened session names new
        branches as this one would)."""
        return self._tree.next_id

    def restore_branches(self, branches: list[Branch], current: int, next_branch: int = 0) -> None:
        """Give a restored trainer the other lines of its saved history (the current one, ``current``,
        already restored, takes its records from this trainer). Their own records come from a
        file, marked unverified: each is checked against the corpus the first time it is redone."""
        for branch in branches:
            if branch.id == current:
                branch.records = self._records
        self._tree.replace(branches, current, next_branch)
        self.revision = next(REVISIONS)
