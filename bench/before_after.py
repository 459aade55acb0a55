"""Before and after: the same tasks on two checkouts of the project, run in turn.

``--before DIR`` and ``--after DIR`` (default: this repo) are checkouts of BPE Studio, e.g. a
``git worktree add /tmp/before REV``. Every figure is a child process with ``PYTHONPATH`` and its
working directory set to one checkout, and an editable install's import hook switched off
(``bench/isolate``), so each side runs only its own code. For each of ``--rounds`` rounds every
task runs once on before, then once on after: both sides meet the same moments of a shared
machine. The table gives the median of each side, their ratio after / before (below 1: after
is faster), and the lowest and highest ratio of single rounds (how much the machine's noise moves
it).

The tasks, each measured as its row says:
  train (word)     ``train CORPUS --merges 8000``: words, ``</w>`` (the CLI's defaults), whole process;
  train (byte)     the same with ``--unit byte --pretokenize gpt2 --end-of-word none``;
  open session     a session of those 8,000 word-mode merges (saved once per side by that side's
                   CLI, untimed) loaded by that side's ``load_session`` (``bpe_core.io.session``,
                   or ``bpe_core.session`` in the flat layout): the call alone, timed inside the
                   child, and the whole process (what ``bench/session_open.py`` measures);
  encode           ``encode --model SESSION --file TEXT``, whole process (its output kept in a file);
  window           ``bench/gui_latency.py --all-panes`` (this folder's copy, pointed at the side
                   with ``BPE_STUDIO_CHECKOUT``), offscreen: median step, undo and redo latency
                   over --gui-steps of each, every pane repainted, and the window's start-up.
The CLI is ``python -m bpe_core.cli``, or ``python -m app`` where that is how a side runs it.
After the first round, whether the two sides' encode outputs are equal is printed (each side
encodes with the merges it trained, so equal output says training and encoding agree).

    python bench/before_after.py --before DIR [--after DIR] [--rounds 5] [--corpus english_10mb.txt]
                                 [--text english_10mb.txt] [--merges 8000] [--gui-steps 500]
                                 [--skip window ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import BENCH, ISOLATE, PYTHON, REPO, find_corpus, measure, table

TASKS = ("train-word", "train-byte", "open", "encode", "window")
BYTE_LEVEL = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none"]
LOADERS = ("bpe_core.io.session", "bpe_core.session")  # the stage layout, then the flat one
OPEN = """
import importlib, sys, time
started = time.perf_counter()
importlib.import_module(sys.argv[1]).load_session(sys.argv[2])
print(time.perf_counter() - started)
"""
WHERE = "import bpe_core, app; print(bpe_core.__file__); print(app.__file__)"
FINDS_LOADER = "import importlib, sys; importlib.import_module(sys.argv[1]).load_session"


@dataclass
class Side:
    """One checkout and how it is run."""

    name: str
    root: Path
    env: dict
    cli: list[str] = field(default_factory=list)
    loader: str = ""
    session: Path = Path()
    figures: dict[str, list[float]] = field(default_factory=dict)

    def run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        """``argv`` in this checkout, untimed, its output captured."""
        return subprocess.run(argv, cwd=self.root, env=self.env, capture_output=True, text=True, check=check)

    def add(self, figure: str, value: float) -> None:
        self.figures.setdefault(figure, []).append(value)


def prepare(name: str, root: Path, corpus: Path, merges: int, folder: Path) -> Side:
    """Check the checkout runs on its own, find its CLI and loader, and save its session."""
    if not (root / "bpe_core" / "__init__.py").is_file():
        raise SystemExit(f"--{name} {root} is not a checkout of BPE Studio (it has no bpe_core package).")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), str(ISOLATE)]),
        "BPE_STUDIO_CHECKOUT": str(root),
        "QT_QPA_PLATFORM": "offscreen",
    }
    side = Side(name, root, env)
    # This machine sets PYTHONDONTWRITEBYTECODE: compiled once here, no timed start recompiles.
    side.run([PYTHON, "-m", "compileall", "-q", str(root / "bpe_core"), str(root / "app")])
    found = side.run([PYTHON, "-c", WHERE], check=False)
    if found.returncode != 0 or not all(Path(p).is_relative_to(root) for p in found.stdout.split()):
        where = found.stdout + found.stderr
        raise SystemExit(f"--{name} {root}: bpe_core and app failed to import, or not from it:\n{where}")
    for entry in (["-m", "bpe_core.cli"], ["-m", "app"]):
        usage = side.run([PYTHON, *entry, "train", "--help"], check=False).stdout
        if all(option in usage for option in ("--unit", "--pretokenize", "--end-of-word")):
            side.cli = [PYTHON, *entry]
            break
    else:
        raise SystemExit(f"--{name} {root}: neither `python -m bpe_core.cli` nor `python -m app` trains.")
    side.loader = next(
        (m for m in LOADERS if side.run([PYTHON, "-c", FINDS_LOADER, m], check=False).returncode == 0), ""
    )
    if not side.loader:
        raise SystemExit(f"--{name} {root}: no load_session in {' or '.join(LOADERS)}.")
    side.session = folder / f"{name}.json"
    side.run([*side.cli, "train", str(corpus), "--merges", str(merges), "-o", str(side.session)])
    return side


def one_round(side: Side, task: str, args: argparse.Namespace, folder: Path) -> None:
    """Run ``task`` once on ``side`` and keep its figures (seconds)."""
    train = [*side.cli, "train", str(args.corpus), "--merges", str(args.merges)]
    if task == "train-word":
        side.add("train (word)", measure(train, env=side.env, cwd=side.root).seconds)
    elif task == "train-byte":
        side.add("train (byte)", measure([*train, *BYTE_LEVEL], env=side.env, cwd=side.root).seconds)
    elif task == "open":
        out = folder / f"{side.name}-open.txt"
        argv = [PYTHON, "-c", OPEN, side.loader, str(side.session)]
        side.add("open session, whole process", measure(argv, out, side.env, side.root).seconds)
        side.add("open session, load_session call", float(out.read_text()))
    elif task == "encode":
        argv = [*side.cli, "encode", "--model", str(side.session), "--file", str(args.text)]
        side.add("encode", measure(argv, folder / f"{side.name}-encode.txt", side.env, side.root).seconds)
    elif task == "window":
        out = folder / f"{side.name}-window.json"
        argv = [PYTHON, str(BENCH / "gui_latency.py"), "--all-panes", "--corpus", str(args.corpus)]
        measure([*argv, "--steps", str(args.gui_steps), "--json", str(out)], env=side.env, cwd=side.root)
        medians = json.loads(out.read_text())
        for operation in ("step", "undo", "redo"):
            side.add(f"window {operation}", medians[operation])
        side.add("window start-up", medians["start-up"])


HOW = {
    "train (word)": "whole process, wall time",
    "train (byte)": "whole process, wall time",
    "open session, whole process": "whole process, wall time (start-up included)",
    "open session, load_session call": "the call alone, timed inside the child",
    "encode": "whole process, wall time",
    "window step": "median of a run's steps; all panes repainted",
    "window undo": "median of a run's undos; all panes repainted",
    "window redo": "median of a run's redos; all panes repainted",
    "window start-up": "`python -m app` shown and closed (median of 3)",
}


def shown(figure: str, seconds: float) -> str:
    """Seconds, or milliseconds for the window's single operations."""
    if figure in ("window step", "window undo", "window redo"):
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the older checkout")
    parser.add_argument("--after", type=Path, default=REPO, help="the newer checkout (default: this repo)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", default="english_10mb.txt", help="a corpora folder name, or a path")
    parser.add_argument("--text", default="english_10mb.txt", help="the file encoded (name or path)")
    parser.add_argument("--merges", type=int, default=8000)
    parser.add_argument("--gui-steps", type=int, default=500, help="steps, undos and redos per window run")
    parser.add_argument("--skip", nargs="*", choices=TASKS, default=[], help="tasks left out")
    args = parser.parse_args()
    args.corpus, args.text = find_corpus(args.corpus), find_corpus(args.text)
    tasks = [task for task in TASKS if task not in args.skip]
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        sides = [
            prepare(name, root.resolve(), args.corpus, args.merges, folder)
            for name, root in (("before", args.before), ("after", args.after))
        ]
        for side in sides:
            print(f"{side.name}: {side.root} ({' '.join(side.cli[1:])}, {side.loader}.load_session)")
        started = time.perf_counter()
        for round_ in range(1, args.rounds + 1):
            for task in tasks:
                for side in sides:  # before, then after: alternated within every task
                    one_round(side, task, args, folder)
            if round_ == 1 and "encode" in tasks:
                a, b = (folder / f"{side.name}-encode.txt" for side in sides)
                same = a.read_bytes() == b.read_bytes()
                print(f"encode output of after {'equals' if same else 'DIFFERS FROM'} before's")
            elapsed = time.perf_counter() - started
            print(f"round {round_}/{args.rounds} done, {elapsed:.0f} s", file=sys.stderr)
    before, after = sides
    rows = []
    for figure, samples in before.figures.items():
        b, a = statistics.median(samples), statistics.median(after.figures[figure])
        # How far single rounds stray: a median ratio inside this range may be the machine's noise.
        rounds = [x / y for x, y in zip(after.figures[figure], samples, strict=True)]
        spread = f"{min(rounds):.2f}–{max(rounds):.2f}"
        rows.append([figure, shown(figure, b), shown(figure, a), f"{a / b:.2f}", spread, HOW[figure]])
    print(
        f"\n{args.corpus.name} to {args.merges:,} merges, encoding {args.text.name}; medians of "
        f"{args.rounds} alternated rounds; lower is better, so after/before < 1 means after is faster.\n"
    )
    header = ["task", "before median", "after median", "after/before", "per round", "measured as"]
    print(table(header, rows))


if __name__ == "__main__":
    main()
