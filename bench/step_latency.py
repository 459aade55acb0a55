"""Latency of single steps, undos and redos on a large corpus (the live GUI's unit of work).

Trains step by step to --merges, timing every ``step()``; then times every ``undo()`` back to 0
and every ``redo()`` forward again. No peer has an undo to compare with; HF's training time per
merge (whole run / merges, same corpus) is printed for scale.

    python bench/step_latency.py [--corpus english_10mb.txt] [--merges 8000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import CORPORA, PEERS, PYTHON, REPO, measure, percentile, table

sys.path.insert(0, str(REPO))
from bpe_core import PipelineConfig, Trainer, load_corpus


def percentiles(samples: list[float]) -> list[str]:
    ordered = sorted(samples)

    return [
        f"{percentile(ordered, 0.5) * 1000:.2f}",
        f"{percentile(ordered, 0.99) * 1000:.2f}",
        f"{ordered[-1] * 1000:.1f}",
        f"{sum(1 for s in ordered if s > 0.005)}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=8000)
    args = parser.parse_args()
    path = CORPORA / args.corpus
    trainer = Trainer(load_corpus(path, PipelineConfig()))
    clock = time.perf_counter
    timings: dict[str, list[float]] = {"step": [], "undo": [], "redo": []}
    for name, action, count in (
        ("step", trainer.step, args.merges),
        ("undo", trainer.undo, args.merges),
        ("redo", trainer.redo, args.merges),
    ):
        for _ in range(count):
            started = clock()
            action()
            timings[name].append(clock() - started)
    rows = [[name, len(samples), *percentiles(samples)] for name, samples in timings.items()]
    with tempfile.TemporaryDirectory() as tmp:
        hf = measure(
            [
                PYTHON,
                PEERS,
                "hf-train",
                "suffix",
                str(path),
                str(273 + args.merges),
                str(Path(tmp) / "hf.json"),
            ]
        )
    print(
        f"Single operations on {args.corpus} (defaults: whitespace, separate </w>, first-seen), "
        f"{args.merges:,} of each (target: p99 <= 5 ms):\n"
    )
    print(table(["operation", "count", "p50 ms", "p99 ms", "max ms", "over 5 ms"], rows))
    print(
        f"\nFor scale: HF trains the same corpus to {args.merges:,} merges in {hf.seconds:.2f} s, "
        f"{hf.seconds / args.merges * 1000:.2f} ms per merge on average (no undo)."
    )
    print(
        "Means: "
        + ", ".join(f"{name} {statistics.mean(samples) * 1000:.2f} ms" for name, samples in timings.items())
        + "."
    )


if __name__ == "__main__":
    main()
