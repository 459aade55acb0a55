"""The merge history as a tree: every line of merges ever made is kept, each as a branch.

A branch holds its whole line from step 1. Its first ``fork`` merges are read from the line of
the branch it forked from (``bpe_core.history.merge_line``), so where two lines part is found without
comparing the merges they share. The trainer walks between lines (undo to where they part, redo
along the other); this module only keeps the books.
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_core.errors import MergeError
from bpe_core.history.merge_line import MergeLine, common_length

MAIN = "main"


@dataclass(slots=True)
class Branch:
    id: int
    name: str
    records: MergeLine  # the whole line, from step 1
    parent: int | None  # the branch it forked from (None for the first)
    fork: int  # steps it shares with its parent: it differs from step fork + 1 on


@dataclass(frozen=True, slots=True)
class BranchInfo:
    """A branch as :meth:`bpe_core.training.trainer.Trainer.branches` lists it."""

    id: int
    name: str
    parent: int | None
    fork: int
    length: int  # its merges
    decided_by: str | None  # who chose its first merge of its own (step fork + 1)
    current: bool


class HistoryTree:
    """The branches, in creation order, and which one is current."""

    def __init__(self, records: MergeLine) -> None:
        self.branches: dict[int, Branch] = {0: Branch(0, MAIN, records, None, 0)}
        self.current = self.branches[0]
        self._next_id = 1

    def replace(self, branches: list[Branch], current: int, next_id: int = 0) -> None:
        """Take these branches (a saved tree) as they are; ``next_id`` numbers the next one
        (at least past them: a deleted branch's number is not given again)."""
        self.branches = {b.id: b for b in branches}
        self.current = self.branches[current]
        self._next_id = max(next_id, max(self.branches) + 1)

    @property
    def next_id(self) -> int:
        return self._next_id

    def get(self, branch: int) -> Branch:
        found = self.branches.get(branch)
        if found is None:
            raise MergeError(f"There is no branch {branch}.")
        return found

    def add(self, name: str, records: MergeLine, parent: int | None, fork: int) -> Branch:
        branch = Branch(self._next_id, name, records, parent, fork)
        self.branches[branch.id] = branch
        self._next_id += 1
        return branch

    def fork(self, position: int) -> Branch:
        """A new branch sharing the current one's first ``position`` steps (not yet current)."""
        parent = self.current
        return self.add(f"branch {self._next_id}", parent.records.fork(position), parent.id, position)

    def line_with(self, position: int, pairs: list[tuple[int, int]]) -> Branch | None:
        """A branch that shares the current line's first ``position`` steps and makes exactly
        ``pairs`` as its next pass (the current branch first). A line whose next pass holds
        more merges, or other ones, is another node of the tree: following it would stand
        inside its pass."""
        line = self.current.records
        end = position + len(pairs)
        for branch in (self.current, *self.branches.values()):
            records = branch.records
            if (
                len(records) >= end
                and all(records.pair(position + i) == pair for i, pair in enumerate(pairs))
                and records.pass_end(position + 1) == end
                and (position == 0 or records.pass_number(position) != records.pass_number(position - 1))
                and (branch is self.current or common_length(records, line, position) >= position)
            ):
                return branch
        return None

    def rename(self, branch: int, name: str) -> str:
        name = " ".join(name.split())
        if not name:
            raise MergeError("A branch needs a name.")
        self.get(branch).name = name
        return name

    def delete(self, branch: int) -> None:
        """Forget a branch (not the current one); its children fork from its parent instead."""
        gone = self.get(branch)
        if gone is self.current:
            raise MergeError("The current branch cannot be deleted: switch to another one first.")
        for child in self.branches.values():
            if child.parent == gone.id:
                child.parent = gone.parent
                child.fork = min(child.fork, gone.fork)
        del self.branches[branch]

    def infos(self) -> list[BranchInfo]:
        return [
            BranchInfo(
                b.id,
                b.name,
                b.parent,
                b.fork,
                len(b.records),
                b.records.decided_by(b.fork) if len(b.records) > b.fork else None,
                b is self.current,
            )
            for b in self.branches.values()
        ]
