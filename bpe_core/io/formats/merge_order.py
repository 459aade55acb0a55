"""Merges as tokenizer files give them, in an order BPE Studio can replay."""

from __future__ import annotations

from collections.abc import Sequence

from bpe_core.encoding.encoder import Merge


def last_listings(merges: Sequence[Merge]) -> tuple[list[Merge], list[int]]:
    """The merges with a pair listed more than once kept at its last place only (renumbered),
    and the 1-based place in ``merges`` of each kept one. Hugging Face and GPT-2's own encoder
    hold merges in a map from pair to rank, which a later listing overwrites.

    Example: the pairs ``a b``, ``b c``, ``a b`` keep ``b c`` (place 2), then ``a b`` (place 3).
    """
    last = {(merge.left, merge.right): place for place, merge in enumerate(merges, start=1)}
    places = [place for place, merge in enumerate(merges, start=1) if last[merge.left, merge.right] == place]
    kept = [merges[place - 1] for place in places]
    return [Merge(rank, m.left, m.right, m.token, m.count) for rank, m in enumerate(kept)], places


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


def redundant_early_merges(merges: Sequence[Merge]) -> tuple[list[Merge], int]:
    """The merges without the early ones (see :func:`early_merge`) whose token another merge
    makes in order, renumbered, and how many were left out.

    Files converted from SentencePiece list every split of a piece into two pieces as a merge,
    at the piece's rank: for ``abc`` both ``ab c`` and ``a bc``, where ``bc`` may be a later
    piece. Such a merge never changes an encoding there (``a`` meets ``b`` first, and ``ab``
    outranks ``bc``), and SentencePiece's own encoder agrees (``bpe_core.io.formats.sp_model``).
    An early merge that is the only one making its token is kept, for :func:`early_merge` to
    name.
    """
    produced = {merge.token for merge in merges}
    made: set[int] = set()  # tokens made so far by merges whose parts were there
    early: list[Merge] = []
    for merge in merges:
        if all(part not in produced or part in made for part in (merge.left, merge.right)):
            made.add(merge.token)
        else:
            early.append(merge)
    left_out = {merge.rank for merge in early if merge.token in made}
    if not left_out:
        return list(merges), 0
    kept = [merge for merge in merges if merge.rank not in left_out]
    return [Merge(rank, m.left, m.right, m.token, m.count) for rank, m in enumerate(kept)], len(left_out)
