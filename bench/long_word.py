"""One very long word (minified code, DNA): the cost of a merge as training goes on.

A word of N million random letters (``--pretokenize none``) is trained with long words as linked
symbols (the default for words over ``pair_index.LONG_WORD`` symbols) and, in the same run, as
one string rewritten whole by every merge (the representation of short words). A merge of the
linked word costs work proportional to the occurrences it replaces, so its cost falls as the
pairs get rarer; the string's stays proportional to the word's length. (Hugging Face, which
rewrites a word whole too, is compared on one long sequence by ``single_sequence.py``.)

    python bench/long_word.py [--megabytes 5] [--merges 3000] [--block 500]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from common import REPO, table

sys.path.insert(0, str(REPO))
from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.training import pair_index


def per_merge_ms(text: str, merges: int, block: int, long_word: int) -> tuple[float, list[tuple], float]:
    """Load seconds, (block, top count, ms per merge) per block, and ms per undo of the last block."""
    pair_index.LONG_WORD = long_word
    started = time.perf_counter()
    trainer = Trainer(Corpus.from_text(text, PipelineConfig(pretokenize="none", end_of_word=None)))
    load = time.perf_counter() - started
    blocks = []
    for done in range(0, merges, block):
        top = trainer.top_count()
        started = time.perf_counter()
        trainer.run(merges=block)
        blocks.append((f"{done:,}–{done + block:,}", top, (time.perf_counter() - started) * 1000 / block))
    started = time.perf_counter()
    trainer.goto(trainer.position - block)
    return load, blocks, (time.perf_counter() - started) * 1000 / block


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=5)
    parser.add_argument("--merges", type=int, default=3000)
    parser.add_argument("--block", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(int(args.megabytes * 1e6)))
    linked = per_merge_ms(text, args.merges, args.block, long_word=4096)
    string = per_merge_ms(text, args.merges, args.block, long_word=10**12)
    rows = [
        [name, f"{top:,}", f"{ms_linked:.2f}", f"{ms_string:.2f}", f"{ms_string / ms_linked:.1f}x"]
        for (name, top, ms_linked), (_, _, ms_string) in zip(linked[1], string[1], strict=True)
    ]
    rows.append([f"undo of the last {args.block}", "", f"{linked[2]:.2f}", f"{string[2]:.2f}", ""])
    rows.append(["load (s)", "", f"{linked[0]:.2f}", f"{string[0]:.2f}", ""])
    print(f"One word of {args.megabytes:g} million random letters, {args.merges:,} merges (first-seen):\n")
    print(table(["merges", "top count", "linked ms/merge", "string ms/merge", "linked faster"], rows))


if __name__ == "__main__":
    main()
