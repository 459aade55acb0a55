"""Training time and peak memory: ``bpe-studio train`` against Hugging Face ``tokenizers``.

Same corpus, same settings, same target (the same vocabulary size), each program a fresh
process measured the same way; median of --runs. Also checks that the merge lists are identical.

    python bench/train_vs_hf.py [--corpus english_10mb.txt] [--merges 8000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import CORPORA, PEERS, PYTHON, Paired, compile_sources, measure, ours_train, paired, table

from bpe_core import PipelineConfig, Trainer, load_corpus

CASES = {
    # name: (our options, HF mode, pipeline for counting the base vocabulary, HF mode whose
    # merges must equal ours or None when HF's own order is not deterministic)
    "whitespace, no marker (HF WhitespaceSplit)": (
        ["--end-of-word", "none", "--tie-break", "hf"],
        "plain",
        PipelineConfig(end_of_word=None),
        "plain",
    ),
    "whitespace, </w> attached (HF end_of_word_suffix)": (
        ["--attach-marker", "--tie-break", "hf"],
        "suffix",
        PipelineConfig(attach_marker=True),
        None,
    ),
    "byte-level gpt2": (
        ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--tie-break", "hf"],
        "bytes",
        PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
        "single-gpt2",
    ),
    "byte-level gpt2, a text a line (--lines, as HF reads files)": (
        ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--tie-break", "hf", "--lines"],
        "bytes",
        PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
        "bytes",
    ),
}
# HF's train(files) pre-tokenizes line by line; its one-sequence mode sees the whole text as we do
# (the GPT-2 pattern's whitespace rules differ at line ends), so merges are compared against that,
# and with --lines (each line a text) against train(files) itself.
# With end_of_word_suffix HF numbers suffixed symbols in hash-map order, different on every run, so
# its tie order among them is not reproducible by anyone (ours sorts them by code point).


def base_vocab(path: Path, config: PipelineConfig) -> int:
    if config.unit == "byte":
        return 256
    return Trainer(load_corpus(path, config)).vocab_size


def our_merges(path: Path) -> list[list[str]]:
    return [m["pair"] for m in json.loads(path.read_text())["merges"]]


def hf_merges(path: Path) -> list[list[str]]:
    merges = json.loads(path.read_text())["model"]["merges"]
    return [m.split(" ", 1) if isinstance(m, str) else m for m in merges]


def compared(ours_out: Path, hf_out: Path, reference: str, mode: str, arguments: list[str]) -> str:
    """Whether our merges equal those of HF's ``reference`` mode, which runs again when it is not
    the mode timed. HF's one-sequence mode holds the whole text as one string: on a corpus of 1 GB
    it took more than this 24 GB machine has, so beyond 200 MB the merges are not compared."""
    if reference != mode:
        if Path(arguments[0]).stat().st_size > 200 * 2**20:
            return f"not compared (HF's {reference} mode cannot hold it)"
        measure([PYTHON, PEERS, "hf-train", reference, *arguments])
    return "yes" if our_merges(ours_out) == hf_merges(hf_out) else "NO"


def row(name: str, result: Paired, same: str) -> list[str]:
    return [
        name,
        f"{result.ours.seconds:.2f}",
        f"{result.theirs.seconds:.2f}",
        f"{result.time_ratio:.2f}x",
        f"{result.ours.peak_mb:.0f}",
        f"{result.theirs.peak_mb:.0f}",
        f"{result.memory_ratio:.2f}x",
        same,
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = CORPORA / args.corpus
    compile_sources()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ours_out, hf_out = tmp / "ours.json", tmp / "hf.json"
        for name, (options, mode, config, reference) in CASES.items():
            vocab = base_vocab(corpus, config) + args.merges
            result = paired(
                args.runs,
                (ours_train(corpus, "--vocab-size", str(vocab), "--json", *options), ours_out),
                ([PYTHON, PEERS, "hf-train", mode, str(corpus), str(vocab), str(hf_out)], None),
            )
            same = "n/a (HF ids vary)"
            if reference is not None:
                same = compared(ours_out, hf_out, reference, mode, [str(corpus), str(vocab), str(hf_out)])
            rows.append(row(name, result, same))
        # Our defaults (separate </w> symbol, first-seen) have no HF equivalent; shown against
        # HF's suffix setting for scale.
        suffix_vocab = base_vocab(corpus, PipelineConfig(attach_marker=True)) + args.merges
        result = paired(
            args.runs,
            (ours_train(corpus, "--merges", str(args.merges), "--json"), ours_out),
            ([PYTHON, PEERS, "hf-train", "suffix", str(corpus), str(suffix_vocab), str(hf_out)], None),
        )
        rows.append(row("our defaults: separate </w>, first-seen (vs HF suffix)", result, "n/a"))
    print(
        f"Training {args.corpus} to {args.merges:,} merges "
        f"(process wall time; ours and HF alternated {args.runs} times, medians):\n"
    )
    print(
        table(
            ["setting", "ours s", "HF s", "time ratio", "ours MB", "HF MB", "memory ratio", "same merges"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
