"""The flat index answers every question as the string index does, through any sequence of
merges (into fresh tokens or into tokens that already occur) and undos, and restores every
slot on undo, whatever width the same token has in different places."""

from concurrent.futures import wait
from itertools import pairwise
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.training import flat_index, flat_words
from bpe_core.training.flat_index import FEW, PACKED, FlatIndex
from bpe_core.training.flat_words import NARROW_MAX, FlatWords, Occurrences, Packed
from bpe_core.training.pair_index import PairIndex

ALPHABET = "abcd"
FIRST_NEW = ord("e")


def state(index: PairIndex, n_words: int) -> tuple:
    live = dict(index.pair_count)
    return (
        live,
        list(index.token_freq),
        index.total_tokens,
        [index.seg(w) for w in range(n_words)],
        {k: (index.words_with(k), index.replacements(k), index.first_word(k)) for k in live},
        list(index.seg_lengths()),
        {chr(s): index.words_with_symbol(s) for s in range(FIRST_NEW - 4, FIRST_NEW + 8)},
    )


words_strategy = st.lists(st.text(ALPHABET, min_size=0, max_size=12), min_size=1, max_size=8)
ops_strategy = st.lists(st.tuples(st.booleans(), st.integers(0, 10**6), st.integers(0, 10**6)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    words=words_strategy,
    counts=st.data(),
    ops=ops_strategy,
    few=st.sampled_from([0, 3, 10**9]),
    part=st.sampled_from([1, 2, 5, 1 << 12]),  # large merges worked a few words at a time, or at once
    # below which occurrences stay unpacked, neighbours are not radix-sorted and words are
    # binary-searched (one by one in Python, for a few): 0 takes the way of the many on any size
    few_of_many=st.sampled_from([0, 1024]),
    threads=st.sampled_from([1, 2]),  # a merge's runs of words worked one after another, or two at once
    # the highest id 2-byte slots hold: below the alphabet and most words' lengths (4 bytes from
    # the start), the second new token's (widened on its first merge), or the real one
    narrow_max=st.sampled_from([5, FIRST_NEW + 1, NARROW_MAX]),
    # the few-occurrence merges read each slot's weight from a copy a slot, or look its word up
    slot_weights_most=st.sampled_from([0, 1 << 22]),
)
def test_flat_index_matches_the_string_index_through_merges_and_undos(
    words, counts, ops, few, part, few_of_many, threads, narrow_max, slot_weights_most
):
    with (
        patch.multiple(
            flat_index, FEW=few, PART=part, PACKED=few_of_many, RADIX_SORTED=few_of_many, THREADS=threads
        ),
        patch.multiple(
            flat_words,
            FEW_SLOTS=few_of_many,
            SEARCHED_ONE_BY_ONE=few_of_many,
            NARROW_MAX=narrow_max,
            SLOT_WEIGHTS_MOST=slot_weights_most,
        ),
    ):
        check_against_strings(words, counts, ops)


@settings(max_examples=200, deadline=None)
@given(
    words=words_strategy,
    counts=st.data(),
    ops=ops_strategy,
    part=st.sampled_from([1, 2, 1 << 12]),
    threads=st.sampled_from([1, 2]),
    piece=st.sampled_from([1, 3, 1 << 16]),  # slots checked at a time when stale lists are cut
    # lists cut once over twice their pair's count, or (negative) every list a merge takes from
    cut_beyond=st.sampled_from([0, -(10**9)]),
)
def test_merges_worked_out_ahead_match_the_string_index(words, counts, ops, part, threads, piece, cut_beyond):
    """Before each merge or undo, the merge or undo itself, other merges, undos of earlier
    merges, or several are worked out ahead (of any size), and stale lists are cut (any list
    over twice its pair's count): a merge or undo takes its own if it was asked for, and
    nothing else worked out ahead changes a slot, a count or an answer."""
    with patch.multiple(
        flat_index,
        PREPARED=0,
        FEW=0,
        PART=part,
        THREADS=threads,
        COMPACTED=cut_beyond,
        COMPACTED_PIECE=piece,
    ):
        check_against_strings(words, counts, ops, ahead=True)


def check_against_strings(words, counts, ops, ahead=False):
    weights = [counts.draw(st.integers(1, 5)) for _ in words]
    n = FIRST_NEW + 8
    flat, strings = FlatIndex(list(words), weights, n), PairIndex(list(words), weights, n)
    done: list[tuple[str, str, object, object]] = []
    next_id = FIRST_NEW
    assert state(flat, len(words)) == state(strings, len(words))
    if ahead:
        flat.compact_ahead()  # stale lists are noted from the first merge on

    def work_ahead(*merging: str, undoing: bool = False) -> None:
        """Some merges and undos worked out ahead, then maybe the merge about to be made or
        the undo about to be done (of the last merge)."""
        if not ahead:
            return
        candidates = [*merging, *sorted(strings.pair_count)]
        for _ in range(counts.draw(st.integers(0, 3))):
            if done and counts.draw(st.booleans()):  # any merge's undo: only the last one's is next
                pair, _, flat_effect, _ = counts.draw(st.sampled_from(done))
                flat.prepare_undo(pair, flat_effect)
            elif candidates:
                flat.prepare(counts.draw(st.sampled_from(candidates)))
        if merging and counts.draw(st.booleans()):
            flat.prepare(merging[0])
        if undoing and counts.draw(st.booleans()):
            flat.prepare_undo(done[-1][0], done[-1][2])
        if counts.draw(st.booleans()):
            flat.compact_ahead()
        if counts.draw(st.booleans()):  # done by then (else stopped if not half done)
            wait([work.work for work in flat._ahead])

    for undo, pick, into in ops:
        if undo and done:
            work_ahead(undoing=True)
            pair, new, flat_effect, string_effect = done.pop()
            flat.unmerge(pair, new, flat_effect)
            strings.unmerge(pair, new, string_effect)
        else:
            live = sorted(strings.pair_count)
            if not live:
                continue
            pair = live[pick % len(live)]
            # Into a fresh token, or into one that already occurs (a merge into an existing token:
            # the same token then spans different numbers of slots in different places).
            # (Never one of the pair's own: a merged string is longer than either part.)
            existing = [
                chr(s) for s in range(FIRST_NEW, next_id) if strings.token_freq[s] and chr(s) not in pair
            ]
            if into % 3 == 0 and existing:
                new = existing[into % len(existing)]
            elif next_id < n:
                new, next_id = chr(next_id), next_id + 1
            else:
                continue
            fresh = strings.token_freq[ord(new)] == 0
            work_ahead(pair)
            done.append((pair, new, flat.merge(pair, new, fresh), strings.merge(pair, new, fresh)))
        assert state(flat, len(words)) == state(strings, len(words))
    while done:
        pair, new, flat_effect, string_effect = done.pop()
        flat.unmerge(pair, new, flat_effect)
        strings.unmerge(pair, new, string_effect)
    assert state(flat, len(words)) == state(strings, len(words))
    rebuilt = FlatIndex(list(words), weights, n)
    assert np.array_equal(flat.flat.symbols, rebuilt.flat.symbols)  # every slot, tags included


def test_a_token_made_two_ways_spans_its_own_slots_in_each_word():
    # Token 0x11 is made of a·(c b) in word 1 (three slots) and of a·b in word 0 (two), then
    # merged on with d, and everything undone.
    index = FlatIndex(["abd", "acbd"], [1, 2], 8)
    first = index.merge("cb", "\x10", True)  # width 2
    second = index.merge("a\x10", "\x11", True)  # width 3 in word 1
    third = index.merge("ab", "\x11", False)  # width 2 in word 0: the same token
    fourth = index.merge("\x11d", "\x12", True)
    assert [index.seg(0), index.seg(1)] == ["\x12", "\x12"]
    assert index.token_freq[0x12] == 3
    for pair, new, effect in (("\x11d", "\x12", fourth), ("ab", "\x11", third), ("a\x10", "\x11", second)):
        index.unmerge(pair, new, effect)
    index.unmerge("cb", "\x10", first)
    assert index.pair_count == {"ab": 1, "bd": 3, "ac": 2, "cb": 2}
    assert np.array_equal(index.flat.symbols, FlatIndex(["abd", "acbd"], [1, 2], 8).flat.symbols)


def test_slots_take_two_bytes_until_a_token_id_needs_four():
    a, b = chr(NARROW_MAX - 1), chr(NARROW_MAX)  # the two highest ids 2-byte slots hold
    words = [a + b + a + b, b + a, a]
    n = NARROW_MAX + 3
    flat, strings = FlatIndex(words, [2, 3, 1], n), PairIndex(words, [2, 3, 1], n)
    assert flat.flat.symbols.dtype == np.int16
    new = chr(NARROW_MAX + 1)
    done = [(flat.merge(a + b, new, True), strings.merge(a + b, new, True))]
    assert flat.flat.symbols.dtype == np.int32  # widened for good
    done.append(
        (flat.merge(b + a, chr(NARROW_MAX + 2), True), strings.merge(b + a, chr(NARROW_MAX + 2), True))
    )
    assert state(flat, 3) == state(strings, 3)
    for (pair, token), (flat_effect, string_effect) in zip(
        [(b + a, chr(NARROW_MAX + 2)), (a + b, new)], done[::-1], strict=True
    ):
        flat.unmerge(pair, token, flat_effect)
        strings.unmerge(pair, token, string_effect)
        assert state(flat, 3) == state(strings, 3)
    assert flat.flat.symbols.tolist() == FlatIndex(words, [2, 3, 1], n).flat.symbols.tolist()


@pytest.mark.parametrize("length", [NARROW_MAX + 1, NARROW_MAX + 2])
def test_a_token_as_wide_as_the_longest_word_fits_its_slots(length):
    """Slots take two bytes while the longest word's tags fit them: a word of ``NARROW_MAX + 1``
    symbols, merged into one token, tags it with the lowest value they hold."""
    word, n = "a" * length, FIRST_NEW + 40  # room for every merge's token
    flat, strings = FlatIndex([word, "ab"], [1, 2], n), PairIndex([word, "ab"], [1, 2], n)
    assert flat.flat.symbols.dtype == (np.int16 if length == NARROW_MAX + 1 else np.int32)
    done = []
    next_id = FIRST_NEW
    while len(strings.seg(0)) > 1:  # pairs of equal tokens first (doubling widths), then the rest
        seg = strings.seg(0)
        pair = next((x + y for x, y in pairwise(seg) if x == y), seg[:2])
        new, next_id = chr(next_id), next_id + 1
        done.append((pair, new, flat.merge(pair, new, True), strings.merge(pair, new, True)))
        assert state(flat, 2) == state(strings, 2)
    assert flat.seg_length(0) == 1 and flat.flat.symbols[2] == flat_words.tag(length - 1)
    while done:
        pair, new, flat_effect, string_effect = done.pop()
        flat.unmerge(pair, new, flat_effect)
        strings.unmerge(pair, new, string_effect)
    assert state(flat, 2) == state(strings, 2)
    assert flat.flat.symbols.tolist() == FlatIndex([word, "ab"], [1, 2], n).flat.symbols.tolist()


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 40), min_size=1, max_size=200))
def test_each_slot_is_found_in_its_own_word(lengths):
    flat = FlatWords.from_segs(["a" * n for n in lengths])
    slots = np.arange(len(flat.symbols) - 1, dtype=np.int32)  # every slot but the last separator
    expected = np.searchsorted(flat.bounds, slots, side="right") - 1
    for few in (0, len(slots)):  # the block table; a binary search, as for a few slots
        with patch.object(flat_words, "FEW_SLOTS", few):
            assert flat.words_of(slots).tolist() == expected.tolist()
            assert flat.words_of(slots[::-1].copy()).tolist() == expected[::-1].tolist()  # in any order


def test_a_large_merge_keeps_three_bytes_an_occurrence_for_undo_and_undoes_from_them():
    words = ["ab" * PACKED, "x" * 70_000 + "ab", "ab" + "c" * 300 + "ab"]  # more than are kept unpacked
    index = FlatIndex(list(words), [1, 2, 3], FIRST_NEW)
    fresh, bounds = index.flat.symbols.copy(), index.flat.bounds.tolist()
    index.token_freq.append(0)  # the new token, as the trainer adds it
    effect = index.merge("ab", "e", True)
    expected = [1 + 2 * i for i in range(PACKED)] + [bounds[1] + 70_001, bounds[2] + 1, bounds[2] + 303]
    assert effect.occurrences().merged.tolist() == expected
    packed = effect.found
    assert isinstance(packed, Packed)
    assert packed.offsets.dtype == np.uint8 and len(packed.offsets) == PACKED + 3
    assert packed.gaps.dtype == np.int32  # a gap of 70,000 slots: kept in 4 bytes
    index.unmerge("ab", "e", effect)
    assert index.flat.symbols.tolist() == fresh.tolist()


def test_a_merge_of_fewer_occurrences_keeps_them_unpacked_and_undoes_from_them():
    words = ["ab" * (FEW + 1), "xab", "abcab"]  # merged vectorised, but too few to pack
    index = FlatIndex(list(words), [1, 2, 3], FIRST_NEW)
    fresh = index.flat.symbols.copy()
    index.token_freq.append(0)
    effect = index.merge("ab", "e", True)
    assert isinstance(effect.found, Occurrences) and len(effect.found.merged) == FEW + 4
    assert effect.replacements == FEW + 1 + 2 + 2 * 3
    index.unmerge("ab", "e", effect)
    assert index.flat.symbols.tolist() == fresh.tolist()


@given(
    gaps=st.lists(st.integers(1, 70_000), max_size=30),
    offsets=st.data(),
    first=st.integers(0, 1000),
)
def test_packed_occurrences_unpack_to_themselves(gaps, offsets, first):
    merged = np.array([first, *(first + np.cumsum(gaps, dtype=np.int64))][: len(gaps) + 1], dtype=np.int32)
    absorbed = merged + np.array([offsets.draw(st.integers(1, 300)) for _ in merged], dtype=np.int32)
    found = Packed.of(Occurrences(merged, absorbed)).unpacked()
    assert found.merged.tolist() == merged.tolist() and found.absorbed.tolist() == absorbed.tolist()
    assert found.merged.dtype == found.absorbed.dtype == np.int32
    empty = Packed.of(Occurrences(merged[:0], absorbed[:0])).unpacked()
    assert len(empty.merged) == len(empty.absorbed) == 0


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 12), min_size=1, max_size=60), data=st.data())
def test_runs_of_slots_are_cut_between_words_only(lengths, data):
    flat = FlatWords.from_segs(["a" * n for n in lengths])
    inside = np.flatnonzero(flat.symbols >= 0).astype(np.int32)
    slots = np.array(sorted(data.draw(st.sets(st.sampled_from(inside.tolist())))) if len(inside) else [])
    slots = slots.astype(np.int32)
    size = data.draw(st.integers(1, 8))
    cuts = flat.cuts(slots, size)
    runs = np.split(slots, cuts)
    assert np.concatenate(runs).tolist() == slots.tolist()
    assert all(len(run) for run in runs) or not len(slots)
    words = [set(flat.words_of(run).tolist()) for run in runs]
    assert all(not (a & b) for i, a in enumerate(words) for b in words[i + 1 :])  # no word in two runs
    assert all(len(run) <= size + max(lengths) for run in runs)  # about ``size``: a word's slots more at most


def test_a_failing_part_is_raised_only_once_every_part_has_stopped():
    """A merge's parts run on two threads: none may still be writing slots when the caller
    hears that another failed."""
    import time

    finished = []

    def work(part: int) -> int:
        if part == 0:
            raise ValueError("part 0")
        time.sleep(0.05)
        finished.append(part)
        return part

    with patch.object(flat_index, "THREADS", 2):
        with pytest.raises(ValueError, match="part 0"):
            flat_index._each_part(work, [0, 1, 2, 3])
        assert sorted(finished) == [1, 2, 3]
        assert flat_index._each_part(lambda part: part * 2, [1, 2, 3]) == [2, 4, 6]  # in order


def test_a_forked_child_merges_on_threads_of_its_own():
    """The pool's threads stay with the parent: a child forked after a large merge makes its own."""
    import os
    import signal
    import time

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    with patch.object(flat_index, "THREADS", 2):
        assert flat_index._each_part(lambda part: part + 1, [1, 2]) == [2, 3]  # the pool exists now
        pid = os.fork()
        if pid == 0:  # the child: a merge's parts again, then out without cleanup, whatever happens
            code = 1
            try:
                fresh = flat_index._pool is None
                code = 0 if fresh and flat_index._each_part(lambda part: part * 3, [1, 2]) == [3, 6] else 1
            finally:
                os._exit(code)
        deadline = time.monotonic() + 30
        while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        if ended[0] == 0:  # never a hang of the whole suite
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child did not finish its merge within 30 s")
    assert os.waitstatus_to_exitcode(ended[1]) == 0
