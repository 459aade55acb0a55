"""The real window, offscreen, on a counts file of about two million word types: opening it with
progress while the event loop keeps turning, then stepping with every pane visible, the Corpus
pane's filter and sort, and the memory kept against the saved session's size.

The counts file is the corpus' word trigrams (then 4-grams, until there are enough types), each
three words joined by "_" (which the whitespace pre-tokenizer keeps inside a word), written as
``bpe-studio count`` writes counts (its header, then ``word<TAB>count`` lines) by a child process
(so that this process stays as small as the window alone). Memory is this process' resident
set above the window's start-up (the window shown on its sample), at rest after a pause of two
seconds and at its peak, against the size of the session saved at the end.

Targets: a step's median within 16 ms and p99 within 50 ms with every pane visible; the filter
within 100 ms; a sort within 300 ms; memory within 3x the session file.

    python bench/window_millions.py [--corpus english_10mb.txt] [--types 2000000] [--steps 200]
                                    [--repeats 5] [--counts FILE (kept and reused)] [--start MERGES]
                                    [--pause MS]
    python bench/window_millions.py --open SESSION.json   (memory of a merge-heavy session)

A step's time is also split: the engine's own ``step()`` (undo, redo), less the window's
handlers of the change it announces from within, and the rest, the window's (its models'
updates and every pane's repaint). Operations follow one another at once (the window's
worst case), or ``--pause`` apart, the event loop turning meanwhile as it does while a user
looks: the window then works out the next merge ahead. The Pairs table counts the words of
frequent pairs once stepping pauses; the filters and sorts are timed after that work is done.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from common import PYTHON, REPO, find_corpus, measure, percentile, table

sys.path.insert(0, str(REPO))

from PySide6.QtCore import Qt, QTimer
from window import bench_window

from app.models.corpus_model import COUNT, HEADERS, SEGMENTATION, TOKENS, WORD
from bpe_core.io.session.write import save_session

# Written by a child: word n-grams joined by "_", counted, the first ``types`` of them kept.
COUNTS = """
import sys
from collections import Counter
words = open(sys.argv[1], encoding="utf-8").read().split()
target = int(sys.argv[3])
counts = Counter()
for n in (3, 4, 5):
    counts.update("_".join(words[i : i + n]) for i in range(len(words) - n + 1))
    if len(counts) >= target:
        break
from itertools import islice
from bpe_core import PipelineConfig
from bpe_core.io.counts_file import write_counts
write_counts(dict(islice(counts.items(), target)), PipelineConfig(), sys.argv[2])  # as count writes
"""

FILTERS = ("the", "e", "of_the_", "zebra", "qqqq")  # common, everywhere, a phrase, rare, none


def rss_mb(field: str = "VmRSS") -> float:
    """This process' resident memory now (``VmRSS``) or at its peak (``VmHWM``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field} in /proc/self/status")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}" if seconds >= 0.1 else f"{seconds * 1000:.1f}"


def spread(samples: list[float]) -> str:
    """The median and, as a measure of noise, the range of the samples."""
    return f"{ms(statistics.median(samples))} ({ms(min(samples))}–{ms(max(samples))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--types", type=int, default=2_000_000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5, help="times each filter and sort is timed")
    parser.add_argument("--counts", type=Path, help="the counts file to use (built there if missing)")
    parser.add_argument("--open", type=Path, help="open this file (a session, a counts file) instead")
    parser.add_argument("--start", type=int, default=0, help="merges run (in the background) before stepping")
    parser.add_argument("--pause", type=float, default=0, help="ms between operations (the loop turns)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        counts = args.open or args.counts or Path(folder) / "word-trigrams.tsv"
        if not counts.is_file():
            built = measure(
                [PYTHON, "-c", COUNTS, str(find_corpus(args.corpus)), str(counts), str(args.types)]
            )
            print(f"Built {counts.name} in {built.seconds:.1f} s.")
        run(counts, args, Path(folder))


def settle(app, quiet_seconds: float = 1.0, most_seconds: float = 60.0) -> None:
    """Turn the event loop until no turn has taken over 20 ms for ``quiet_seconds`` (work
    that waits for a pause, such as the Pairs table's word counts, is done)."""
    started = quiet_since = time.perf_counter()
    while time.perf_counter() - quiet_since < quiet_seconds and time.perf_counter() - started < most_seconds:
        begin = time.perf_counter()
        app.processEvents()
        if time.perf_counter() - begin > 0.02:
            quiet_since = time.perf_counter()
        time.sleep(0.005)


def turn(app, seconds: float) -> None:
    """Turn the event loop for ``seconds``, as it turns while a user looks at a step."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        app.processEvents()
        time.sleep(0.002)


def timed_engine(trainer, spent: list[float], bridge=None) -> None:
    """Record the time of the trainer's own step, undo and redo in ``spent``: without, when
    ``bridge`` is given, the time its handlers of the change take (the window's share)."""
    if bridge is not None:
        announce = bridge._announce

        def handled(*args, **kwargs):
            begin = time.perf_counter()
            try:
                return announce(*args, **kwargs)
            finally:
                spent.append(begin - time.perf_counter())  # taken off the engine's share

        bridge._announce = handled
    for name in ("step", "undo", "redo"):
        method = getattr(trainer, name)

        def timed(*args, method=method, **kwargs):
            begin = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent.append(time.perf_counter() - begin)

        setattr(trainer, name, timed)


def run(counts: Path, args: argparse.Namespace, folder: Path) -> None:
    app, window = bench_window()
    for _ in range(20):  # the sample painted in every pane: the start-up memory
        app.processEvents()
        time.sleep(0.01)
    gc.collect()
    start_mb = rss_mb()
    bridge = window.bridge

    # Opening: a 10 ms timer measures the longest stall of the event loop; every 100 ms each
    # visible pane is repainted (as a user resizing or scrolling would ask), and timed.
    ticks: list[float] = []
    repaints: list[float] = []
    progress: list[tuple[str, int, int]] = []
    probe = QTimer(interval=10)
    probe.timeout.connect(lambda: ticks.append(time.perf_counter()))
    painter = QTimer(interval=100)

    def repaint_panes() -> None:
        begin = time.perf_counter()
        for dock in window.docks.values():
            if dock.isVisible():
                dock.widget().repaint()
        repaints.append(time.perf_counter() - begin)

    painter.timeout.connect(repaint_panes)
    bridge.sig_progressed.connect(lambda *report: progress.append(report))
    probe.start()
    painter.start()
    started = time.perf_counter()
    window.open_path(counts)
    deadline = started + 900
    while (bridge.busy or bridge.trainer.word_count < 1000) and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.002)
    opened = time.perf_counter() - started
    probe.stop()
    painter.stop()
    app.processEvents()
    words = bridge.trainer.word_count
    if words < 1000:
        raise SystemExit(f"the window did not open {counts}")
    stalls = [b - a for a, b in pairwise(ticks)]

    # Every pane visible at once: Vocabulary beside Merges, History below Plots.
    window.splitDockWidget(window.docks["merges"], window.docks["vocab"], Qt.Orientation.Horizontal)
    window.splitDockWidget(window.docks["plots"], window.docks["history"], Qt.Orientation.Vertical)
    for dock in window.docks.values():
        dock.show()
    app.processEvents()
    hidden = [name for name, dock in window.docks.items() if not dock.isVisible()]
    if hidden:
        raise SystemExit(f"panes not visible: {', '.join(hidden)}")

    if args.start:
        bridge.run(merges=args.start)
        while bridge.busy:
            app.processEvents()
            time.sleep(0.005)
    settle(app)

    timings: dict[str, list[float]] = {"step": [], "undo": [], "redo": []}
    engine: dict[str, list[float]] = {name: [] for name in timings}
    spent: list[float] = []
    timed_engine(bridge.trainer, spent, bridge)
    for name, action in (("step", bridge.step), ("undo", bridge.undo), ("redo", bridge.redo)):
        for _ in range(args.steps):
            spent.clear()
            begin = time.perf_counter()
            action()
            app.processEvents()  # every model's update and the repaint of every pane
            timings[name].append(time.perf_counter() - begin)
            engine[name].append(sum(spent))
            turn(app, args.pause / 1000)
    settle(app)

    model, view = window.corpus_pane.model, window.corpus_pane.view
    filters: dict[str, list[float]] = {text: [] for text in FILTERS}
    shown: dict[str, int] = {}
    for _ in range(args.repeats):
        for text in [*FILTERS, ""]:
            begin = time.perf_counter()
            model.set_filter(text)  # what the field does 150 ms after the last key
            app.processEvents()
            filters.setdefault(text or "(cleared)", []).append(time.perf_counter() - begin)
            shown[text or "(cleared)"] = model.rowCount()
            settle(app, 0.3)

    sorts: dict[str, list[float]] = {}
    orders = (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder)
    for _ in range(args.repeats):
        for column in (WORD, COUNT, TOKENS, SEGMENTATION):
            for order in orders:
                name = f"{HEADERS[column]} {'↑' if order == orders[0] else '↓'}"
                begin = time.perf_counter()
                view.sortByColumn(column, order)
                app.processEvents()
                sorts.setdefault(name, []).append(time.perf_counter() - begin)
                settle(app, 0.3)
    view.sortByColumn(COUNT, Qt.SortOrder.DescendingOrder)
    app.processEvents()

    settle(app, 2.0)  # the window at rest: a pause hands back what the work freed (app.collector)
    gc.collect()
    kept_mb, peak_mb = rss_mb() - start_mb, rss_mb("VmHWM") - start_mb
    session = folder / "session.json"
    save_session(bridge.trainer, session)
    session_mb = session.stat().st_size / 2**20
    bridge.dirty = False
    window.close()

    print(
        f"{counts.name}: {words:,} word types ({counts.stat().st_size / 2**20:.0f} MB); opened in the "
        f"window in {opened:.1f} s with {len(progress):,} progress reports; longest event-loop stall "
        f"meanwhile {max(stalls, default=0) * 1000:.0f} ms over {len(ticks):,} ticks; repainting every "
        f"visible pane while it loaded: {spread(repaints)} ms over {len(repaints)} repaints.\n"
    )
    pace = f"{args.pause:.0f} ms apart" if args.pause else "one after another at once"
    print(
        f"From step {args.start:,}, per operation ({pace}), all seven panes visible and repainted "
        "(median ≤ 16 ms, p99 ≤ 50 ms):\n"
    )
    rows = []
    for name, samples in timings.items():
        ordered, own = sorted(samples), sorted(engine[name])
        window_part = sorted(a - b for a, b in zip(samples, engine[name], strict=True))
        rows.append(
            [
                *(name, len(samples), ms(statistics.median(ordered))),
                *(ms(percentile(ordered, 0.99)), ms(ordered[-1])),
                *(ms(statistics.median(own)), ms(percentile(own, 0.99))),
                *(ms(statistics.median(window_part)), ms(percentile(window_part, 0.99))),
            ]
        )
    header = ["operation", "count", "median ms", "p99 ms", "max ms", "engine median", "engine p99"]
    print(table([*header, "window median", "window p99"], rows))
    print(f"\nCorpus filter (≤ 100 ms), median (min–max) of {args.repeats}:\n")
    print(
        table(
            ["filter", "rows shown", "ms"],
            [[repr(t) if t != "(cleared)" else t, f"{shown[t]:,}", spread(s)] for t, s in filters.items()],
        )
    )
    print(f"\nCorpus sort (≤ 300 ms), median (min–max) of {args.repeats}:\n")
    print(table(["column", "ms"], [[name, spread(s)] for name, s in sorts.items()]))
    print(
        f"\nMemory above the window's start-up ({start_mb:.0f} MB): {kept_mb:.0f} MB kept, {peak_mb:.0f} MB "
        f"at the peak; the session file {session_mb:.0f} MB: kept/file {kept_mb / session_mb:.2f}, "
        f"peak/file {peak_mb / session_mb:.2f} (target ≤ 3)."
    )


if __name__ == "__main__":
    main()
