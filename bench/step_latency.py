"""Latency of single steps, undos and redos on a large corpus (the live GUI's unit of work).

Trains step by step to --merges, timing every ``step()``; then times every ``undo()`` back to 0
and every ``redo()`` forward again. No peer has an undo to compare with; HF's training time per
merge (whole run / merges, same corpus) is printed for scale.

With ``--opened SESSION`` it opens a saved session instead (whose index starts cold, see
``bpe_core/training/cold_index.py``) and times, one at a time, --merges new steps, as many undos of them
and as many again of the merges the file restored, then redos back.

    python bench/step_latency.py [--corpus english_10mb.txt] [--merges 8000]
    python bench/step_latency.py --opened SESSION.json [--merges 500]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import PEERS, PYTHON, REPO, find_corpus, measure, percentile, table

sys.path.insert(0, str(REPO))
from bpe_core import PipelineConfig, Trainer, load_corpus
from bpe_core.io.session import load_session


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
    parser.add_argument("--opened", type=Path, help="time single operations on this session once opened")
    args = parser.parse_args()
    if args.opened:
        opened(args.opened, args.merges)
        return
    path = find_corpus(args.corpus)
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


def opened(path: Path, merges: int) -> None:
    started = time.perf_counter()
    trainer = load_session(path)
    seconds = time.perf_counter() - started
    restored, length = min(merges, trainer.position), trainer.history_length
    timings: dict[str, list[float]] = {}
    for name, action, count in (
        ("step", trainer.step, merges),
        ("undo (of those)", trainer.undo, merges),
        ("undo (restored merges)", trainer.undo, restored),
        ("redo", trainer.redo, merges + restored),
    ):
        samples = timings[name] = []
        for _ in range(count):
            begun = time.perf_counter()
            action()
            samples.append(time.perf_counter() - begun)
    print(
        f"Single operations on {path.name} ({trainer.word_count:,} word types, {length:,} "
        f"merges, opened in {seconds:.1f} s), each the first of its kind since opening:\n"
    )
    rows = [[name, len(samples), *percentiles(samples)] for name, samples in timings.items()]
    print(table(["operation", "count", "p50 ms", "p99 ms", "max ms", "over 5 ms"], rows))


if __name__ == "__main__":
    main()
