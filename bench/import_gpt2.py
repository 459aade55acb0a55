"""GPT-2's ranks opened as a session, and a corpus attached to it, against training that corpus.

Each figure is one fresh process, as a user meets it (the real CLI, start-up included):
  open    ``bpe-studio import gpt2.tiktoken -o S.json``: read the ranks, recover the 50,000
          merges, make the session, save it (the window does the same minus the save);
  attach  ``bpe-studio import gpt2.tiktoken --corpus CORPUS -o S.json``, less ``open``: reading
          the corpus and replaying the 50,000 merges on it, counts filled in;
  train   ``bpe-studio train CORPUS --unit byte --pretokenize gpt2 --end-of-word none --merges
          8000`` (the same pipeline, 8,000 merges).
Targets: open ≤ 1.5 s; attach ≤ 2× train. The time of ``import`` inside its process
(without start-up and the save) is printed too, from ``bpe_core`` calls in one process.

``--against DIR`` measures another checkout of BPE Studio the same way (``git worktree add DIR
REV``, or ``git archive REV | tar -x -C DIR``), a run of each in turn so that both meet the same
moments of a shared machine, and prints both with their ratio.

    python bench/import_gpt2.py [--corpus english_10mb.txt] [--runs 3] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import (
    ENV,
    ISOLATE,
    PYTHON,
    REPO,
    compile_sources,
    find_corpus,
    gpt2_ranks,
    measure,
    ours_train,
    table,
)

RANKS = gpt2_ranks()
IN_PROCESS = """
import sys, time
started = time.perf_counter()
from bpe_core.io.formats import read_tokenizer
from bpe_core.io.imported import trainer_from_encoder
from bpe_core import load_corpus
imported = read_tokenizer(sys.argv[1], specials=["<|endoftext|>"])
read = time.perf_counter()
trainer = trainer_from_encoder(imported.encoder)
opened = time.perf_counter()
corpus = load_corpus(sys.argv[2], imported.encoder.config)
counted = time.perf_counter()
trainer = trainer_from_encoder(imported.encoder, corpus)
attached = time.perf_counter()
print(f"{read - started:.2f} {opened - read:.2f} {counted - opened:.2f} {attached - counted:.2f}")
"""


def seconds(argv: list[str], root: Path, stdout: Path | None = None) -> float:
    """Wall time of ``argv`` run in the checkout ``root`` (its packages first on the path)."""
    with open(stdout or os.devnull, "w") as out:
        started = time.perf_counter()
        subprocess.run(
            argv,
            stdout=out,
            check=True,
            cwd=root,
            env={**ENV, "PYTHONPATH": os.pathsep.join([str(root), str(ISOLATE)])},
        )
        return time.perf_counter() - started


def measured(root: Path, corpus: Path, folder: Path) -> dict:
    """One run's figures for the checkout ``root``, each appended to a list."""
    session = str(folder / "s.json")
    out = folder / "out.txt"
    importing = [PYTHON, "-m", "app", "import", str(RANKS), "--special-token", "<|endoftext|>"]
    opened = seconds([*importing, "-o", session], root)
    attached = seconds([*importing, "--corpus", str(corpus), "-o", session], root)
    seconds([PYTHON, "-c", IN_PROCESS, str(RANKS), str(corpus)], root, out)
    return {"open": opened, "attach": attached, "inside": [float(x) for x in out.read_text().split()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, measured in turn with this one")
    args = parser.parse_args()
    compile_sources()
    corpus = find_corpus(args.corpus)
    roots = {"this": REPO} | ({"against": args.against.resolve()} if args.against else {})
    if args.against:
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(args.against)], check=True)
    figures: dict[str, list[dict]] = {name: [] for name in roots}
    trains = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):
            for name, root in roots.items():
                figures[name].append(measured(root, corpus, Path(folder)))
            train = ours_train(
                corpus, "--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--merges", "8000"
            )
            trains.append(measure(train).seconds)
    train_s = statistics.median(trains)
    print(f"median of {args.runs} runs, whole processes; corpus {corpus.name}")
    for name, runs in figures.items():
        open_s = statistics.median(run["open"] for run in runs)
        attach_only = statistics.median(run["attach"] - run["open"] for run in runs)
        print(f"\n{name}: {roots[name]}")
        rows = [
            [
                "open GPT-2's ranks as a session (import, saved)",
                f"{open_s:.2f}",
                "≤ 1.50",
                f"{open_s / 1.5:.2f}× target",
            ],
            ["attach the corpus (import --corpus, less open)", f"{attach_only:.2f}", "", ""],
            ["train the corpus to 8,000 merges", f"{train_s:.2f}", "", ""],
            ["attach / train", f"{attach_only / train_s:.2f}", "≤ 2.00", ""],
        ]
        print(table(["what", "seconds", "target", ""], rows))
        parts = [statistics.median(run["inside"][i] for run in runs) for i in range(4)]
        print(
            "in one process: read ranks {:.2f} s, make the session {:.2f} s, read the corpus {:.2f} s, "
            "replay the merges on it {:.2f} s".format(*parts)
        )
    if args.against:
        ratio = statistics.median(
            this["open"] / other["open"]
            for this, other in zip(figures["this"], figures["against"], strict=True)
        )
        inside = statistics.median(
            this["inside"][0] / other["inside"][0]
            for this, other in zip(figures["this"], figures["against"], strict=True)
        )
        print(f"\nthis / against: open {ratio:.2f}×, read ranks (recovering the merges) {inside:.2f}×")


if __name__ == "__main__":
    main()
