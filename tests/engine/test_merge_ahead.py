"""Work ahead (``Trainer.prepare_next``): the merge worked out is the one the next step or redo
makes, the undo worked out is the next undo's, and taking them, or dropping them for another
merge, leaves exactly the state that working without them does."""

import random
import time
from concurrent.futures import wait
from unittest.mock import patch

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.training import flat_index
from bpe_core.training.answers import pair_key
from tests.conftest import data_text
from tests.helpers import counted_takes, snapshot

TEXT = data_text("shakespeare_200k.txt")[:60_000]


def trainer(config: PipelineConfig | None = None) -> Trainer:
    return Trainer(Corpus.from_text(TEXT, config or PipelineConfig()), TrainingConfig())


def worked_out(trained: Trainer) -> Trainer:
    """The trainer once its work ahead is done (a merge takes its own only once at least half
    of it is)."""
    wait([ahead.work for ahead in trained._index._ahead])
    return trained


def asked(trained: Trainer) -> list:
    """What the index works out ahead and has not dropped: merges by pair, undos by effect."""
    return [ahead.key for ahead in trained._index._ahead if not ahead.stop.is_set()]


def test_the_next_merge_and_undo_are_worked_out_ahead_and_taken():
    for config in (PipelineConfig(), PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)):
        plain, ahead = trainer(config), trainer(config)
        taken, counted = counted_takes()
        with (
            patch.object(flat_index, "PREPARED", 0),
            patch.object(flat_index.FlatIndex, "_prepared", counted),
        ):
            ahead.prepare_next()
            assert asked(ahead) == [ahead._queue.best()]  # nothing to undo yet
            for _ in range(40):
                ahead.prepare_next()
                assert asked(ahead)[0] == ahead._queue.best()
                worked_out(ahead).step()
                plain.step()
                assert not ahead._index._ahead  # taken or dropped by the step
                assert snapshot(ahead) == snapshot(plain)
            assert taken == ["merge"] * 40
            taken.clear()
            for _ in range(15):
                ahead.prepare_next()
                assert asked(ahead)[-1] is ahead._effects[-1]
                worked_out(ahead).undo()
                plain.undo()
                assert snapshot(ahead) == snapshot(plain)
            assert taken == ["undo"] * 15
            taken.clear()
            for _ in range(15):  # the line's next merge is what redo makes
                ahead.prepare_next()
                assert asked(ahead)[0] == pair_key(ahead.record(ahead.position + 1).pair)
                worked_out(ahead).redo()
                plain.redo()
                assert snapshot(ahead) == snapshot(plain)
            assert taken == ["merge"] * 15
            for _ in range(30):  # undo and redo, each once worked out ahead
                ahead.prepare_next()
                ahead.undo()
                plain.undo()
                ahead.prepare_next()
                ahead.redo()
                plain.redo()
                assert snapshot(ahead) == snapshot(plain)
        assert ahead.history == plain.history


def test_work_ahead_that_fails_leaves_the_merge_to_be_worked_out_as_usual():
    plain, ahead = trainer(), trainer()
    plan, undo_plan = flat_index.FlatIndex._plan, flat_index.FlatIndex._undo_plan

    def failing_plan(index, ascending, left, right, token, stop=None):
        if token is None:  # in the background only
            raise MemoryError
        return plan(index, ascending, left, right, token, stop)

    def failing_undo_plan(index, effect, left, right, write, stop=None):
        if not write:
            raise MemoryError
        return undo_plan(index, effect, left, right, write, stop)

    taken, counted = counted_takes()
    with (
        patch.object(flat_index, "PREPARED", 0),
        patch.object(flat_index.FlatIndex, "_prepared", counted),
        patch.object(flat_index.FlatIndex, "_plan", failing_plan),
        patch.object(flat_index.FlatIndex, "_undo_plan", failing_undo_plan),
    ):
        for _ in range(10):
            ahead.prepare_next()
            ahead.step()
            plain.step()
        ahead.prepare_next()
        ahead.undo()
        plain.undo()
    assert not taken and snapshot(ahead) == snapshot(plain)


def test_a_merge_asked_before_its_work_ahead_started_works_itself_out():
    plain, ahead = trainer(), trainer()
    taken, counted = counted_takes()
    with patch.object(flat_index, "PREPARED", 0), patch.object(flat_index.FlatIndex, "_prepared", counted):
        for step in range(3):
            worked_out(ahead)
            flat_index._preparer().submit(time.sleep, 0.2)  # the thread busy: the work waits
            ahead.prepare_next()
            assert asked(ahead) and not ahead._index._ahead[0].work.done()
            (ahead.step if step < 2 else ahead.undo)()  # stops it, and waits for it
            (plain.step if step < 2 else plain.undo)()
            assert snapshot(ahead) == snapshot(plain)
    assert not taken


def test_a_pair_chosen_over_the_one_worked_out_ahead_merges_as_usual():
    plain, ahead = trainer(), trainer()
    with patch.object(flat_index, "PREPARED", 0):
        for _ in range(5):
            ahead.prepare_next()
            chosen = ahead.top_pairs(3)[-1].pair  # not the rule's pick
            ahead.step(chosen)
            plain.step(chosen)
            assert snapshot(ahead) == snapshot(plain)
        ahead.prepare_next()
        ahead.goto(2)  # a jump back drops the merge, takes the first undo
        plain.goto(2)
        assert snapshot(ahead) == snapshot(plain)


def test_work_ahead_is_stopped_when_asked_for_another_pair_or_let_go():
    ahead = trainer()
    with patch.object(flat_index, "PREPARED", 0):
        first, second = (pair_key(stat.pair) for stat in ahead.top_pairs(2))
        index = ahead._index
        index.prepare(first)
        work = index._ahead[-1]
        with patch.object(flat_index, "PREPARED", 10**9):
            index.prepare(second)  # too small to work out, but the first is stopped
        assert work.stop.is_set() and work in index._ahead  # still waited for before a write
        index.prepare(second)
        work = index._ahead[-1]
        ahead.reset()  # the index is let go: its work stops, unwaited
        assert work.stop.is_set() and ahead._index is not index
        assert ahead.step() is not None


def test_small_merges_are_not_worked_out_ahead():
    ahead = trainer()
    ahead.step()
    ahead.prepare_next()  # no pair of this small text lists 32,768 slots, no merge replaces as many
    assert not ahead._index._ahead


def many_types() -> Trainer:
    """Twenty thousand words, most of them once: a pair's count is about as many as the slots
    it holds, so the slots merges take from their neighbours' lists soon outnumber them."""
    rng = random.Random(7)
    text = " ".join("".join(rng.choices("abcdefgh", k=rng.randint(4, 10))) for _ in range(20_000))
    return Trainer(Corpus.from_text(text, PipelineConfig()), TrainingConfig())


def listed(trained: Trainer) -> dict[str, int]:
    return {pair: len(slots) for pair, slots in trained._index.where.items()}


def test_lists_merges_left_mostly_stale_are_cut_in_the_background_and_answer_as_before():
    plain, ahead = many_types(), many_types()
    for _ in range(30):
        plain.step()
        ahead.step()
        ahead.prepare_next()
        worked_out(ahead)
    assert snapshot(ahead) == snapshot(plain)
    index, counts = ahead._index, ahead._index.pair_count
    for pair in counts:
        assert index.words_with(pair) == plain._index.words_with(pair)
        assert index.first_word(pair) == plain._index.first_word(pair)
    cut, kept = listed(ahead), listed(plain)
    assert sum(cut.values()) < 0.85 * sum(kept.values())
    assert all(cut[pair] <= 2 * counts[pair] + flat_index.COMPACTED for pair in counts)
    assert any(kept[pair] > 2 * counts[pair] + flat_index.COMPACTED for pair in counts)
    assert not index._stale


def test_a_step_stops_the_cutting_of_lists_and_the_lists_left_are_cut_later():
    plain, ahead = many_types(), many_types()
    assert ahead._index._stale is None  # nothing noted while nothing cuts lists (the command line)
    ahead.prepare_next()  # as the window asks once it is still: from now on stale lists are noted
    for _ in range(30):
        plain.step()
        ahead.step()
    noted = set(ahead._index._stale)
    assert noted
    flat_index._preparer().submit(time.sleep, 0.2)  # the thread busy: the cutting waits
    ahead.prepare_next()
    assert flat_index.COMPACTING in asked(ahead)
    ahead.step()  # stops it before it checks a slot, and waits for it
    plain.step()
    assert noted <= set(ahead._index._stale)  # noted again, with what this step left stale
    assert snapshot(ahead) == snapshot(plain)
    ahead.prepare_next()
    worked_out(ahead)
    assert not ahead._index._stale
    assert sum(listed(ahead).values()) < sum(listed(plain).values())
    assert snapshot(ahead) == snapshot(plain)


class StopsAfter:
    """A stop set once it has been asked ``times`` times (a cut stopped part-way)."""

    def __init__(self, times: int) -> None:
        self.asked, self.times = 0, times

    def is_set(self) -> bool:
        self.asked += 1
        return self.asked > self.times


def test_a_cut_stopped_part_way_keeps_what_it_checked_goes_on_from_there_and_comes_last():
    plain, ahead = many_types(), many_types()
    ahead.prepare_next()
    for _ in range(30):
        plain.step()
        ahead.step()
    index = ahead._index
    pairs = list(index._stale)
    with patch.object(flat_index, "COMPACTED_PIECE", 8):
        left = index._compacted(pairs, StopsAfter(5))  # stopped within the first list
    stopped = pairs[0]
    assert left == [*pairs[1:], stopped]  # the others first, next time
    listed_now, checked = index._cut_part[stopped]
    assert index.where[stopped] is listed_now and checked > 0
    before = len(plain._index.where[stopped])
    assert len(listed_now) < before and len(listed_now) - checked == before - 4 * 8  # the rest as it was
    resumed = []
    live_slots = flat_index.FlatIndex._live_slots

    def recorded(self, listed, pair, stop, begin=0):
        resumed.append((pair, begin))
        return live_slots(self, listed, pair, stop, begin)

    with patch.object(flat_index.FlatIndex, "_live_slots", recorded):
        assert index._compacted(left, flat_index._Stop()) == []
    assert (stopped, checked) in resumed and stopped not in index._cut_part
    # undo's own cut (of a list re-listing has doubled) counts from the length at the last cut
    assert index._settled[stopped] == len(index.where[stopped])
    assert snapshot(ahead) == snapshot(plain)
    for pair in index.pair_count:
        assert index.words_with(pair) == plain._index.words_with(pair)


def test_a_merge_asked_ahead_stops_the_cutting_of_lists_which_goes_on_after_it():
    ahead = many_types()
    ahead.prepare_next()
    for _ in range(30):
        ahead.step()
    noted = set(ahead._index._stale)
    with patch.object(flat_index, "PREPARED", 0):
        flat_index._preparer().submit(time.sleep, 0.2)  # the thread busy: the cutting waits
        ahead._index.compact_ahead()
        cutting = ahead._index._ahead[-1]
        assert cutting.key is flat_index.COMPACTING and not ahead._index._stale
        ahead.prepare_next()  # the next merge and undo: the cutting is stopped
        assert cutting.stop.is_set()
        keys = [entry.key for entry in ahead._index._ahead if not entry.stop.is_set()]
        assert keys == [ahead._queue.best(), ahead._effects[-1]]
        worked_out(ahead)
        ahead._index.compact_ahead()  # what the stopped cutting left is noted again and cut
        assert ahead._index._ahead[-1].key is flat_index.COMPACTING and not ahead._index._stale
        worked_out(ahead)
    index = ahead._index
    assert noted and not index._stale
    live = [pair for pair in noted if pair in index.pair_count]
    assert all(len(index.where[pair]) <= 2 * index.pair_count[pair] + flat_index.COMPACTED for pair in live)
