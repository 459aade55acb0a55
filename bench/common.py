"""Measuring helpers shared by the benchmarks: every program, ours or a peer's, runs as a child
process and is measured the same way (wall time, peak resident memory from ``os.wait4``)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_CANDIDATES = [
    os.environ.get("BPE_STUDIO_CORPORA"),
    REPO.parent / "shared" / "corpora",
    "/work/shared/corpora",
]
CORPORA = next(Path(p) for p in _CANDIDATES if p and Path(p).is_dir())
PYTHON = sys.executable
PEERS = str(Path(__file__).resolve().parent / "peers.py")
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def ours_train(corpus, *options: str) -> list[str]:
    """The command line of our trainer (the real CLI, as a user runs it)."""
    return [PYTHON, "-m", "app", "train", str(corpus), *options]


def percentile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted samples (nearest rank)."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def compile_sources() -> None:
    """Byte-compile our packages once, as ``pip install`` does: this machine sets
    PYTHONDONTWRITEBYTECODE, which would otherwise make every timed start recompile them."""
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(REPO / "bpe_core"), str(REPO / "app")], check=True)


@dataclass
class Measure:
    seconds: float
    peak_mb: float


def measure(
    argv: list[str], stdout_path: str | os.PathLike | None = None, env: dict | None = None
) -> Measure:
    """Run ``argv`` to completion; return its wall time and peak RSS. Fails loudly on error."""
    with open(stdout_path or os.devnull, "w") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env or ENV, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        error = child.stderr.read().decode()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{error}")
    return Measure(seconds, usage.ru_maxrss / 1024)


def best_of(runs: int, argv: list[str], stdout_path=None, env=None) -> Measure:
    """Median time and median peak memory over ``runs`` runs."""
    results = [measure(argv, stdout_path, env) for _ in range(runs)]
    return Measure(
        statistics.median(r.seconds for r in results), statistics.median(r.peak_mb for r in results)
    )


@dataclass
class Paired:
    ours: Measure
    theirs: Measure
    time_ratio: float
    memory_ratio: float


def paired(runs: int, ours: tuple, theirs: tuple) -> Paired:
    """Alternate our run and the peer's run ``runs`` times, so both see the same machine moments
    (timings on a shared host drift by tens of percent); ratios are medians of per-pair ratios.

    ``ours`` and ``theirs`` are ``(argv, stdout_path)``."""
    pairs = [(measure(*ours), measure(*theirs)) for _ in range(runs)]
    median = statistics.median
    return Paired(
        Measure(median(a.seconds for a, _ in pairs), median(a.peak_mb for a, _ in pairs)),
        Measure(median(b.seconds for _, b in pairs), median(b.peak_mb for _, b in pairs)),
        median(a.seconds / b.seconds for a, b in pairs),
        median(a.peak_mb / b.peak_mb for a, b in pairs),
    )


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table (what the README shows)."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])
