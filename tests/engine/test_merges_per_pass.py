"""Several merges per pass (the FRED FED TED BREAD walk-through): its golden, properties and the CLI."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.session import (
    load_session,
    parse_session,
    save_session,
    session_to_dict,
    trainer_from_session,
)
from tests.cli.test_contract import run
from tests.helpers import recount, snapshot

REPO = Path(__file__).resolve().parents[2]
FRED = (REPO / "resources" / "samples" / "fred.txt").read_text(encoding="utf-8")


def fred(per_pass: int) -> Trainer:
    trainer = Trainer(
        Corpus.from_text(FRED, PipelineConfig(end_of_word="_")), TrainingConfig(merges_per_pass=per_pass)
    )
    trainer.run()
    return trainer


def merges(trainer: Trainer) -> list[tuple[str, str, int]]:
    token = trainer.token_string
    return [(token(r.pair[0]), token(r.pair[1]), r.pass_number) for r in trainer.history]


def test_fred_with_all_merges_per_pass_differs_from_the_classic_run_as_the_document_observes():
    classic, passes = fred(1), fred(0)
    assert merges(classic) == [
        ("D", "_", 1), ("E", "D_", 2), ("F", "R", 3), ("FR", "ED_", 4), ("F", "ED_", 5),
        ("T", "ED_", 6), ("B", "R", 7), ("BR", "E", 8), ("BRE", "A", 9), ("BREA", "D_", 10),
    ]  # fmt: skip
    # "When merging ('D' '_') 9, the algorithm should not merge the pairs ending with 'D' or
    # starting with '_' but it could merge others such as 'R' 'E'."
    assert merges(passes) == [
        ("D", "_", 1), ("R", "E", 1), ("F", "E", 1), ("T", "E", 1),
        ("F", "RE", 2), ("FE", "D_", 2), ("TE", "D_", 2), ("B", "RE", 2), ("A", "D_", 2),
        ("FRE", "D_", 3), ("BRE", "AD_", 3),
    ]  # fmt: skip
    # "Now merging several pairs at once leads to a different encodings."
    text = "TREAD BRED"
    assert classic.encoder().encode(text).tokens == ["T", "R", "E", "A", "D_", "BR", "ED_"]
    assert passes.encoder().encode(text).tokens == ["T", "RE", "AD_", "BRE", "D_"]
    # The words of the corpus end the same: FRED_ FED_ TED_ BREAD_ and A N D_.
    words = lambda t: [" ".join(map(t.token_string, t.segmentation(w))) for w in range(t.word_count)]  # noqa: E731
    assert words(classic) == words(passes) == ["FRED_", "FED_", "TED_", "BREAD_", "A N D_"]


def test_a_pass_is_one_node_for_step_undo_redo_and_goto():
    trainer = Trainer(
        Corpus.from_text(FRED, PipelineConfig(end_of_word="_")), TrainingConfig(merges_per_pass=0)
    )
    states = [snapshot(trainer)]
    while trainer.step() is not None:
        states.append(snapshot(trainer))
    assert trainer.position == 11 and len(states) == 4  # three passes
    trainer.undo()
    assert snapshot(trainer) == states[2] and trainer.position == 9
    trainer.redo()
    assert snapshot(trainer) == states[3]
    trainer.goto(5)  # inside pass 2: to its end
    assert trainer.position == 9 and snapshot(trainer) == states[2]
    trainer.goto(0)
    assert snapshot(trainer) == states[0]


def test_with_k_merges_per_pass_each_pass_takes_at_most_k_and_the_merge_count_can_stop_mid_pass():
    trainer = Trainer(
        Corpus.from_text(FRED, PipelineConfig(end_of_word="_")), TrainingConfig(merges_per_pass=3)
    )
    reported = []
    trainer.run(merges=5, progress=lambda done, total: reported.append((done, total)))
    passes = [r.pass_number for r in trainer.history]
    assert passes == [1, 1, 1, 2, 2] and trainer.position == 5
    assert reported == [(3, 5), (5, 5)]  # a progress report per pass


def test_a_switch_to_a_step_inside_a_pass_goes_to_its_end_and_a_step_then_undo_comes_back():
    corpus = Corpus.from_text(
        "bbabaaba \taaaaa \taabb \tbba", PipelineConfig(pretokenize="words", end_of_word=None)
    )
    trainer = Trainer(corpus, TrainingConfig(min_frequency=1, tie_break="random:53", merges_per_pass=2))
    trainer.step()
    assert [r.pass_number for r in trainer.history] == [1, 1]
    trainer.switch(trainer.current_branch, 1)
    assert trainer.position == 2  # step 1 is inside pass 1: a pass is one node
    before = snapshot(trainer)
    trainer.step()
    trainer.undo()
    assert snapshot(trainer) == before


def test_a_pass_follows_a_line_only_where_that_line_makes_the_same_pass():
    text = "bbcdb  bdbda  bacc  caadddbcc  cdcabdd  bbaabbccb  dbddddddc  cdcbabac  d  adac"
    config = PipelineConfig(unit="byte", pretokenize="none", end_of_word=None)
    trainer = Trainer(
        Corpus.from_text(text, config), TrainingConfig(tie_break="lexicographic", merges_per_pass=3)
    )
    start = snapshot(trainer)
    trainer.step((220, 220))  # two spaces, then two d's: picked by hand, each a pass of its own
    trainer.step((67, 67))
    trainer.undo()
    trainer.undo()
    trainer.step()  # the rule's pass begins with the same two merges, as one pass of three
    passes = [r.pass_number for r in trainer.history]
    assert passes == [1, 1, 1]
    for branch in trainer.branches():
        numbers = [r.pass_number for r in trainer.branch_history(branch.id)]
        assert numbers == sorted(numbers)
    trainer.undo()
    assert trainer.position == 0 and snapshot(trainer) == start


def test_a_pair_picked_by_hand_never_stands_inside_a_pass_of_the_line_ahead():
    trainer = Trainer(
        Corpus.from_text(FRED, PipelineConfig(end_of_word="_")), TrainingConfig(merges_per_pass=0)
    )
    trainer.step()
    first_pass = [r.pair for r in trainer.history]
    trainer.undo()
    trainer.step(first_pass[0], chosen=True)  # the pass's first pair alone: a node of its own
    assert trainer.position == 1 and [r.pass_number for r in trainer.history] == [1]
    after_pick = snapshot(trainer)
    trainer.undo()
    trainer.redo()
    assert snapshot(trainer) == after_pick
    trainer.switch(0)
    assert [r.pair for r in trainer.history] == first_pass and trainer.position == len(first_pass)


def test_a_reopened_line_shares_no_step_of_a_pass_another_line_goes_on_with(tmp_path):
    """One line's pass of one merge and another's of two that begins with it are two nodes:
    picking that merge by hand in the reopened session marks only the first line's, as in
    the session before it was saved."""

    trainer = Trainer(
        Corpus.from_text("aabb", PipelineConfig(end_of_word=None)),
        TrainingConfig(min_frequency=1, merges_per_pass=3),
    )
    trainer.run(merges=1)  # the main line: a pass cut short after (a, a)
    first = trainer.history[0].pair
    trainer.undo()
    trainer.step()  # a new branch: the pass (a, a), (b, b)
    save_session(trainer, tmp_path / "s.json")
    reopened = load_session(tmp_path / "s.json")
    for each in (trainer, reopened):
        each.undo()
        each.step(first, chosen=True)  # the main line's pass, followed
    assert (
        [(b.length, b.decided_by) for b in reopened.branches()]
        == [(b.length, b.decided_by) for b in trainer.branches()]
        == [(1, "user"), (2, "first-seen")]
    )


texts = st.text(alphabet="abcd ", min_size=1, max_size=50).filter(lambda t: t.split())


@settings(max_examples=150, deadline=None)
@given(
    text=texts,
    per_pass=st.sampled_from([0, 2, 3]),
    rule=st.sampled_from(["first-seen", "hf", "lexicographic"]),
)
def test_passes_take_no_conflicting_pairs_and_their_order_does_not_matter(text, per_pass, rule):
    config = PipelineConfig(end_of_word=None, pretokenize="none")
    trainer = Trainer(
        Corpus.from_text(text, config),
        TrainingConfig(min_frequency=1, tie_break=rule, merges_per_pass=per_pass),
    )
    trainer.run(merges=40)
    history = trainer.history
    groups: dict[int, list] = {}
    for record in history:
        groups.setdefault(record.pass_number, []).append(record)
    for records in groups.values():
        assert per_pass == 0 or len(records) <= per_pass
        for a in records:
            for b in records:
                assert a is b or (a.pair[1] != b.pair[0] and b.pair[1] != a.pair[0]), (
                    "conflicting pairs in a pass"
                )
    # Applied one pair at a time in the reverse order within each pass, the same state follows.
    reverse = Trainer(trainer.corpus, TrainingConfig(min_frequency=1))
    for number in sorted(groups):
        for record in reversed(groups[number]):
            reverse.step(tuple(_same_token(reverse, trainer, t) for t in record.pair))
    strings = lambda t: [[t.token_string(s) for s in t.segmentation(w)] for w in range(t.word_count)]  # noqa: E731
    assert strings(reverse) == strings(trainer)
    pairs, _, total = recount(trainer)
    assert trainer.pair_counts() == dict(pairs) and trainer.corpus_tokens == total
    # Encoding replays the passes: each training word encodes to its training segmentation.
    encoder = trainer.encoder()
    for w, word in enumerate(trainer.corpus.words):
        assert encoder.encode(word).ids == trainer.segmentation(w)
    # And a saved session reopens with its passes.
    loaded = trainer_from_session(
        parse_session(json.dumps(session_to_dict(trainer)), Path("s.json")), "s.json"
    )
    assert loaded.history == history and snapshot(loaded) == snapshot(trainer)


def _same_token(other: Trainer, trainer: Trainer, token: int) -> int:
    found = other.vocab.ids.get(trainer.vocab.keys[token])
    assert found is not None
    return found


def test_cli_merges_per_pass_adds_the_pass_and_k_1_leaves_the_output_unchanged(tmp_path):
    corpus = tmp_path / "fred.txt"
    corpus.write_text(FRED, encoding="utf-8")
    code, out, _ = run("train", str(corpus), "--end-of-word", "_", "--merges-per-pass", "all", "--json")
    assert code == 0
    data = json.loads(out)
    assert [(m["pair"], m["pass"]) for m in data["merges"][:5]] == [
        (["D", "_"], 1), (["R", "E"], 1), (["F", "E"], 1), (["T", "E"], 1), (["F", "RE"], 2),
    ]  # fmt: skip
    classic = run("train", str(corpus), "--end-of-word", "_", "--json")
    assert run("train", str(corpus), "--end-of-word", "_", "--merges-per-pass", "1", "--json") == classic
    assert "pass" not in classic[1]
    code, out, _ = run("train", str(corpus), "--end-of-word", "_", "--merges-per-pass", "3", "--merges", "5")
    assert code == 0 and out.startswith("Trained 5 merges (2 passes) in ")
    code, _, err = run("train", str(corpus), "--merges-per-pass", "some")
    assert code == 2 and "'some' is neither a positive whole number nor 'all'" in err


@pytest.mark.parametrize("value", [True, -1, "2"])
def test_merges_per_pass_must_be_a_whole_number(value):
    from bpe_core import ConfigError

    with pytest.raises(ConfigError):
        TrainingConfig(merges_per_pass=value)


@pytest.mark.parametrize("walk", ["goto back", "goto forward", "switch"])
def test_a_cancelled_walk_stops_at_the_last_node_it_passed(walk):
    trainer = fred(0)  # passes end at steps 4, 9 and 11
    calls = []

    def cancel_after_one() -> bool:
        calls.append(1)
        return len(calls) > 1

    if walk == "goto back":
        trainer.goto(0, cancel=cancel_after_one)  # one undo, into pass 3: redone
        assert trainer.position == 11
    elif walk == "goto forward":
        trainer.goto(0)
        trainer.goto(11, cancel=cancel_after_one)  # one redo, into pass 1: undone
        assert trainer.position == 0
    else:
        trainer.goto(0)
        trainer.switch(trainer.current_branch, 9, cancel=cancel_after_one)
        assert trainer.position == 0
    check = [r.pass_number for r in trainer.history]
    assert trainer.position in (0, len(check)) or check[trainer.position] != check[trainer.position - 1]
