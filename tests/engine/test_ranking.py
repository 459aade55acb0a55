"""The ranking of pairs (count, then the tie-break rule) is the full order of the live pairs,
after merges, undos and redos have left stale entries behind in the queue."""

import random

import pytest

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from tests.conftest import data_text


def expected_ranking(trainer: Trainer, n: int) -> list[tuple[int, int]]:
    """The best ``n`` pairs by sorting every live pair by count, then the rule's key."""
    tokens, rule = trainer.vocab.tokens, trainer.rule
    counts = trainer.pair_counts()
    order = sorted(counts, key=lambda p: (-counts[p], rule.static_key(tokens[p[0]], tokens[p[1]], *p)))
    return order[:n]


@pytest.mark.parametrize("rule", ["hf", "lexicographic", "subword-nmt", "random:3"])
def test_top_pairs_follow_count_then_rule_through_merges_and_undos(rule):
    text = data_text("shakespeare_200k.txt")[:40_000]
    trainer = Trainer(Corpus.from_text(text, PipelineConfig()), TrainingConfig(tie_break=rule))
    for walk in ([("run", 60)], [("undo", 25)], [("run", 10)], [("goto", 40)], [("run", 200)]):
        for command, n in walk:
            if command == "run":
                trainer.run(merges=n)
            elif command == "undo":
                for _ in range(n):
                    trainer.undo()
            else:
                trainer.goto(n)
        for n in (1, 5, 40):
            assert [p.pair for p in trainer.top_pairs(n)] == expected_ranking(trainer, n)
        ties = trainer.ties_at_top()
        assert trainer.tied_candidates() == expected_ranking(trainer, min(ties, 5))


def test_each_tied_merge_records_the_candidates_a_fresh_ranking_gives():
    """After steps, undos and redos in any order (``hf``), the tied candidates are a fresh
    ranking's, and each new merge at a tie records them."""
    text = data_text("shakespeare_200k.txt")[:30_000]
    trainer = Trainer(Corpus.from_text(text, PipelineConfig()), TrainingConfig(tie_break="hf"))
    moves = random.Random(7)
    tied_steps = 0
    for _ in range(400):
        ties = trainer.ties_at_top()
        expected = expected_ranking(trainer, min(ties, 5))
        assert trainer.tied_candidates() == expected
        move = moves.random()
        if move < 0.2 and trainer.can_redo:
            trainer.redo()
        elif move < 0.7 or not trainer.can_undo:
            at_end = not trainer.can_redo
            record = trainer.step()
            if at_end and ties > 1:
                assert list(record.candidates) == expected
                tied_steps += 1
        else:
            trainer.undo()
    assert tied_steps > 50
