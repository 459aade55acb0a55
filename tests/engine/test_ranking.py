"""The ranking of pairs (count, then the tie-break rule) is the full order of the live pairs,
after merges, undos and redos have left stale entries behind in the queue."""

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
