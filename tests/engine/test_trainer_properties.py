"""Properties of the incremental trainer, checked against brute-force recounts.

Corpora use a three-letter alphabet and markers such as ``bc`` so that ties, overlapping pairs
(``aaa``) and tokens re-created by a different route (``a+bc`` and ``ab+c``) all occur often.
"""

import json
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import (
    Corpus,
    MergeError,
    PipelineConfig,
    Trainer,
    TrainingConfig,
)
from bpe_core.io.session import (
    load_session,
    parse_session,
    read_session,
    save_session,
    session_to_dict,
    trainer_from_session,
)
from bpe_core.io.session.stream import SavedMerges
from bpe_core.training import (
    cold_index,
    flat_index,
    initial_symbols,
    pair_index,
    replay_by_words,
    word_replay,
)
from bpe_core.training import trainer as trainer_module
from bpe_core.training.tie_rules import TieBreakRule
from tests.conftest import data_text
from tests.helpers import recount, snapshot

# A corpus counted afresh is indexed flat; its merges run one occurrence at a time or
# vectorised depending on how many slots they list (``FEW``). The string index (sessions, and
# the fallback) runs merges per word or vectorised depending on how many words they touch, and
# words longer than LONG_WORD symbols are linked lists. Every path must agree.
# (flat FEW or None for the string index, batch words, long word)
PATHS = pytest.mark.parametrize(
    "path",
    [(10**9, 0, 0), (0, 0, 0), (None, 0, 10**9), (None, 10**9, 10**9), (None, 10**9, 2)],
    ids=["flat-few", "flat-vectorised", "vectorised", "per-word", "long-words"],
)


@contextmanager
def merge_path(path: tuple[int | None, int, int]):
    few, batch, long = path
    saved = flat_index.FEW, trainer_module.FLAT_INDEX, pair_index.BATCH_WORDS, pair_index.LONG_WORD
    if few is None:
        trainer_module.FLAT_INDEX, pair_index.BATCH_WORDS, pair_index.LONG_WORD = False, batch, long
    else:
        flat_index.FEW = few
    try:
        yield
    finally:
        flat_index.FEW, trainer_module.FLAT_INDEX, pair_index.BATCH_WORDS, pair_index.LONG_WORD = saved


@contextmanager
def tiny_slices():
    """Opening works a slice, a run or a window of symbols at a time (``cold_index``,
    ``initial_symbols``), and carries a run's last few words over to the next
    (``word_replay``); a few symbols each makes tiny corpora cross every boundary."""
    saved = cold_index.SLICE, cold_index.WINDOW, initial_symbols.RUN_BYTES, trainer_module.LONG_WALK
    few = word_replay.FEW_WORDS, word_replay.FEW_SYMBOLS, replay_by_words.EXACT_REPLAY_SYMBOLS
    cold_index.SLICE, cold_index.WINDOW, initial_symbols.RUN_BYTES, trainer_module.LONG_WALK = 3, 2, 5, 4
    # Tiny sessions would replay merge by merge: these take the word-by-word replay of large ones.
    word_replay.FEW_WORDS, word_replay.FEW_SYMBOLS, replay_by_words.EXACT_REPLAY_SYMBOLS = 2, 3, -1
    try:
        yield
    finally:
        cold_index.SLICE, cold_index.WINDOW, initial_symbols.RUN_BYTES, trainer_module.LONG_WALK = saved
        word_replay.FEW_WORDS, word_replay.FEW_SYMBOLS, replay_by_words.EXACT_REPLAY_SYMBOLS = few


def rebuilt(trainer: Trainer) -> Trainer:
    """The same trainer made afresh, so that the merge path in force applies from the start."""
    return Trainer(trainer.corpus, trainer.training)


RULES = ["first-seen", "hf", "subword-nmt", "lexicographic", "random:3"]

texts = st.text(alphabet="abc ", min_size=1, max_size=40).filter(lambda t: t.split())
markers = st.sampled_from([None, "</w>", "bc", "c"])


# Merges per pass: 1 is the classic algorithm, 0 every pair that does not conflict. A pass is
# one node of the history, so every mode must keep undo, redo and the branches as exact.
PASSES = pytest.mark.parametrize("per_pass", [1, 2, 3, 0], ids=["classic", "2-per-pass", "3-per-pass", "all"])


@st.composite
def trainers(draw, per_pass: int = 1) -> Trainer:
    marker = draw(markers)
    config = PipelineConfig(
        end_of_word=marker,
        attach_marker=marker is not None and draw(st.booleans()),
        pretokenize=draw(st.sampled_from(["whitespace", "none"])),
        unit=draw(st.sampled_from(["char", "byte"])),
    )
    training = TrainingConfig(
        min_frequency=draw(st.integers(1, 2)),
        tie_break=draw(st.sampled_from(RULES)),
        merges_per_pass=per_pass,
    )
    return Trainer(Corpus.from_text(draw(texts), config), training)


def expected_choice(trainer: Trainer) -> tuple[int, int] | None:
    """The pair the rule should pick, from a recount in first-appearance order."""
    counts: dict[tuple[int, int], int] = {}
    for w, n in enumerate(trainer.corpus.counts):
        seg = trainer.segmentation(w)
        for pair in pairwise(seg):
            counts[pair] = counts.get(pair, 0) + n
    if not counts or max(counts.values()) < trainer.training.min_frequency:
        return None
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]
    rule = trainer.rule
    if rule.depends_on_position:
        return tied[0]  # dict order is first occurrence: what max() over the dict returns
    tokens = trainer.token_string
    return min(tied, key=lambda p: rule.static_key(tokens(p[0]), tokens(p[1]), *p))


def check_consistent(trainer: Trainer) -> None:
    pairs, tokens, total = recount(trainer)
    assert trainer.pair_counts() == dict(pairs)
    assert [trainer.token_frequency(t) for t in range(trainer.vocab.n_special, trainer.vocab_size)] == [
        tokens.get(t, 0) for t in range(trainer.vocab.n_special, trainer.vocab_size)
    ]
    assert trainer.corpus_tokens == total
    top = max(pairs.values(), default=0)
    assert trainer.top_count() == top
    assert trainer.ties_at_top() == sum(1 for c in pairs.values() if c == top and top)
    assert trainer.vocab_size == len(set(trainer.vocab.keys))
    lengths = [len(trainer.segmentation(w)) for w in range(trainer.word_count)]
    assert trainer.segmentation_lengths().tolist() == lengths


actions = st.lists(
    st.one_of(
        st.just(("step",)),
        st.tuples(st.just("pick"), st.integers(0, 50)),
        st.just(("undo",)),
        st.just(("redo",)),
        st.tuples(st.just("goto"), st.integers(0, 12)),
        st.tuples(st.just("run"), st.integers(1, 4)),
        st.tuples(st.just("switch"), st.integers(0, 9), st.integers(0, 12) | st.none()),
        st.tuples(st.just("delete"), st.integers(0, 9)),
    ),
    max_size=25,
)


@PATHS
@PASSES
@settings(max_examples=300, deadline=None)
@given(data=st.data(), commands=actions)
def test_any_command_sequence_keeps_counts_exact_and_undo_exact(path, per_pass, data, commands):
    trainer = data.draw(trainers(per_pass))
    with merge_path(path):
        run_commands(rebuilt(trainer), commands)


def do(trainer, command):
    """Carry out one generated command; returns what the checks need (see run_commands)."""
    name = command[0]
    if name == "step":
        return trainer.step()
    if name == "pick":
        pairs = sorted(trainer.pair_counts())
        return trainer.step(pairs[command[1] % len(pairs)], chosen=True) if pairs else None  # as the window
    if name == "undo" and trainer.can_undo:
        return trainer.undo()
    if name == "redo" and trainer.can_redo:
        return trainer.redo()
    if name == "goto":
        return trainer.goto(min(command[1], trainer.history_length))
    if name == "run":
        return trainer.run(merges=command[1])
    ids = sorted(b.id for b in trainer.branches())
    if name == "switch":
        branch = ids[command[1] % len(ids)]
        step = None if command[2] is None else min(command[2], len(trainer.branch_history(branch)))
        trainer.switch(branch, step)
        return branch, step
    if name == "delete":
        branch = ids[command[1] % len(ids)]
        if branch == trainer.current_branch:
            with pytest.raises(MergeError):
                trainer.delete_branch(branch)
            return None
        trainer.delete_branch(branch)
        return branch
    return None


def check_passes(trainer: Trainer) -> None:
    """Every line is whole passes numbered 1, 2, 3, ... with a branch's own merges starting a
    pass, and the position is never inside a pass."""
    for branch in trainer.branches():
        passes = [r.pass_number for r in trainer.branch_history(branch.id)]
        assert all(b - a in (0, 1) for a, b in pairwise([0, *passes])), passes
        if 0 < branch.fork < len(passes):
            assert passes[branch.fork] == passes[branch.fork - 1] + 1
    passes = [0, *(r.pass_number for r in trainer.history), -1]
    assert passes[trainer.position] != passes[trainer.position + 1]


def run_commands(trainer, commands):
    """Run the commands, checking after each that the counts equal a recount and that a node
    of the history tree (the merges from the root to it) always has the same state."""
    check_consistent(trainer)
    known: dict[tuple, tuple] = {}

    def check_node():
        node = tuple(r.pair for r in trainer.history[: trainer.position])
        state = snapshot(trainer)
        assert known.setdefault(node, state) == state

    check_node()
    for command in commands:
        name = command[0]
        lines = {b.id: trainer.branch_history(b.id) for b in trainer.branches()}
        start, line = trainer.position, trainer.history
        expected = expected_choice(trainer) if name == "step" else None
        before = snapshot(trainer) if name in ("step", "pick", "redo") else None
        pairs = sorted(trainer.pair_counts()) if name == "pick" else []
        record = do(trainer, command)
        if name == "step":
            if expected is None:
                assert record is None and snapshot(trainer) == before
                continue
            assert trainer.record(start + 1).pair == expected  # a pass begins with the rule's pick
        elif name == "pick" and record is not None:
            assert record.pair == pairs[command[1] % len(pairs)]
            followed = [
                r
                for r in lines.values()
                if len(r) > start and r[:start] == line[:start] and r[start].pair == record.pair
            ]
            assert record.decided_by == "user" or followed
        elif name == "switch":
            branch, step = record
            assert trainer.current_branch == branch and trainer.history == lines[branch]
            passes = [r.pass_number for r in lines[branch]]
            if step is None:
                step = len(passes)
            while 0 < step < len(passes) and passes[step] == passes[step - 1]:
                step += 1  # a step inside a pass stands for the pass's end
            assert trainer.position == step
        elif name == "delete" and record is not None:
            assert record not in {b.id for b in trainer.branches()}
        check_consistent(trainer)
        check_node()
        check_passes(trainer)
        if name in ("step", "pick", "redo") and trainer.position != start:
            # One undo takes back exactly what the command did, and redo does it again.
            after = snapshot(trainer)
            trainer.undo()
            assert snapshot(trainer) == before
            trainer.redo()
            assert snapshot(trainer) == after
        # No line of the history is ever lost: each one seen before is still some branch's
        # prefix, record for record (only who decided a merge changes, when it is chosen anew).
        now = [[replace(r, decided_by="") for r in trainer.branch_history(b.id)] for b in trainer.branches()]
        if name != "delete":
            for old in lines.values():
                merges = [replace(r, decided_by="") for r in old]
                assert any(new[: len(merges)] == merges for new in now)


@settings(max_examples=200, deadline=None)
@given(trainers(), st.integers(0, 30))
def test_encoding_a_training_word_reproduces_its_training_segmentation(trainer, merges):
    trainer.run(merges=merges)
    encoder = trainer.encoder()
    for w, word in enumerate(trainer.corpus.words):
        initial, steps = encoder.trace(word)
        final = steps[-1].symbols if steps else initial
        assert list(final) == trainer.segmentation(w)


@PATHS
@settings(max_examples=100, deadline=None)
@given(trainer=trainers())
def test_undo_all_then_redo_all_restores_every_state(path, trainer):
    with merge_path(path):
        undo_redo_all(rebuilt(trainer))


def undo_redo_all(trainer):
    states = [snapshot(trainer)]
    while trainer.step() is not None:
        states.append(snapshot(trainer))
    for k in range(len(states) - 1, 0, -1):
        trainer.undo()
        assert snapshot(trainer) == states[k - 1]
    trainer.goto(len(states) - 1)
    assert snapshot(trainer) == states[-1]


def test_rules_are_total_orders_and_documented():
    from bpe_core.training import tie_rules as tiebreak

    for name in tiebreak.RULE_NAMES:
        assert name in tiebreak.DESCRIPTIONS and name in (tiebreak.__doc__ or "")
    rule = TieBreakRule("subword-nmt")
    keys = [
        rule.static_key(left, right, 0, 0)
        for left, right in [("a", "b"), ("a", "bc"), ("ab", "c"), ("b", "a")]
    ]
    assert sorted(range(4), key=keys.__getitem__) == [3, 2, 1, 0]  # greatest strings first


def test_manual_step_rejects_absent_pair_and_leaves_state():
    trainer = Trainer(Corpus.from_text("ab ab", PipelineConfig()))
    before = snapshot(trainer)
    try:
        trainer.step((trainer.vocab.find("b"), trainer.vocab.find("a")))
    except MergeError as error:
        assert "does not occur" in str(error)
    else:
        raise AssertionError("expected MergeError")
    assert snapshot(trainer) == before


def test_counter_order_is_first_appearance():
    corpus = Corpus.from_text("b a b c a", PipelineConfig())
    assert corpus.words == ("b", "a", "c") and corpus.counts == (2, 2, 1)
    assert Counter(dict(zip(corpus.words, corpus.counts))) == Counter(["b", "a", "b", "c", "a"])


@pytest.mark.parametrize("rule", ["random:3", "lexicographic", "subword-nmt"])
def test_a_token_id_reused_after_undo_does_not_keep_the_old_tie_key(rule):
    # Found by hypothesis: undo frees the id of "ab"; the next token reuses it, and an old heap
    # entry for ("b", "ab") would otherwise rank ("b", "Ġc") with the old strings' key.
    text = "aaa ac b cb cac cbab"
    config = PipelineConfig(pretokenize="none", unit="byte", end_of_word=None)
    trainer = Trainer(Corpus.from_text(text, config), TrainingConfig(min_frequency=1, tie_break=rule))
    commands = [("pick", 1), ("undo",), ("step",), ("step",), ("step",), ("undo",), ("step",)]
    run_commands(trainer, commands)


def test_a_pick_that_follows_a_one_merge_pass_leaves_a_longer_pass_of_that_merge_as_it_was():
    # Found by hypothesis, every pair merged in a pass: one line's second pass is one merge (a
    # run cut short), another's is the same merge and one more. Picking that merge follows the
    # first line; the second is another node of the tree, and its merge stays the rule's.
    corpus = Corpus.from_word_counts([("aba", 1), ("bb", 1)], PipelineConfig(end_of_word=None))
    trainer = Trainer(corpus, TrainingConfig(min_frequency=1, tie_break="hf", merges_per_pass=0))
    run_commands(trainer, [("step",), ("run", 1), ("undo",), ("step",), ("undo",), ("pick", 0)])
    deciders = [[r.decided_by for r in trainer.branch_history(b.id)] for b in trainer.branches()]
    assert sorted(deciders) == [["hf", "hf", "hf"], ["hf", "user"]]
    loaded = reopened(trainer, streamed=True)
    for command in [("undo",), ("step",)]:
        assert do(loaded, command) == do(trainer, command)
        assert loaded.history == trainer.history and loaded.branches() == trainer.branches()


@PATHS
@PASSES
@settings(max_examples=200, deadline=None)
@given(data=st.data(), commands=actions)
def test_a_saved_session_reopens_at_every_step_exactly_as_it_was(path, per_pass, data, commands):
    """Opening replays the history word by word when it can (``bpe_core.training.word_replay``); either
    way, every state along the history must equal the original's and a merge-by-merge replay's."""
    trainer = data.draw(trainers(per_pass))
    with merge_path(path), tiny_slices():
        reopen_at_every_step(rebuilt(trainer), commands)


def reopened(trainer: Trainer, streamed: bool = False) -> Trainer:
    """The trainer saved and opened again: from its JSON data, or ``streamed`` from a file as
    the window opens it (``bpe_core.io.session.stream``)."""
    if not streamed:
        return trainer_from_session(
            parse_session(json.dumps(session_to_dict(trainer)), Path("s.json")), "s.json"
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        save_session(trainer, path)
        assert isinstance(read_session(path)["merges"], SavedMerges)
        return load_session(path)


@PATHS
@PASSES
@settings(max_examples=200, deadline=None)
@given(data=st.data(), before=actions, after=actions)
def test_a_reopened_session_answers_every_command_as_the_original(path, per_pass, data, before, after):
    """An opened session starts from flat arrays and warms up what each command touches
    (``bpe_core.training.cold_index``): whatever is done next, it must stay the original's twin."""
    trainer = data.draw(trainers(per_pass))
    with merge_path(path), tiny_slices():
        original = rebuilt(trainer)
        run_commands(original, before)
        loaded = reopened(original, streamed=True)
        for command in after:
            outcomes = [do(t, command) for t in (loaded, original)]
            assert outcomes[0] == outcomes[1]
            assert snapshot(loaded) == snapshot(original)
            assert loaded.history == original.history and loaded.branches() == original.branches()
            assert sorted(loaded.changed_words()) == sorted(original.changed_words())
            if command[0] in ("step", "pick", "undo", "redo") and outcomes[0] is not None:
                changes = [t.last_change for t in (loaded, original)]
                assert [(c.applied, c.record, sorted(c.words)) for c in changes if c] == [
                    (c.applied, c.record, sorted(c.words)) for c in changes[::-1] if c
                ]
            for token in range(loaded.vocab_size):
                assert loaded.words_with_token(token) == original.words_with_token(token)
            check_consistent(loaded)


def reopen_at_every_step(trainer, commands):
    run_commands(trainer, commands)
    loaded = reopened(trainer)
    replayed = Trainer(trainer.corpus, trainer.training)
    for r in trainer.history:
        replayed.replay(r.pair, r.count, r.top_count, r.ties, r.candidates, r.decided_by, r.pass_number)
    replayed.goto(trainer.position)
    assert loaded.history == replayed.history == trainer.history
    assert loaded.series() == trainer.series()
    check_consistent(loaded)
    for step in [*range(trainer.position, -1, -1), *range(len(trainer.history) + 1)]:
        for t in (loaded, replayed, trainer):
            if t.position > step:
                t.undo()
            elif t.position < step:
                t.redo()
        assert snapshot(loaded) == snapshot(replayed) == snapshot(trainer)
        assert sorted(loaded.changed_words()) == sorted(trainer.changed_words())
    check_consistent(loaded)
    # Every other branch comes back too, and walks to the same states.
    assert loaded.branches() == trainer.branches()
    for branch in trainer.branches():
        for step in sorted({0, branch.fork, branch.length}):
            for t in (loaded, trainer):
                t.switch(branch.id, step)
            assert loaded.history == trainer.history and snapshot(loaded) == snapshot(trainer)
            check_consistent(loaded)


@pytest.mark.parametrize("flat", [True, False], ids=["flat", "strings"])
def test_undo_and_redo_again_and_again_keep_the_word_lists_bounded(flat, monkeypatch):
    monkeypatch.setattr(trainer_module, "FLAT_INDEX", flat)
    trainer = Trainer(Corpus.from_text(data_text("shakespeare_200k.txt")[:30_000], PipelineConfig()))
    trainer.run(merges=40)

    def listed() -> int:
        return sum(map(len, trainer._index.where.values()))

    sizes = []
    for _ in range(40):
        for _ in range(10):
            trainer.undo()
        for _ in range(10):
            trainer.redo()
        sizes.append(listed())
    assert max(sizes[10:]) <= 2 * sizes[0] + 1000  # compacted as re-listing doubles a list
    check_consistent(trainer)
