"""``bpe-studio compress`` against ``bpe-studio train`` on the same text with the same merges.

Both run as whole processes (start-up included) on ``--size`` bytes of each corpus, the first
ones of ``tinyshakespeare.txt`` and the last ones of ``english_10mb.txt`` (its Jargon File part,
with some non-ASCII; its first megabyte is the same Shakespeare):
``train FILE --pretokenize none --end-of-word none`` makes exactly the merges ``compress`` makes
(same counts, same tie rule), so the ratio is what writing them as the classic compression
variant (its report, or ``--json`` without the per-step data) costs on top of training. Runs
alternate between the programs; times and peak memory (RSS) are medians.

    python bench/compress.py [--size 250000] [--runs 1]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import PYTHON, compile_sources, find_corpus, measure, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=250_000, help="bytes of each corpus (default 250,000)")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    compile_sources()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, start in (("tinyshakespeare.txt", True), ("english_10mb.txt", False)):
            with find_corpus(name).open("rb") as stream:  # only the slice: a child's peak counts ours
                stream.seek(0 if start else -args.size, 0 if start else 2)
                text = stream.read(args.size).decode("utf-8", errors="ignore")
            path = Path(folder) / f"{Path(name).stem}.txt"
            path.write_text(text, encoding="utf-8", newline="")
            programs = {
                "train": ["train", str(path), "--pretokenize", "none", "--end-of-word", "none"],
                "compress": ["compress", str(path)],
                "compress --json": ["compress", str(path), "--json"],
            }
            results: dict[str, list] = {label: [] for label in programs}
            for _ in range(args.runs):  # alternate, so every program sees the same machine moments
                for label, argv in programs.items():
                    results[label].append(measure([PYTHON, "-m", "app", *argv]))
            train = results["train"]
            for label, runs in results.items():
                seconds = statistics.median(r.seconds for r in runs)
                peak = statistics.median(r.peak_mb for r in runs)
                ratio = statistics.median(r.seconds / t.seconds for r, t in zip(runs, train, strict=True))
                memory = statistics.median(r.peak_mb / t.peak_mb for r, t in zip(runs, train, strict=True))
                rows.append(
                    [
                        f"{name}, {'first' if start else 'last'} {len(text):,} chars",
                        label,
                        f"{seconds:.2f}",
                        f"{peak:.0f}",
                        f"{ratio:.2f}",
                        f"{memory:.2f}",
                    ]
                )
    print(f"{args.size:,} bytes of each corpus as one sequence, median of {args.runs} run(s)")
    print(table(["text", "command", "seconds", "peak MB", "time × train", "memory × train"], rows))


if __name__ == "__main__":
    main()
