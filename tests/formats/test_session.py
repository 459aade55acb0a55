"""Session files: exact round trips, atomic writes, and clear refusals of bad files."""

import json
import re
import tracemalloc
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, MergeError, PipelineConfig, SessionError, Trainer, TrainingConfig
from bpe_core.io.session import load_encoder, load_session, save_session, session_to_dict
from tests.cli.test_contract import run
from tests.conftest import DATA
from tests.helpers import snapshot, trainer_for

REPO = Path(__file__).resolve().parents[2]


def trained():
    trainer = trainer_for(
        "low low low lower lowest newest newest widest " * 3 + "aaa aaaa", special_tokens=("<|endoftext|>",)
    )
    trainer.run(merges=6)
    trainer.step(sorted(trainer.pair_counts())[0])  # a user decision
    trainer.set_tie_break("hf")
    trainer.run(merges=3)
    trainer.undo()
    trainer.undo()  # two redo-able merges remain in the history
    return trainer


def test_round_trip_restores_state_history_and_position(tmp_path):
    trainer = trained()
    path = tmp_path / "s.json"
    save_session(trainer, path)
    loaded = load_session(path)
    assert snapshot(loaded) == snapshot(trainer)
    assert loaded.history == trainer.history
    assert loaded.training == trainer.training
    loaded.goto(len(loaded.history))
    trainer.goto(len(trainer.history))
    assert snapshot(loaded) == snapshot(trainer)


def test_encoder_from_file_equals_encoder_from_trainer(tmp_path):
    trainer = trained()
    path = tmp_path / "s.json"
    save_session(trainer, path)
    text = "lowest newer <|endoftext|> widest"
    expected = trainer.encoder().encode(text, allow_special=True)
    assert load_encoder(path).encode(text, allow_special=True) == expected


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path):
    trainer = trained()
    path = tmp_path / "s.json"
    path.write_text("previous contents")
    save_session(trainer, path)
    assert json.loads(path.read_text())["format"] == "bpe-studio-session"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_ctrl_c_as_the_temporary_file_is_made_leaves_none_and_the_old_file(tmp_path, monkeypatch):
    import tempfile

    made = tempfile.mkstemp

    def interrupted(*args, **kwargs):  # the file is made, then Ctrl+C before it is returned
        made(*args, **kwargs)
        raise KeyboardInterrupt

    path = tmp_path / "s.json"
    path.write_text("previous contents")
    monkeypatch.setattr(tempfile, "mkstemp", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_session(trained(), path)
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"] and path.read_text() == "previous contents"


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    import os

    trainer = trained()
    path = tmp_path / "s.json"
    path.write_text("previous contents")

    def broken_replace(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(SessionError, match="No space left"):
        save_session(trainer, path)
    assert path.read_text() == "previous contents"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def corrupt(data, change):
    data = json.loads(json.dumps(data))
    change(data)
    return data


BAD = {
    "not json": "{not json",
    "not a session": {"hello": 1},
    "newer version": lambda d: d.update(version=99),
    "missing merges": lambda d: d.pop("merges"),
    "bad pipeline": lambda d: d["pipeline"].update(unit="nibble"),
    "bad rule": lambda d: d["training"].update(tie_break="coin-flip"),
    "negative count": lambda d: d["corpus"]["words"][0].__setitem__(1, -3),
    "empty corpus": lambda d: d["corpus"].update(words=[]),
    "token not joined": lambda d: d["merges"][0].update(token="zz"),
    "position out of range": lambda d: d.update(position=999),
    "count mismatch": lambda d: d["merges"][0].update(count=d["merges"][0]["count"] + 1),
    "unknown token": lambda d: d["merges"][0].update(pair=["q", "z"], token="qz"),
    "alphabet mismatch": lambda d: d["alphabet"].append("Z"),
    "code in file": lambda d: d.update(pipeline="__import__('os').system('echo pwned')"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_session_files_are_refused_with_one_sentence(tmp_path, case):
    base = session_to_dict(trained())
    bad = BAD[case]
    text = bad if isinstance(bad, str) else json.dumps(bad if isinstance(bad, dict) else corrupt(base, bad))
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SessionError) as error:
        load_session(path)
    message = str(error.value)
    assert (
        message.startswith(("The session file", "The file")) and message.endswith(".") and "\n" not in message
    )


def test_missing_session_file(tmp_path):
    with pytest.raises(SessionError, match="does not exist"):
        load_session(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("name", "sample", "pipeline", "training", "merges", "position"),
    [
        ("session_v1_low.json", "low_lower_newest_widest.tsv", PipelineConfig(), TrainingConfig(), 10, 8),
        (
            "session_v1_bytes.json",
            "hf_course.txt",
            PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
            TrainingConfig(tie_break="hf"),
            30,
            27,  # all there are
        ),
    ],
)
def test_version_1_files_still_open_and_encode_as_before(name, sample, pipeline, training, merges, position):
    # Written by BPE Studio 0.1 (display strings rather than keys): kept as fixtures.
    path = DATA / name
    source = REPO / "resources" / "samples" / sample
    corpus = (
        Corpus.from_counts(source.read_text(), pipeline)
        if sample.endswith(".tsv")
        else Corpus.from_text(source.read_text(), pipeline)
    )
    fresh = Trainer(corpus, training)
    fresh.run(merges=merges)
    fresh.goto(position)
    loaded = load_session(path)
    assert loaded.history == fresh.history and loaded.position == position
    text = "the lowest newer wider hugs, and Byte-Pair Encoding"
    expected = fresh.encoder().encode(text).ids
    assert loaded.encoder().encode(text).ids == load_encoder(path).encode(text).ids == expected


def test_encoding_reads_the_model_and_never_the_corpus(tmp_path):
    trainer = trained()
    path = tmp_path / "s.json"
    save_session(trainer, path)
    text = path.read_text(encoding="utf-8")
    head, corpus = text.split('\n  "corpus": ', 1)
    assert '"merges"' in head and '"merges"' not in corpus  # the corpus comes last
    # Whatever follows the model is never read: here it is not even JSON.
    path.write_text(head + '\n  "corpus": ' + "\x00 not json " * 1000, encoding="utf-8")
    expected = trainer.encoder().encode("lowest newer aaa").ids
    assert load_encoder(path).encode("lowest newer aaa").ids == expected
    with pytest.raises(SessionError, match="not valid JSON"):
        load_session(path)  # the window needs the corpus, and says so
    # Nor is it held: a corpus line of 32 MB costs encoding nothing (it was read whole before).
    path.write_text(head + '\n  "corpus": ' + "x" * (32 << 20) + "\n}\n", encoding="utf-8")
    tracemalloc.start()
    try:
        assert load_encoder(path).encode("lowest newer aaa").ids == expected
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_a_version_1_text_token_that_ends_like_the_marker_stays_text():
    # "a</w>" here is text (a < / w >): version 1 named it by its display, which a marked
    # token would share; only base symbols are read as marked, merged ones from their parts.
    path = DATA / "session_v1_marker_text.json"
    fresh = Trainer(Corpus.from_text("a</w>b a</w>b a</w>b ab ab", PipelineConfig()), TrainingConfig())
    fresh.run()
    loaded = load_session(path)
    assert loaded.history == fresh.history and loaded.vocab.keys == fresh.vocab.keys
    expected = fresh.encoder().encode("a</w>b ab")
    assert expected.tokens == ["a</w>b</w>", "ab</w>"]
    assert load_encoder(path).encode("a</w>b ab").ids == expected.ids


@pytest.mark.parametrize("few", [(256, 1024), (40, 300)])
def test_a_real_session_opens_word_by_word_and_equals_the_trained_one(tmp_path, monkeypatch, few):
    """The fast way to open (every merge made a new token, no long word) is the one real text
    takes; the result is the trained trainer, at the saved position and at every other. The
    last words of a run go on with the next run's: as few as the defaults leave, or more."""
    from bpe_core.training import initial_symbols, replay_by_words, word_replay
    from tests.conftest import data_text

    monkeypatch.setattr(initial_symbols, "RUN_BYTES", 1 << 12)
    monkeypatch.setattr(word_replay, "FEW_WORDS", few[0])
    monkeypatch.setattr(word_replay, "FEW_SYMBOLS", few[1])
    monkeypatch.setattr(replay_by_words, "EXACT_REPLAY_SYMBOLS", -1)  # not merge by merge, as small ones
    calls = []
    real = replay_by_words.replay_words
    monkeypatch.setattr(replay_by_words, "replay_words", lambda *a, **k: calls.append(1) or real(*a, **k))
    trainer = trainer_for(data_text("shakespeare_200k.txt"))
    trainer.run(merges=400)
    trainer.goto(250)
    save_session(trainer, tmp_path / "s.json")
    steps = []
    loaded = load_session(tmp_path / "s.json", progress=lambda done, total: steps.append((done, total)))
    assert calls, "the word-by-word replay was not used"
    assert steps[-1][1] == 400 and all(a <= b for (a, _), (b, _) in pairwise(steps))
    assert loaded.history == trainer.history and loaded.series() == trainer.series()
    for step in (250, 249, 0, 400, 251):
        loaded.goto(step)
        trainer.goto(step)
        assert snapshot(loaded) == snapshot(trainer)


def test_a_count_that_does_not_fit_the_corpus_is_refused_by_the_fast_replay_too(tmp_path):
    trainer = trainer_for("low low low lower lowest newest newest widest")
    trainer.run(merges=4)
    data = session_to_dict(trainer)
    data["merges"][2]["count"] += 1
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        SessionError,
        match=r"does not fit its corpus: Merge 3 .* occurs \d+ times in the corpus, not \d+ as recorded\.",
    ):
        load_session(path)


def test_a_version_2_file_still_opens_and_encodes_as_before():
    """Written before branches were kept (format version 2): kept as a fixture."""
    path = DATA / "session_v2_genesis.json"
    text = (DATA / "kjv_genesis_100k.txt").read_text(encoding="utf-8")[:20000]
    fresh = Trainer(Corpus.from_text(text, PipelineConfig()), TrainingConfig(tie_break="hf"))
    fresh.run(merges=40)
    fresh.goto(37)
    loaded = load_session(path)
    assert loaded.history == fresh.history and loaded.position == 37
    assert [(b.name, b.length) for b in loaded.branches()] == [("main", 40)]
    sentence = "In the beginning God created the heaven and the earth."
    assert load_encoder(path).encode(sentence).ids == fresh.encoder().encode(sentence).ids


def branched():
    """Three lines: main, a branch made by picking another pair after two undos, and one made
    from that by a rule change."""
    trainer = trainer_for("low low low lower lowest newest newest widest wider " * 3)
    trainer.run(merges=6)
    trainer.undo()
    trainer.undo()
    tied = [p for p in trainer.pair_counts() if p != trainer.record(5).pair]
    trainer.step(tied[0])
    trainer.run(merges=2)
    trainer.goto(5)
    trainer.set_tie_break("hf")
    trainer.run(merges=3)
    return trainer


def test_every_branch_is_saved_and_comes_back_with_its_name_and_states(tmp_path):
    trainer = branched()
    assert len(trainer.branches()) >= 2
    trainer.rename_branch(trainer.branches()[-1].id, "hf from 5")
    save_session(trainer, tmp_path / "s.json")
    loaded = load_session(tmp_path / "s.json")
    assert loaded.branches() == trainer.branches()
    for branch in trainer.branches():
        loaded.switch(branch.id)
        trainer.switch(branch.id)
        assert loaded.history == trainer.history and snapshot(loaded) == snapshot(trainer)
    # The encoder reads the current line only, and is the same as before.
    assert (
        load_encoder(tmp_path / "s.json").encode("lowest wider").ids
        == load_session(tmp_path / "s.json").encoder().encode("lowest wider").ids
    )


def test_a_branch_whose_merge_does_not_fit_the_corpus_is_refused_and_every_walk_goes_back(tmp_path):
    """A merge of another branch is checked when first walked; a switch, redo, jump or step
    that meets one that does not fit goes back to where it began, and says so in its events."""
    trainer = branched()
    other = next(b for b in trainer.branches() if not b.current)
    data = session_to_dict(trainer)
    entry = next(b for b in data["branches"] if b["id"] == other.id)
    entry["merges"][-1]["count"] += 1
    entry["merges"][-1]["top_count"] = entry["merges"][-1]["count"]  # as if the rule had taken it
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_session(path)  # the current line opens; the other is checked when walked
    before = loaded.current_branch
    bad = loaded.branch_history(other.id)[-1]
    events = []
    loaded.events.subscribe(events.append)

    def refused(command):
        state = (loaded.current_branch, snapshot(loaded))
        events.clear()
        with pytest.raises(
            MergeError, match=r"of branch .* occurs \d+ times in the corpus, not \d+ as recorded\."
        ):
            command()
        assert (loaded.current_branch, snapshot(loaded)) == state
        # What the views were told ends where the trainer is.
        assert not events or events[-1].new_position == loaded.position

    refused(lambda: loaded.switch(other.id))
    assert loaded.current_branch == before
    loaded.switch(other.id, other.length - 1)  # up to the merge that does not fit: fine
    refused(loaded.redo)
    refused(lambda: loaded.goto(other.length))
    refused(lambda: loaded.step(bad.pair))  # the step would follow that line
    loaded.switch(before)
    assert snapshot(loaded) == snapshot(trainer)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(branch=99), "distinct whole-number ids"),
        (
            lambda d: d["branches"][-1].update(parent=d["branches"][-1]["id"]),
            "forks from a branch that is not there",
        ),
        (lambda d: d["branches"][-1].update(fork=10**6), "forks after the end"),
        (lambda d: d["branches"][-1].update(name=" "), "has no name"),
        (lambda d: [b.pop("merges", None) for b in d["branches"]], "does not list its merges"),
        (lambda d: d.update(next_branch="3"), "next branch's number"),
        (lambda d: d.update(branch=True), "distinct whole-number ids"),
        # A list or an object as the parent was a TypeError (found by an adversarial pass).
        (lambda d: d["branches"][-1].update(parent=[]), "forks from a branch that is not there"),
        (lambda d: d["branches"][-1].update(parent={}), "forks from a branch that is not there"),
        (lambda d: d["branches"][-1].update(parent=True), "forks from a branch that is not there"),
    ],
)
def test_a_damaged_tree_of_branches_is_refused_with_one_sentence(tmp_path, change, message):
    trainer = branched()
    trainer.switch(0)
    data = session_to_dict(trainer)
    change(data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for load in (load_session, load_encoder):
        with pytest.raises(SessionError, match=message):
            load(path)


def test_a_reopened_session_numbers_new_branches_past_deleted_ones(tmp_path):
    # Found by the reopened-session property: a deleted branch's number was given again.
    trainer = branched()
    deleted = trainer.branches()[-1].id
    trainer.switch(0)
    trainer.delete_branch(deleted)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    loaded = load_session(path)
    for t in (trainer, loaded):
        t.goto(0)
        t.step(t.top_pairs(2)[1].pair)
    assert loaded.branches() == trainer.branches() and loaded.current_branch > deleted


def _edited(text: str, edit) -> str:
    """The session text with its merge lines changed by ``edit(lines, merge_line_numbers)``."""
    lines = text.splitlines(keepends=True)
    edit(lines, [i for i, line in enumerate(lines) if line.startswith("    {")])
    return "".join(lines)


def _two_on_one_line(lines, merges):
    lines[merges[2]] = lines[merges[2]].rstrip("\n") + " " + lines.pop(merges[3]).lstrip()


def _split_over_two_lines(lines, merges):
    lines[merges[4]] = lines[merges[4]].replace(', "token"', ',\n     "token"', 1)


EDITS = {"two merges on one line": _two_on_one_line, "one merge on two lines": _split_over_two_lines}


@pytest.mark.parametrize("batch", [1, 2, 256])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_merge_lines_edited_by_hand_open_as_plain_json_does(tmp_path, monkeypatch, batch, edit):
    """Merge lines are parsed a batch at a time; a file outside the layout is read as plain
    JSON instead, whatever the batch boundaries, and opens the same."""
    from bpe_core.io.session import stream as session_stream

    monkeypatch.setattr(session_stream, "_BATCH", batch)
    trainer = trained()
    path = tmp_path / "s.json"
    save_session(trainer, path)
    assert session_stream.read_streamed(path, lambda *_: None) is not None  # the layout as written
    path.write_text(_edited(path.read_text(encoding="utf-8"), EDITS[edit]), encoding="utf-8")
    assert session_stream.read_streamed(path, lambda *_: None) is None
    loaded = load_session(path)
    assert loaded.history == trainer.history and snapshot(loaded) == snapshot(trainer)
    text = "lowest newer aaa"
    assert load_encoder(path).encode(text).ids == trainer.encoder().encode(text).ids


@pytest.mark.parametrize("value", ["false", "0.0", "true", "1.5"])
def test_a_count_that_is_not_an_integer_is_refused(tmp_path, value):
    path = tmp_path / "s.json"
    save_session(trained(), path)
    text = path.read_text(encoding="utf-8")
    first = text.index('"top_count": ')
    end = text.index(",", first)
    path.write_text(text[:first] + f'"top_count": {value}' + text[end:], encoding="utf-8")
    for load in (load_session, load_encoder):
        with pytest.raises(SessionError, match=r"merge 1 has a missing or negative count\.$"):
            load(path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("count", 2**62 + 1, r"merge 1 has a count beyond 4,611,686,018,427,387,904 \(2\^62\)\.$"),
        ("top_count", 2**63, r"merge 1 has a count beyond 4,611,686,018,427,387,904 \(2\^62\)\.$"),
        ("ties", 2**64, r"merge 1 has a malformed tie count\.$"),
        ("pass", 2**31, r"merge 1 has a malformed pass number\.$"),
    ],
)
def test_numbers_beyond_what_a_history_can_hold_are_refused_in_one_sentence(tmp_path, field, value, message):
    """A history is held as machine integers (``bpe_core.history.merge_line``): counts up to 2^62, as
    no corpus holds more symbol occurrences, and steps and passes of 31 bits."""
    path = tmp_path / "s.json"
    save_session(trained(), path)
    text = re.sub(f'"{field}": \\d+', f'"{field}": {value}', path.read_text(encoding="utf-8"), count=1)
    path.write_text(text, encoding="utf-8")
    for load in (load_session, load_encoder):
        with pytest.raises(SessionError, match=message):
            load(path)


def test_a_branch_that_replaces_more_tokens_than_there_are_is_refused(tmp_path):
    trainer = trained()
    trainer.goto(2)
    trainer.step(trainer.top_pairs(3)[-1].pair)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    other = next(b for b in data["branches"] if b["id"] != data["branch"])
    other["merges"][-1]["replacements"] = 2**62
    other["merges"].extend([{**other["merges"][-1]}] * 3)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SessionError, match=r"replaces more tokens than there are\.$"):
        load_session(path)


def test_reading_a_session_stops_at_a_checkpoint_that_raises(tmp_path, monkeypatch):
    """The window's Cancel reaches the reading of the file (it took 3 s to notice in a 33 MB
    session): the corpus streams in chunks and each chunk passes a checkpoint, which may raise
    ``Cancelled``; that is never mistaken for a file to read as plain JSON instead."""
    from bpe_core.errors import Cancelled
    from bpe_core.io.session import corpus_reader as session_corpus
    from bpe_core.io.session import read_session, sniff_session
    from tests.conftest import data_text

    trainer = trainer_for(data_text("shakespeare_200k.txt")[:50_000])
    trainer.run(merges=20)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    monkeypatch.setattr(session_corpus, "_CHUNK", 1 << 10)
    calls = []
    data = read_session(path, lambda: calls.append(1))
    assert (
        len(calls) > 5 and data["position"] == 20 and len(data["corpus"]["words"].words) == trainer.word_count
    )

    def cancel_third():
        calls.append(1)
        if len(calls) == 3:
            raise Cancelled

    for read in (read_session, sniff_session):
        calls.clear()
        with pytest.raises(Cancelled):
            read(path, cancel_third)
        assert len(calls) == 3


def _written_as_json_dumps_writes_it(data: dict) -> str:
    """The session file of ``data``: JSON with one merge a line, each encoded by json.dumps."""

    def dumps(value):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    lines = []
    for key, value in data.items():
        if key == "merges" and value:
            body = ",\n".join("    " + dumps(m) for m in value)
            lines.append(f'  "merges": [\n{body}\n  ]')
        else:
            lines.append(f"  {dumps(key)}: {dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


@settings(max_examples=40, deadline=None)
@given(
    text=st.text(alphabet='ab"\\\x01\u2028é😀 \t', min_size=1, max_size=60),
    unit=st.sampled_from(["char", "byte"]),
    merges=st.integers(1, 12),
)
def test_a_saved_session_is_the_json_of_its_data_one_merge_a_line(tmp_path_factory, text, unit, merges):
    """Merge lines are written directly, not through json.dumps (most of a save's time): each is
    still exactly what json.dumps writes, quotes, backslashes and control characters escaped."""
    trainer = trainer_for(text + " ab ab ba", unit=unit, min_frequency=1)
    trainer.run(merges=merges)
    path = tmp_path_factory.mktemp("saved") / "s.json"
    save_session(trainer, path)
    assert path.read_text(encoding="utf-8") == _written_as_json_dumps_writes_it(session_to_dict(trainer))


def test_a_saved_session_with_branches_and_decisions_is_the_json_of_its_data(tmp_path):
    trainer = trained()
    trainer.step(sorted(trainer.pair_counts())[-1])  # a branch beside the two undone merges
    save_session(trainer, tmp_path / "s.json", test_text='say "hi"\n')
    data = session_to_dict(trainer, test_text='say "hi"\n')
    assert len(data["branches"]) == 2 and any(m["candidates"] for m in data["merges"])
    assert (tmp_path / "s.json").read_text(encoding="utf-8") == _written_as_json_dumps_writes_it(data)


def test_a_damaged_file_named_as_a_session_is_refused_as_a_session(tmp_path):
    """A session cut short before its format line ("version" and "merges" first, as a hand-edit
    leaves it) was called "the Hugging Face tokenizer file … is not JSON"."""
    path = tmp_path / "lesson.bpe.json"
    path.write_text('{"version": 1, "merges": [["a","b"', encoding="utf-8")
    code, _, err = run("encode", "--model", str(path), "x")
    assert code == 1 and err.startswith(f"bpe-studio: The session file {str(path)!r} is not valid JSON"), err
