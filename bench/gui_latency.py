"""The real window, offscreen, on a large corpus: start-up, loading, and per-step latency with
every pane updated and repainted.

A step's latency is ``bridge.step()`` (or undo/redo) plus processing every event it caused,
including the repaint of all visible panes. The encode pane re-encodes 120 ms after the last
change (debounced, by design); that re-encode is timed separately.

    python bench/gui_latency.py [--corpus english_10mb.txt] [--steps 2000] [--all-panes] [--json FILE]

``BPE_STUDIO_CHECKOUT=DIR`` measures the window of another checkout with this script (what
``bench/before_after.py`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from common import PYTHON, REPO, compile_sources, find_corpus, percentile, table

sys.path.insert(0, str(REPO))

from PySide6.QtCore import Qt, QTimer
from window import bench_window


def percentiles(samples: list[float]) -> list[str]:
    ordered = sorted(samples)

    return [
        f"{statistics.median(ordered) * 1000:.1f}",
        f"{percentile(ordered, 0.99) * 1000:.1f}",
        f"{ordered[-1] * 1000:.0f}",
    ]


def startup_seconds(runs: int = 3) -> float:
    """``python -m app`` until the window has been shown and painted, then closed at once."""
    env = {**os.environ, "BPE_STUDIO_SMOKE_TEST": "0", "QT_QPA_PLATFORM": "offscreen"}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([PYTHON, "-m", "app"], env=env, cwd=REPO, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--start", type=int, default=0, help="merges to run (in the background) first")
    parser.add_argument(
        "--vocab", action="store_true", help="show the Vocabulary tab instead of Merges (they share a dock)"
    )
    parser.add_argument(
        "--all-panes", action="store_true", help="show all six panes at once (Vocabulary beside Merges)"
    )
    parser.add_argument(
        "--lab",
        action="store_true",
        help="also the History pane (beside Plots) and the Compare view open on main against a branch",
    )
    parser.add_argument("--json", type=Path, help="also write the medians here (for before_after.py)")
    args = parser.parse_args()
    compile_sources()
    startup = startup_seconds()

    app, window = bench_window()

    # Loading: the event loop must keep turning; a 10 ms timer measures the longest stall.
    ticks: list[float] = []
    probe = QTimer(interval=10)
    probe.timeout.connect(lambda: ticks.append(time.perf_counter()))
    probe.start()
    started = time.perf_counter()
    window.open_path(find_corpus(args.corpus))
    while window.bridge.busy or window.bridge.trainer.word_count < 1000:
        app.processEvents()
        time.sleep(0.002)
    loaded = time.perf_counter() - started
    probe.stop()
    stalls = [b - a for a, b in pairwise(ticks)]
    app.processEvents()

    bridge = window.bridge
    if args.start:
        bridge.run(merges=args.start)
        while bridge.busy:
            app.processEvents()
            time.sleep(0.002)
        app.processEvents()
    if args.vocab:
        window.docks["vocab"].raise_()
    if args.all_panes:
        window.splitDockWidget(window.docks["merges"], window.docks["vocab"], Qt.Orientation.Horizontal)
        app.processEvents()
        assert all(dock.isVisible() for dock in window.docks.values())
    compare = None
    if args.lab:  # a branch to compare with: the last 20 merges made again by another rule
        trainer = bridge.trainer
        trainer.goto(max(0, trainer.position - 20))
        trainer.set_tie_break("lexicographic")
        trainer.step(trainer.top_pairs(3)[2].pair)
        trainer.run(merges=19)
        trainer.set_tie_break("first-seen")
        window.splitDockWidget(window.docks["plots"], window.docks["history"], Qt.Orientation.Vertical)
        window.docks["history"].show()
        window.show_compare()
        compare = window.compare_dialog
        app.processEvents()
        assert window.history_pane.isVisible() and compare.isVisible()
    pairs_at_start = bridge.trainer.pair_total
    timings: dict[str, list[float]] = {"step": [], "undo": [], "redo": []}
    if compare is not None:
        timings["compare view refresh"] = []
    for name, action in (("step", bridge.step), ("undo", bridge.undo), ("redo", bridge.redo)):
        for _ in range(args.steps):
            begin = time.perf_counter()
            action()
            app.processEvents()  # model updates and the repaint of every visible pane
            timings[name].append(time.perf_counter() - begin)
            if compare is not None and name == "step":
                # Its refresh waits for a 50 ms pause; at Play speed it follows every step.
                begin = time.perf_counter()
                compare.refresh()
                app.processEvents()
                timings["compare view refresh"].append(time.perf_counter() - begin)
    pairs_at_end = bridge.trainer.pair_total
    encodes = []
    for _ in range(20):
        bridge.undo()
        app.processEvents()
        begin = time.perf_counter()
        window.encode_pane.encode_now()
        app.processEvents()
        encodes.append(time.perf_counter() - begin)
    window.bridge.dirty = False
    window.close()

    print(f"Window start-up (python -m app, shown and closed): {startup:.2f} s (target: within 2 s).")
    print(
        f"Opening {args.corpus} in the window: {loaded:.2f} s, longest event-loop stall meanwhile "
        f"{max(stalls, default=0) * 1000:.0f} ms (the window keeps repainting and responding).\n"
    )
    rows = [[name, len(samples), *percentiles(samples)] for name, samples in timings.items()]
    rows.append(["re-encode (after a pause)", len(encodes), *percentiles(encodes)])
    if args.lab:
        layout = "the default layout with the History pane beside Plots and the Compare view open"
    elif args.all_panes:
        layout = "all six panes visible (Vocabulary beside Merges)"
    else:
        front = "Vocabulary" if args.vocab else "Merges"
        layout = f"every pane of the default layout visible ({front} in front of its tabbed dock)"
    print(
        f"Per operation on {args.corpus}, {layout} and repainted "
        f"(target: median <= 10 ms, p99 <= 30 ms). "
        f"From step {args.start:,}, the pairs table holds {pairs_at_start:,} pairs, and "
        f"{pairs_at_end:,} after {args.steps:,} steps (ranked a page at a time):\n"
    )
    print(table(["operation", "count", "median ms", "p99 ms", "max ms"], rows))
    if args.json:
        medians = {name: statistics.median(samples) for name, samples in timings.items()}
        medians |= {"re-encode": statistics.median(encodes), "start-up": startup, "open": loaded}
        args.json.write_text(json.dumps(medians))


if __name__ == "__main__":
    main()
