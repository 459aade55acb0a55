"""Merge records, one per merge as it happened, and why a run stopped.

The history (a line of records per branch) is the single source of truth for everything derived.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

USER = "user"
IMPORTED = "imported"  # who decided a merge read from a tokenizer file
CANDIDATE_CAP = 5  # how many tied candidates a record lists (the count of ties is always exact)


class StopReason(StrEnum):
    """Why a run stopped."""

    MERGES = "reached the requested number of merges"
    VOCAB_SIZE = "reached the requested vocabulary size"
    MIN_FREQUENCY = "no pair occurs at least the minimum number of times"
    NO_PAIRS = "no pairs are left: every word is a single token"
    CANCELLED = "cancelled"
    TIE = "a tie is for the user to decide"


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeRecord:
    """One merge as it happened.

    Attributes
    ----------
    step : 1-based position in the history.
    pair : (left id, right id).
    token : id of the merged token (an existing id if that string already existed).
    count : the pair's count when it was merged.
    top_count : the highest pair count at that moment (differs from ``count`` when the user
        picked a lower pair).
    replacements : occurrences actually replaced (non-overlapping, weighted by word count).
    ties : how many pairs shared ``top_count`` (1 means no tie).
    candidates : up to ``CANDIDATE_CAP`` of the pairs at ``top_count``, in the rule's order: at a
        tie, and whenever the pair merged was picked below them (tie or not); otherwise empty.
    decided_by : the tie-break rule's name, or ``"user"``.
    new_token : False when the merged string already existed in the vocabulary.
    vocab_size : vocabulary size after the merge.
    corpus_tokens : tokens in the whole corpus after the merge.
    pass_number : 1-based pass it belongs to; in the classic algorithm every merge is a pass of
        its own, with several merges per pass consecutive records share it (0: not yet known).
    """

    step: int
    pair: tuple[int, int]
    token: int
    count: int
    top_count: int
    replacements: int
    ties: int
    candidates: tuple[tuple[int, int], ...]
    decided_by: str
    new_token: bool
    vocab_size: int
    corpus_tokens: int
    pass_number: int = 0

    @classmethod
    def saved(
        cls,
        step: int,
        pair: tuple[int, int],
        decided_by: str,
        pass_number: int,
        *,
        count: int = 0,
        top_count: int = 0,
        ties: int = 0,
        candidates: tuple[tuple[int, int], ...] = (),
        replacements: int = 0,
    ) -> MergeRecord:
        """A merge as a file or another tokenizer gives it, to be replayed: what the replay
        works out (its token, whether it is new, the sizes after it) is left at 0 until then.

        >>> MergeRecord.saved(1, (3, 4), "imported", 1).token
        0
        """
        return cls(
            step=step,
            pair=pair,
            token=0,
            count=count,
            top_count=top_count,
            replacements=replacements,
            ties=ties,
            candidates=candidates,
            decided_by=decided_by,
            new_token=False,
            vocab_size=0,
            corpus_tokens=0,
            pass_number=pass_number,
        )
