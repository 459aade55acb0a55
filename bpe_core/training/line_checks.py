"""What a merge line read from a file claims must be possible: its passes and its decisions.

Counts, replacements and tokens are checked against the corpus by replaying the merges
(``Trainer.restore``). This module checks, without the corpus, what a line claims about how each
merge was chosen:

* **passes** are numbered 1, 2, 3, ... along the line (``pass_numbers``: a run of merges with
  one saved number and one decider, a pair picked by hand a pass of its own), and each pass could
  be made at once: no two of its pairs overlap (one's right symbol the other's left), and none
  uses a token the pass made;
* **decision data**: a merge's top count is at least its count, and is its count where a rule
  began a pass with it; its tie count and tied candidates agree (``CANDIDATE_CAP`` of them at a
  tie, one where a pair was picked by hand below the top, none otherwise), and the candidates
  name tokens that exist before the merge. A tie count of 0 says the decision was not recorded
  (an imported tokenizer's merges, their counts filled in from a corpus);
* **deciders** are a tie-break rule, the user, or an imported tokenizer.

Whether the top count, ties and candidates are those of the corpus before each merge needs that
state; the trainer checks it wherever it stands before a merge (``Trainer._check_decision``).
"""

from __future__ import annotations

import numpy as np

from bpe_core.errors import BpeError, SessionError
from bpe_core.history.merge_line import MergeLine
from bpe_core.history.records import CANDIDATE_CAP, IMPORTED, USER
from bpe_core.training.tie_rules import parse_rule

BLOCK = 4096  # rows whose decision data is checked together


def pass_numbers(
    saved: np.ndarray, deciders: np.ndarray, by_hand: np.ndarray, start: int = 0, before: int = 0
) -> np.ndarray:
    """The pass numbers to keep for rows ``start`` on of a line whose file gave it ``saved``,
    ``deciders`` and ``by_hand`` (a value per row, from row 0; ``by_hand``: picked by the user),
    after a row ``start - 1`` kept as pass ``before``. A new pass begins wherever the saved
    number or the decider changes, at a pair picked by hand (a pass of its own) and at every 0 (a
    file from before passes: each merge a pass of its own); they are numbered on from ``before``.

    Example: saved ``[1, 2, 1]`` (as an earlier version could write) reads as ``[1, 2, 3]``.
    """
    new = (saved[start:] == 0) | by_hand[start:]
    if len(new):
        new[0] |= start == 0 or saved[start] != saved[start - 1] or deciders[start] != deciders[start - 1]
    new[1:] |= (saved[start + 1 :] != saved[start:-1]) | (deciders[start + 1 :] != deciders[start:-1])
    return before + np.cumsum(new, dtype=np.int64)


def check_line(line: MergeLine, start: int = 0, what: str = "") -> None:
    """Raise ``SessionError`` for the first merge from row ``start`` on whose decider, pass or
    decision data cannot be; ``what`` names the line in the message (``" of branch 'b'"``)."""
    _check_deciders(line, start, what)
    _check_passes(line, start, what)
    for low in range(start, len(line), BLOCK):
        _check_decisions(line, low, min(low + BLOCK, len(line)), what)


def _check_deciders(line: MergeLine, start: int, what: str) -> None:
    for name in line.deciders() - {USER, IMPORTED}:
        try:
            parse_rule(name)
        except BpeError:
            row = next((i for i in range(len(line)) if line.decided_by(i) == name), 0)
            raise SessionError(
                f"merge {row + 1}{what} names an unknown decider; a merge is decided by a tie-break "
                "rule, the user or an imported tokenizer."
            ) from None


def _check_passes(line: MergeLine, start: int, what: str) -> None:
    passes = line.column("pass_number", start=start)
    if not (passes[1:] == passes[:-1]).any():
        return  # every merge a pass of its own: the classic algorithm
    columns = ("pass_number", "left", "right", "token")
    rows = zip(*(line.column(name, start=start).tolist() for name in columns), strict=True)
    number = -1
    lefts: set[int] = set()
    rights: set[int] = set()
    made: set[int] = set()
    for step, (pass_number, left, right, token) in enumerate(rows, start=start + 1):
        if pass_number != number:
            number = pass_number
            lefts, rights, made = {left}, {right}, {token}
            continue
        if left in rights or right in lefts or left in made or right in made:
            raise SessionError(
                f"merge {step}{what} shares a pass with a merge it overlaps or builds on, which no pass "
                "can make."
            )
        lefts.add(left)
        rights.add(right)
        made.add(token)


def _check_decisions(line: MergeLine, start: int, stop: int, what: str) -> None:
    """Rows ``start`` to ``stop`` (a block: an opened session's memory is counted closely)."""
    count, top, ties = (line.column(name, stop, start) for name in ("count", "top_count", "ties"))
    listed = line.candidate_counts(start, stop)
    passes = line.column("pass_number", stop, max(start - 1, 0))
    begins = np.r_[True, passes[1:] != passes[:-1]] if start == 0 else passes[1:] != passes[:-1]
    by_rule = line.column("decider", stop, start) != line.decider_codes(USER)[0]
    recorded = ties > 0
    shown = np.minimum(ties, CANDIDATE_CAP)
    bad = (
        (~recorded & ((top != count) | (listed > 0)))
        | (recorded & (count > top))
        | (recorded & by_rule & begins & (count != top))
        | ((ties > 1) & (listed != shown))
        | ((ties == 1) & (listed > 0) & ((listed != 1) | (count == top)))
    )
    # Candidates themselves: read only where there are any.
    sizes = line.column("vocab_size", stop, start) - line.column("new_token", stop, start)
    for i in np.flatnonzero(listed > 0).tolist():
        if bad[i]:
            break
        candidates = line.candidates(start + i)
        if (
            len(set(candidates)) != len(candidates)
            or max(max(pair) for pair in candidates) >= sizes[i]
            or (
                count[i] == top[i] and 1 < ties[i] <= CANDIDATE_CAP and line.pair(start + i) not in candidates
            )
        ):
            bad[i] = True
            break
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise SessionError(f"merge {start + i + 1}{what} {_problem(line, start + i, bool(begins[i]))}.")


def _problem(line: MergeLine, row: int, begins_pass: bool) -> str:
    """What is wrong with a merge's decision data, in words."""
    record = line[row]
    count, top, ties, listed = record.count, record.top_count, record.ties, record.candidates
    if ties == 0:
        return "records no decision (a tie count of 0), yet names a top count or tied pairs"
    if count > top:
        return f"has a count of {count:,}, above the top count of {top:,} it was chosen at"
    if begins_pass and record.decided_by != USER and count != top:
        return f"was chosen by a rule at a count of {count:,}, below the top count of {top:,}"
    if ties > 1 and len(listed) != min(ties, CANDIDATE_CAP):
        return f"lists {len(listed)} tied pairs for a tie of {ties:,}"
    if ties == 1 and listed and (len(listed) != 1 or count == top):
        return "lists tied pairs where there was no tie"
    if len(set(listed)) != len(listed):
        return "lists a tied pair twice"
    if record.pair not in listed and count == top:
        return "was tied at the top, yet is not among the tied pairs it lists"
    return "lists a tied pair of tokens made only later"
