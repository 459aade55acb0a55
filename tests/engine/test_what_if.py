"""What-if lines: another tie rule run from here, and a compared run opened as a branch."""

import pytest

from bpe_core import MergeError, StopReason, Trainer, TrainingConfig
from bpe_core.tools.compare import run_of
from bpe_core.tools.what_if import open_run_as_branch, run_rule_from_here
from tests.helpers import trainer_for

# The classic compression example: after ``a a`` the tie between ``aa a`` and ``a b`` (count 2
# each) is where first-seen and hf part.
CLASSIC = {"pretokenize": "none", "end_of_word": None}


def classic(rule: str = "first-seen") -> Trainer:
    return trainer_for("aaabdaaabac", rule=rule, **CLASSIC)


def words_trainer() -> Trainer:
    return trainer_for("low\t5\nlower\t2\nnewest\t6\nwidest\t3", counts=True)


def test_a_rule_run_at_the_end_of_a_line_makes_a_branch_and_leaves_the_line():
    trainer = words_trainer()
    trainer.run(merges=6)
    main = trainer.branch_history(0)
    reason = run_rule_from_here(trainer, "hf", 3)
    assert reason is StopReason.MERGES
    assert len(trainer.branches()) == 2 and trainer.current_branch != 0
    assert trainer.branch_history(0) == main
    made = trainer.branch_history(trainer.current_branch)
    assert made[:6] == main and [r.decided_by for r in made[6:]] == ["hf"] * 3
    assert trainer.rule.spec == "first-seen" and trainer.training.tie_break == "first-seen"


def test_a_rule_run_inside_a_line_follows_it_and_branches_where_it_parts():
    trainer = classic()
    trainer.run(merges=3)
    trainer.goto(1)
    run_rule_from_here(trainer, "hf", 2)
    assert len(trainer.branches()) == 2
    made = trainer.branch_history(trainer.current_branch)
    names = [trainer.pair_string(r.pair) for r in made]
    assert names[0] == trainer.pair_string(trainer.branch_history(0)[0].pair)
    assert [r.decided_by for r in made[1:]] == ["hf", "hf"]
    assert trainer.rule.spec == "first-seen"


def test_a_rule_run_cancelled_before_a_merge_leaves_no_branch():
    trainer = words_trainer()
    trainer.run(merges=6)
    main = trainer.branch_history(0)
    reports = []
    reason = run_rule_from_here(trainer, "hf", 3, progress=lambda *a: reports.append(a), cancel=lambda: True)
    assert reason is StopReason.CANCELLED and reports == []
    assert [b.id for b in trainer.branches()] == [0]
    assert trainer.current_branch == 0 and trainer.position == 6 and trainer.branch_history(0) == main
    assert trainer.rule.spec == "first-seen"


def test_a_rule_that_cannot_merge_makes_no_branch():
    trainer = words_trainer()
    trainer.run(merges=6)
    trainer.set_min_frequency(10**6)
    assert run_rule_from_here(trainer, "hf", 3) is StopReason.MIN_FREQUENCY
    assert len(trainer.branches()) == 1 and trainer.position == 6


def test_the_session_rule_is_restored_when_the_run_fails(monkeypatch):
    trainer = words_trainer()

    def failing_run(**_):
        assert trainer.rule.spec == "hf"  # the rule tried is in force during the run
        raise RuntimeError("boom")

    monkeypatch.setattr(trainer, "run", failing_run)
    with pytest.raises(RuntimeError, match="boom"):
        run_rule_from_here(trainer, "hf", 3)
    assert trainer.rule.spec == "first-seen" and trainer.training.tie_break == "first-seen"


def test_opening_a_run_branches_where_it_parts_and_names_nothing():
    trainer = classic()
    trainer.run(merges=3)
    main = trainer.branch_history(0)
    other = classic("hf")
    other.run(merges=3)
    run = run_of(other, "hf")
    reports = []
    branch = open_run_as_branch(trainer, run, progress=lambda *a: reports.append(a))
    assert branch is not None and branch == trainer.current_branch
    assert reports == [(1, 3), (2, 3), (3, 3)]
    line = trainer.branch_history(branch)
    assert [trainer.pair_string(r.pair) for r in line] == [other.pair_string(r.pair) for r in other.history]
    # The merge it shares with the line keeps that line's decider; its own are the run's.
    assert [r.decided_by for r in line] == ["first-seen", "hf", "hf"]
    assert trainer.branch_history(0) == main  # the line it parted from is kept
    info = next(b for b in trainer.branches() if b.id == branch)
    assert info.name != "hf"  # naming is the caller's
    fork = next(b.fork for b in trainer.branches() if b.id == branch)
    assert fork == 1  # it follows the first merge, then parts


def test_opening_a_run_the_session_already_has_makes_no_branch():
    trainer = classic()
    trainer.run(merges=3)
    assert open_run_as_branch(trainer, run_of(trainer, "same")) is None
    assert len(trainer.branches()) == 1 and trainer.position == 3


def test_opening_a_cancelled_run_returns_none():
    trainer = classic()
    other = classic("hf")
    other.run(merges=3)
    assert open_run_as_branch(trainer, run_of(other, "hf"), cancel=lambda: True) is None
    assert trainer.position == 0


def test_a_run_of_another_corpus_is_refused():
    trainer = classic()
    other = trainer_for("xyzxyzxyz", **CLASSIC)
    other.run(merges=2)
    with pytest.raises(MergeError, match="does not fit"):
        open_run_as_branch(trainer, run_of(other, "xyz"))


def test_a_rule_run_works_on_a_trainer_built_from_a_config():
    trainer = Trainer(classic().corpus, TrainingConfig(tie_break="hf"))
    run_rule_from_here(trainer, "first-seen", 2)
    assert trainer.rule.spec == "hf"
    assert [r.decided_by for r in trainer.history] == ["first-seen", "first-seen"]
