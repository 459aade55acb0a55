"""Encoding with GPT-2's real ranks: BPE Studio against HF ``tokenizers`` and tiktoken.

All three use the same vocabulary and merges, read from ``gpt2.tiktoken`` (the shared file, or
``resources/tokenizers``): ours through ``bpe_core.io.formats.tiktoken_ranks``; HF's ``BPE`` model with a
``ByteLevel`` pre-tokenizer (GPT-2's pattern) built from the same vocabulary and merge list and
timed the way its users call it, ``encode_batch`` on the lines with ``RAYON_NUM_THREADS=1``;
tiktoken's ``Encoding`` from the same ranks, ``encode_ordinary`` on the whole text. Every
tokenizer's ids are checked equal first. Single thread throughout.

    python bench/gpt2_encode.py [--corpus english_10mb.txt] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ["RAYON_NUM_THREADS"] = "1"  # before tokenizers is imported

from common import REPO, find_corpus, gpt2_ranks, table

sys.path.insert(0, str(REPO))
import tiktoken
from tokenizers import Tokenizer, decoders, models, pre_tokenizers

from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, read_ranks

PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def timed(function, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = find_corpus(args.corpus).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    opened, ranks = timed(lambda: read_ranks(gpt2_ranks()), 1)
    built, ours = timed(lambda: encoder_from_ranks(ranks, "gpt2"), 1)
    hf = Tokenizer(
        models.BPE(
            vocab=dict(zip(ours.keys, range(len(ours.keys)), strict=True)),
            merges=[(ours.keys[m.left], ours.keys[m.right]) for m in ours.merges],
        )
    )
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    tk = tiktoken.Encoding("gpt2-file", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})

    expected = tk.encode_ordinary(text)
    assert ours.encode_ids(text) == expected, "ours differs from tiktoken"
    # Lines split where whitespace runs meet line ends: compare per line with per line.
    per_line = [i for line in lines for i in tk.encode_ordinary(line)]
    assert [i for e in hf.encode_batch(lines, add_special_tokens=False) for i in e.ids] == per_line, (
        "HF differs"
    )
    assert [i for line in lines for i in ours.encode_ids(line)] == per_line, "ours differs per line"

    ours_whole, _ = timed(lambda: ours.encode_ids(text), args.runs)
    ours_lines, _ = timed(lambda: [ours.encode_ids(line) for line in lines], args.runs)
    hf_batch, _ = timed(lambda: [e.ids for e in hf.encode_batch(lines, add_special_tokens=False)], args.runs)
    tk_whole, _ = timed(lambda: tk.encode_ordinary(text), args.runs)
    megabytes = len(text.encode("utf-8")) / 2**20
    print(
        f"GPT-2's ranks ({len(ranks):,} tokens) read in {opened:.2f} s, merges recovered in {built:.2f} s; "
        f"{args.corpus} ({megabytes:.1f} MB, {len(expected):,} tokens), one thread, median of {args.runs}; "
        "ids identical in all three (whole text, and per line)"
    )
    rows = [
        ["ours, whole text (encode_ids)", f"{ours_whole:.2f}", f"{megabytes / ours_whole:.1f}", "1.00"],
        [
            "ours, per line (encode_ids)",
            f"{ours_lines:.2f}",
            f"{megabytes / ours_lines:.1f}",
            f"{ours_lines / ours_whole:.2f}",
        ],
        [
            "HF encode_batch on lines, ids",
            f"{hf_batch:.2f}",
            f"{megabytes / hf_batch:.1f}",
            f"{hf_batch / ours_whole:.2f}",
        ],
        [
            "tiktoken encode_ordinary, whole text",
            f"{tk_whole:.2f}",
            f"{megabytes / tk_whole:.1f}",
            f"{tk_whole / ours_whole:.2f}",
        ],
    ]
    print(table(["encoder", "seconds", "MB/s", "× ours (whole)"], rows))


if __name__ == "__main__":
    main()
