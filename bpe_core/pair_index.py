"""Incremental statistics of adjacent symbol pairs over the corpus' word types.

Representation (chosen for speed in pure Python, invisible outside ``bpe_core``): a word's
current segmentation is a ``str`` whose characters are symbol ids (``chr(id)``), and a pair is
the two-character string of its ids. A merge of a word is then one C-level ``str.replace``,
which is exactly BPE's left-to-right, non-overlapping replacement; ``str.find`` locates the new
symbol's neighbours; two-character keys hash once and compare in ``(left id, right id)`` order.
The public API converts to tuples of ids.

Counting is of adjacent pairs weighted by word count, overlapping occurrences included (``aaa``
has two ``(a, a)``), as every major trainer does. After every merge and unmerge the counts equal
a recount from the current segmentation; only the words containing the pair are touched.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass, field

# Undo may append words already listed for a pair; past this many such appends the lists are
# deduplicated once, which keeps repeated undo/redo from growing memory without bound.
_COMPACT_AFTER = 1_000_000


def pairs_of(seg: str) -> list[str]:
    """Adjacent pairs of a symbol string. Example: ``pairs_of("abc")`` -> ``["ab", "bc"]``."""
    return [seg[i : i + 2] for i in range(len(seg) - 1)]


@dataclass(slots=True)
class MergeEffect:
    """What one merge changed, kept by the trainer so the merge can be undone exactly.

    ``words`` are the word types that changed; ``old_segs`` is only filled when the merged token
    already existed (then splitting it back is ambiguous, so the old segmentations are kept).
    """

    words: array = field(default_factory=lambda: array("i"))
    replacements: int = 0
    increased: list[str] = field(default_factory=list)
    old_segs: list[str] | None = None


class PairIndex:
    """Pair counts, the words each pair occurs in, token frequencies and the corpus token total.

    Attributes
    ----------
    segs : current segmentation of each word type, as a symbol string.
    counts : occurrences of each word type.
    pair_count : live pairs (count > 0) -> weighted count.
    where : pair -> word indices; a superset of the words containing it (stale or repeated
        entries are skipped when read), because removing entries on every change costs more
        than skipping them.
    count_hist : count -> number of live pairs with that count (gives ties in O(1)).
    token_freq : symbol id -> occurrences in the current segmentation.
    total_tokens : number of symbols in the whole corpus now.
    """

    def __init__(self, segs: list[str], counts: list[int], n_symbols: int) -> None:
        self.segs = segs
        self.counts = counts
        self.token_freq = [0] * n_symbols
        self.pair_count: dict[str, int] = {}
        self.where: dict[str, list[int]] = defaultdict(list)
        self.count_hist: Counter[int] = Counter()
        self.total_tokens = 0
        self._undo_appends = 0
        self._count_initial()

    def _count_initial(self) -> None:
        # Words are grouped by count so most of the counting runs inside Counter.update (C code):
        # most word types occur once or a handful of times.
        by_count: dict[int, list[str]] = defaultdict(list)
        for seg, count in zip(self.segs, self.counts, strict=True):
            by_count[count].append(seg)
        pair_count: Counter[str] = Counter()
        symbol_count: Counter[str] = Counter()
        for count, segs in by_count.items():
            pairs: Counter[str] = Counter()
            symbols: Counter[str] = Counter()
            for seg in segs:
                pairs.update(map(str.__add__, seg, seg[1:]))
                symbols.update(seg)
            if count == 1:
                pair_count.update(pairs)
                symbol_count.update(symbols)
            else:
                for pair, n in pairs.items():
                    pair_count[pair] += n * count
                for symbol, n in symbols.items():
                    symbol_count[symbol] += n * count
        self.pair_count = dict(pair_count)
        self.count_hist = Counter(self.pair_count.values())
        for symbol, n in symbol_count.items():
            self.token_freq[ord(symbol)] = n
        self.total_tokens = sum(symbol_count.values())
        where = self.where
        for w, seg in enumerate(self.segs):
            for pair in set(map(str.__add__, seg, seg[1:])):
                where[pair].append(w)

    # -- queries ---------------------------------------------------------------------------

    def words_with(self, pair: str) -> list[int]:
        """Word indices containing ``pair``, ascending, without stale or repeated entries."""
        segs = self.segs
        return sorted({w for w in self.where.get(pair, ()) if pair in segs[w]})

    def first_word(self, pair: str) -> int:
        """Index of the first word type (in order of first appearance) containing ``pair``.

        Only called for live pairs. Compacts the pair's word list when its minimum is stale.
        """
        words = self.where[pair]
        first = min(words)
        if pair in self.segs[first]:
            return first
        live = self.words_with(pair)
        self.where[pair] = live
        return live[0]

    def replacements(self, pair: str) -> int:
        """How many replacements merging ``pair`` would make (non-overlapping, weighted)."""
        segs, counts = self.segs, self.counts
        return sum(segs[w].count(pair) * counts[w] for w in self.words_with(pair))

    # -- merge -----------------------------------------------------------------------------

    def merge(self, pair: str, new: str, fresh: bool) -> MergeEffect:
        """Replace every occurrence of ``pair`` by the symbol ``new`` and update all statistics.

        ``fresh`` says ``new`` occurs nowhere yet (the usual case). Otherwise words that already
        contain ``new`` take a slower path that diffs their pairs, and their old segmentations are
        kept for undo.
        """
        a, b = pair[0], pair[1]
        segs, counts, where = self.segs, self.counts, self.where
        delta: defaultdict[str, int] = defaultdict(int)
        changed: list[int] = []
        old_segs: list[str] | None = None if fresh else []
        replaced = 0
        diffed = 0  # replacements in words whose pairs were diffed in full (pair already counted)
        for w in where.pop(pair, ()):
            seg = segs[w]
            merged = seg.replace(pair, new)
            if merged is seg:  # stale or repeated entry: nothing to merge here
                continue
            c = counts[w]
            segs[w] = merged
            changed.append(w)
            n = len(seg) - len(merged)
            replaced += n * c
            if old_segs is not None:
                old_segs.append(seg)
                if new in seg:
                    self._diff_word(w, seg, merged, c, delta)
                    diffed += n * c
                    continue
            # Each occurrence turns (p, a) into (p, new) and (b, x) into (new, x).
            j = merged.find(new)
            if n == 1:  # the common case, straight-line
                if j:
                    p = merged[j - 1]
                    delta[p + a] -= c
                    k = p + new
                    delta[k] += c
                    where[k].append(w)
                x = merged[j + 1 : j + 2]
                if x:
                    delta[b + x] -= c
                    k = new + x
                    delta[k] += c
                    where[k].append(w)
                continue
            new_pairs = set()
            while True:
                if j:
                    p = merged[j - 1]
                    if p != new:
                        delta[p + a] -= c
                        k = p + new
                    else:  # between two adjacent occurrences (b, a) becomes (new, new)
                        delta[b + a] -= c
                        k = new + new
                    delta[k] += c
                    new_pairs.add(k)
                x = merged[j + 1 : j + 2]
                if not x:
                    break
                if x != new:
                    delta[b + x] -= c
                    k = new + x
                    delta[k] += c
                    new_pairs.add(k)
                j = merged.find(new, j + 1)
                if j < 0:
                    break
            for k in new_pairs:
                where[k].append(w)
        delta[pair] -= replaced - diffed
        effect = MergeEffect(array("i", changed), replaced, [], old_segs)
        self._apply(delta, effect.increased)
        freq = self.token_freq
        freq[ord(a)] -= replaced
        freq[ord(b)] -= replaced
        freq[ord(new)] += replaced
        self.total_tokens -= replaced
        return effect

    def unmerge(self, pair: str, new: str, effect: MergeEffect) -> list[str]:
        """Undo :meth:`merge` exactly; returns the pairs whose counts went up (for the queue)."""
        a, b = pair[0], pair[1]
        segs, counts, where = self.segs, self.counts, self.where
        delta: defaultdict[str, int] = defaultdict(int)
        if effect.old_segs is not None:
            for w, old in zip(effect.words, effect.old_segs, strict=True):
                self._diff_word(w, segs[w], old, counts[w], delta)
                segs[w] = old
        else:
            for w in effect.words:
                seg = segs[w]
                c = counts[w]
                segs[w] = seg.replace(new, pair)
                restored = [pair]
                j = seg.find(new)
                while j >= 0:
                    if j:
                        p = seg[j - 1]
                        delta[p + new] -= c
                        k = (b if p == new else p) + a
                        delta[k] += c
                        restored.append(k)
                    x = seg[j + 1 : j + 2]
                    if x and x != new:
                        delta[new + x] -= c
                        k = b + x
                        delta[k] += c
                        restored.append(k)
                    j = seg.find(new, j + 1)
                for k in set(restored):
                    where[k].append(w)
                self._undo_appends += len(restored)
        replaced = effect.replacements
        if effect.old_segs is None:  # the diff path above already restored the pair's count
            delta[pair] += replaced
        increased: list[str] = []
        self._apply(delta, increased)
        freq = self.token_freq
        freq[ord(a)] += replaced
        freq[ord(b)] += replaced
        freq[ord(new)] -= replaced
        self.total_tokens += replaced
        if self._undo_appends > _COMPACT_AFTER:
            self._compact()
        return increased

    def _diff_word(self, w: int, old: str, new: str, c: int, delta: defaultdict[str, int]) -> None:
        """General update for one word: subtract all its old pairs, add all its new ones."""
        for k in pairs_of(old):
            delta[k] -= c
        added = pairs_of(new)
        for k in added:
            delta[k] += c
        for k in set(added):
            self.where[k].append(w)

    def _apply(self, delta: dict[str, int], increased: list[str]) -> None:
        pair_count, hist, where = self.pair_count, self.count_hist, self.where
        for k, dc in delta.items():
            if not dc:
                continue
            old = pair_count.get(k, 0)
            now = old + dc
            if old:
                hist[old] -= 1
                if not hist[old]:
                    del hist[old]
            if now:
                hist[now] += 1
                pair_count[k] = now
                if dc > 0:
                    increased.append(k)
            else:
                del pair_count[k]
                where.pop(k, None)

    def _compact(self) -> None:
        for pair in list(self.where):
            self.where[pair] = self.words_with(pair)
        self._undo_appends = 0
