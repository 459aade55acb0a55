"""The classic compression variant: the whole file is one byte sequence (no pre-tokenization).

``bpe-studio train taylorswift.txt --pretokenize none --unit byte --end-of-word none --merges 1000``
against Hugging Face ``tokenizers`` fed the file as one sequence (ByteLevel without its regex);
then encoding the whole file as one sequence with the model trained here: ours (``Encoder``,
the heap of ``bpe_core/encoding/merge_heap.py``) against HF's ``Tokenizer.encode`` of the same model
exported as ``tokenizer.json`` (one string: there is nothing to batch), in this process, best of
``--runs``, with the ids compared.

    python bench/single_sequence.py [--corpus taylorswift.txt] [--merges 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, PEERS, PYTHON, REPO, compile_sources, find_corpus, ours_train, paired, table

OURS = ["--pretokenize", "none", "--unit", "byte", "--end-of-word", "none", "--json"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="taylorswift.txt")
    parser.add_argument("--merges", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = str(find_corpus(args.corpus))
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
    encode_one_sequence(corpus, args.merges, args.runs)


def encode_one_sequence(corpus: str, merges: int, runs: int) -> None:
    sys.path.insert(0, str(REPO))
    from tokenizers import Tokenizer

    from bpe_core.encoding.encoder import Encoder
    from bpe_core.io.session import load_encoder

    text = Path(corpus).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        session, exported = Path(tmp) / "s.json", Path(tmp) / "tokenizer.json"
        train = ours_train(
            corpus, *OURS[:-1], "--merges", str(merges), "--tie-break", "hf", "-o", str(session)
        )
        subprocess.run(train, check=True, capture_output=True, env=ENV)
        export = [PYTHON, "-m", "app", "export", str(session), "--format", "hf", "-o", str(exported)]
        subprocess.run(export, check=True, capture_output=True, env=ENV)
        model, theirs = load_encoder(session), Tokenizer.from_file(str(exported))
        ours_s, hf_s = [], []
        for _ in range(runs):
            ours = Encoder(model.config, model.keys, model.merges)  # its cache empty each time
            started = time.perf_counter()
            ids = ours.encode_ids(text)
            ours_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            hf_ids = theirs.encode(text, add_special_tokens=False).ids
            hf_s.append(time.perf_counter() - started)
    print(f"\nEncoding the file as one sequence with those {merges:,} merges (in process, best of {runs}):\n")
    row = [f"{len(text):,}", f"{len(ids):,}", f"{min(ours_s):.2f}", f"{min(hf_s):.3f}"]
    row += [f"{min(ours_s) / min(hf_s):.1f}x", "yes" if ids == hf_ids else "NO"]
    print(table(["characters", "tokens", "ours s", "HF s", "time ratio", "same ids"], [row]))


if __name__ == "__main__":
    main()
