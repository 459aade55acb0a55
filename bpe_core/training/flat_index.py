"""The pair index over flat word arrays: merges cost what they replace, whatever the corpus.

:class:`FlatIndex` keeps the same pair statistics as :class:`~bpe_core.training.pair_index.PairIndex`
(counts, their histogram, token frequencies) and answers the same questions, but holds the words
as slots (``bpe_core.training.flat_words``) and lists under each pair the *slots* where it
occurred, not the words. A merge then reads and writes only its occurrences and their
neighbours, all at once in numpy, with no Python object per word: on millions of word types an
early merge touching hundreds of thousands of words takes milliseconds. Lists are supersets (a
slot that no longer holds the pair is skipped when read), as the word lists are.

A merge of many slots, or the undo of the last merge, can also be worked out ahead, in the
background, and only written when it is made (:meth:`FlatIndex.prepare`, ``prepare_undo``): the
window asks for both once it is still.

It is the index of a corpus counted afresh; a session opened from a file starts from a cold
index instead (``PairIndex.from_cold``).
"""

from __future__ import annotations

import os
import threading
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from bpe_core.runtime.memory import release_free_memory
from bpe_core.training.cold_index import group_heads
from bpe_core.training.flat_words import Changes, FewMerges, FlatWords, Occurrences, Packed, Side
from bpe_core.training.initial_count import count_initial
from bpe_core.training.pair_index import _SORT_BITS, MergeEffect, PairIndex

# Merges listing at most this many slots (and undos of at most this many occurrences) run one
# occurrence at a time in Python (``FewMerges``); larger ones run vectorised.
FEW = 96
# Larger merges work on this many listed slots at a time (``FlatWords.cuts``).
PART = 1 << 14
# Merges replacing more occurrences than this keep them packed for undo (``Packed``): packing
# costs a few calls, worth it where the occurrences are many.
PACKED = 1024
# Merges listing at least this many slots are worked out ahead when asked (``FlatIndex.prepare``):
# smaller ones take a few milliseconds, not worth a thread's hand-over.
PREPARED = 1 << 15
# Threads a large merge's runs are worked on (see ``_each_part``).
THREADS = min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
# A list is cut to its live slots once it names more than twice its pair's count and this many
# more (``compact_ahead``): below that the stale slots cost less than the numpy calls to cut them.
COMPACTED = 256
# Listed slots checked at a time when lists are cut (each piece a millisecond or two): work ahead
# holds the interpreter meanwhile, and a merge asked for stops it between pieces.
COMPACTED_PIECE = 1 << 16
# A list of fewer ascending runs than one for this many slots is sorted by merging its runs
# (timsort): about as quick as a quicksort at that many, much quicker at fewer.
RUNS_MERGED = 1024


@dataclass(slots=True)
class FlatEffect(MergeEffect):
    """A merge's effect on a flat index: the occurrences it replaced, to be restored by undo.
    The words that changed (``words``) are kept only while the merge is the index's latest (or
    once an undo worked out ahead has undone it, which brings them), else worked out from the
    occurrences when asked (once a step, for the last merge only): kept for every merge, they
    took four bytes a changed word."""

    found: Occurrences | Packed | None = None  # packed for a merge of many occurrences
    flat: FlatWords | None = None  # the index's slots, shared

    @property
    def size(self) -> int:
        """How many occurrences the merge replaced."""
        if isinstance(self.found, Packed):
            return len(self.found.offsets)
        return 0 if self.found is None else len(self.found.merged)

    def occurrences(self) -> Occurrences:
        """The occurrences the merge replaced (none for an effect without them)."""
        if isinstance(self.found, Packed):
            return self.found.unpacked()
        return self.found if self.found is not None else Occurrences(*(np.zeros(0, dtype=np.int32),) * 2)

    @property
    def changed(self) -> list[int]:
        return self.changed_ids.tolist()

    @property
    def changed_ids(self) -> array[int]:
        if len(self.words) or self.found is None:  # the latest merge's words are kept: no unpacking
            return self.words[:]
        merged = self.occurrences().merged
        if not len(merged):
            return self.words[:]
        assert self.flat is not None
        words = self.flat.words_of(merged)
        return array("i", _distinct_run(words).astype(np.int32).tobytes())


@dataclass(frozen=True, slots=True)
class _Plan:
    """A merge worked out from the slots (written, or still to be written by ``_write``): its
    occurrences and the slot after each, where they split into the runs of words they were
    worked out in, each side's changed neighbour pairs (per neighbour: its symbol, the total
    weight and the slots of the pair gained, as ``_by_neighbour`` gives them), the changed words
    and the weighted number of replacements: about 24 bytes an occurrence in all."""

    found: Occurrences
    beyond: np.ndarray
    runs: np.ndarray  # where ``found`` splits into its runs (indexes into it)
    sides: list[list[tuple[str, int, bytes]]]
    words: array[int]
    replaced: int


@dataclass(frozen=True, slots=True)
class _UndoPlan:
    """The undo of a merge worked out from the slots (see ``_Plan``): the occurrences it
    restores, where they split into runs, each side's neighbour pairs (per neighbour: its
    symbol, the total weight and the slots of the pair restored), and the changed words."""

    found: Occurrences
    runs: np.ndarray
    sides: list[list[tuple[str, int, bytes]]]
    words: array[int]


class _Stop:
    """How work ahead is stopped, and how far it has come: ``worked`` of its ``runs`` of
    words (none of none until it starts; counted from two threads without a lock, so an
    estimate)."""

    __slots__ = ("_event", "runs", "worked")

    def __init__(self) -> None:
        self._event = threading.Event()
        self.runs = self.worked = 0

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def less_than_half(self) -> bool:
        return not self.runs or 2 * self.worked < self.runs


class _Compacting:
    """What the work ahead that cuts stale lists is named by (see ``FlatIndex.compact_ahead``)."""


COMPACTING = _Compacting()
Key = str | FlatEffect | _Compacting  # a merge's pair, an undo's effect, or COMPACTING


@dataclass(frozen=True, slots=True, eq=False)  # one piece of work: never equal to another
class _Ahead:
    """Work ahead (``FlatIndex.prepare``, ``prepare_undo``, ``compact_ahead``) and how to stop
    it: a merge's, named by its pair, an undo's, by the effect of the merge it undoes, or the
    cutting of stale lists, by ``COMPACTING``."""

    key: Key
    stop: _Stop
    work: Future[_Plan | _UndoPlan | list[str] | None]

    def is_for(self, key: Key | None) -> bool:
        return self.key is key or (isinstance(key, str) and self.key == key)


def _distinct_run(ascending: np.ndarray) -> np.ndarray:
    """An ascending array without its repeats."""
    if len(ascending) < 2:
        return ascending
    return ascending[np.concatenate(([True], ascending[1:] != ascending[:-1]))]


def _listed(slots: array[int]) -> np.ndarray:
    """A list's slots without repeats, ascending (as 4-byte ints, which sort and gather
    quicker than 8-byte ones).

    A list is a few ascending runs (each merge appends its slots in order), most often one. A
    list already in order is not sorted: a quicksort took 29 ms on a million slots in order,
    the check takes 0.3 ms. One of a few runs is merged by the stable sort (timsort): 8 ms on
    five runs of a million slots, against 32 ms."""
    ordered = np.frombuffer(slots, dtype=np.int32).copy() if len(slots) else np.zeros(0, dtype=np.int32)
    breaks = np.count_nonzero(ordered[1:] <= ordered[:-1])
    if not breaks:
        return ordered
    ordered.sort(kind="stable" if breaks * RUNS_MERGED < len(ordered) else "quicksort")
    return _distinct_run(ordered)


class FlatIndex(PairIndex):
    """A :class:`PairIndex` whose words are flat slots (see the module). Everything about
    pairs (counts, histogram, tokens) is the parent's; everything about words is here."""

    works_ahead = True

    def __init__(self, segs: list[str], counts: Sequence[int], n_symbols: int) -> None:
        self._setup(counts)
        found = count_initial(segs, self._weights, n_symbols, _SORT_BITS, slots=True)
        self.token_freq, self.total_tokens = found.token_freq, found.total_tokens
        self.pair_count, self.count_hist = found.pair_count, found.count_hist
        self.where.update(found.where)
        self.flat = FlatWords.from_segs(segs)
        self._few = FewMerges(self.flat, self._weights)
        self._latest: FlatEffect | None = None  # the last merge, which keeps its changed words
        self._ahead: list[_Ahead] = []  # work ahead, in the order asked (see prepare)
        # Pairs whose lists are mostly stale (see _note_stale), in the order to cut them (a dict
        # as an ordered set); None until lists are first cut (compact_ahead), so that training
        # with nothing to cut them notes nothing.
        self._stale: dict[str, None] | None = None
        # A list whose cut was stopped: the list as left, and how many of its first slots were
        # checked (the next cut goes on from there). Only the merge-ahead thread uses it.
        self._cut_part: dict[str, tuple[array[int], int]] = {}

    @staticmethod
    def fits(segs: list[str]) -> bool:
        """Whether the words' slots are few enough to be named in 4 bytes."""
        return sum(map(len, segs)) + len(segs) + 1 < 2**31

    # -- words -----------------------------------------------------------------------------

    def seg(self, w: int) -> str:
        return self.flat.seg(w)

    def has(self, w: int, pair: str) -> bool:
        return pair in self.flat.seg(w)

    def seg_length(self, w: int) -> int:
        return len(self.flat.word_symbols(w))

    def seg_lengths(self) -> np.ndarray:
        return self.flat.lengths()

    def position(self, w: int, pair: str) -> int:
        """Where ``pair`` first occurs in word ``w``, counted in slots (first symbols) from
        the word's start: it orders the word's occurrences, as a token index would."""
        start, stop = int(self.flat.bounds[w]) + 1, int(self.flat.bounds[w + 1])
        # Asked of a pair's first word, mostly: then the cached lowest slot, if still whole.
        cached = self._first.get(pair)
        if cached is not None:
            listed, covered, first = cached
            whole = listed is self.where.get(pair) and covered == len(listed)
            if whole and start <= first < stop and self._few.holds(first, ord(pair[0]), ord(pair[1])):
                return first - start
        slots = start + np.flatnonzero(self.flat.symbols[start:stop] == ord(pair[0]))
        slots = slots[self.flat.holds(slots, ord(pair[0]), ord(pair[1]))]
        return int(slots[0]) - start if len(slots) else -1

    def position_reader(self) -> Callable[[int, str], int]:
        return self.position

    def words_with_symbol(self, symbol: int) -> list[int]:
        return np.unique(self.flat.words_of(self.flat.slots_of(symbol))).tolist()

    def _holding(self, pair: str) -> np.ndarray:
        """The slots where ``pair`` occurs now, ascending."""
        listed = self.where.get(pair)
        if not listed:
            return np.zeros(0, dtype=np.int32)
        return self.flat.holding(_listed(listed), ord(pair[0]), ord(pair[1]))

    def replacements(self, pair: str) -> int:
        listed = self.where.get(pair)
        if not listed:
            return 0
        found = self.flat.occurrences(_listed(listed), ord(pair[0]), ord(pair[1]))
        return int(self._weights[self.flat.words_of(found.merged)].sum())

    def words_with(self, pair: str) -> list[int]:
        return np.unique(self.flat.words_of(self._holding(pair))).tolist()

    def word_count(self, pair: str) -> int:
        return len(self.words_with(pair))

    def first_word(self, pair: str) -> int:
        """The first word holding ``pair`` (a live pair): the word of its lowest slot.

        Lists name slots, and slots ascend with words. The lowest listed slot is cached with
        the list's length it covers and extended over new entries only; while it still holds
        the pair, its word is the answer. Once it does not, the lowest slot that does is looked
        for among the lowest listed ones, more each time (selected, not sorted: a list may name
        half a million slots), and the list cut to the slots from there on."""
        listed = self.where[pair]
        cached = self._first.get(pair)
        if cached is not None and cached[0] is listed:
            first = cached[2] if cached[1] == len(listed) else min(cached[2], min(listed[cached[1] :]))
        else:
            first = int(np.frombuffer(listed, dtype=np.int32).min())
        left, right = ord(pair[0]), ord(pair[1])
        if not self._few.holds(first, left, right):
            slots = np.frombuffer(listed, dtype=np.int32)
            first = self._lowest_holding(slots, left, right)
            listed = self.where[pair] = array("i", slots[slots >= first].tobytes())
        self._first[pair] = (listed, len(listed), first)
        return self._few.word_of(first)

    def _lowest_holding(self, slots: np.ndarray, left: int, right: int) -> int:
        """The lowest of ``slots`` where the pair occurs now (there is one). Most lists are in
        order (see ``_listed``): their lowest slots are their first, not selected."""
        ascending = not np.count_nonzero(slots[1:] < slots[:-1])
        wanted = 256
        while True:
            if ascending:
                lowest = slots[:wanted]
            else:
                lowest = np.sort(slots if wanted >= len(slots) else np.partition(slots, wanted - 1)[:wanted])
            holds = self.flat.holds(lowest, left, right)
            if holds.any() or wanted >= len(slots):
                return int(lowest[holds.argmax()])
            wanted *= 8

    # -- merge -----------------------------------------------------------------------------

    def prepare(self, pair: str) -> None:
        """Start working out the merge of ``pair`` in the background (a merge listing many
        slots only), so that merging it next only writes its slots: on millions of words the
        first merges take a tenth of a second, most of it reading. Work ahead for another pair
        is stopped. It only reads the slots, and a merge or undo waits for it before writing."""
        if self._asking(pair):
            listed = self.where.get(pair)
            if listed is not None and len(listed) >= PREPARED:
                self._ask(pair, self._plan, _listed(listed), ord(pair[0]), ord(pair[1]), None)

    def prepare_undo(self, pair: str, effect: MergeEffect) -> None:
        """Start working out the undo of the last merge (of ``pair``, which had ``effect``) in
        the background, as :meth:`prepare` does a merge: of many occurrences only."""
        if isinstance(effect, FlatEffect) and self._asking(effect) and effect.size >= PREPARED:
            self._ask(effect, self._undo_plan, effect, ord(pair[0]), ord(pair[1]), False)

    def _asking(self, key: Key) -> bool:
        """Whether work ahead for ``key`` is to be asked for: not if it is already. Work ahead
        of the same kind (another merge's, another undo's) is stopped: only one is next."""
        if any(ahead.is_for(key) and not ahead.stop.is_set() for ahead in self._ahead):
            return False
        for ahead in self._ahead:
            if type(ahead.key) is type(key):
                ahead.stop.set()  # still waited for by the next merge or undo (see _prepared)
        return True

    def _ask(self, key: Key, work: Callable[..., _Plan | _UndoPlan | list[str] | None], *args: Any) -> None:
        """Have ``work`` done ahead, after what was asked before. A merge or undo asked for
        stops the cutting of lists first (it would wait behind it); what is left uncut is
        noted again, and cut after."""
        if key is not COMPACTING:
            for ahead in self._ahead:
                if ahead.key is COMPACTING:
                    ahead.stop.set()
        self._drop_stopped()
        stop = _Stop()
        self._ahead.append(_Ahead(key, stop, _preparer().submit(work, *args, stop=stop)))

    def _drop_stopped(self) -> None:
        """Forget work ahead that was stopped and is done, noting again what a cutting of
        lists left uncut."""
        kept = []
        for ahead in self._ahead:
            if not (ahead.stop.is_set() and ahead.work.done()):
                kept.append(ahead)
            elif ahead.key is COMPACTING:
                self._note_left_uncut(ahead)
        self._ahead = kept

    def _note_left_uncut(self, ahead: _Ahead) -> None:
        """Note again the pairs a cutting of lists that is done left uncut (if it failed, none:
        the lists are supersets either way)."""
        try:
            left = ahead.work.result()
        except Exception:
            return
        if isinstance(left, list) and self._stale is not None:
            self._stale.update(dict.fromkeys(left))

    def _note_stale(self, delta: dict[str, int]) -> None:
        """Note the pairs a merge took occurrences from whose lists now mostly name slots that
        no longer hold them. Lists are supersets: the neighbours a merge takes keep their slots
        listed, and on two million word types these were over half of all listed slots after 200
        merges (a hundred megabytes). A pair's count is at least its live occurrences (each
        weighs one or more), so a list over twice as long is mostly stale. Nothing is noted
        until lists are first cut: the command line never cuts them."""
        pair_count, where, stale = self.pair_count, self.where, self._stale
        if stale is None:
            return
        for k, dc in delta.items():
            if dc < 0 and (count := pair_count.get(k)) and len(where.get(k, ())) > 2 * count + COMPACTED:
                stale[k] = None

    def compact_ahead(self) -> None:
        """Cut the lists noted stale to the slots that still hold their pairs, in the background
        after any other work ahead (checking a slot costs about 30 ns, mostly a cache miss: done
        in the merge itself, this took five milliseconds a step). Each cut at least halves a
        list, so the work is a few checks a slot ever listed, however long the training. A
        merge or undo stops it and waits, as it does any work ahead; pairs left unchecked are
        noted again."""
        if self._stale is None:
            self._stale = {}  # noted from now on
        self._drop_stopped()
        cutting = any(ahead.key is COMPACTING and not ahead.stop.is_set() for ahead in self._ahead)
        if self._stale and not cutting:
            pairs, self._stale = list(self._stale), {}
            self._ask(COMPACTING, self._compacted, pairs)

    def _compacted(self, pairs: list[str], stop: _Stop) -> list[str]:
        """Cut the lists of ``pairs`` (see :meth:`compact_ahead`); the pairs left when stopped,
        the one stopped in last (so that the others get their turn: it goes on from where it
        was stopped). Only the slots are read, and a list is replaced only whole, by the same
        slots less stale ones: a reader on the GUI thread meanwhile sees either, both valid."""
        where, pair_count, cut_part = self.where, self.pair_count, self._cut_part
        cut = False
        for i, k in enumerate(pairs):
            if stop.is_set():
                return pairs[i:]
            listed, count = where.get(k), pair_count.get(k, 0)
            if listed is None or len(listed) <= 2 * count + COMPACTED:
                cut_part.pop(k, None)
                continue
            part = cut_part.pop(k, None)
            kept, checked = self._live_slots(listed, k, stop, part[1] if part and part[0] is listed else 0)
            where[k] = kept
            self._settled[k] = len(kept)  # undo's own cut goes by the length at the last cut
            self._first.pop(k, None)  # its cached lowest slot holds the old list
            cut = True
            if checked is not None:
                cut_part[k] = (kept, checked)
                return [*pairs[i + 1 :], k]
        if cut:
            release_free_memory()  # the old lists' pages, in this thread's arena
        return []

    def _live_slots(
        self, listed: array[int], pair: str, stop: _Stop, begin: int = 0
    ) -> tuple[array[int], int | None]:
        """``listed`` less the slots from ``begin`` on that no longer hold ``pair``, in their
        order; once ``stop`` is set, with the slots not yet checked as they are, and how many
        of the first are checked (else ``None``)."""
        slots = np.frombuffer(listed, dtype=np.int32)
        left, right = ord(pair[0]), ord(pair[1])
        kept = array("i", slots[:begin].tobytes())
        for at in range(begin, len(slots), COMPACTED_PIECE):
            if stop.is_set():
                checked = len(kept)
                kept.frombytes(slots[at:].tobytes())
                return kept, checked
            piece = slots[at : at + COMPACTED_PIECE]
            kept.frombytes(piece[self.flat.holds(piece, left, right)].tobytes())
        return kept, None

    def stop_ahead(self) -> None:
        """Stop any work ahead, without waiting for it: the index is being let go (a reset, a
        new corpus, the window closing), and work for it would only hold its slots and delay
        the next index's."""
        asked, self._ahead = self._ahead, []
        for ahead in asked:
            ahead.stop.set()

    def _prepared(self, key: str | FlatEffect) -> Any:
        """The work ahead for ``key`` (a merge's pair, an undo's effect), if it was done; any
        other is stopped. So is its own if less than half of its runs of words are worked out:
        worked out here, each run is read and written at once, about 35 ms for 430,000
        occurrences where reading them ahead and then writing them takes 50. Either way, once
        this returns nothing in the background reads the slots (work ahead runs on one thread,
        in the order asked, and every piece is waited for). Work ahead that failed is as none:
        the merge or undo is worked out again, here, where an error is raised as any merge's."""
        asked, self._ahead = self._ahead, []
        for ahead in asked:
            if not ahead.is_for(key) or (not ahead.work.done() and ahead.stop.less_than_half()):
                ahead.stop.set()
        wanted = None
        for ahead in asked:
            try:
                plan = ahead.work.result()
            except Exception:
                continue
            if ahead.key is COMPACTING:
                self._note_left_uncut(ahead)
            elif plan is not None and ahead.is_for(key):
                wanted = plan
        return wanted

    def merge(self, pair: str, new: str, fresh: bool) -> FlatEffect:
        """Replace every occurrence of ``pair`` by the symbol ``new`` and update all statistics
        (``fresh`` needs no different handling here: undo restores slots, not strings)."""
        a, b = pair[0], pair[1]
        plan: _Plan | None = self._prepared(pair) if self._ahead else None
        if self.flat.fit(ord(new)):  # nothing reads the slots now: work ahead was waited for
            self._few = FewMerges(self.flat, self._weights)
        listed = self.where.pop(pair, None) or array("i")
        self._first.pop(pair, None)
        delta: defaultdict[str, int] = defaultdict(int)
        words = array("i")
        found: Occurrences | Packed
        if plan is not None:
            self._write(plan, ord(new))
        elif len(listed) > FEW:
            plan = self._plan(_listed(listed), ord(a), ord(b), ord(new))
        if plan is None:
            found, replaced = self._few.merge(sorted(set(listed)), a, b, new, delta, self.where)
        else:
            for groups, (lost, gained) in zip(plan.sides, _side_pairs(a, b, new), strict=True):
                for x, total, slots in groups:
                    delta[lost(x)] -= total
                    delta[gained(x)] += total
                    self.where[gained(x)].frombytes(slots)
            found = Packed.of(plan.found) if len(plan.found.merged) > PACKED else plan.found
            replaced, words = plan.replaced, plan.words
        delta[pair] -= replaced
        if self._latest is not None:
            self._latest.words = array("i")
        effect = self._latest = FlatEffect(words, replaced, found=found, flat=self.flat)
        self._apply(delta, effect.increased)
        self._note_stale(delta)
        freq = self.token_freq
        freq[ord(a)] -= replaced
        freq[ord(b)] -= replaced
        freq[ord(new)] += replaced
        self.total_tokens -= replaced
        return effect

    def _plan(
        self,
        ascending: np.ndarray,
        left: int,
        right: int,
        token: int | None,
        stop: _Stop | None = None,
    ) -> _Plan | None:
        """The merge of the pair ``(left, right)`` listed at the ``ascending`` slots, worked out
        in numpy a run of words at a time (see ``_each_part``). With a ``token`` each run is
        also written as it is worked out, while its slots are in the processor's cache; without
        one nothing is written (see :meth:`prepare`). ``None`` once ``stop`` is set."""
        flat, weights = self.flat, self._weights

        def worked(part: np.ndarray) -> tuple[Occurrences, Changes] | None:
            if stop is not None and stop.is_set():
                return None
            found = flat.occurrences(part, left, right)
            changes = flat.changes(found, weights)
            if token is not None:
                flat.merge(found, token, changes.beyond)
            if stop is not None:
                stop.worked += 1
            return found, changes

        cuts = flat.cuts(ascending, PART)
        runs = _worked_runs(worked, np.split(ascending, cuts) if len(cuts) else [ascending], stop)
        if runs is None:
            return None
        found, changes = _concatenated([f for f, _ in runs]), _concatenated([c for _, c in runs])
        if stop is not None and stop.is_set():  # the grouping below takes a few milliseconds
            return None
        return _Plan(
            found,
            changes.beyond,
            np.cumsum([len(f.merged) for f, _ in runs[:-1]], dtype=np.int64),
            [list(_by_neighbour(side, side.gained_at)) for side in changes[:3]],
            array("i", _distinct_run(changes.words).astype(np.int32, copy=False).tobytes()),
            _total(changes.own),
        )

    def _undo_plan(
        self, effect: FlatEffect, left: int, right: int, write: bool, stop: _Stop | None = None
    ) -> _UndoPlan | None:
        """The undo of the merge of ``(left, right)`` that had ``effect``, worked out a run of
        words at a time: written as it goes (``write``: each run is restored, then read as it
        is before the merge), or not (read as it is after the merge, see ``prepare_undo``)."""
        flat, weights = self.flat, self._weights

        def worked(run: Occurrences) -> Changes | None:
            if stop is not None and stop.is_set():
                return None
            if write:
                flat.unmerge(run, left, right)
                return flat.changes(run, weights)
            changes = flat.changes_undone(run, weights, right)
            if stop is not None:
                stop.worked += 1
            return changes

        found = effect.occurrences()
        cuts = flat.cuts(found.merged, PART)
        runs = [Occurrences(*run) for run in zip(*(np.split(slots, cuts) for slots in found), strict=True)]
        changes = _worked_runs(worked, runs, stop)
        if changes is None:
            return None
        joined = _concatenated(changes)
        if stop is not None and stop.is_set():  # the grouping below takes a few milliseconds
            return None
        return _UndoPlan(
            found,
            cuts,
            [list(_by_neighbour(side, side.lost_at)) for side in joined[:3]],
            array("i", _distinct_run(joined.words).astype(np.int32, copy=False).tobytes()),
        )

    def _write(self, plan: _Plan, token: int) -> None:
        """Write a merge worked out ahead into the slots, a run of words at a time."""
        flat, cuts = self.flat, plan.runs
        runs = zip(*(np.split(slots, cuts) for slots in (*plan.found, plan.beyond)), strict=True)
        _each_part(lambda run: flat.merge(Occurrences(run[0], run[1]), token, run[2]), list(runs))

    def unmerge(self, pair: str, new: str, effect: MergeEffect) -> list[str]:
        """Undo :meth:`merge` exactly; returns the pairs whose counts went up."""
        assert isinstance(effect, FlatEffect)
        a, b = pair[0], pair[1]
        plan: _UndoPlan | None = self._prepared(effect) if self._ahead else None
        delta: defaultdict[str, int] = defaultdict(int)
        if plan is not None:
            flat, left, right = self.flat, ord(a), ord(b)
            runs = zip(*(np.split(slots, plan.runs) for slots in plan.found), strict=True)
            _each_part(lambda run: flat.unmerge(Occurrences(*run), left, right), list(runs))
            effect.words = plan.words  # its changed words, as the latest merge's are kept
        elif effect.size > FEW:
            plan = self._undo_plan(effect, ord(a), ord(b), True)
        else:
            self._few.unmerge(effect.occurrences(), a, b, new, delta, self.where)
        if plan is not None:
            for groups, (lost, gained) in zip(plan.sides, _side_pairs(a, b, new), strict=True):
                for x, total, slots in groups:
                    delta[lost(x)] += total
                    delta[gained(x)] -= total
                    self.where[lost(x)].frombytes(slots)
            self.where[pair].frombytes(plan.found.merged.astype(np.int32).tobytes())
        replaced = effect.replacements
        delta[pair] += replaced
        increased: list[str] = []
        self._apply(delta, increased)
        freq = self.token_freq
        freq[ord(a)] += replaced
        freq[ord(b)] += replaced
        freq[ord(new)] -= replaced
        self.total_tokens += replaced
        # As in PairIndex.unmerge: a list re-listing has doubled is compacted, so undo and redo
        # again and again never grow memory.
        pair_count, settled, where = self.pair_count, self._settled, self.where
        for k in increased:
            size = len(where[k])
            if size > 2 * pair_count[k] + 32 and size > 2 * settled.setdefault(k, size):
                compacted = where[k] = array("i", self._holding(k).astype(np.int32).tobytes())
                settled[k] = len(compacted)
        return increased


Part = TypeVar("Part")
Done = TypeVar("Done")
_pool: ThreadPoolExecutor | None = None
_ahead_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _each_part(work: Callable[[Part], Done], parts: list[Part]) -> list[Done]:
    """``work`` done on each part, in order. Parts are runs of whole words, so no two read or
    write the same slots: a merge of many runs works them on two threads at once (numpy lets
    go of the interpreter while it gathers and scatters), and the first 200 merges of two
    million word types take about four fifths of the time. A part that fails is raised only
    once every part has stopped: none is still writing slots while the caller hears of it."""
    global _pool
    if len(parts) < 2 or THREADS < 2:
        return [work(part) for part in parts]
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="merge")
        pool = _pool
    running = [pool.submit(work, part) for part in parts]
    wait(running)
    return [done.result() for done in running]


def _worked_runs(
    work: Callable[[Part], Done | None], runs: list[Part], stop: _Stop | None
) -> list[Done] | None:
    """``work`` done on each run of words (see ``_each_part``), counted in ``stop``; ``None``
    if ``stop`` was set meanwhile (a run it stopped gives ``None``)."""
    if stop is not None:
        stop.runs = len(runs)
    done = _each_part(work, runs)
    worked = [part for part in done if part is not None]
    if len(worked) < len(done) or (stop is not None and stop.is_set()):
        return None
    return worked


def _preparer() -> ThreadPoolExecutor:
    """The one thread merges are worked out ahead on (see ``FlatIndex.prepare``): one, so that
    work asked last ends last. It hands each merge's runs to the merge threads."""
    global _ahead_pool
    with _pool_lock:
        if _ahead_pool is None:
            _ahead_pool = ThreadPoolExecutor(1, thread_name_prefix="merge-ahead")
        return _ahead_pool


def _forget_pool() -> None:
    """In a forked child, which has none of its parent's threads (nor a say in its locks)."""
    global _pool, _ahead_pool, _pool_lock
    _pool, _ahead_pool, _pool_lock = None, None, threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX: Windows never forks
    os.register_at_fork(after_in_child=_forget_pool)

Keys = Callable[[str], str]
RADIX_SORTED = 1024  # neighbours sorted by radix above this many (fewer: the narrowing costs more)


def _side_pairs(a: str, b: str, new: str) -> list[tuple[Keys, Keys]]:
    """For each side of a merge's changes (left, right, joined: see ``Changes``), the pair it
    loses and the pair it gains, by neighbour."""
    return [
        (lambda x: x + a, lambda x: x + new),
        (lambda x: b + x, lambda x: new + x),
        (lambda x: b + a, lambda x: new + new),
    ]


def _concatenated(parts: list) -> Any:
    """Tuples of arrays (or of such tuples) of the same kind joined field by field."""
    if len(parts) == 1:
        return parts[0]
    return type(parts[0])(
        *(
            _concatenated(list(fields)) if isinstance(fields[0], tuple) else np.concatenate(fields)
            for fields in zip(*parts, strict=True)
        )
    )


def _total(weights: np.ndarray) -> int:
    return int(weights.sum())


def _by_neighbour(side: Side, slots: np.ndarray) -> Iterator[tuple[str, int, bytes]]:
    """Per distinct neighbour symbol of ``side``: the symbol, its occurrences' total weight and
    their ``slots`` (as the bytes of an ``array("i")``)."""
    neighbours = side.neighbour
    if not len(neighbours):
        return
    # Neighbours are token ids: many are sorted as 2-byte keys, which numpy sorts by radix.
    narrow = len(neighbours) > RADIX_SORTED and int(neighbours.max()) < 1 << 16
    order = np.argsort(neighbours.astype(np.uint16) if narrow else neighbours, kind="stable")
    ordered = neighbours[order]
    heads = group_heads(ordered)
    totals = np.add.reduceat(side.weight[order], heads, dtype=np.int64)
    listed = slots[order].astype(np.int32, copy=False).tobytes()
    bounds = [*(4 * heads).tolist(), len(listed)]
    for i, (x, total) in enumerate(zip(ordered[heads].tolist(), totals.tolist(), strict=True)):
        yield chr(x), total, listed[bounds[i] : bounds[i + 1]]
