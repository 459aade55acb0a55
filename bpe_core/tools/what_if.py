"""What-if lines in a session: what another tie rule would have done from here, and a compared
run walked as a line of this session. Both leave their merges on a branch, so the session's
own line stays as it was and the two can be compared, switched between or deleted.

Example: ``run_rule_from_here(trainer, "hf", 5)`` makes five merges by the ``hf`` rule from the
current position; ``trainer.rule`` is the session's own rule again afterwards.
"""

from __future__ import annotations

from collections.abc import Callable

from bpe_core.errors import MergeError
from bpe_core.history.records import StopReason
from bpe_core.tools.compare import Run
from bpe_core.training.trainer import Trainer

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


def _never() -> bool:
    return False


def _ignore(_done: int, _total: int) -> None:
    pass


def run_rule_from_here(
    trainer: Trainer,
    rule: str,
    merges: int,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> StopReason:
    """Make ``merges`` merges by the tie rule ``rule`` from the current position, then give the
    trainer its own rule back (also when the run fails).

    From inside a line the merges follow it while they agree and branch where they part, as any
    step does. At the end of a line they would extend it: they go to a branch of their own
    instead, made only for them, and deleted again (the trainer back where it was) if the run
    stopped before its first merge, so that a cancelled what-if leaves no change behind.

    Returns why the run stopped (``StopReason.CANCELLED`` once ``cancel()`` says so).
    """
    own, origin, start = trainer.rule.spec, trainer.current_branch, trainer.position
    at_end = start == trainer.history_length and trainer.stop_reason() is None
    made = trainer.start_branch() if at_end else None
    trainer.set_tie_break(rule)
    try:
        reason = trainer.run(merges=merges, progress=progress, cancel=cancel)
    finally:
        trainer.set_tie_break(own)
    if made is not None and trainer.history_length == start:  # no merge made: no branch kept
        trainer.switch(origin, start)
        trainer.delete_branch(made)
    return reason


def open_run_as_branch(
    trainer: Trainer,
    run: Run,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> int | None:
    """Walk ``run``'s merges from step 0 as a line of this session: it follows the lines that
    make the same merges and branches where it parts, each merge keeping who decided it.

    Returns the id of the last branch the walk made (the one holding the run's end), or
    ``None`` if it made none (the run is a line the session already has) or was cancelled.
    Naming the branch is left to the caller. Raises ``MergeError`` when the run names a token
    this session's corpus lacks (a run of another corpus).
    """
    cancelled = cancel or _never
    report = progress or _ignore
    known = {branch.id for branch in trainer.branches()}
    trainer.goto(0, cancel=cancelled)
    ids = trainer.vocab.ids
    for number, ((left, right), record) in enumerate(zip(run.merges, run.records, strict=True)):
        if cancelled():
            return None
        if left not in ids or right not in ids:
            raise MergeError(f"The run {run.label!r} does not fit this session's corpus.")
        trainer.step((ids[left], ids[right]), decided_by=record.decided_by)
        report(number + 1, len(run.merges))
    made = [branch.id for branch in trainer.branches() if branch.id not in known]
    return made[-1] if made else None
