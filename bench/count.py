"""Counting word types: ``bpe-studio count`` on 1 and 2 workers and on Spark ``local[2]``, beside
Hugging Face's own counting (``tokenizers``' ``train(files)`` stopped before its first merge:
it reads the files in parallel, counts words, then pairs), on a 50 MB file and a 1 GB folder
made from the shared corpora; and the peak memory of counting 10 MB and 200 MB (the same text
repeated: as many word types), which must not grow with the input. Every program is a fresh
process, measured alike (``common.measure``: wall time, peak RSS of its largest process);
ours and HF's alternate, and the ratios are medians of per-round ratios. Also checks that the
Spark engine's file is byte for byte the local engine's.

    python bench/count.py [--runs 3] [--no-1gb] [--no-spark] [--corpus english_10mb.txt]
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import statistics
import tempfile
from pathlib import Path

from common import PEERS, PYTHON, compile_sources, find_corpus, measure, table

MODES = {  # name: (our pipeline options, HF's mode)
    "words (whitespace)": ([], "plain"),
    "byte-level (GPT-2 pattern)": (
        ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none"],
        "bytes",
    ),
}


def repeated(corpus: Path, megabytes: int, path: Path) -> Path:
    """``corpus`` repeated (the last copy cut at a line) up to about ``megabytes``."""
    data = corpus.read_bytes()
    target = megabytes * 2**20
    with open(path, "wb") as out:
        written = 0
        while written + len(data) <= target:
            out.write(data)
            written += len(data)
        rest = data[: max(target - written, 0)]
        out.write(rest[: rest.rfind(b"\n") + 1])
    return path


def ours(inputs: list[Path], options: list[str], out: Path, *extra: str) -> list[str]:
    return [PYTHON, "-m", "app", "count", *map(str, inputs), "-o", str(out), *options, *extra]


def hf(mode: str, inputs: list[Path]) -> list[str]:
    files = [str(f) for p in inputs for f in (sorted(p.iterdir()) if p.is_dir() else [p])]
    return [PYTHON, PEERS, "hf-count", mode, *files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-1gb", action="store_true", help="leave out the 1 GB folder")
    parser.add_argument("--no-spark", action="store_true", help="leave out Spark local[2]")
    args = parser.parse_args()
    corpus = find_corpus(args.corpus)
    compile_sources()
    spark = not args.no_spark and shutil.which("java") is not None and _has_pyspark()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        fifty = repeated(corpus, 50, work / "fifty.txt")
        inputs = {"50 MB file": ([fifty], args.runs)}
        if not args.no_1gb:
            shards = work / "1gb"
            shards.mkdir()
            for n in range(20):  # a sharded corpus, as datasets ship: 20 files of 50 MB
                (shards / f"part-{n:02}.txt").hardlink_to(fifty)
            inputs["1 GB folder (20 x 50 MB)"] = ([shards], 1)
        rows = []
        for input_name, (paths, runs) in inputs.items():
            for mode, (options, hf_mode) in MODES.items():
                if input_name.startswith("1 GB") and mode.startswith("byte"):
                    continue  # one mode at 1 GB keeps the run under half an hour
                rows.extend(_compare(input_name, mode, paths, options, hf_mode, runs, work, spark))
        print(f"Counting: ours against Hugging Face ({corpus.name} repeated; {args.runs} alternated runs)")
        header = ["input", "pipeline", "ours", "time", "vs HF", "peak MB", "HF time", "HF peak MB"]
        print(table(header, rows))
        print()
        print(_memory(corpus, work))
    print(
        "\nSpark local[2]: "
        + ("byte-identical to the local engine" if spark else "left out (no Java or pyspark)")
    )


def _compare(input_name, mode, paths, options, hf_mode, runs, work, spark) -> list[list[str]]:
    engines = {"1 worker": ["--workers", "1"], "2 workers": ["--workers", "2"]}
    if spark:
        engines["Spark local[2]"] = ["--engine", "spark", "--spark-master", "local[2]"]
    results: dict[str, list] = {name: [] for name in engines}
    theirs = []
    for _ in range(runs):
        theirs.append(measure(hf(hf_mode, paths)))
        for name, extra in engines.items():
            results[name].append(measure(ours(paths, options, work / f"{name}.tsv", *extra)))
    if spark:
        assert filecmp.cmp(work / "Spark local[2].tsv", work / "1 worker.tsv", shallow=False), "Spark differs"
    assert filecmp.cmp(work / "2 workers.tsv", work / "1 worker.tsv", shallow=False), "workers differ"
    hf_time = statistics.median(m.seconds for m in theirs)
    rows = []
    for name, measured in results.items():
        ratio = statistics.median(a.seconds / b.seconds for a, b in zip(measured, theirs, strict=True))
        rows.append(
            [
                input_name,
                mode,
                name,
                f"{statistics.median(m.seconds for m in measured):.1f} s",
                f"{ratio:.2f}x",
                f"{statistics.median(m.peak_mb for m in measured):.0f}",
                f"{hf_time:.1f} s",
                f"{statistics.median(m.peak_mb for m in theirs):.0f}",
            ]
        )
    return rows


def _memory(corpus: Path, work: Path) -> str:
    rows = []
    for megabytes in (10, 200):
        path = repeated(corpus, megabytes, work / f"mem{megabytes}.txt")
        for workers in ("1", "2"):
            measured = measure(ours([path], [], work / "mem.tsv", "--workers", workers))
            rows.append([f"{megabytes} MB", workers, f"{measured.seconds:.1f} s", f"{measured.peak_mb:.0f}"])
    header = ["input", "workers", "time", "peak MB (largest process)"]
    return "Peak memory of counting (words, whitespace): it follows the word types, not the input\n" + table(
        header, rows
    )


def _has_pyspark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
