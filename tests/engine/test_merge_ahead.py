"""A merge worked out ahead (``Trainer.prepare_next``) is the one the next step or redo makes, and
taking it, or dropping it for another merge or an undo, leaves exactly the state that merging
without it does."""

from unittest.mock import patch

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.training import flat_index
from bpe_core.training.answers import pair_key
from tests.conftest import data_text
from tests.helpers import snapshot

TEXT = data_text("shakespeare_200k.txt")[:60_000]


def trainer(config: PipelineConfig | None = None) -> Trainer:
    return Trainer(Corpus.from_text(TEXT, config or PipelineConfig()), TrainingConfig())


def ahead_of(trained: Trainer) -> str | None:
    ahead = trained._index._ahead
    return None if ahead is None else ahead.pair


def counted_writes() -> tuple[list, object]:
    """A list of the merges written from a plan worked out ahead, and the ``FlatIndex._write``
    that fills it."""
    written: list = []
    write = flat_index.FlatIndex._write

    def counted(index, plan, token):
        written.append(plan)
        return write(index, plan, token)

    return written, counted


def test_the_next_merge_is_worked_out_ahead_and_taken():
    for config in (PipelineConfig(), PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)):
        plain, ahead = trainer(config), trainer(config)
        written, counted = counted_writes()
        with patch.object(flat_index, "PREPARED", 0), patch.object(flat_index.FlatIndex, "_write", counted):
            for _ in range(40):
                ahead.prepare_next()
                assert ahead_of(ahead) == ahead._queue.best()
                ahead.step()
                plain.step()
                assert ahead_of(ahead) is None  # taken by the step
                assert snapshot(ahead) == snapshot(plain)
            assert len(written) == 40
            for _ in range(15):  # undo, with a merge worked out ahead dropped
                ahead.prepare_next()
                ahead.undo()
                plain.undo()
                assert snapshot(ahead) == snapshot(plain)
            for _ in range(15):  # the line's next merge is what redo makes
                ahead.prepare_next()
                assert ahead_of(ahead) == pair_key(ahead.record(ahead.position + 1).pair)
                ahead.redo()
                plain.redo()
                assert snapshot(ahead) == snapshot(plain)
            assert len(written) == 55
        assert ahead.history == plain.history


def test_work_ahead_that_fails_leaves_the_merge_to_be_worked_out_as_usual():
    plain, ahead = trainer(), trainer()
    plan = flat_index.FlatIndex._plan

    def failing(index, ascending, left, right, token, stop=None):
        if token is None:  # in the background only
            raise MemoryError
        return plan(index, ascending, left, right, token, stop)

    written, counted = counted_writes()
    with (
        patch.object(flat_index, "PREPARED", 0),
        patch.object(flat_index.FlatIndex, "_plan", failing),
        patch.object(flat_index.FlatIndex, "_write", counted),
    ):
        for _ in range(10):
            ahead.prepare_next()
            ahead.step()
            plain.step()
        ahead.prepare_next()
        ahead.undo()
        plain.undo()
    assert not written and snapshot(ahead) == snapshot(plain)


def test_work_ahead_is_stopped_when_asked_for_another_pair_or_let_go():
    ahead = trainer()
    with patch.object(flat_index, "PREPARED", 0):
        first, second = (stat.pair for stat in ahead.top_pairs(2))
        index = ahead._index
        index.prepare(pair_key(first))
        work = index._ahead
        with patch.object(flat_index, "PREPARED", 10**9):
            index.prepare(pair_key(second))  # too small to work out, but the first is stopped
        assert work.stop.is_set() and index._ahead is work  # still waited for before a write
        index.prepare(pair_key(second))
        work = index._ahead
        ahead.reset()  # the index is let go: its work stops, unwaited
        assert work.stop.is_set() and ahead._index is not index
        assert ahead.step() is not None


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
        ahead.goto(2)  # a jump back drops it too
        plain.goto(2)
        assert snapshot(ahead) == snapshot(plain)


def test_small_merges_are_not_worked_out_ahead():
    ahead = trainer()
    ahead.prepare_next()  # no pair of this small text lists 32,768 slots
    assert ahead_of(ahead) is None
