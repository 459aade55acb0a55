"""Merges applied to one long piece in rank order, a pair at a time from a heap.

``Encoder`` applies merges to a word by scanning all its pairs for the lowest rank, once per
merge applied: fine for words, but quadratic for a piece of a megabyte (a text with no
pre-tokenizer, minified code, DNA), which took 14 s where Hugging Face takes 0.1 s. Here each
pair is ranked once when it forms, and the heap gives them in rank order, left to right
within a rank; a popped pair whose symbols have changed since is skipped. The result is the
scan's exactly: each merge replaces its pair's non-overlapping occurrences from the left, and
no merge makes a pair of its own rank (its token is longer than either side).

A heap entry is one int, ``rank << 32 | position``, and the symbols and their links are
4-byte arrays: with tuples and lists of objects a piece of 20 MB took 4.4 GB and 156 s. An
entry is still valid when the symbols at its position are those its rank merges, which the
merge columns say without keeping the pair in the entry.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from heapq import heappop, heappush

import numpy as np

POSITION_BITS = 32
POSITION = (1 << POSITION_BITS) - 1
CODE_BITS = 21  # a code point's bits: a pair of symbols as one int


def merged_by_rank(
    symbols: str,
    upto: int,
    rank_after: Callable[[str, int], int | None],
    columns: tuple[Sequence[int], Sequence[int], Sequence[int]],
) -> str:
    """``symbols`` (one character per symbol id) with every merge ranked below ``upto`` applied;
    ``rank_after(pair key, rank)`` is the lowest rank of that pair above ``rank``, or ``None``;
    ``columns`` are the merges' left symbols, right symbols and tokens, by rank."""
    lefts, rights, tokens = columns
    size = len(symbols)
    codes = np.frombuffer(symbols.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    heap = _first_entries(codes, upto, rank_after)
    live = array("i", codes.astype(np.int32).tobytes())  # -1 once merged into its left neighbour
    after = array("i", range(1, size + 1))
    before = array("i", range(-1, size - 1))

    while heap:
        entry = heappop(heap)
        rank, i = entry >> POSITION_BITS, entry & POSITION
        j = after[i]
        if j >= size or live[i] != lefts[rank] or live[j] != rights[rank]:
            continue  # one side has merged since this pair was ranked
        token = tokens[rank]
        live[i], live[j] = token, -1
        # The pairs the new token makes with its neighbours (written out: a call per pair
        # took a fifth of the time)
        k = after[j]
        after[i] = k
        if k < size:
            before[k] = i
            formed = rank_after(chr(token) + chr(live[k]), rank)
            if formed is not None and formed < upto:
                heappush(heap, formed << POSITION_BITS | i)
        h = before[i]
        if h >= 0:
            formed = rank_after(chr(live[h]) + chr(token), rank)
            if formed is not None and formed < upto:
                heappush(heap, formed << POSITION_BITS | h)
    kept = np.frombuffer(live, dtype=np.int32)
    return kept[kept >= 0].astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


def _first_entries(codes: np.ndarray, upto: int, rank_after: Callable[[str, int], int | None]) -> list[int]:
    """The heap's first entries, one per adjacent pair with a rank below ``upto``, in order (a
    sorted list is a heap). A piece has few distinct pairs: each is ranked once."""
    if len(codes) < 2:
        return []
    wide = codes.astype(np.int64)
    pairs, inverse = np.unique(wide[:-1] << CODE_BITS | wide[1:], return_inverse=True)
    mask = (1 << CODE_BITS) - 1
    ranks = np.array(
        [_rank_or(rank_after(chr(p >> CODE_BITS) + chr(p & mask), -1), upto) for p in pairs.tolist()],
        dtype=np.int64,
    )
    ranked = ranks[inverse]
    positions = np.flatnonzero(ranked < upto)
    entries = ranked[positions] << POSITION_BITS | positions
    entries.sort()
    return entries.tolist()  # type: ignore[no-any-return]


def _rank_or(rank: int | None, upto: int) -> int:
    return upto if rank is None else rank
