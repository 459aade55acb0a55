"""Measuring helpers shared by the benchmarks: every program, ours or a peer's, runs as a child
process and is measured the same way (wall time, peak resident memory from ``os.wait4``).

Where the inputs are found:

- corpora: the folder ``$BPE_STUDIO_CORPORA``, else ``../shared/corpora`` beside the repo; a
  script's ``--corpus`` also takes a path to a file;
- GPT-2's ranks (``gpt2.tiktoken``): the folder ``$BPE_STUDIO_TOKENIZERS``, else
  ``../shared/tokenizers`` beside the repo, else the copy in ``resources/tokenizers``.

A script that needs one that is missing exits with a sentence saying so. ``$BPE_STUDIO_CHECKOUT``
points the benchmarks at another checkout of the project (what ``before_after.py`` does): its
packages are the ones imported and run, this folder's scripts measure them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# A window or engine measured in a benchmark's own process runs as the program runs it (set
# before numpy is first imported: see app/launcher.py).
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

BENCH = Path(__file__).resolve().parent
REPO = Path(os.environ.get("BPE_STUDIO_CHECKOUT") or BENCH.parent).resolve()
# Beside the repo these scripts belong to, not beside a checkout measured from elsewhere.
SHARED = BENCH.parent.parent / "shared"
PYTHON = sys.executable
PEERS = str(BENCH / "peers.py")
# ``isolate`` holds a sitecustomize that drops an editable install's import hook, so a child
# imports the packages of REPO and nothing else (the hook would fill in any module REPO lacks
# from the installed checkout).
ISOLATE = BENCH / "isolate"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(ISOLATE)])}


def corpora() -> Path:
    """The folder of corpora, or exit saying how to provide it."""
    given = os.environ.get("BPE_STUDIO_CORPORA")
    folder = Path(given) if given else SHARED / "corpora"
    if not folder.is_dir():
        why = "(from $BPE_STUDIO_CORPORA)" if given else "(beside the repo; $BPE_STUDIO_CORPORA is unset)"
        raise SystemExit(
            f"No corpora: {folder} {why} is not a folder; set BPE_STUDIO_CORPORA to one holding "
            "english_10mb.txt, tinyshakespeare.txt and taylorswift.txt."
        )
    return folder


def find_corpus(name: str | os.PathLike) -> Path:
    """A corpus named on the command line: a path to a file, or a file's name in :func:`corpora`."""
    if Path(name).is_file():
        return Path(name).resolve()
    path = corpora() / name
    if not path.is_file():
        raise SystemExit(f"No corpus {name}: it is not a file, nor in {path.parent} (BPE_STUDIO_CORPORA).")
    return path


def gpt2_ranks() -> Path:
    """GPT-2's ranks file, ``gpt2.tiktoken``, or exit saying how to provide it."""
    given = os.environ.get("BPE_STUDIO_TOKENIZERS")
    folders = [Path(given)] if given else [SHARED / "tokenizers", REPO / "resources" / "tokenizers"]
    for folder in folders:
        if (folder / "gpt2.tiktoken").is_file():
            return folder / "gpt2.tiktoken"
    raise SystemExit(
        f"No gpt2.tiktoken in {' or '.join(map(str, folders))}; set BPE_STUDIO_TOKENIZERS to a "
        "folder holding GPT-2's ranks (openai-whisper ships it as whisper/assets/gpt2.tiktoken)."
    )


def __getattr__(name: str) -> Path:
    # ``CORPORA`` is looked up only when a script imports it, so the scripts that read no corpus
    # run without one, and those that do exit with a sentence instead of a traceback.
    if name == "CORPORA":
        return corpora()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    argv: list[str],
    stdout_path: str | os.PathLike | None = None,
    env: dict | None = None,
    cwd: str | os.PathLike | None = None,
) -> Measure:
    """Run ``argv`` to completion in ``cwd`` (REPO by default: ``python -m`` and ``-c`` import
    from there first); return its wall time and peak RSS. Fails loudly on error."""
    # stderr goes to a file, not a pipe: a child that writes more than a pipe holds would block.
    with open(stdout_path or os.devnull, "w") as out, tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=errors, env=env or ENV, cwd=cwd or REPO)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        error = errors.read().decode(errors="replace")
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
