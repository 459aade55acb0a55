"""The history's lines stored as columns (``bpe_core.history.merge_line``): a line reads back exactly the
records put in, a line that forks reads its base's rows, and lines compare as their records do."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.history.merge_line import LineView, MergeLine, common_length, field_values
from bpe_core.history.records import MergeRecord
from bpe_core.io.session import load_session, save_session
from tests.helpers import trainer_for


def history_of(text: str, merges: int) -> list[MergeRecord]:
    trainer = trainer_for(text)
    trainer.run(merges=merges)
    return list(trainer.history)


COUNT = st.integers(0, 2**62)
ID = st.integers(0, 2**21 - 1)
PAIR = st.tuples(ID, ID)
FIELDS = ("token", "count", "top_count", "replacements", "ties", "vocab_size", "corpus_tokens", "pass_number")


@st.composite
def records(draw, n_max: int = 12) -> list[MergeRecord]:
    return [
        MergeRecord(
            step=step,
            pair=draw(PAIR),
            token=draw(ID),
            count=draw(COUNT),
            top_count=draw(COUNT),
            replacements=draw(COUNT),
            ties=draw(COUNT),
            candidates=tuple(draw(st.lists(PAIR, max_size=5))),
            decided_by=draw(st.sampled_from(["first-seen", "hf", "user", "random:7", "é rule"])),
            new_token=draw(st.booleans()),
            vocab_size=draw(st.integers(0, 2**31 - 1)),
            corpus_tokens=draw(COUNT),
            pass_number=draw(st.integers(0, 2**31 - 1)),
        )
        for step in range(1, draw(st.integers(0, n_max)) + 1)
    ]


@given(records())
def test_a_line_reads_back_every_record_and_every_column(given_records):
    line = MergeLine.of(given_records)
    assert len(line) == len(given_records) and list(line) == given_records
    assert [line[i] for i in range(-len(line), 0)] == given_records
    for name in FIELDS:
        assert line.column(name).tolist() == [getattr(r, name) for r in given_records]
    assert line.column("new_token").astype(bool).tolist() == [r.new_token for r in given_records]
    assert [line.pair(i) for i in range(len(line))] == [r.pair for r in given_records]
    view = LineView(line)
    assert (
        view == given_records
        and view == tuple(given_records)
        and field_values(view, "ties") == [r.ties for r in given_records]
    )


@given(records(), st.data())
def test_a_fork_reads_its_bases_rows_and_keeps_its_own(base_records, data):
    base = MergeLine.of(base_records)
    at = data.draw(st.integers(0, len(base)))
    fork = base.fork(at)
    own = [replace(r, step=at + k + 1) for k, r in enumerate(data.draw(records()))]
    for record in own:
        fork.append(record)
    more = [replace(r, step=len(base) + k + 1) for k, r in enumerate(data.draw(records(4)))]
    for record in more:  # the base grows on: the fork still reads only its first rows
        base.append(record)
    assert list(fork) == base_records[:at] + own
    assert list(base) == base_records + more
    for name in FIELDS:
        assert fork.column(name).tolist() == [getattr(r, name) for r in base_records[:at] + own]
    assert common_length(fork, base) == common_length(base, fork) >= at
    assert common_length(fork, base, at) == at


def test_a_changed_row_changes_for_every_line_that_reads_it():
    history = history_of("low low lower lowest newest widest", 6)
    line = MergeLine.of(history)
    fork = line.fork(4).fork(3)
    changed = replace(history[1], decided_by="user", candidates=((9, 9), (8, 8), (7, 7), (6, 6), (5, 5)))
    fork[1] = changed  # more candidates than before: the later rows' must not move
    expected = [history[0], changed, *history[2:]]
    assert list(line) == expected and list(fork) == expected[:3]
    fork[1] = replace(changed, candidates=())
    assert list(line) == [history[0], replace(changed, candidates=()), *history[2:]]
    with pytest.raises(ValueError):
        line[2] = replace(line[2], step=9)  # a record of another step


def test_lines_built_apart_compare_by_their_records():
    records_a = history_of("low low lower lowest newest widest", 5)
    a, b = MergeLine.of(records_a), MergeLine.of(records_a)
    assert common_length(a, b) == 5 and LineView(a) == LineView(b)
    b[3] = replace(b[3], decided_by="user")
    assert common_length(a, b) == 3 and LineView(a) != LineView(b)
    assert LineView(b).extends(LineView(a, 3)) and not LineView(b).extends(LineView(a, 4))


def test_steps_are_checked_and_rows_found_from_the_end():
    line = MergeLine()
    with pytest.raises(ValueError):
        line.append(
            MergeRecord(
                step=2,
                pair=(0, 1),
                token=2,
                count=1,
                top_count=1,
                replacements=1,
                ties=1,
                candidates=(),
                decided_by="hf",
                new_token=True,
                vocab_size=3,
                corpus_tokens=3,
                pass_number=1,
            )
        )
    with pytest.raises(ValueError):
        MergeLine(line, 1)  # a fork past the end of its base
    with pytest.raises(IndexError):
        line[0]


def test_a_view_is_a_fixed_length_sequence_whose_prefixes_are_views():
    history = history_of("low low lower lowest newest widest", 6)
    view = LineView(MergeLine.of(history))
    assert isinstance(view[:3], LineView) and list(view[:3]) == history[:3]
    assert view[1:4] == tuple(history[1:4]) and view[::-1] == tuple(reversed(history))
    assert view[-1] == history[-1] and len(view[:99]) == 6
    with pytest.raises(IndexError):
        view[6]


def test_a_view_read_row_after_row_keeps_only_so_many_records(monkeypatch):
    history = history_of("low low lower lowest newest widest", 6)
    monkeypatch.setattr(LineView, "KEPT", 2)
    view = LineView(MergeLine.of(history))
    assert [view[i] for i in range(6)] == history and len(view._made) <= 2


def test_the_history_of_a_trainer_is_a_view_of_columns_and_survives_a_session(tmp_path):
    trainer = trainer_for("low low lower lowest newest widest " * 3)
    trainer.run(merges=8)
    trainer.goto(4)
    trainer.step(trainer.top_pairs(3)[-1].pair)  # a second branch, sharing four merges
    path = tmp_path / "s.json"
    save_session(trainer, path)
    loaded = load_session(path)
    assert loaded.history == trainer.history
    lines = {b.id: loaded.branch_history(b.id) for b in loaded.branches()}
    assert lines == {b.id: trainer.branch_history(b.id) for b in trainer.branches()}
    assert all(isinstance(line, LineView) for line in lines.values())
    assert np.array_equal(loaded.history.column("count"), [r.count for r in trainer.history])


def test_columns_widen_as_their_values_need_and_a_replaced_row_may_widen_them():
    small = MergeRecord(
        step=1,
        pair=(1, 2),
        token=3,
        count=4,
        top_count=4,
        replacements=4,
        ties=1,
        candidates=((1, 2),),
        decided_by="hf",
        new_token=True,
        vocab_size=5,
        corpus_tokens=6,
        pass_number=1,
    )
    line = MergeLine.of([small, replace(small, step=2)])
    line.append(replace(small, step=3, count=2**40, corpus_tokens=2**62, candidates=((70_000, 1),)))
    line[0] = replace(small, pair=(2**20, 5), candidates=((1, 2), (3, 4), (2**20, 9)))
    assert line[0].pair == (2**20, 5) and line[0].candidates == ((1, 2), (3, 4), (2**20, 9))
    assert line[1] == replace(small, step=2) and line[2].count == 2**40 and line[2].corpus_tokens == 2**62
    assert line[2].candidates == ((70_000, 1),) and line.column("count").tolist() == [4, 4, 2**40]


def test_a_line_grows_while_its_columns_are_held():
    """Columns are copies: the trainer may append to a line (on a worker thread) while a view
    of the window holds a column it read."""
    history = history_of("low low lower lowest newest widest", 6)
    line = MergeLine.of(history[:3])
    counts = line.column("count")
    for record in history[3:]:
        line.append(record)
    assert counts.tolist() == [r.count for r in history[:3]] and len(line.column("count")) == 6


def test_a_record_that_does_not_fit_is_refused_and_leaves_the_line_as_it_was():
    history = history_of("low low lower lowest newest widest", 4)
    line = MergeLine.of(history[:2])
    for bad in (replace(history[2], ties=-1), replace(history[2], candidates=((1, -2),))):
        with pytest.raises(ValueError):
            line.append(bad)
        with pytest.raises(ValueError):
            line[1] = replace(bad, step=2)
    line.append(history[2])
    assert list(line) == history[:3]


def test_views_made_while_a_line_grows_on_another_thread_read_whole_rows():
    """The window reads the history while a job appends to it: a row counts in the line's
    length only once all of it is written."""
    import threading

    history = history_of("low low lower lowest newest widest " * 4, 12)
    line, errors, done = MergeLine(), [], threading.Event()

    def grow():
        for _ in range(300):
            for record in history:
                line.append(replace(record, step=len(line) + 1))
        done.set()

    writer = threading.Thread(target=grow)
    writer.start()
    while not done.is_set():
        view = LineView(line)
        if len(view):
            record = view[-1]
            expected = history[(len(view) - 1) % len(history)]
            if replace(record, step=expected.step) != expected:
                errors.append(record)
    writer.join()
    assert not errors


@given(records(), st.data())
def test_a_column_read_from_a_row_on_spans_the_lines_it_reads(base_records, data):
    base = MergeLine.of(base_records)
    at = data.draw(st.integers(0, len(base)))
    fork = base.fork(at)
    for k, record in enumerate(data.draw(records())):
        fork.append(replace(record, step=at + k + 1))
    start = data.draw(st.integers(0, len(fork)))
    length = data.draw(st.integers(start, len(fork)))
    for name in ("count", "new_token"):
        assert fork.column(name, length, start).tolist() == fork.column(name)[start:length].tolist()


def test_a_column_ending_before_a_fork_reads_only_the_base():
    history = history_of("low low lower lowest newest widest", 6)
    fork = MergeLine.of(history).fork(4)
    for record in history_of("low low lower lowest newest widest " * 2, 6)[4:]:
        fork.append(record)
    counts = [r.count for r in fork]
    for start, length in ((0, 3), (1, 4), (2, 6), (4, 5), (0, 0)):
        assert fork.column("count", length, start).tolist() == counts[start:length]
