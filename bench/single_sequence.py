"""The classic compression variant: the whole file is one byte sequence (no pre-tokenization).

``bpe-studio train taylorswift.txt --pretokenize none --unit byte --end-of-word none --merges 1000``
against Hugging Face ``tokenizers`` fed the file as one sequence (ByteLevel without its regex).

    python bench/single_sequence.py [--corpus taylorswift.txt] [--merges 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import CORPORA, PEERS, PYTHON, compile_sources, ours_train, paired, table

OURS = ["--pretokenize", "none", "--unit", "byte", "--end-of-word", "none", "--json"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="taylorswift.txt")
    parser.add_argument("--merges", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = str(CORPORA / args.corpus)
    compile_sources()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ours_out, hf_out = Path(tmp) / "ours.json", Path(tmp) / "hf.json"
        hf = [PYTHON, PEERS, "hf-train", "single", corpus, str(256 + args.merges), str(hf_out)]
        for rule in ("first-seen", "hf"):
            result = paired(
                args.runs,
                (ours_train(corpus, *OURS, "--merges", str(args.merges), "--tie-break", rule), ours_out),
                (hf, None),
            )
            ours_merges = [m["pair"] for m in json.loads(ours_out.read_text())["merges"]]
            theirs = json.loads(hf_out.read_text())["model"]["merges"]
            same = "yes" if rule == "hf" and ours_merges == theirs else ("n/a" if rule != "hf" else "NO")
            rows.append(
                [
                    f"--tie-break {rule}",
                    len(ours_merges),
                    f"{result.ours.seconds:.2f}",
                    f"{result.theirs.seconds:.2f}",
                    f"{result.time_ratio:.2f}x",
                    same,
                ]
            )
    print(
        f"One sequence of bytes ({args.corpus}), {args.merges:,} merges (process wall time, medians of "
        f"{args.runs} alternated runs; target: ours <= 3 s):\n"
    )
    print(table(["ours", "merges", "ours s", "HF s", "time ratio", "same merges as HF"], rows))


if __name__ == "__main__":
    main()
