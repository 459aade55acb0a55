"""The window with GPT-2's real tokenizer loaded (Samples → GPT-2, Shakespeare attached):
latency of step, undo and jump-by-one with every pane updated and repainted, and of a
vocabulary search over its 50,257 tokens.

A step here is the tokenizer's next merge (a redo along its line). Each operation is timed as
the command plus processing every event it caused, the repaint of all visible panes included.
A search is the filter applied to the vocabulary (what the 150 ms typing pause then runs) and
the repaint. Targets: median ≤ 16 ms, p99 ≤ 50 ms; search ≤ 50 ms.

    python bench/gpt2_window.py [--steps 500] [--at 25000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from common import REPO, compile_sources, percentile, table

sys.path.insert(0, str(REPO))

from PySide6.QtWidgets import QApplication
from window import bench_window

from app.main_window import MainWindow

SEARCHES = ("ing", "Ġthe", "tion", "é", "<|", "zz", "Token", "123", "Ġ", "e")


def figures(samples: list[float]) -> list[str]:
    ordered = sorted(samples)
    return [
        f"{statistics.median(ordered) * 1000:.1f}",
        f"{percentile(ordered, 0.99) * 1000:.1f}",
        f"{ordered[-1] * 1000:.0f}",
    ]


def search(app: QApplication, window: MainWindow, term: str) -> float:
    """Seconds to filter the vocabulary by ``term`` (what the typing pause then runs) and repaint."""
    window.vocab_pane.search.setText(term)
    app.processEvents()
    begin = time.perf_counter()
    window.vocab_pane._search_timer.timeout.emit()
    app.processEvents()
    return time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--at", type=int, default=25_000, help="the step the timings start from")
    args = parser.parse_args()
    compile_sources()
    app, window = bench_window()
    bridge = window.bridge

    def settle() -> None:
        while bridge.busy:
            app.processEvents()
            time.sleep(0.002)
        app.processEvents()

    started = time.perf_counter()
    window.open_gpt2_sample()
    settle()
    opened = time.perf_counter() - started
    idle = time.perf_counter() + 0.5  # the user looks at the window for half a second
    while time.perf_counter() < idle:
        app.processEvents()
        time.sleep(0.005)
    window.docks["vocab"].raise_()
    app.processEvents()
    first = search(app, window, "ing")
    search(app, window, "")  # steps are timed without a search (a search refilters on each)
    rows = []
    for front in ("merges", "vocab"):
        window.docks[front].raise_()
        bridge.goto(args.at)
        settle()
        timings: dict[str, list[float]] = {"step (next merge)": [], "undo": [], "jump by one (Go to)": []}
        for name, action in (
            ("step (next merge)", bridge.step),
            ("undo", bridge.undo),
            ("jump by one (Go to)", lambda: bridge.goto(bridge.trainer.position + 1)),
        ):
            for _ in range(args.steps):
                begin = time.perf_counter()
                action()
                app.processEvents()
                timings[name].append(time.perf_counter() - begin)
        label = "Merges" if front == "merges" else "Vocabulary"
        rows += [[f"{name}, {label} in front", len(s), *figures(s)] for name, s in timings.items()]
    window.docks["vocab"].raise_()
    searches = [search(app, window, term) for term in SEARCHES * 3]
    rows.append(["first vocabulary search, 0.5 s after opening", 1, *figures([first])])
    rows.append(["vocabulary search (50,257 tokens)", len(searches), *figures(searches)])
    window.bridge.dirty = False
    window.close()
    print(f"GPT-2 sample opened (50,000 merges, Shakespeare attached) in {opened:.2f} s.")
    print(f"From step {args.at:,}, every pane of the default layout visible and repainted:\n")
    print(table(["operation", "count", "median ms", "p99 ms", "max ms"], rows))


if __name__ == "__main__":
    main()
