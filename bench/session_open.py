"""Opening a session against training it, and encoding with it: time and peak memory.

Trains with the real CLI (``bpe-studio train ... -o S.json``), then, each in a fresh process:
opens the session as the window does (``load_session``: the corpus and every merge replayed),
and encodes one sentence with ``bpe-studio encode --model S.json`` (which reads only the model).
Targets (issue 8): opening ≤ 0.5× the training time and ≤ 3× the file size in memory.

    python bench/session_open.py [--corpus english_10mb.txt] [--merges 8000 26000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import CORPORA, PYTHON, compile_sources, measure, ours_train, table

OPEN = "import sys; from bpe_core.session import load_session; load_session(sys.argv[1])"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, nargs="+", default=[8000, 26000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_sources()
    corpus = CORPORA / args.corpus
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for merges in args.merges:
            session = Path(folder) / f"s{merges}.json"
            train = [measure(ours_train(corpus, "--merges", str(merges), "-o", str(session)))]
            opened, encoded = [], []
            for _ in range(args.runs):
                opened.append(measure([PYTHON, "-c", OPEN, str(session)]))
                encoded.append(measure([PYTHON, "-m", "app", "encode", "--model", str(session), "a test"]))
                train.append(measure(ours_train(corpus, "--merges", str(merges), "-o", str(session))))
            size_mb = session.stat().st_size / 2**20
            train_s = statistics.median(m.seconds for m in train)
            open_s = statistics.median(m.seconds for m in opened)
            open_mb = statistics.median(m.peak_mb for m in opened)
            rows.append(
                [
                    f"{merges:,}",
                    f"{size_mb:.1f}",
                    f"{train_s:.2f}",
                    f"{open_s:.2f}",
                    f"{open_s / train_s:.2f}",
                    f"{open_mb:.0f}",
                    f"{open_mb / size_mb:.1f}",
                    f"{statistics.median(m.seconds for m in encoded):.2f}",
                    f"{statistics.median(m.peak_mb for m in encoded):.0f}",
                ]
            )
    print(f"{args.corpus}, median of {args.runs} runs; each figure is a whole process (start-up included)")
    header = ["merges", "file MB", "train s", "open s", "open/train", "open peak MB", "peak/file"]
    print(table([*header, "encode s", "encode peak MB"], rows))


if __name__ == "__main__":
    main()
