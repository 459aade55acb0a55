"""``bpe-studio compare``: train with several tie rules from the same corpus (counted once) to the
same target, then print each run and how each pair of runs differs (or all of it as JSON)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from bpe_core.cli import PROG
from bpe_core.cli.common import ProgressBar
from bpe_core.cli.options import pipeline_of, rule, training_options
from bpe_core.cli.train import corpus_of_inputs, merges_json, note_counts_order, note_unstated_pipeline
from bpe_core.tools.compare import pairwise_comparisons, sweep
from bpe_core.training.config import TrainingConfig


def options_compare(parser: argparse.ArgumentParser) -> None:
    training_options(parser)
    parser.add_argument(
        "--tie-break",
        type=rule,
        action="append",
        required=True,
        metavar="RULE",
        help="a rule to train with (twice or more)",
    )
    parser.add_argument("--json", action="store_true", help="print the runs and their comparisons as JSON")


def run_compare(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if len(args.tie_break) < 2:
        print(f"{PROG} compare: give --tie-break at least twice, one rule each time.", file=stderr)
        return 2
    training = TrainingConfig(min_frequency=args.min_frequency, merges_per_pass=args.merges_per_pass)
    corpus = corpus_of_inputs(args, pipeline_of(args), stderr)
    note_counts_order(args, [TrainingConfig(tie_break=rule) for rule in args.tie_break], stderr)
    note_unstated_pipeline(args, stderr)
    bar = ProgressBar(stderr, (args.merges or 0) * len(args.tie_break))
    runs = sweep(corpus, training, args.tie_break, args.merges, args.vocab_size, progress=bar.update)
    bar.close()
    comparisons = pairwise_comparisons(runs)
    if args.json:
        data = {
            "runs": [
                {
                    "tie_break": run.label,
                    "merges": merges_json(run, args.merges_per_pass != 1),
                    "corpus_tokens": run.corpus_tokens,
                    "vocab_size": run.records[-1].vocab_size if run.records else len(run.base),
                }
                for run in runs
            ],
            "pairs": [
                {
                    "a": c.a.label,
                    "b": c.b.label,
                    "first_divergence": c.first_divergence,
                    "vocab_overlap": round(c.vocab_overlap, 6),
                    "tokens_a": c.tokens_a,
                    "tokens_b": c.tokens_b,
                }
                for c in comparisons
            ],
        }
        stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    for run in runs:
        print(f"{run.label}: {len(run.merges):,} merges, {run.corpus_tokens:,} corpus tokens", file=stdout)
    for comparison in comparisons:
        print(comparison.summary() + ".", file=stdout)
    return 0
