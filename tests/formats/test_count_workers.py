"""Counting on worker processes that keep running totals: the same words, counts and order of
first appearance as one process, whichever worker counted which part; a failure, a cancel or a
worker that dies ends the count with one sentence and no process left behind."""

import json
import multiprocessing
import os
import threading
from collections import Counter
from itertools import pairwise

import pytest

from bpe_core import PipelineConfig
from bpe_core.errors import Cancelled, InputError
from bpe_core.io import counting
from bpe_core.io.count_workers import count_on_workers, merged
from bpe_core.io.counting import count_sources
from bpe_core.io.sources import expand
from tests.conftest import data_text

CONFIG = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, special_tokens=("<|end|>",))


def test_words_keep_the_order_of_their_first_appearance_across_workers():
    # Tasks 0 and 2 on one worker, task 1 on another (the module's example).
    first = ({"a": 1, "b": 2}, [(0, 0), (2, 1)], [1])
    second = ({"c": 1, "b": 1}, [(1, 0)], [2])
    counter, specials = merged([first, second], 1)
    assert list(counter.items()) == [("a", 1), ("c", 1), ("b", 3)] and specials == [3]
    assert merged([], 2) == (Counter(), [0, 0])


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Many small parts (text cut into tasks of a few hundred characters, and JSONL records)."""
    monkeypatch.setattr(counting, "CHUNK", 300)
    monkeypatch.setattr(counting, "ONE_WORKER_BELOW", 0)
    text = data_text("shakespeare_200k.txt")[:40_000]
    (tmp_path / "a.txt").write_text(text[:20_000] + "<|end|>" + text[20_000:30_000], encoding="utf-8")
    lines = [json.dumps({"text": line}) for line in text[30_000:].splitlines()]
    (tmp_path / "b.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("zebra quagga " * 50 + "<|end|> okapi", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("workers, fork", [(2, True), (3, True), (2, False)])
def test_workers_count_as_one_process_does(folder, workers, fork):
    alone = count_sources(expand([str(folder)]), CONFIG, workers=1)
    together = count_sources(expand([str(folder)]), CONFIG, workers=workers, fork=fork)
    assert list(together.counter.items()) == list(alone.counter.items())
    assert together.specials == alone.specials == [2]
    assert not multiprocessing.active_children()


def test_only_a_caller_that_starts_no_threads_forks_its_workers(folder, monkeypatch):
    """The window spawns them: Qt runs threads Python cannot see, and forking beside them is unsafe."""
    started = []

    def counted(work, config, field, workers, context, cancelled):
        started.append(context.get_start_method())
        return count_on_workers(work, config, field, workers, context, cancelled)

    monkeypatch.setattr(counting, "count_on_workers", counted)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # as a command line's process
    count_sources(expand([str(folder)]), CONFIG, workers=2)
    count_sources(expand([str(folder)]), CONFIG, workers=2, fork=True)
    assert started == ["spawn", "fork"]


def test_a_bad_record_met_by_a_worker_is_refused_naming_it(folder):
    (folder / "d.jsonl").write_text('{"text": "fine"}\n{"text": 7}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"Line 2 of .*d\.jsonl.* not a string"):
        count_sources(expand([str(folder)]), CONFIG, workers=2)
    assert not multiprocessing.active_children()


def test_a_cancelled_count_stops_its_workers(folder):
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 5

    with pytest.raises(Cancelled):
        count_sources(expand([str(folder)]), CONFIG, workers=2, cancelled=cancelled)
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_ends_the_count_in_one_sentence(folder, monkeypatch):
    counted = counting.count_task

    def dies_on_okapi(task, *args):
        if task.name.endswith("c.txt"):  # the file holding "okapi", read by the worker
            os._exit(9)  # as the kernel's out-of-memory killer would end it
        return counted(task, *args)

    monkeypatch.setattr(counting, "count_task", dies_on_okapi)  # forked workers inherit it
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # (tests before may leave a thread)
    with pytest.raises(InputError, match=r"ended unexpectedly \(exit status 9\)") as raised:
        count_sources(expand([str(folder)]), CONFIG, workers=2, fork=True)
    assert "\n" not in str(raised.value)
    assert not multiprocessing.active_children()


def test_a_file_is_shared_out_in_parts_small_enough_to_keep_every_worker_busy(tmp_path, monkeypatch):
    """Parts of the usual size would give two workers only a few (one left counting the last
    alone): a file of known size is cut so that each gets many, covering it end to end."""
    monkeypatch.setattr(counting, "ONE_WORKER_BELOW", 0)
    text = data_text("shakespeare_200k.txt") * 10  # about 2 MB: one part of the usual size
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    handed: list = []

    def counted(work, config, field, workers, context, cancelled):
        work = list(work)
        handed.extend(work)
        return count_on_workers(work, config, field, workers, context, cancelled)

    monkeypatch.setattr(counting, "count_on_workers", counted)
    got = count_sources(expand([str(tmp_path / "t.txt")]), CONFIG, workers=2)
    spans = [task.span for task in handed]
    assert len(spans) >= 8 and spans[0][0] == 0 and spans[-1][1] == len(text.encode())
    assert all(a[1] == b[0] for a, b in pairwise(spans))
    assert got.counter == count_sources(expand([str(tmp_path / "t.txt")]), CONFIG).counter
