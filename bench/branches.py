"""Branches: switching between two lines of the history, and painting the History pane.

1. Engine: on the corpus, main is trained to --merges; at step --fork a branch is made (the
   second-ranked pair instead of the first) and trained as far. Switching between the two
   lines at step fork + apart/2 walks ``apart`` merges (undo to the fork, redo along the other).
   Target: 1,000 merges apart ≤ 150 ms. No peer has branches; HF's training time per
   merge on the same corpus (its ``train_from_iterator``) is printed for scale.
2. Window: the History pane with 10,000 steps on four branches, painted at 40 scroll positions,
   against the same pane with a ten-step history: drawing only what is visible keeps the two
   alike.

    python bench/branches.py [--corpus english_10mb.txt] [--fork 2000] [--apart 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from common import REPO, find_corpus, table

sys.path.insert(0, str(REPO))
from bpe_core import Corpus, PipelineConfig, Trainer, load_corpus


def two_lines(trainer: Trainer, fork: int, length: int) -> int:
    """Main to ``length`` merges, and a branch from ``fork`` to ``length``; returns its id."""
    trainer.run(merges=length)
    trainer.goto(fork)
    trainer.step(trainer.top_pairs(2)[1].pair)
    trainer.run(merges=length - fork - 1)
    return trainer.current_branch


def switching(trainer: Trainer, fork: int, apart: int, runs: int) -> list[float]:
    branch = two_lines(trainer, fork, fork + apart)
    middle = fork + apart // 2
    times = []
    trainer.switch(branch, middle)
    for i in range(2 * runs):
        started = time.perf_counter()
        trainer.switch(0 if i % 2 == 0 else branch, middle)
        times.append(time.perf_counter() - started)
    return times


def hf_seconds_per_merge(text: str, merges: int) -> float | None:
    try:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    except ImportError:
        return None
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    alphabet = len(set(text))
    trainer = trainers.BpeTrainer(vocab_size=alphabet + merges, min_frequency=2, show_progress=False)
    started = time.perf_counter()
    tokenizer.train_from_iterator(text.splitlines(), trainer)
    return (time.perf_counter() - started) / merges


def painting() -> list[list[str]]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.bridge import Bridge
    from app.panes.history_pane import HistoryPane

    rows = []
    text = find_corpus("english_10mb.txt").read_text(encoding="utf-8")
    trees = (("10 steps, 2 branches", 10, [4]), ("10,000 steps, 4 branches", 10_000, [2000, 5000, 8000]))
    for label, length, forks in trees:
        trainer = Trainer(Corpus.from_text(text, PipelineConfig()))
        trainer.run(merges=length)
        for fork in forks:
            trainer.switch(0, fork)
            trainer.step(trainer.top_pairs(2)[1].pair)
            trainer.run(merges=length - fork - 1)
        bridge = Bridge(trainer)
        pane = HistoryPane(bridge)
        pane.resize(1400, 320)
        pane.show()
        app.processEvents()
        graph = pane.graph
        bar = graph.horizontalScrollBar()
        times = []
        for i in range(40):
            bar.setValue(bar.maximum() * i // 39)
            started = time.perf_counter()
            graph.viewport().repaint()
            times.append(time.perf_counter() - started)
        rows.append([label, f"{statistics.median(times) * 1000:.2f}", f"{max(times) * 1000:.2f}"])
        pane.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--fork", type=int, default=2000)
    parser.add_argument("--apart", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = find_corpus(args.corpus)
    corpus = load_corpus(path, PipelineConfig())
    times = switching(Trainer(corpus), args.fork, args.apart, args.runs)
    per_merge = hf_seconds_per_merge(path.read_text(encoding="utf-8"), args.fork + args.apart)
    print(f"{args.corpus}: switching between two lines {args.apart:,} merges apart (fork at {args.fork:,})")
    rows = [["switch (ours)", f"{statistics.median(times) * 1000:.1f}", f"{max(times) * 1000:.1f}"]]
    if per_merge is not None:
        worth = f"{per_merge * args.apart * 1000:.1f}"
        rows.append([f"HF training, {args.apart:,} merges' worth (average)", worth, ""])
    print(table(["what", "median ms", "max ms"], rows))
    print("\nHistory pane, 1400×320, one repaint of the graph at 40 scroll positions")
    print(table(["history", "median ms", "max ms"], painting()))


if __name__ == "__main__":
    main()
