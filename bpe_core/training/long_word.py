"""A long word (minified code, DNA, a whole file as one sequence) as linked symbols.

A word type is normally a symbol string that a merge rewrites whole (``bpe_core.training.pair_index``):
cheap for words of a few symbols, but a merge of a 5-million-symbol word would cost milliseconds
even when it replaces a handful of occurrences. A long word instead keeps one node per initial
symbol, linked both ways, and the set of nodes where each pair starts. A merge visits only the
pair's occurrences; undo restores them from the nodes it recorded. Nodes never move, so node
order is symbol order, and a merged pair keeps its left node.
"""

from __future__ import annotations

from array import array
from collections import defaultdict

import numpy as np

from bpe_core.training.batch_merge import symbols_of

GONE = -2  # ``prev`` of a node merged into its left neighbour


class LongWord:
    """Attributes: ``symbols`` (node -> symbol, a one-character string), ``prev`` and ``next``
    (node -> neighbour node, -1 at the ends), ``at`` (pair -> the nodes where it starts)."""

    __slots__ = ("_text", "at", "length", "next", "prev", "symbols")

    def __init__(self, seg: str) -> None:
        size = len(seg)
        self.symbols = list(seg)
        # Machine integers: a list of Python ints would cost 36 bytes a node instead of 8.
        self.prev = array("q", range(-1, size - 1))
        self.next = array("q", range(1, size + 1))
        self.next[-1] = -1
        self.length = size
        self.at: defaultdict[str, set[int]] = defaultdict(set)
        # Group the nodes by pair with one sort (a Python loop over millions of nodes is slow).
        codes = symbols_of(seg).astype(np.int64)
        pair_codes = (codes[:-1] << 21) | codes[1:]
        order = np.argsort(pair_codes, kind="stable")
        ordered = pair_codes[order]
        cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        for code, nodes in zip(ordered[np.r_[0, cuts]].tolist(), np.split(order, cuts), strict=True):
            self.at[chr(code >> 21) + chr(code & 0x1FFFFF)] = set(nodes.tolist())
        self._text: str | None = seg

    def text(self) -> str:
        """The current segmentation as a symbol string (built once per change)."""
        if self._text is None:
            symbols, following = self.symbols, self.next
            out, node = [], 0  # node 0 is never merged away: a pair keeps its left node
            while node >= 0:
                out.append(symbols[node])
                node = following[node]
            self._text = "".join(out)
        return self._text

    def contains(self, pair: str) -> bool:
        return bool(self.at.get(pair))  # emptied sets are left in place: cheaper than deleting

    def first(self, pair: str) -> int:
        """A position of the pair's first occurrence that orders occurrences (a node)."""
        return min(self.at[pair])

    def replacements(self, pair: str) -> int:
        """Occurrences a left-to-right merge of ``pair`` would replace (``aaa`` has one ``aa``)."""
        following = self.next
        count, taken = 0, -1
        for node in sorted(self.at.get(pair, ())):
            if node != taken:  # an overlapping occurrence starts on the node just taken
                count += 1
                taken = following[node]
        return count

    def merge(
        self, pair: str, new: str, weight: int, delta: defaultdict[str, int], added: set[str]
    ) -> tuple[list[int], list[int]]:
        """Replace ``pair`` by ``new`` left to right, non-overlapping; update ``delta`` with the
        neighbour pairs' weighted changes and ``added`` with the pairs created. Returns the left
        and right nodes of each replaced occurrence (what undo needs)."""
        a, b = pair[0], pair[1]
        symbols, prev, following, at = self.symbols, self.prev, self.next, self.at
        at_get = at.get
        lefts: list[int] = []
        rights: list[int] = []
        # Neighbour symbol -> occurrences: one weighted delta per distinct neighbour, not per node.
        left_of: defaultdict[str, int] = defaultdict(int)
        right_of: defaultdict[str, int] = defaultdict(int)
        for i in sorted(at.pop(pair, ())):
            p = prev[i]
            if p == GONE:  # consumed as the right half of the occurrence just before
                continue
            j = following[i]
            x = following[j]
            if p >= 0:  # (p, a) becomes (p, new)
                left = symbols[p]
                nodes = at_get(left + a)
                if nodes is not None:
                    nodes.discard(p)
                at[left + new].add(p)
                left_of[left] += 1
            if x >= 0:  # (b, x) becomes (new, x)
                right = symbols[x]
                nodes = at_get(b + right)
                if nodes is not None:
                    nodes.discard(j)
                at[new + right].add(i)
                right_of[right] += 1
            symbols[i] = new
            following[i] = x
            if x >= 0:
                prev[x] = i
            prev[j] = GONE
            lefts.append(i)
            rights.append(j)
        for left, n in left_of.items():
            delta[left + a] -= n * weight
            delta[left + new] += n * weight
            added.add(left + new)
        for right, n in right_of.items():
            delta[b + right] -= n * weight
            delta[new + right] += n * weight
            added.add(new + right)
        self.length -= len(lefts)
        self._text = None
        return lefts, rights

    def unmerge(
        self,
        pair: str,
        new: str,
        nodes: tuple[list[int], list[int]],
        weight: int,
        delta: defaultdict[str, int],
        restored: set[str],
    ) -> None:
        """Undo :meth:`merge` exactly (``nodes`` as it returned them), right to left."""
        a, b = pair[0], pair[1]
        symbols, prev, following, at = self.symbols, self.prev, self.next, self.at
        at_get = at.get
        lefts, rights = nodes
        left_of: defaultdict[str, int] = defaultdict(int)
        right_of: defaultdict[str, int] = defaultdict(int)
        for i, j in zip(reversed(lefts), reversed(rights), strict=True):
            p, x = prev[i], following[i]
            if x >= 0:  # (new, x) becomes (b, x)
                right = symbols[x]
                nodes_of = at_get(new + right)
                if nodes_of is not None:
                    nodes_of.discard(i)
                at[b + right].add(j)
                right_of[right] += 1
            if p >= 0:  # (p, new) becomes (p, a)
                left = symbols[p]
                nodes_of = at_get(left + new)
                if nodes_of is not None:
                    nodes_of.discard(p)
                at[left + a].add(p)
                left_of[left] += 1
            symbols[i] = a
            following[i] = j
            prev[j] = i
            following[j] = x
            if x >= 0:
                prev[x] = j
            at[pair].add(i)
        for right, n in right_of.items():
            delta[new + right] -= n * weight
            delta[b + right] += n * weight
            restored.add(b + right)
        for left, n in left_of.items():
            delta[left + new] -= n * weight
            delta[left + a] += n * weight
            restored.add(left + a)
        if lefts:
            restored.add(pair)
        self.length += len(lefts)
        self._text = None
