"""Encoding throughput against Hugging Face ``tokenizers`` (single thread) on the same model.

Trains our model on the corpus, builds an HF ``BPE`` from exactly our vocabulary and merges,
encodes the same text with both (each returning ids, tokens and offsets), alternating runs,
and checks the two encodings are identical.

    python bench/encode_vs_hf.py [--corpus english_10mb.txt] [--text english_10mb.txt] [--merges 8000]
"""

from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"  # HF single-threaded, before tokenizers is imported
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse
import statistics
import sys
import time

from common import CORPORA, REPO, table

sys.path.insert(0, str(REPO))
from bpe_core import PipelineConfig, Trainer, TrainingConfig, load_corpus
from bpe_core.encoder import Encoder

SETTINGS = {
    "whitespace, </w> attached": PipelineConfig(attach_marker=True),
    "byte-level gpt2": PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
}


def hf_tokenizer(trainer: Trainer):
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokens = trainer.token_string
    vocab = {token: i for i, token in enumerate(trainer.vocab.tokens)}
    merges = [(tokens(r.pair[0]), tokens(r.pair[1])) for r in trainer.history]
    config = trainer.corpus.config
    if config.unit == "byte":
        tokenizer = Tokenizer(models.BPE(vocab, merges))
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tokenizer = Tokenizer(models.BPE(vocab, merges, end_of_word_suffix=config.end_of_word))
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--text", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = (CORPORA / args.text).read_text(encoding="utf-8")
    megabytes = len(text.encode()) / 1e6
    rows = []
    for name, config in SETTINGS.items():
        trainer = Trainer(load_corpus(CORPORA / args.corpus, config), TrainingConfig(tie_break="hf"))
        trainer.run(merges=args.merges)
        hf = hf_tokenizer(trainer)
        ours_times, hf_times = [], []
        for _ in range(args.runs):
            encoder = Encoder.from_trainer(trainer)  # fresh: no word cache carried between runs
            started = time.perf_counter()
            ours = encoder.encode(text)
            ours_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            theirs = hf.encode(text)
            _ = (theirs.ids, theirs.tokens, theirs.offsets)  # materialise what we return too
            hf_times.append(time.perf_counter() - started)
        same = ours.ids == theirs.ids and [tuple(s) for s in ours.spans] == [tuple(o) for o in theirs.offsets]
        ours_s, hf_s = statistics.median(ours_times), statistics.median(hf_times)
        rows.append(
            [
                name,
                f"{len(ours.ids):,}",
                f"{megabytes / ours_s:.2f}",
                f"{megabytes / hf_s:.2f}",
                f"{hf_s / ours_s:.2f}x",
                "yes" if same else "NO",
            ]
        )
    print(
        f"Encoding {args.text} ({megabytes:.1f} MB) with a {args.merges:,}-merge model "
        f"trained on {args.corpus} "
        f"(HF single thread; medians of {args.runs}):\n"
    )
    print(
        table(
            ["setting", "tokens", "ours MB/s", "HF MB/s", "our throughput vs HF", "same ids and spans"], rows
        )
    )


if __name__ == "__main__":
    main()
