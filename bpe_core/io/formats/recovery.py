"""The merges of byte-level BPE recovered from its ranks alone (tiktoken's ``.tiktoken`` files).

By definition a token of rank r is made from the two tokens that byte-level BPE with the ranks
below r (tiktoken's rule: merge the adjacent pair whose join ranks lowest, the leftmost first)
makes of its bytes; a token that does not end in two is not one BPE can make. Running that BPE
costs the square of a token's length for each token: two and a half minutes for 50,000 ranks of
runs up to 512 bytes. This finds the same pair in about the token's length:

* Exactly one cut of a valid token into two tokens of lower rank is one BPE leaves apart (BPE
  is deterministic), so trying cuts in any order finds it: likely ones first (a token is often
  its prefix or suffix token and a byte), then every cut whose prefix is a token.
* Whether BPE leaves two tokens apart is read from their merges, walking back along the
  boundary between them (:func:`crossing`), not by running BPE.
* A failed cut tells how far past it BPE merges across it; no later cut inside that is tried.

Example: ``Recovery({b"a": 0, b"b": 1, b"ab": 2}).pair(2)`` is ``(0, 1)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, repeat

import numpy as np

# The longest token a ranks file may hold (GPT-2's has 128 bytes; a run of one byte trained
# here can be far longer): 49,396 hostile ranks of runs up to this long are recovered in 3 s.
LONGEST = 4096
_PREFIXES = [slice(0, cut) for cut in range(1, LONGEST)]
_SLICED = 128  # prefixes of tokens up to this long (all of GPT-2's) are looked up as slices
# Prefixes of longer tokens are found by a polynomial hash of every prefix at once (numpy), and
# then looked up as slices only where the hash is a token's: a slice costs its length.
_BASE, _LENGTH, _MASK = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, (1 << 64) - 1
_POWERS = np.array([pow(_BASE, i, 1 << 64) for i in range(LONGEST)], dtype=np.uint64)


class Recovery:
    """The pair of each token of ``ranks`` (0 to n-1, each single byte a token), asked for in
    rank order: a token's pair needs those of all tokens below it."""

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self.ranks = ranks
        self.tokens = sorted(ranks, key=ranks.__getitem__)
        self.parts: list[tuple[int, int] | None] = [None] * len(self.tokens)  # rank -> its pair
        self._hashes: set[int] | None = None  # of the tokens below the last one asked for
        self._hashed = 0

    def pair(self, rank: int) -> tuple[int, int] | None:
        """The ranks of the two tokens BPE with the ranks below ``rank`` makes of the token of
        that rank, or ``None`` if it does not end in two."""
        token, ranks = self.tokens[rank], self.ranks
        tried = set()
        for cut in self._likely_cuts(token, rank):
            tried.add(cut)
            left, right = ranks.get(token[:cut], rank), ranks.get(token[cut:], rank)
            if left < rank and right < rank and not self.crossing(left, right, rank):
                self.parts[rank] = (left, right)
                return left, right
        after = 0  # no cut lies inside a token BPE makes across a cut that failed
        for cut in self._prefix_cuts(token, rank):
            if cut <= after or cut in tried:
                continue
            left, right = ranks.get(token[:cut], rank), ranks.get(token[cut:], rank)
            if left < rank and right < rank:
                reach = self.crossing(left, right, rank)
                if not reach:
                    self.parts[rank] = (left, right)
                    return left, right
                after = cut + reach - 1
        return None

    def crossing(self, left: int, right: int, below: int) -> int:
        """0 if byte-level BPE with the ranks below ``below`` leaves the bytes of ``left +
        right`` as those two tokens (whose pairs are known); else how many bytes past the
        boundary between them the first merge across it reaches.

        Once every token of lower rank is made from two tokens of still lower rank, BPE merges
        in rank order (a merge that made a token of lower rank than the one before would leave
        that token unmakeable), and two spans that no merge crosses each evolve as alone. So it
        suffices to walk back through the times the boundary changed neighbours: before
        ``left`` was made from its pair ``(a, b)``, ``b`` met the other side, and BPE would have
        merged across had that pair's join a rank below the time the pair lasted to. Bytes are
        there from the start. At equal ranks the leftmost pair merges first: a pair across the
        boundary beats one to its right and loses to one to its left. The walk is as long as
        the two tokens' edges."""
        ranks, tokens, parts = self.ranks, self.tokens, self.parts
        reach = 0
        while True:
            joined = ranks.get(tokens[left] + tokens[right])
            if joined is not None and joined < below:
                reach = len(tokens[right])  # the walk goes back in time: the earliest so far
            left_parts, right_parts = parts[left], parts[right]
            if left_parts is None and right_parts is None:
                return reach  # two bytes, side by side from the start
            if left_parts is not None and (right_parts is None or left > right):
                below, left = left, left_parts[1]  # ``left`` was made last, from a pair to its left
            else:
                assert right_parts is not None
                below, right = right + 1, right_parts[0]  # ``right`` was made last (or at the same rank)

    def _likely_cuts(self, token: bytes, rank: int) -> list[int]:
        """A token is often its prefix or suffix token and a byte, or what that one was made
        of, the byte joined to the nearer part."""
        cuts = []
        for shorter, cut, offset in ((token[:-1], len(token) - 1, 0), (token[1:], 1, 1)):
            found = self.ranks.get(shorter, rank)
            if found < rank:
                cuts.append(cut)
                made = self.parts[found]
                if made is not None:
                    cuts.append(offset + len(self.tokens[made[0]]))
        return cuts

    def _prefix_cuts(self, token: bytes, rank: int) -> Iterator[int]:
        """The cuts whose prefix may be a token of lower rank, found at C speed."""
        cuts = range(1, len(token))
        if len(token) <= _SLICED:
            prefixes = map(token.__getitem__, _PREFIXES[: len(token) - 1])
            return compress(cuts, map(rank.__gt__, map(self.ranks.get, prefixes, repeat(rank))))
        known = self._hashes_below(rank)
        weighted = np.frombuffer(token, dtype=np.uint8).astype(np.uint64) * _POWERS[: len(token)]
        hashes = np.cumsum(weighted[:-1]) + np.arange(1, len(token), dtype=np.uint64) * np.uint64(_LENGTH)
        return compress(cuts, map(known.__contains__, hashes.tolist()))

    def _hashes_below(self, rank: int) -> set[int]:
        """The hashes of the tokens of lower rank (made once a long token needs them)."""
        if self._hashes is None:
            self._hashes = set()
        while self._hashed < rank:
            token = self.tokens[self._hashed]
            weighted = np.frombuffer(token, dtype=np.uint8).astype(np.uint64) * _POWERS[: len(token)]
            self._hashes.add((int(weighted.sum()) + len(token) * _LENGTH) & _MASK)
            self._hashed += 1
        return self._hashes
