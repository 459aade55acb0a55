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

An index made when a session opens starts "cold" (``bpe_core.training.cold_index``): its words and pair
counts are flat arrays, and only what changes is kept as Python objects ("warm"). A word warms
up the first time a merge or an undo touches it: its string is decoded and its pairs listed; a
pair's count warms up the first time it changes. Everything below reads both parts; the merge
loops themselves only ever see warm words.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from bpe_core.pipeline.word_types import Counts
from bpe_core.training.batch_merge import Segs, merge_many, separator, symbols_of, unmerge_many
from bpe_core.training.cold_index import SLICE, ColdIndex, group_heads, grouped, key_of
from bpe_core.training.long_word import LongWord

# Words longer than this many symbols are linked lists (``bpe_core.training.long_word``): a merge then
# costs work proportional to the occurrences it replaces, not to the word's length.
LONG_WORD = 4096
# Merges (and undos) touching at least this many words run vectorised (``batch_merge``); below
# that the per-word loop wins. Undo's vectorised path has less fixed cost, hence its lower bar.
BATCH_WORDS = 1024
UNDO_BATCH_WORDS = 256


def _word_list() -> array[int]:
    return array("i")


def pairs_of(seg: str) -> list[str]:
    """Adjacent pairs of a symbol string. Example: ``pairs_of("abc")`` -> ``["ab", "bc"]``."""
    return [seg[i : i + 2] for i in range(len(seg) - 1)]


def _weighted_bincount(index: np.ndarray, words: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Exact sums of ``weights[words]`` per ``index`` value. Taken in slices, so that the
    per-position weights (8 bytes each) never exist for the whole corpus at once. ``np.bincount``
    sums in float64, exact only below 2^53: a slice whose weights reach that (huge counts) takes
    the slower integer path (the corpus bounds every total by 2^62)."""
    sums = np.zeros(size, dtype=np.int64)
    for start in range(0, len(index), _SLICE):
        part = slice(start, start + _SLICE)
        gathered = weights[words[part]]
        if int(gathered.sum()) < 2**53:
            sums += np.bincount(index[part], weights=gathered, minlength=size).astype(np.int64)
        else:
            np.add.at(sums, index[part], gathered)
    return sums


_SLICE = 1 << 20
_SORT_BITS = 63  # a pair's code and its word sort as one int64 while they fit in this many bits


@dataclass(slots=True)
class MergeEffect:
    """What one merge changed, kept by the trainer so the merge can be undone exactly.

    ``words`` are the word types that changed (long words aside); ``old_segs`` is only filled
    when the merged token already existed (then splitting it back is ambiguous, so the old
    segmentations are kept); ``long`` holds the nodes each long word merged.
    """

    words: array = field(default_factory=lambda: array("i"))
    replacements: int = 0
    increased: list[str] = field(default_factory=list)
    old_segs: list[str] | None = None
    long: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)

    @property
    def changed(self) -> list[int]:
        """Every word type that changed."""
        return [*self.words, *self.long]


class PairIndex:
    """Pair counts, the words each pair occurs in, token frequencies and the corpus token total.

    Attributes
    ----------
    segs : current segmentation of each word type, as a symbol string (with a cold part, a dict
        of the warm words only).
    counts : occurrences of each word type.
    pair_count : live pairs (count > 0) -> weighted count (with a cold part, only the pairs
        whose count changed since it was made: read counts with :meth:`count`).
    where : pair -> word indices (a 4-byte ``array``: a list would cost 36 bytes an entry); a
        superset of the (warm) words containing it (stale or repeated entries are skipped when
        read), because removing entries on every change costs more than skipping them.
    cold : the flat state the index started from (``None`` for an index counted afresh).
    count_hist : count -> number of live pairs with that count (gives ties in O(1); may hold
        zeros).
    token_freq : symbol id -> occurrences in the current segmentation.
    total_tokens : number of symbols in the whole corpus now.
    long : word index -> :class:`LongWord`, for words longer than ``LONG_WORD``; their entry in
        ``segs`` is not kept current: read a word with :meth:`seg`.
    """

    def __init__(self, segs: list[str], counts: Sequence[int], n_symbols: int) -> None:
        self.segs: Segs = segs
        self._setup(counts, n_symbols)
        self._count_initial(segs)
        self.long.update((w, LongWord(seg)) for w, seg in enumerate(segs) if len(seg) > LONG_WORD)
        for w in self.long:
            segs[w] = ""  # never read: LongWord holds it

    def _setup(self, counts: Sequence[int], n_symbols: int) -> None:
        # An ``array`` (Counts): indexing gives plain ints, and numpy views it without a copy.
        stored = counts if isinstance(counts, Counts) else Counts(counts)
        self.counts = stored.values
        self._weights = stored.numpy()
        self.token_freq = array("q", bytes(8 * n_symbols))  # 8 bytes a token, not an int object
        self.pair_count: dict[str, int] = {}
        self.where: defaultdict[str, array[int]] = defaultdict(_word_list)
        self.count_hist: dict[int, int] = {}
        self.total_tokens = 0
        self._first: dict[str, tuple[array[int], int, int]] = {}  # see first_word
        self.long: dict[int, LongWord] = {}
        self.cold: ColdIndex | None = None
        self._warm: dict[int, str] = {}
        self._lazy = range(0)
        self._lazy_words: defaultdict[int, array[int]] = defaultdict(_word_list)

    @classmethod
    def from_cold(cls, cold: ColdIndex, counts: Sequence[int], n_symbols: int, lazy: range) -> PairIndex:
        """An index starting from ``cold`` (no long words). ``lazy`` are the tokens of merges
        whose changed words were not kept (a session's): :meth:`lazy_words` finds them."""
        index = cls.__new__(cls)
        index._setup(counts, n_symbols)
        index.segs = index._warm
        index.cold = cold
        index._lazy = lazy
        index.token_freq = array("q", cold.symbol_totals(index._weights, n_symbols).tobytes())
        index.total_tokens = sum(index.token_freq)
        hist: Counter[int] = Counter()
        for start in range(0, len(cold.counts), SLICE):  # a sorted copy of a slice at a time
            part = np.sort(cold.counts[start : start + SLICE].astype(np.int64))
            heads = group_heads(part)
            sizes = np.diff(np.append(heads, len(part)))
            hist.update(dict(zip(part[heads].tolist(), sizes.tolist(), strict=True)))
        index.count_hist = dict(hist)
        return index

    def _count_initial(self, segs: list[str]) -> None:
        """Count every pair and symbol and list the words of every pair, vectorised.

        All symbol strings are joined (with a separator no symbol uses) into one array of ids;
        pairs, their weighted counts and their sorted, distinct word lists then come from a few
        numpy sorts instead of a Python loop over every position of every word. Each array is
        dropped as soon as it is used and sorting is in place where it can be: at load, with
        millions of word types, these arrays make the peak of memory.
        """
        n = len(self.token_freq)
        codes = symbols_of(separator(n).join(segs))  # the separator's id is n
        boundary = codes == n
        word_of = np.cumsum(boundary, dtype=np.int32)  # word index of each position
        # Ids are below n, except in an index built by hand (tests), which may use any.
        top = max(n, int(codes.max(initial=0)))
        symbols = _weighted_bincount(codes, word_of, self._weights, top + 1)
        symbols[n] = 0  # the separators
        if top == n:
            symbols = symbols[:n]
        self.token_freq = array("q", symbols.astype(np.int64).tobytes())
        self.total_tokens = int(symbols.sum())
        adjacent = ~boundary[:-1]
        adjacent &= ~boundary[1:]
        del boundary
        shift = top.bit_length()  # bits of an id
        pair_codes = codes[:-1][adjacent].astype(np.int64)
        pair_codes <<= shift
        pair_codes |= codes[1:][adjacent]
        words = word_of[:-1][adjacent]
        del codes, word_of, adjacent
        # Sorted by pair, then word: each pair's group then lists its words ascending. With room
        # in 63 bits the word joins the code and one in-place sort does it; else a stable argsort.
        word_bits = max(len(segs), 1).bit_length()
        if 2 * shift + word_bits <= _SORT_BITS:
            pair_codes <<= word_bits
            pair_codes |= words
            del words
            pair_codes.sort()
            words = (pair_codes & ((1 << word_bits) - 1)).astype(np.int32)
            pair_codes >>= word_bits
        else:
            order = np.argsort(pair_codes, kind="stable")
            pair_codes, words = pair_codes[order], words[order]
            del order
        starts = np.ones(len(pair_codes), dtype=bool)
        np.not_equal(pair_codes[1:], pair_codes[:-1], out=starts[1:])
        unique_pairs = pair_codes[starts].tolist()
        del pair_codes
        group = np.cumsum(starts, dtype=np.int32)
        group -= 1
        totals = _weighted_bincount(group, words, self._weights, len(unique_pairs)).tolist()
        del group
        first = starts.copy()
        first[1:] |= words[1:] != words[:-1]  # first occurrence of each (pair, word)
        # Cutting one buffer is several times cheaper than splitting the numpy array per pair.
        listed = words[first].tobytes()
        bounds = [*(4 * np.flatnonzero(starts[first])).tolist(), len(listed)]
        del words, first, starts
        mask = (1 << shift) - 1
        keys = [chr(code >> shift) + chr(code & mask) for code in unique_pairs]
        del unique_pairs
        self.pair_count = dict(zip(keys, totals, strict=True))
        self.count_hist = dict(Counter(totals))
        where = self.where
        for i, key in enumerate(keys):
            where[key] = word_list = array("i")
            word_list.frombytes(listed[bounds[i] : bounds[i + 1]])

    # -- queries ---------------------------------------------------------------------------

    def seg(self, w: int) -> str:
        """Word ``w``'s current segmentation as a symbol string."""
        if self.cold is not None:
            seg = self._warm.get(w)
            return seg if seg is not None else self.cold.seg(w)
        long = self.long.get(w) if self.long else None
        return long.text() if long is not None else self.segs[w]

    def has(self, w: int, pair: str) -> bool:
        long = self.long.get(w) if self.long else None
        return long.contains(pair) if long is not None else pair in self.seg(w)

    def seg_length(self, w: int) -> int:
        if self.cold is not None:
            seg = self._warm.get(w)
            return len(seg) if seg is not None else self.cold.length(w)
        long = self.long.get(w) if self.long else None
        return long.length if long is not None else len(self.segs[w])

    def seg_lengths(self) -> np.ndarray:
        """Every word's current number of symbols."""
        if self.cold is not None:
            lengths = np.diff(self.cold.starts).astype(np.int64)
            for w, seg in self._warm.items():
                lengths[w] = len(seg)
            return lengths
        n = len(self.counts)
        lengths = np.fromiter((len(self.segs[w]) for w in range(n)), dtype=np.int64, count=n)
        for w, long in self.long.items():
            lengths[w] = long.length
        return lengths

    def position(self, w: int, pair: str) -> int:
        """Where ``pair`` first occurs in word ``w``: a number that orders occurrences."""
        long = self.long.get(w) if self.long else None
        return long.first(pair) if long is not None else self.seg(w).find(pair)

    def count(self, pair: str) -> int:
        """The pair's weighted count now (0 if absent)."""
        count = self.pair_count.get(pair)
        if count is not None:
            return count
        return 0 if self.cold is None else self.cold.count(pair)

    @property
    def pair_total(self) -> int:
        """Number of live pairs."""
        return len(self.pair_count) + (0 if self.cold is None else self.cold.live)

    def live_pairs(self) -> Iterator[tuple[str, int]]:
        """Every live pair with its count."""
        yield from self.pair_count.items()
        if self.cold is not None:
            codes, counts = self.cold.live_pairs()
            yield from zip(map(key_of, codes.tolist()), counts.tolist(), strict=True)

    def pairs_counted(self, count: int) -> list[str]:
        """The live pairs whose count is ``count`` (a full scan)."""
        pairs = [k for k, c in self.pair_count.items() if c == count]
        if self.cold is not None:
            codes, counts = self.cold.live_pairs()
            pairs.extend(map(key_of, codes[counts == count].tolist()))
        return pairs

    def words_with(self, pair: str) -> list[int]:
        """Word indices containing ``pair``, ascending, without stale or repeated entries."""
        if self.cold is None:
            return self._listed_with(pair)
        return sorted({*self._listed_with(pair), *self.cold.words_with_pair(pair).tolist()})

    def word_count(self, pair: str) -> int:
        """How many words contain ``pair`` (cold ones counted, not listed)."""
        return len(self._listed_with(pair)) + (0 if self.cold is None else self.cold.holder_count(pair))

    def _listed_with(self, pair: str) -> list[int]:
        """The listed (warm) words containing ``pair``, ascending, each once."""
        has = self.has
        return sorted({w for w in self.where.get(pair, ()) if has(w, pair)})

    def words_with_symbol(self, symbol: int) -> list[int]:
        """Word indices whose segmentation holds ``symbol``, ascending."""
        char = chr(symbol)
        if self.cold is None:
            seg = self.seg
            return [w for w in range(len(self.segs)) if char in seg(w)]
        words = {w for w, seg in self._warm.items() if char in seg}
        words.update(self.cold.words_with_symbol(symbol).tolist())
        return sorted(words)

    def first_word(self, pair: str) -> int:
        """Index of the first word type (in order of first appearance) containing ``pair``.

        Only called for live pairs: the first of its listed (warm) words and, with a cold part,
        of the cold words holding it (``ColdIndex.first_word``).
        """
        listed = self._first_listed(pair)
        cold = None if self.cold is None else self.cold.first_word(pair)
        if cold is None or (listed is not None and listed < cold):
            assert listed is not None, "first_word is only asked of live pairs"
            return listed
        return cold

    def _first_listed(self, pair: str) -> int | None:
        """The first listed word still containing ``pair``, or ``None``.

        Word lists only grow at the end (or are replaced whole), so the minimum is cached with
        the length it covers and extended over new entries only. When that minimum is stale the
        list is sorted and deduplicated (in C) and only its stale prefix dropped: later stale
        entries are harmless, and re-sorting a sorted list is cheap.
        """
        has = self.has
        words = self.where.get(pair)
        if not words:
            return None
        cached = self._first.get(pair)
        if cached is not None and cached[0] is words:
            first = cached[2] if cached[1] == len(words) else min(cached[2], min(words[cached[1] :]))
        else:
            first = min(words)
        if not has(first, pair):
            ordered = sorted(set(words))
            start = 1
            while start < len(ordered) and not has(ordered[start], pair):
                start += 1
            words = self.where[pair] = array("i", ordered[start:])
            if not words:
                self._first.pop(pair, None)
                return None
            first = words[0]
        self._first[pair] = (words, len(words), first)
        return first

    def replacements(self, pair: str) -> int:
        """How many replacements merging ``pair`` would make (non-overlapping, weighted)."""
        counts, long = self.counts, self.long
        return sum(
            (long[w].replacements(pair) if w in long else self.seg(w).count(pair)) * counts[w]
            for w in self.words_with(pair)
        )

    # -- warming up (an index with a cold part) ---------------------------------------------

    def _warm_up(self, words: np.ndarray) -> None:
        """Hold the cold ``words`` as strings from now on, their pairs listed, and each listed
        under the lazy tokens it holds."""
        cold = self.cold
        if cold is None or not len(words):
            return
        symbols, lengths, holders = cold.warm_up(words)
        self._warm.update(zip(words.tolist(), cold.segs(symbols, lengths), strict=True))
        where = self.where
        for code, listed in holders:
            where[key_of(code)].frombytes(listed)
        lazy = self._lazy
        if lazy:
            inside = (symbols >= lazy.start) & (symbols < lazy.stop)
            tokens, owners = symbols[inside], np.repeat(words, lengths)[inside]
            order = np.argsort(tokens, kind="stable")
            for token, listed in grouped(tokens[order], owners[order]):
                self._lazy_words[token].frombytes(listed)

    def warm_all(self) -> None:
        """Hold every word and pair as Python objects from now on, and let the cold part go: a
        long walk through the history touches most words anyway, and a warm index walks
        fastest (at the memory a freshly trained one takes)."""
        cold = self.cold
        if cold is None:
            return
        cold_words = np.flatnonzero(~cold.warm)
        lengths = cold.starts[cold_words + 1] - cold.starts[cold_words]
        cuts = np.searchsorted(np.cumsum(lengths), np.arange(1 << 22, int(lengths.sum()), 1 << 22))
        for part in np.split(cold_words, cuts):  # a batch at a time: warming makes temporaries
            self._warm_up(part)
        codes, counts = cold.live_pairs()
        self.pair_count.update(zip(map(key_of, codes.tolist()), counts.tolist(), strict=True))
        self.cold = None

    def lazy_words(self, token: int) -> array[int]:
        """The words changed by the merge that made ``token``, one whose changes were not kept
        (see :meth:`from_cold`); it must be the last merge applied. They are the words holding
        the token now, all warmed up (undo is about to change them). From now on the token and
        those after it are not lazy.

        A warm word holding a lazy token was listed under it when it warmed up or when an undo
        gave the token back to it; nothing takes a lazy token from a word without first being
        undone (the merges after it), so every word listed under the token holds it now.
        """
        self._lazy = range(self._lazy.start, min(self._lazy.stop, token))
        listed = np.frombuffer(self._lazy_words.pop(token, array("i")), dtype=np.int32)
        if self.cold is not None:
            cold = self.cold.words_with_symbol(token)
            self._warm_up(cold)
            listed = np.concatenate((listed, cold))
        words = array("i")
        words.frombytes(np.unique(listed).astype(np.int32).tobytes())
        return words

    # -- merge -----------------------------------------------------------------------------

    def merge(self, pair: str, new: str, fresh: bool) -> MergeEffect:
        """Replace every occurrence of ``pair`` by the symbol ``new`` and update all statistics.

        ``fresh`` says ``new`` occurs nowhere yet (the usual case). Otherwise words that already
        contain ``new`` take a slower path that diffs their pairs, and their old segmentations are
        kept for undo.
        """
        if self.cold is not None:
            self._warm_up(self.cold.words_with_pair(pair))
        candidates: Sequence[int] = self.where.pop(pair, ())
        self._first.pop(pair, None)
        delta: defaultdict[str, int] = defaultdict(int)
        old_segs: list[str] | None = None
        long_nodes: dict[int, tuple[list[int], list[int]]] = {}
        long_replaced = 0
        if self.long and any(w in self.long for w in candidates):
            long_replaced = self._merge_long(candidates, pair, new, delta, long_nodes)
            # Only the short words that hold the pair: the vectorised path needs at least one.
            segs, long = self.segs, self.long
            candidates = [w for w in candidates if w not in long and pair in segs[w]]
        if fresh and len(candidates) >= BATCH_WORDS:
            changed, replaced = merge_many(
                self.segs,
                self._weights,
                candidates,
                pair,
                new,
                separator(len(self.token_freq)),
                delta,
                self.where,
            )
        else:
            changed, replaced, old_segs = self._merge_words(candidates, pair, new, fresh, delta)
        replaced += long_replaced
        delta[pair] -= replaced
        effect = MergeEffect(array("i", changed), replaced, [], old_segs, long_nodes)
        self._apply(delta, effect.increased)
        freq = self.token_freq
        freq[ord(pair[0])] -= replaced
        freq[ord(pair[1])] -= replaced
        freq[ord(new)] += replaced
        self.total_tokens -= replaced
        return effect

    def _merge_long(
        self,
        candidates: Iterable[int],
        pair: str,
        new: str,
        delta: defaultdict[str, int],
        nodes: dict[int, tuple[list[int], list[int]]],
    ) -> int:
        """Merge ``pair`` in the long words among ``candidates``; returns the replacements."""
        replaced = 0
        where = self.where
        for w in dict.fromkeys(w for w in candidates if w in self.long):
            added: set[str] = set()
            merged = self.long[w].merge(pair, new, self.counts[w], delta, added)
            if merged[0]:
                nodes[w] = merged
                replaced += len(merged[0]) * self.counts[w]
                for k in added:
                    where[k].append(w)
        return replaced

    def _merge_words(
        self, candidates: Iterable[int], pair: str, new: str, fresh: bool, delta: defaultdict[str, int]
    ) -> tuple[list[int], int, list[str] | None]:
        """The per-word merge loop; returns changed words, replacements and (if not fresh) old
        segmentations."""
        a, b = pair[0], pair[1]
        segs, counts, where = self.segs, self.counts, self.where
        # Words with a single occurrence (nearly all) are grouped by the symbol left and right of
        # it: each occurrence turns (p, a) into (p, new) and (b, x) into (new, x), so one weighted
        # sum per neighbour symbol updates the counts, and keys are built per group, not per word.
        left: defaultdict[str, list[int]] = defaultdict(list)
        right: defaultdict[str, list[int]] = defaultdict(list)
        changed: list[int] = []
        old_segs: list[str] | None = None if fresh else []
        extra = 0  # replacements beyond the first in words with several occurrences
        for w in candidates:
            seg = segs[w]
            merged = seg.replace(pair, new)
            if merged is seg:  # stale or repeated entry: nothing to merge here
                continue
            segs[w] = merged
            changed.append(w)
            n = len(seg) - len(merged)
            if old_segs is not None:
                old_segs.append(seg)
                if new in seg:
                    c = counts[w]
                    extra += (n - 1) * c
                    self._diff_word(w, seg, merged, c, delta)
                    delta[pair] += n * c  # the diff already removed this word's own pairs
                    continue
            j = merged.find(new)
            if n == 1:
                if j:
                    left[merged[j - 1]].append(w)
                if j + 1 < len(merged):
                    right[merged[j + 1]].append(w)
                continue
            c = counts[w]
            extra += (n - 1) * c
            self._merge_repeats(w, merged, j, a, b, new, c, delta)
        weight = counts.__getitem__
        for p, words in left.items():
            total = sum(map(weight, words))
            delta[p + a] -= total
            k = p + new
            delta[k] += total
            where[k].extend(words)
        for x, words in right.items():
            total = sum(map(weight, words))
            delta[b + x] -= total
            k = new + x
            delta[k] += total
            where[k].extend(words)
        return changed, sum(map(weight, changed)) + extra, old_segs

    def _merge_repeats(
        self, w: int, merged: str, j: int, a: str, b: str, new: str, c: int, delta: defaultdict[str, int]
    ) -> None:
        """Neighbour updates for a word with several occurrences of the merged pair."""
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
            self.where[k].append(w)

    def unmerge(self, pair: str, new: str, effect: MergeEffect) -> list[str]:
        """Undo :meth:`merge` exactly; returns the pairs whose counts went up (for the queue)."""
        a, b = pair[0], pair[1]
        segs, counts, where = self.segs, self.counts, self.where
        delta: defaultdict[str, int] = defaultdict(int)
        for w, nodes in effect.long.items():
            restored_pairs: set[str] = set()
            self.long[w].unmerge(pair, new, nodes, counts[w], delta, restored_pairs)
            for k in restored_pairs:
                where[k].append(w)
        if effect.old_segs is not None:
            for w, old in zip(effect.words, effect.old_segs, strict=True):
                self._diff_word(w, segs[w], old, counts[w], delta)
                segs[w] = old
        elif len(effect.words) >= min(BATCH_WORDS, UNDO_BATCH_WORDS):
            unmerge_many(
                segs, self._weights, effect.words, pair, new, separator(len(self.token_freq)), delta, where
            )
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
        replaced = effect.replacements
        if effect.old_segs is None:
            delta[pair] += replaced
        else:  # the diff path above restored the short words' count; long words still need theirs
            delta[pair] += sum(len(nodes[0]) * counts[w] for w, nodes in effect.long.items())
        increased: list[str] = []
        self._apply(delta, increased)
        if self._lazy:  # the words hold a and b again: they may be what undoing those will need
            for symbol in {ord(a), ord(b)}:
                if symbol in self._lazy:
                    self._lazy_words[symbol].extend(effect.words)
        freq = self.token_freq
        freq[ord(a)] += replaced
        freq[ord(b)] += replaced
        freq[ord(new)] -= replaced
        self.total_tokens += replaced
        # Undo re-lists the words of restored pairs, some of them listed already; a list longer
        # than twice the most live words it can have (its count) is compacted, so repeated
        # undo/redo never grows memory, without any global pause.
        pair_count = self.pair_count
        for k in increased:
            if len(where[k]) > 2 * pair_count[k] + 32:
                where[k] = array("i", self._listed_with(k))
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
        """Add ``delta`` to the pair counts, keeping the count histogram and word lists in step."""
        pair_count, hist, where, first = self.pair_count, self.count_hist, self.where, self._first
        if self.cold is not None:  # counts about to change are the index's from now on
            missing = [k for k in delta if k not in pair_count]
            if missing:
                pair_count.update(self.cold.take(missing))
        count_of, hist_of = pair_count.get, hist.get
        for k, dc in delta.items():
            if dc:
                old = count_of(k, 0)
                now = old + dc
                if old:
                    hist[old] -= 1  # zero entries are left in place: a lookup treats them as none
                if now:
                    hist[now] = hist_of(now, 0) + 1
                    pair_count[k] = now
                    if dc > 0:
                        increased.append(k)
                else:
                    del pair_count[k]
                    where.pop(k, None)
                    first.pop(k, None)
