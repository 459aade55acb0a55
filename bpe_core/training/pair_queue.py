"""The priority structure that yields the best pair under a tie-break rule, without recounting.

A binary heap of ``(-count, tie key, pair)`` entries, validated lazily as Hugging Face's trainer
does: an entry is pushed when a pair's count goes up; decreases push nothing, and an entry whose
count is stale is corrected when it reaches the top. Every live pair therefore has an entry that
ranks it at least as high as it deserves, so the first entry that checks out is the true best.

``first-seen`` keys are the index of the first word type containing the pair; a stored key may
be too early (occurrences vanish as merges happen) but never too late, and is recomputed when
the entry reaches the top. Pairs whose first occurrence is in the same word are ordered by their
position in it, computed at that moment.

An index with a cold part (``bpe_core.training.cold_index``) has its cold pairs taken into the heap a
batch of the highest counts at a time, only when they could reach its top, so that opening a
session makes no heap entry for the many pairs that never get near the top.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from heapq import heapify, heappop, heappush, heapreplace

from bpe_core.training.cold_index import ColdIndex, key_of
from bpe_core.training.pair_index import PairIndex
from bpe_core.training.tie_rules import TieBreakRule

Entry = tuple[int, object, str]
COLD_BATCH = 1024  # cold pairs taken into the heap at a time


class PairQueue:
    """Best-first access to live pairs: ``count`` descending, then the rule's order."""

    def __init__(self, index: PairIndex, rule: TieBreakRule, tokens: Sequence[str]) -> None:
        self._index = index
        self._tokens = tokens
        self.rule = rule
        self._key = self._key_function(rule)
        self._heap: list[Entry] = []
        # While cold pairs remain outside the heap: all of count ``_cold_floor`` or more are in
        # it (None: none yet), and ``_cold_next`` is the highest count of those left out.
        self._cold: ColdIndex | None = None
        self._cold_floor: int | None = None
        self._cold_next = 0
        self.rebuild()

    def set_rule(self, rule: TieBreakRule) -> None:
        self.rule = rule
        self._key = self._key_function(rule)
        self.rebuild()

    def rebuild(self) -> None:
        """Recreate the heap from the live pairs (after a rule change, or to shed dead entries).
        Cold pairs are taken afresh, highest counts first: an entry for a pair whose count has
        changed since is corrected when it surfaces, as any stale entry is."""
        self._heap = [(-c, self._key(k), k) for k, c in self._index.pair_count.items()]
        heapify(self._heap)
        self._cold = self._index.cold
        self._cold_floor = None
        self._cold_next = self._cold.highest_below(None) if self._cold is not None else 0

    def _pull(self) -> None:
        """Move into the heap the cold entries that could rank at its top (a count at least the
        top's), a batch at a time: every live pair then has an entry ranking it as high as it
        deserves, in the heap or among those left out, whose counts are all lower."""
        cold, heap = self._cold, self._heap
        while cold is not None and self._cold_next and not (heap and -heap[0][0] > self._cold_next):
            rows, floor = cold.rows_below(self._cold_floor, COLD_BATCH)
            counts, shadowed = cold.counts[rows].tolist(), cold.shadowed[rows].tolist()
            for code, count, moved in zip(cold.codes_at(rows).tolist(), counts, shadowed, strict=True):
                k = key_of(code)
                if moved:  # its count is the index's now: a dead pair (tokens perhaps undone) is left out
                    count = self._index.pair_count.get(k, 0)
                    if not count:
                        continue
                heappush(heap, (-count, self._key(k), k))
            self._cold_floor = floor
            self._cold_next = cold.highest_below(floor)
        if cold is not None and not self._cold_next:
            self._cold = None

    def push(self, pairs: list[str]) -> None:
        """Announce live pairs whose counts went up."""
        pair_count = self._index.pair_count
        heap = self._heap
        key = self._key
        if self.rule.name == "hf":  # the key is the pair itself: skip a call per push
            for k in pairs:
                heappush(heap, (-pair_count[k], k, k))
        else:
            for k in pairs:
                heappush(heap, (-pair_count[k], key(k), k))
        if len(heap) > 4 * self._index.pair_total + 4096:
            self.rebuild()

    def _key_function(self, rule: TieBreakRule) -> Callable[[str], object]:
        """The heap's tie key for a pair under ``rule`` (called on every push, so kept lean)."""
        if rule.depends_on_position:
            # Any key no later than the true first word is valid; the exact one is computed only
            # if the pair surfaces at the top, which most pairs never do.
            return lambda k: -1
        if rule.name == "hf":
            return lambda k: k  # a pair string compares as (left id, right id)
        tokens = self._tokens
        return lambda k: rule.static_key(tokens[ord(k[0])], tokens[ord(k[1])], ord(k[0]), ord(k[1]))

    def _settle(self) -> Entry | None:
        """Fix stale entries until the top one is exact; return it (not popped)."""
        heap = self._heap
        # Most pairs' counts are in the index's dict: the method is asked only of the others.
        count_of, count = self._index.pair_count.get, self._index.count
        positional = self.rule.depends_on_position
        # Undo frees a token id for the next new token, so an old entry may name a different
        # pair now: keys built from token strings are checked again (hf's are the ids).
        by_string = not positional and self.rule.name != "hf"
        while True:
            if self._cold is not None:
                self._pull()
            if not heap:
                return None
            negative, key, k = heap[0]
            c = count_of(k)
            if c is None:
                c = count(k)
            if c != -negative:
                if c:
                    heapreplace(heap, (-c, self._key(k) if by_string else key, k))
                else:
                    heappop(heap)
                continue
            if positional:
                first = self._index.first_word(k)
                if first != key:
                    heapreplace(heap, (negative, first, k))
                    continue
            elif by_string:
                exact = self._key(k)
                if exact != key:
                    heapreplace(heap, (negative, exact, k))
                    continue
            return heap[0]

    def ranked(self, n: int) -> list[str]:
        """The best ``n`` live pairs, best first (fewer if fewer exist)."""
        if self._index.cold is None and not self.rule.depends_on_position:
            return self._ranked_static(n)
        taken: list[Entry] = []
        out: list[Entry] = []
        seen: set[str] = set()
        heap = self._heap
        positional = self.rule.depends_on_position
        while True:
            top = self._settle()
            if top is None:
                break
            if top[2] in seen:  # a second entry for a pair already listed
                taken.append(heappop(heap))
                continue
            # For first-seen, finish the group sharing the last (count, first word): its order
            # is decided by position, which only a complete group can sort.
            if len(out) >= n and not (positional and top[:2] == out[-1][:2]):
                break
            taken.append(heappop(heap))
            seen.add(top[2])
            out.append(top)
        for entry in taken:
            heappush(heap, entry)
        if positional:
            position = self._index.position_reader()
            # positional rules key on (count, first word): e[1] is a word index here (not cast:
            # this key is computed for every ranked pair, and cast is a call)
            out.sort(key=lambda e: (e[0], e[1], position(e[1], e[2])))  # type: ignore[arg-type]
        return [entry[2] for entry in out[:n]]

    def _ranked_static(self, n: int) -> list[str]:
        """:meth:`ranked` for a rule whose keys do not move, in an index without a cold part
        (every count is in ``pair_count``).

        Asked at every tie (most late steps), so the heap is read, not popped: a small heap of
        the nodes reached walks it from the root in order (a node's children rank after it).
        A stale node is read again as its pair now ranks, which is never above the pair's
        true place; the pairs' other nodes are skipped once listed.
        """
        heap = self._heap
        size = len(heap)
        count_of = self._index.pair_count.get
        # As in _settle: a key built from token strings may name an undone token's old string.
        exact = None if self.rule.name == "hf" else self._key
        reached: list[tuple[Entry, int]] = [(heap[0], 0)] if heap else []
        out: list[str] = []
        seen: set[str] = set()
        while reached and len(out) < n:
            entry, node = heappop(reached)
            if node >= 0:  # a node of the heap (a re-read entry has none: -1)
                child = 2 * node + 1
                if child < size:
                    heappush(reached, (heap[child], child))
                    if child + 1 < size:
                        heappush(reached, (heap[child + 1], child + 1))
            negative, key, k = entry
            if k in seen:
                continue
            c = count_of(k, 0)
            if c != -negative or (exact is not None and exact(k) != key):
                if c:
                    heappush(reached, ((-c, key if exact is None else exact(k), k), -1))
                continue
            seen.add(k)
            out.append(k)
        return out

    def best(self) -> str | None:
        """The pair the rule picks now, or ``None`` when no pair is left."""
        if self.rule.depends_on_position:
            ranked = self.ranked(1)
            return ranked[0] if ranked else None
        top = self._settle()
        return None if top is None else top[2]

    def top_count(self) -> int:
        """The highest pair count now (0 when no pair is left)."""
        top = self._settle()
        return 0 if top is None else -top[0]
