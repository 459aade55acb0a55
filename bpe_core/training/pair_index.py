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

Words are held in stores (``bpe_core.training.word_store``): warm strings, long words as linked
lists, and, in an index made when a session opens, a "cold" part (``bpe_core.training.cold_index``)
whose words and pair counts are flat arrays. A cold word warms up the first time a merge or an
undo touches it; a pair's count moves out of the cold part the first time it changes. Queries
read every store; the merge loops (``word_merge``, ``batch_merge``) only ever see warm words.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import compress, repeat
from operator import contains

import numpy as np

from bpe_core.pipeline.word_types import Counts
from bpe_core.training.batch_merge import (
    Segs,
    distinct,
    merge_many,
    separator,
    sorted_distinct,
    unmerge_many,
)
from bpe_core.training.cold_index import SLICE, ColdIndex, group_heads, grouped, key_of
from bpe_core.training.initial_count import count_initial
from bpe_core.training.long_word import LongWord
from bpe_core.training.word_merge import (
    Delta,
    merge_long,
    merge_words,
    restore_words,
    unmerge_long,
    unmerge_words,
)
from bpe_core.training.word_store import ColdWords, LongWords, WarmWords, WordStore

# Words longer than this many symbols are linked lists (``bpe_core.training.long_word``): a merge then
# costs work proportional to the occurrences it replaces, not to the word's length.
LONG_WORD = 4096
# Merges (and undos) touching at least this many words run vectorised (``batch_merge``); below
# that the per-word loop wins. Undo's vectorised path has less fixed cost, hence its lower bar.
BATCH_WORDS = 1024
UNDO_BATCH_WORDS = 256
_SORT_BITS = 63  # a pair's code and its word sort as one int64 while they fit in this many bits
# A new, empty word list (a C callable: ``defaultdict`` calls it for every new pair).
_word_list = partial(array, "i")


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

    @property
    def changed_ids(self) -> array[int]:
        """Every word type that changed, as a new 4-byte array: an early merge of a large corpus
        changes hundreds of thousands, which as Python ints would take tens of milliseconds."""
        changed = self.words[:]
        changed.extend(self.long)
        return changed


def _smallest(words: array[int], start: int) -> int:
    """The smallest of ``words[start:]`` (not empty): numpy reads a long list in place."""
    if len(words) - start > 256:
        return int(np.frombuffer(words, dtype=np.int32)[start:].min())
    return min(words[start:])


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

    pair_count: dict[str, int]
    count_hist: dict[int, int]
    token_freq: array[int]
    total_tokens: int

    def __init__(self, segs: list[str], counts: Sequence[int], n_symbols: int) -> None:
        self._setup(counts)
        self.segs: Segs = segs
        found = count_initial(segs, self._weights, n_symbols, _SORT_BITS)
        self.token_freq, self.total_tokens = found.token_freq, found.total_tokens
        self.pair_count, self.count_hist = found.pair_count, found.count_hist
        self.where.update(found.where)
        lengths = np.fromiter(map(len, segs), dtype=np.int64, count=len(segs))  # in C: millions of words
        self.long.update((w, LongWord(segs[w])) for w in np.flatnonzero(lengths > LONG_WORD).tolist())
        for w in self.long:
            segs[w] = ""  # never read: LongWord holds it
        self._hold(segs)

    def _setup(self, counts: Sequence[int]) -> None:
        # An ``array`` (Counts): indexing gives plain ints, and numpy views it without a copy.
        stored = counts if isinstance(counts, Counts) else Counts(counts)
        self.counts = stored.values
        self._weights = stored.numpy()
        self.pair_count = {}
        self.where: defaultdict[str, array[int]] = defaultdict(_word_list)
        self.count_hist = {}
        self._first: dict[str, tuple[array[int], int, int]] = {}  # see first_word
        self._settled: dict[str, int] = {}  # pair -> its list's length when undo last compacted it
        self.long: dict[int, LongWord] = {}
        self.cold: ColdIndex | None = None
        self._lazy = range(0)
        self._lazy_words: defaultdict[int, array[int]] = defaultdict(_word_list)

    def _hold(self, segs: Segs) -> None:
        """Name the stores holding the words, in the order a word is looked for in them."""
        self.segs = segs
        stores: list[WordStore] = [WarmWords(segs)]
        if self.long:
            stores.insert(0, LongWords(self.long))
        if self.cold is not None:
            stores.append(ColdWords(self.cold))
        self._stores = tuple(stores)

    @classmethod
    def from_cold(cls, cold: ColdIndex, counts: Sequence[int], n_symbols: int, lazy: range) -> PairIndex:
        """An index starting from ``cold`` (no long words). ``lazy`` are the tokens of merges
        whose changed words were not kept (a session's): :meth:`lazy_words` finds them."""
        index = cls.__new__(cls)
        index._setup(counts)
        index.cold = cold
        index._hold({})
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

    # -- words -----------------------------------------------------------------------------

    def _store_of(self, w: int) -> WordStore:
        """The store holding word ``w``."""
        stores = self._stores
        if len(stores) > 1:
            for store in stores:
                if store.holds(w):
                    return store
        return stores[-1]

    def seg(self, w: int) -> str:
        """Word ``w``'s current segmentation as a symbol string."""
        return self._store_of(w).seg(w)

    def has(self, w: int, pair: str) -> bool:
        return self._store_of(w).has(w, pair)

    def seg_length(self, w: int) -> int:
        return self._store_of(w).length(w)

    def seg_lengths(self) -> np.ndarray:
        """Every word's current number of symbols."""
        lengths = np.zeros(len(self.counts), dtype=np.int64)
        for store in reversed(self._stores):  # a store asked first overrides those after it
            store.write_lengths(lengths)
        return lengths

    def position(self, w: int, pair: str) -> int:
        """Where ``pair`` first occurs in word ``w``: a number that orders occurrences."""
        return self._store_of(w).position(w, pair)

    def position_reader(self) -> Callable[[int, str], int]:
        """:meth:`position` as the quickest callable for many words: while every word is a warm
        string (training from a text), the string's own ``find``, without a store to ask."""
        segs = self.segs
        if len(self._stores) == 1 and isinstance(segs, list):
            return lambda w, pair: segs[w].find(pair)
        return self.position

    def words_with_symbol(self, symbol: int) -> list[int]:
        """Word indices whose segmentation holds ``symbol``, ascending."""
        return sorted({w for store in self._stores for w in store.words_with_symbol(symbol)})

    def replacements(self, pair: str) -> int:
        """How many replacements merging ``pair`` would make (non-overlapping, weighted)."""
        counts, store_of = self.counts, self._store_of
        return sum(store_of(w).replacements(w, pair) * counts[w] for w in self.words_with(pair))

    # -- pairs -----------------------------------------------------------------------------

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

    def _listed_has(self, w: int, pair: str) -> bool:
        """Whether a listed word (a warm or a long one) holds ``pair``."""
        long = self.long
        if long and w in long:
            return long[w].contains(pair)
        return pair in self.segs[w]

    def _listed_with(self, pair: str) -> list[int]:
        """The listed (warm or long) words containing ``pair``, ascending, each once. A list
        may hold hundreds of thousands of words that held the pair once: without long words
        (whose strings are not kept current) they are sorted and checked in C."""
        listed = self.where.get(pair)
        if not listed:
            return []
        ordered = distinct(listed)
        if self.long:
            has = self._listed_has
            return [w for w in ordered if has(w, pair)]
        holding = map(contains, map(self.segs.__getitem__, ordered), repeat(pair))
        return list(compress(ordered, holding))

    def first_word(self, pair: str) -> int:
        """Index of the first word type (in order of first appearance) containing ``pair``.

        Only called for live pairs: the first of its listed (warm) words and, with a cold part,
        of the cold words holding it (``ColdIndex.first_word``).
        """
        listed = self._first_listed(pair)
        if self.cold is None:
            assert listed is not None, "first_word is only asked of live pairs"
            return listed
        cold = self.cold.first_word(pair)
        if cold is None or (listed is not None and listed < cold):
            assert listed is not None, "first_word is only asked of live pairs"
            return listed
        return cold

    def _first_listed(self, pair: str) -> int | None:
        """The first listed word still containing ``pair``, or ``None``.

        Word lists only grow at the end (or are replaced whole), so the minimum is cached with
        the length it covers and extended over new entries only. When that minimum is stale the
        list is sorted and deduplicated (numpy: an early merge of a large corpus leaves lists of
        hundreds of thousands of words) and only its stale prefix dropped: later stale entries
        are harmless, and re-sorting a sorted list is cheap.
        """
        words = self.where.get(pair)
        if not words:
            return None
        cached = self._first.get(pair)
        if cached is not None and cached[0] is words:
            first = cached[2] if cached[1] == len(words) else min(cached[2], _smallest(words, cached[1]))
        else:
            first = _smallest(words, 0)
        long = self.long  # the check below is _listed_has, inlined: this runs once a merge or more
        if not (long[first].contains(pair) if long and first in long else pair in self.segs[first]):
            ordered = sorted_distinct(words)
            words = self.where[pair] = array("i")
            words.frombytes(ordered[self._first_holding(ordered, pair) :].astype(np.int32).tobytes())
            if not words:
                self._first.pop(pair, None)
                return None
            first = words[0]
        self._first[pair] = (words, len(words), first)
        return first

    def _first_holding(self, ordered: np.ndarray, pair: str) -> int:
        """Where the first word holding ``pair`` is in ``ordered`` (listed words, ascending, the
        first known not to), or its length: read in chunks that double, so that a short stale
        prefix costs little and a long one few conversions."""
        has, start, size = self._listed_has, 1, 64
        while start < len(ordered):
            for offset, w in enumerate(ordered[start : start + size].tolist()):
                if has(w, pair):
                    return start + offset
            start, size = start + size, 2 * size
        return len(ordered)

    # -- warming up (an index with a cold part) ---------------------------------------------

    def _warm_up(self, words: np.ndarray) -> None:
        """Hold the cold ``words`` as strings from now on, their pairs listed, and each listed
        under the lazy tokens it holds."""
        cold = self.cold
        if cold is None or not len(words):
            return
        symbols, lengths, holders = cold.warm_up(words)
        self.segs.update(zip(words.tolist(), cold.segs(symbols, lengths), strict=True))  # type: ignore[union-attr]
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
        self._hold(self.segs)

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

    # Whether merges can be worked out ahead (``FlatIndex``); here a merge works on the words it
    # lists, and nothing is worth doing ahead.
    works_ahead = False

    def prepare(self, pair: str) -> None:
        """Work out the merge of ``pair`` ahead, where the index can (see ``works_ahead``)."""

    def prepare_undo(self, pair: str, effect: MergeEffect) -> None:
        """Work out the undo of the last merge ahead, where the index can."""

    def compact_ahead(self) -> None:
        """Cut the lists that name mostly stale entries, in the background, where the index can."""

    def stop_ahead(self) -> None:
        """Stop work ahead, without waiting for it (the index is being let go)."""

    def merge(self, pair: str, new: str, fresh: bool) -> MergeEffect:
        """Replace every occurrence of ``pair`` by the symbol ``new`` and update all statistics.

        ``fresh`` says ``new`` occurs nowhere yet (the usual case). Otherwise words that already
        contain ``new`` take a slower path that diffs their pairs, and their old segmentations are
        kept for undo.
        """
        if self.cold is not None:
            self._warm_up(self.cold.words_with_pair(pair))
        segs, where, long = self.segs, self.where, self.long
        candidates: Sequence[int] = where.pop(pair, ())
        self._first.pop(pair, None)
        delta: Delta = defaultdict(int)
        gained: dict[str, int] = {}  # counts of pairs made by this merge (a fresh ``new`` only)
        old_segs: list[str] | None = None
        long_nodes: dict[int, tuple[list[int], list[int]]] = {}
        long_replaced = 0
        if long and any(w in long for w in candidates):
            long_replaced = merge_long(long, self.counts, where, candidates, pair, new, delta, long_nodes)
            # Only the short words that hold the pair: the vectorised path needs at least one.
            candidates = [w for w in candidates if w not in long and pair in segs[w]]
        if fresh and len(candidates) >= BATCH_WORDS:
            sep = separator(len(self.token_freq))
            changed, replaced = merge_many(
                segs, self._weights, candidates, pair, new, sep, delta, where, gained
            )
        else:
            changed, replaced, old_segs = merge_words(
                segs, self.counts, where, candidates, pair, new, fresh, delta, gained
            )
        replaced += long_replaced
        delta[pair] -= replaced
        effect = MergeEffect(array("i", changed), replaced, [], old_segs, long_nodes)
        self._gain(gained, effect.increased)  # first: a long word may have made the same pairs
        self._apply(delta, effect.increased)
        freq = self.token_freq
        freq[ord(pair[0])] -= replaced
        freq[ord(pair[1])] -= replaced
        freq[ord(new)] += replaced
        self.total_tokens -= replaced
        return effect

    def unmerge(self, pair: str, new: str, effect: MergeEffect) -> list[str]:
        """Undo :meth:`merge` exactly; returns the pairs whose counts went up (for the queue)."""
        segs, counts, where = self.segs, self.counts, self.where
        delta: Delta = defaultdict(int)
        unmerge_long(self.long, counts, where, effect.long, pair, new, delta)
        if effect.old_segs is not None:
            restore_words(segs, counts, where, effect.words, effect.old_segs, delta)
        elif len(effect.words) >= min(BATCH_WORDS, UNDO_BATCH_WORDS):
            sep = separator(len(self.token_freq))
            unmerge_many(segs, self._weights, effect.words, pair, new, sep, delta, where)
        else:
            unmerge_words(segs, counts, where, effect.words, pair, new, delta)
        replaced = effect.replacements
        if effect.old_segs is None:
            delta[pair] += replaced
        else:  # the diff path above restored the short words' count; long words still need theirs
            delta[pair] += sum(len(nodes[0]) * counts[w] for w, nodes in effect.long.items())
        increased: list[str] = []
        self._apply(delta, increased)
        a, b = pair[0], pair[1]
        if self._lazy:  # the words hold a and b again: they may be what undoing those will need
            for symbol in {ord(a), ord(b)}:
                if symbol in self._lazy:
                    self._lazy_words[symbol].extend(effect.words)
        freq = self.token_freq
        freq[ord(a)] += replaced
        freq[ord(b)] += replaced
        freq[ord(new)] -= replaced
        self.total_tokens += replaced
        # Undo re-lists the words of restored pairs, some of them listed already. A list longer
        # than twice the most live words it can have (its count) is compacted once re-listing
        # has doubled it (or since its last compaction), so repeated undo/redo never grows
        # memory, without any global pause. Not sooner: a list may hold hundreds of thousands
        # of words that lost the pair to later merges, and checking them all, for each pair an
        # undo restores, took undos of half a second.
        pair_count, settled = self.pair_count, self._settled
        for k in increased:
            listed = len(where[k])
            if listed > 2 * pair_count[k] + 32 and listed > 2 * settled.setdefault(k, listed):
                compacted = where[k] = array("i", self._listed_with(k))
                settled[k] = len(compacted)
        return increased

    def _gain(self, gained: dict[str, int], increased: list[str]) -> None:
        """Store the counts of pairs a merge made with its fresh token: none of them was live,
        so no old count is read and nothing is taken from a cold part."""
        if self.cold is not None:  # a token id an undo freed may still name pairs there
            self._apply(gained, increased)
            return
        hist = self.count_hist
        hist_of = hist.get
        for now in gained.values():
            hist[now] = hist_of(now, 0) + 1
        self.pair_count.update(gained)
        increased.extend(gained)

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
