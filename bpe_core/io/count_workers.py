"""Counting tasks on worker processes that keep running totals.

Each worker counts the tasks it takes straight into its own counter, so a task's words are
added up once, in C, where they are counted; the main process only reads the inputs, hands out
tasks (a bounded queue: memory follows the word types, not the input) and, at the end, adds the
workers' totals up. Had each task's counts been sent back, the main process would add every
task's word types again, one by one: on many cores that was the count's bottleneck.

Word types keep the order of their first appearance in the inputs (the ``first-seen`` tie-break
depends on it). A worker notes where each task's new words begin in its counter: a word first
appears in the inputs at the earliest task holding it, at its place among that task's words, and
one worker counted that task, so the words sort by (task, place in that worker's counter).

Example: tasks 0 and 2 on worker A give ``{"a": 1, "b": 2}`` with new words from task 0 at
place 0 and from task 2 at place 1 ("b"), task 1 on worker B gives ``{"c": 1, "b": 1}``: the
order is a (task 0), c, b (task 1), with b counted 3 times.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, repeat
from operator import add
from typing import Any

from bpe_core.errors import BpeError, Cancelled, InputError
from bpe_core.pipeline.config import PipelineConfig

POLL = 0.1  # seconds between looks at cancellation and the workers' health while waiting
STOP_SECONDS = 5.0  # how long workers have to stop after a failure or a cancel before being ended
ORPHAN_CHECK = 0.5  # seconds between a worker's looks at whether its main process lives
IN_FLIGHT = 2  # tasks queued per worker: enough to keep each busy, few enough to bound memory

# What a worker sends back once its tasks are done: its counts, where each task's new words
# begin in them (task number, place), and its special tokens' counts.
Totals = tuple[dict[str, int], list[tuple[int, int]], list[int]]


def count_on_workers(
    work: Iterable[Any],
    config: PipelineConfig,
    field: str,
    workers: int,
    context: Any,
    cancelled: Callable[[], bool],
) -> tuple[Counter[str], list[int]]:
    """The word and special-token counts of the tasks of ``work`` (``bpe_core.io.counting``),
    counted by ``workers`` processes of the multiprocessing ``context``. Raises what a task
    raised, :class:`Cancelled` as soon as ``cancelled()``, or ``InputError`` when a worker ends
    without a word (killed, out of memory); the workers are gone when it returns or raises."""
    tasks = context.Queue(maxsize=IN_FLIGHT * workers)
    results = context.Queue()
    abandon = context.Event()
    n_specials = len(config.special_tokens)
    processes = [
        context.Process(
            target=_work, args=(config.to_dict(), field, n_specials, tasks, results, abandon), daemon=True
        )
        for _ in range(workers)
    ]
    started: list[Any] = []  # (a process never started can be neither stopped nor joined)
    try:
        with _signals_held():
            for process in processes:
                process.start()
                started.append(process)
        gathered = _Gathered(results, processes, cancelled)
        for item in chain(enumerate(work), repeat((None, None), workers)):  # then a "stop" each
            _put(tasks, item, gathered.check)
        while len(gathered.totals) < workers:
            gathered.check(wait=True)
    except _TaskFailed as failure:
        # Tasks before the failed one may still be counting, and may fail too: the fault
        # reported is the first in the inputs' order, whichever process met it first.
        abandon.set()
        faults = [failure, *_stop(tasks, results, started)]
        raise min(faults, key=lambda fault: fault.number).error from None
    except BaseException:
        abandon.set()
        try:
            _stop(tasks, results, started)
        except BaseException:  # a second Ctrl+C while they stop: they are ended at once
            _end(started)
            raise
        raise
    for process in processes:
        process.join()
    tasks.close()
    tasks.join_thread()
    return merged(gathered.totals, n_specials)


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl+C and SIGTERM held back while workers start, and delivered once they have: one
    arriving within ``fork`` ran its handler inside the parent's after-fork hooks, which drop
    the exception, and the count went on to write its output (a worker unblocks them itself,
    see :func:`_work`). Where signals cannot be masked (Windows), nothing is held."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


def _put(tasks: Any, item: Any, check: Callable[[], None]) -> None:
    """Queue ``item`` once there is room, hearing the workers meanwhile."""
    while True:
        check()
        try:
            tasks.put(item, timeout=POLL)
            return
        except queue.Full:
            continue


def _stop(tasks: Any, results: Any, processes: list) -> list[_TaskFailed]:
    """After a failure or a cancel: the workers, told to abandon, take the tasks still queued
    without counting them, up to a "stop" each; one that is not gone by ``STOP_SECONDS`` (it
    died holding the queue, or is deep in a huge task) is ended. The queue is then closed, and
    its sending thread joined when the workers emptied it (else it is left to end with us).
    Returns the faults the workers reported meanwhile."""
    deadline = time.monotonic() + STOP_SECONDS
    stops = 0
    faults: list[_TaskFailed] = []
    while stops < len(processes) and time.monotonic() < deadline and any(p.is_alive() for p in processes):
        try:
            tasks.put((None, None), timeout=POLL)
            stops += 1
        except queue.Full:
            pass
        _drain(results, faults)  # a worker exits only once what it sent has been read
    while time.monotonic() < deadline and any(process.is_alive() for process in processes):
        _drain(results, faults)
        time.sleep(POLL / 10)
    clean = True
    for process in processes:
        if process.is_alive():
            process.terminate()
            clean = False
        process.join()
    _drain(results, faults)
    tasks.close()
    if clean and stops == len(processes):
        tasks.join_thread()
    else:
        tasks.cancel_join_thread()
    return faults


def _end(processes: list) -> None:
    """End the workers without waiting for them (the command is leaving): none may outlive it."""
    with _signals_held():
        for process in processes:
            with contextlib.suppress(Exception):
                if process.is_alive():
                    process.kill()


def _drain(results: Any, faults: list[_TaskFailed]) -> None:
    """Read what the workers sent, keeping the faults among it."""
    with contextlib.suppress(queue.Empty, OSError, EOFError):
        while True:
            kind, payload = results.get_nowait()
            if kind == "failed":
                faults.append(_TaskFailed(*payload))


class _TaskFailed(Exception):
    """A task's failure as a worker reported it: the task's number and the error."""

    def __init__(self, number: int, error: BaseException) -> None:
        super().__init__(number, error)
        self.number = number
        self.error = error


class _Gathered:
    """The workers' replies so far; :meth:`check` raises as soon as one reports a failure."""

    def __init__(self, results: Any, processes: list, cancelled: Callable[[], bool]) -> None:
        self._results = results
        self._processes = processes
        self._cancelled = cancelled
        self.totals: list[Totals] = []

    def check(self, wait: bool = False) -> None:
        if self._cancelled():
            raise Cancelled
        try:
            reply = self._results.get(timeout=POLL) if wait else self._results.get_nowait()
        except queue.Empty:
            if len(self.totals) + sum(p.is_alive() for p in self._processes) < len(self._processes):
                self._ended_silently()
            return
        self._take(reply)

    def _take(self, reply: tuple[str, Any]) -> None:
        kind, payload = reply
        if kind == "failed":
            raise _TaskFailed(*payload)
        self.totals.append(payload)

    def _ended_silently(self) -> None:
        try:  # its last words may have arrived meanwhile
            reply = self._results.get(timeout=POLL)
        except queue.Empty:
            codes = [p.exitcode for p in self._processes if p.exitcode not in (None, 0)]
            raise InputError(
                f"A counting process ended unexpectedly (exit status {codes[0] if codes else 0}); "
                "it may have run out of memory: try fewer --workers."
            ) from None
        self._take(reply)


def _work(
    config: dict[str, Any],
    field: str,
    n_specials: int,
    tasks: Any,
    results: Any,
    abandon: Any,
) -> None:
    """A worker's life: count tasks until told to stop, then send the totals. After a failure
    (its own or another's: ``abandon``), tasks are taken without being counted, up to the stop."""
    from bpe_core.io.counting import count_task  # (that module starts the workers)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the main process's to handle
    # Ended by the main process (or with the whole group) at once and without a traceback: a
    # forked worker would otherwise keep the command's handler, which raises.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)  # held while it was started
    pipeline = PipelineConfig.from_dict(config)
    counter: Counter[str] = Counter()
    specials = [0] * n_specials
    starts: list[tuple[int, int]] = []
    failed = False
    _end_with(os.getppid())
    while True:
        number, task = tasks.get()
        if number is None:
            break
        if failed or abandon.is_set():
            continue
        known = len(counter)
        try:
            count_task(task, pipeline, field, counter, specials)
        except BpeError as error:  # a sentence for the user: the main process raises it
            failed = _failed(results, number, error)
        except MemoryError:
            failed = _failed(results, number, InputError("Counting ran out of memory: try fewer --workers."))
        except Exception as error:  # a fault of ours, sent as text (not every error pickles)
            failed = _failed(results, number, RuntimeError(f"A counting process failed: {error!r}"))
        if len(counter) > known:
            starts.append((number, known))
    if not (failed or abandon.is_set()):
        results.put(("done", (dict(counter), starts, specials)))


def _end_with(parent: int) -> None:
    """End this worker once its main process ``parent`` is gone (killed, out of memory): it
    may be waiting for a task, deep in one, or sending its totals down a pipe no one reads."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(1)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def _failed(results: Any, number: int, error: Exception) -> bool:
    results.put(("failed", (number, error)))
    return True


def merged(totals: list[Totals], n_specials: int) -> tuple[Counter[str], list[int]]:
    """The workers' totals added up, words in order of first appearance (see the module)."""
    first: dict[str, int] = {}  # word -> (task << 32 | place): smaller is earlier
    summed: dict[str, int] = {}
    for counts, starts, _ in totals:
        words = list(counts)
        ends = [start for _, start in starts[1:]] + [len(words)]
        tags = [
            number << 32 | place for (number, start), end in zip(starts, ends) for place in range(start, end)
        ]
        # All in C: each word's earliest tag so far, and its count so far plus this worker's.
        dict.update(first, zip(words, map(min, map(first.get, words, tags), tags)))
        dict.update(summed, zip(words, map(add, counts.values(), map(summed.get, words, repeat(0)))))
    ordered = sorted(first, key=first.__getitem__)
    specials = [sum(column) for column in zip(*(found for _, _, found in totals))] or [0] * n_specials
    return Counter(dict(zip(ordered, map(summed.__getitem__, ordered)))), specials
