"""Merges as tokenizer files give them, in an order BPE Studio can replay."""

from __future__ import annotations

from collections.abc import Sequence

from bpe_core.encoder import Merge


def early_merge(merges: Sequence[Merge]) -> Merge | None:
    """The first merge that uses a token only a later merge makes, if any. Encoding replays the
    merges in order; Hugging Face would apply such a merge once the later one has made its
    part, so a file with one is refused rather than encoded differently."""
    made: dict[int, int] = {}
    for merge in merges:
        made.setdefault(merge.token, merge.rank)
    for merge in merges:
        if made.get(merge.left, -1) > merge.rank or made.get(merge.right, -1) > merge.rank:
            return merge
    return None
