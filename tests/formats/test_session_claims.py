"""A session file's claims about how each merge was decided are checked, not taken on trust:
passes, top counts, ties and tied candidates, deciders, and text that is no text."""

import json
from pathlib import Path

import pytest

from bpe_core import Corpus, MergeError, PipelineConfig, SessionError, Trainer, TrainingConfig
from bpe_core.io.session import load_session, save_session, session_to_dict
from bpe_core.training import replay_by_words
from tests.helpers import snapshot

TEXT = "low low low lower lowest newest newest widest wider " * 3


def trained(per_pass: int = 1) -> Trainer:
    trainer = Trainer(Corpus.from_text(TEXT, PipelineConfig()), TrainingConfig(merges_per_pass=per_pass))
    trainer.run(merges=8)
    return trainer


def written(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(params=["merge by merge", "word by word"])
def replay(request, monkeypatch):
    """Small sessions replay merge by merge and check every decision at once; large ones replay
    word by word and check a decision where the trainer first stands before it."""
    if request.param == "word by word":
        monkeypatch.setattr(replay_by_words, "EXACT_REPLAY_SYMBOLS", -1)
    return request.param


def a_tie_that_never_happened(merge: dict, data: dict) -> None:
    # A merge without a tie claims a 7-way one, listing five pairs of letters.
    others = [["l", "o"], ["o", "w"], ["e", "s"], ["s", "t"], ["w", "i"]]
    merge.update(ties=7, candidates=[merge["pair"], *[p for p in others if p != merge["pair"]][:4]])


def test_a_merge_claiming_a_tie_that_never_happened_is_refused(tmp_path, replay):
    trainer = trained()
    data = session_to_dict(trainer)
    step = next(i for i, m in enumerate(data["merges"], start=1) if m["ties"] == 1 and i > 1)
    a_tie_that_never_happened(data["merges"][step - 1], data)
    path = written(tmp_path, data)
    if replay == "merge by merge":
        with pytest.raises(
            SessionError, match=rf"Merge {step} .* shared by 7 pairs, but before it the corpus"
        ):
            load_session(path)
        return
    loaded = load_session(path)  # the next merge from the saved position is checked at once
    before = snapshot(loaded)
    with pytest.raises(MergeError, match=rf"Merge {step} .* shared by 7 pairs, but before it the corpus"):
        loaded.goto(step - 1)  # stands before it: the claim meets the corpus
    assert snapshot(loaded) == before
    for _ in range(trainer.position - step):
        loaded.undo()
    with pytest.raises(MergeError, match=rf"Merge {step} "):
        loaded.undo()
    assert loaded.position == step


def test_the_next_merge_from_a_saved_position_is_checked_as_the_session_opens(tmp_path, replay):
    trainer = trained()
    trainer.goto(3)
    data = session_to_dict(trainer)
    data["merges"][3]["top_count"] += 1
    data["merges"][3]["count"] = data["merges"][3]["top_count"]  # consistent, but not the corpus
    with pytest.raises(SessionError, match=r"^The session file .* does not fit its corpus: Merge 4 "):
        load_session(written(tmp_path, data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda m: m.update(top_count=m["count"] + 5),
            r"was chosen by a rule at a count of \d+, below",
        ),
        (lambda m: m.update(top_count=m["count"] - 1), r"has a count of \d+, above the top count"),
        (lambda m: m.update(ties=3, candidates=[m["pair"]]), r"lists 1 tied pairs for a tie of 3"),
        (lambda m: m.update(ties=0, candidates=[m["pair"]]), r"records no decision"),
        (lambda m: m.update(decided_by="whoever"), r"names an unknown decider"),
        (lambda m: m.update(candidates=[m["pair"], m["pair"]], ties=2), r"lists a tied pair twice"),
    ],
)
def test_decision_data_that_cannot_be_is_refused(tmp_path, monkeypatch, change, message):
    data = session_to_dict(trained())
    change(data["merges"][1])
    # A small session is replayed merge by merge, where the state refutes the claim first.
    with pytest.raises(SessionError, match=r"(?i)merge 2 "):
        load_session(written(tmp_path, data))
    # A large one is checked before its replay, for what it claims whatever the corpus.
    monkeypatch.setattr(replay_by_words, "EXACT_REPLAY_SYMBOLS", -1)
    with pytest.raises(SessionError, match=rf"is invalid: merge 2 {message}"):
        load_session(written(tmp_path, data))


def test_a_pass_of_merges_that_overlap_is_refused(tmp_path):
    data = session_to_dict(trained())
    for merge in data["merges"]:
        merge["pass"] = 1  # twenty conflicting merges claimed as one pass: one undo would take all
    with pytest.raises(SessionError, match=r"is invalid: merge \d+ shares a pass with a merge it overlaps"):
        load_session(written(tmp_path, data))


def test_a_pair_picked_by_hand_inside_a_pass_reads_as_a_pass_of_its_own(tmp_path, replay):
    # An earlier version recorded a pick that followed a line inside that line's pass.
    trainer = trained(per_pass=0)
    data = session_to_dict(trainer)
    passes = [m["pass"] for m in data["merges"]]
    several = next(i for i in range(1, len(passes)) if passes[i] == passes[i - 1])
    data["merges"][several]["decided_by"] = "user"
    loaded = load_session(written(tmp_path, data))
    kept = [r.pass_number for r in loaded.history]
    assert kept[several] == kept[several - 1] + 1  # a pass of its own, the rest of its pass after it
    assert all(b - a in (0, 1) for a, b in zip([0, *kept], kept, strict=False))
    assert snapshot(loaded) == snapshot(trainer)


def test_pass_numbers_out_of_order_read_as_passes_of_their_own(tmp_path, replay):
    trainer = trained()
    data = session_to_dict(trainer)
    for merge, number in zip(data["merges"], [1, 2, 1, 3, 2, 5, 4, 6], strict=True):
        merge["pass"] = number  # as a pass that followed another line could write them
    loaded = load_session(written(tmp_path, data))
    assert [r.pass_number for r in loaded.history] == list(range(1, 9))
    loaded.undo()
    assert loaded.position == 7


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda d: d["pipeline"].update(special_tokens=["<\ud800>"]), "special token"),
        (lambda d: d["pipeline"].update(end_of_word="\udc00"), "end-of-word marker"),
        (lambda d: d["alphabet"].append("\ud800"), "alphabet"),
        (lambda d: d["branches"][-1].update(name="b\ud800"), "name of branch"),
        (lambda d: d["merges"][0].update(decided_by="\ud800"), "unknown decider"),
        (lambda d: d.update(test_text="x\ud800"), "test text"),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_session_is_refused_in_one_sentence(tmp_path, change, what):
    trainer = trained()
    trainer.undo()
    trainer.step(sorted(trainer.pair_counts())[0])  # a second branch, to name
    data = session_to_dict(trainer)
    change(data)
    with pytest.raises(SessionError, match=what) as refused:
        load_session(written(tmp_path, data))
    assert "\n" not in str(refused.value) and str(refused.value).endswith(".")


def test_a_chain_of_thousands_of_branches_listed_children_first_opens(tmp_path):
    trainer = trained()
    data = session_to_dict(trainer)
    chain = [{"id": i, "name": f"b{i}", "parent": i - 1, "fork": 1, "merges": []} for i in range(1, 3000)]
    data["branches"] = [data["branches"][0], *reversed(chain)]
    loaded = load_session(written(tmp_path, data))
    assert len(loaded.branches()) == 3000
    loaded.switch(2999)
    assert loaded.position == 1
    save_session(loaded, tmp_path / "again.json")
    assert len(load_session(tmp_path / "again.json").branches()) == 3000
    data["branches"][0]["parent"] = 2999  # and a circle is a sentence, not a traceback
    with pytest.raises(SessionError, match="in a circle"):
        load_session(written(tmp_path, data))


def test_a_message_names_a_huge_token_by_an_excerpt(tmp_path):
    data = session_to_dict(trained())
    data["merges"][1].update(ties=2, candidates=[data["merges"][1]["pair"], ["x" * 1_000_000, "o"]])
    with pytest.raises(
        SessionError, match=r"merge 2 uses the unknown token 'x{40}…' \(1,000,000 characters\)\.$"
    ):
        load_session(written(tmp_path, data))
