"""Counting word types: ``bpe-studio count`` on 1 and 2 workers and on Spark ``local[2]``, beside
Hugging Face's own counting (``tokenizers``' ``train(files)`` stopped before its first merge:
it reads the files in parallel, counts words, then pairs), on a 50 MB file and a 1 GB folder
made from the shared corpora; and the peak memory of counting 10 MB and 200 MB (the same text
repeated: as many word types), which must not grow with the input. Every program is a fresh
process, measured alike (``common.measure``: wall time, peak RSS of its largest process);
ours and HF's alternate, and the ratios are medians of per-round ratios. Also checks that the
Spark engine's file is byte for byte the local engine's.

The proof on a folder as datasets ship: the corpus cut into a plain ``.txt``, a ``.txt.gz``, a
``.txt.bz2``, a JSONL file (a record a line) and a Parquet file (a row a line). ``count`` on the
folder must equal the sum of each text's counts, counted one by one in this process
(``Corpus.from_text``), and ``train`` on the folder must make the merges ``train`` makes on the
counts file (``--tie-break hf``, 2,000 merges; both the CLI as users run it).

    python bench/count.py [--runs 3] [--no-1gb] [--no-spark] [--corpus english_10mb.txt]
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import statistics
import tempfile
from collections import Counter
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
        print()
        print(_mixed_folder(corpus, work))
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


def _mixed_folder(corpus: Path, work: Path) -> str:
    """Count and train on a folder of every shape, checked against the texts counted one by one."""
    import bz2
    import gzip
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from bpe_core import PipelineConfig, load_corpus
    from bpe_core.pipeline.corpus import count_text_into

    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    fifth = len(lines) // 5
    parts = ["".join(lines[k * fifth : (k + 1) * fifth]) for k in range(4)]
    records = [line for line in lines[4 * fifth :] if line.strip()]
    folder = work / "mixed"
    folder.mkdir()
    (folder / "a.txt").write_text(parts[0], encoding="utf-8")
    (folder / "b.txt.gz").write_bytes(gzip.compress(parts[1].encode()))
    (folder / "c.txt.bz2").write_bytes(bz2.compress(parts[2].encode()))
    jsonl = "".join(json.dumps({"text": line}) + "\n" for line in parts[3].splitlines(keepends=True))
    (folder / "d.jsonl").write_text(jsonl, encoding="utf-8")
    pq.write_table(pa.table({"text": records}), folder / "e.parquet")
    texts = [*parts[:3], *parts[3].splitlines(keepends=True), *records]

    config = PipelineConfig()
    expected: Counter[str] = Counter()
    for text in texts:  # each counted whole, as a text on its own (a blank one adds no word)
        counted: Counter[str] = Counter()
        count_text_into(text, config, counted, [])
        expected.update(counted)
    counts_file = work / "mixed.tsv"
    counted_time = measure(ours([folder], [], counts_file))
    found = load_corpus(counts_file, config, "counts")
    same_counts = dict(zip(found.words, found.counts, strict=True)) == dict(expected)

    options = ["--merges", "2000", "--tie-break", "hf", "--json"]
    from_folder, from_counts = work / "folder.json", work / "counts.json"
    trained = measure([PYTHON, "-m", "app", "train", str(folder), *options], from_folder)
    measure([PYTHON, "-m", "app", "train", str(counts_file), "--input", "counts", *options], from_counts)
    merges = [json.loads(path.read_text())["merges"] for path in (from_folder, from_counts)]
    size = sum(path.stat().st_size for path in folder.iterdir()) / 2**20
    rows = [
        [
            "count FOLDER = each text's counts summed",
            "yes" if same_counts else "NO",
            f"{counted_time.seconds:.1f} s",
        ],
        [
            "train FOLDER = train COUNTS (2,000 merges)",
            "yes" if merges[0] == merges[1] else "NO",
            f"{trained.seconds:.1f} s",
        ],
    ]
    header = [
        f"mixed folder ({size:.1f} MB: .txt, .gz, .bz2, JSONL, Parquet; {len(texts):,} texts)",
        "holds",
        "time",
    ]
    return table(header, rows)


def _has_pyspark() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
