"""The rule sweep against one training run, as whole processes on the same corpus.

``bpe-studio compare FILE --merges N --tie-break R1 ... R5`` (the corpus counted once, each rule
trained to N merges) against ``bpe-studio train FILE --merges N``. Target: a sweep of
5 rules × 2,000 merges ≤ 5× one training run. No peer sweeps rules; HF's training of the same
merges (``train_from_iterator`` on the lines) is printed for scale.

    python bench/sweep.py [--corpus english_10mb.txt] [--merges 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics

from common import PYTHON, compile_sources, find_corpus, measure, ours_train, table

RULES = ("first-seen", "hf", "subword-nmt", "lexicographic", "random:1")
HF = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
text = open(sys.argv[1], encoding="utf-8").read()
tokenizer = Tokenizer(models.BPE())
tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
trainer = trainers.BpeTrainer(vocab_size=len(set(text)) + int(sys.argv[2]), show_progress=False)
tokenizer.train_from_iterator(text.splitlines(), trainer)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_sources()
    corpus = find_corpus(args.corpus)
    merges = str(args.merges)
    sweep = [PYTHON, "-m", "app", "compare", str(corpus), "--merges", merges]
    for rule in RULES:
        sweep += ["--tie-break", rule]
    train = ours_train(corpus, "--merges", merges)
    times: dict[str, list[float]] = {"train": [], "sweep": [], "hf": []}
    for _ in range(args.runs):
        times["train"].append(measure(train).seconds)
        times["sweep"].append(measure(sweep).seconds)
        times["hf"].append(measure([PYTHON, "-c", HF, str(corpus), merges]).seconds)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.corpus}, {args.merges:,} merges, median of {args.runs} runs (whole processes)")
    rows = [
        ["ours: train, first-seen", f"{median['train']:.2f}", "1.00"],
        [
            f"ours: compare, {len(RULES)} rules",
            f"{median['sweep']:.2f}",
            f"{median['sweep'] / median['train']:.2f}",
        ],
        ["HF train_from_iterator (one rule)", f"{median['hf']:.2f}", f"{median['hf'] / median['train']:.2f}"],
    ]
    print(table(["run", "seconds", "× one training run"], rows))


if __name__ == "__main__":
    main()
