"""Opening a session against training it, and encoding with it: time and peak memory.

Trains with the real CLI (``bpe-studio train ... -o S.json``), then, each in a fresh process:
opens the session as the window does (``load_session``: the corpus and every merge replayed),
opens it in the real window (offscreen, ``bench/open_in_window.py``: File > Open, every pane
shown), and encodes one sentence with ``bpe-studio encode --model S.json`` (which reads only the
model). Targets: opening ≤ 0.5× the training time and ≤ 3× the file size in memory.
Memory is given whole and above the start-up of a process that has imported ``bpe_core`` (the
interpreter and numpy, which no file size pays for), and for the window above the window's own
start-up: its peak, and what it keeps once settled (its labels made, its encoder built).

``--word-trigrams`` adds a session with many word types: the corpus with every three consecutive
words written as one (1.4 million types from ``english_10mb.txt``), where the word list, not
the merges, makes the file large. ``--word-ngrams`` adds a larger one still: every three, four
and five consecutive words written as one (4.95 million types, a 132 MB session).

    python bench/session_open.py [--corpus english_10mb.txt] [--merges 8000 26000] [--runs 3]
                                 [--word-trigrams 4000] [--word-ngrams 3000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import PYTHON, compile_sources, find_corpus, measure, ours_train, table

OPEN = "import sys; from bpe_core.io.session import load_session; load_session(sys.argv[1])"
START_UP = "import bpe_core.io.session"
IN_WINDOW = str(Path(__file__).resolve().parent / "open_in_window.py")


NGRAMS = """
import sys
words = open(sys.argv[1], encoding="utf-8").read().split()
joined = [
    "".join(words[i : i + n]) for n in map(int, sys.argv[3].split(",")) for i in range(len(words) - n + 1)
]
lines = (" ".join(joined[i : i + 20]) for i in range(0, len(joined), 20))
open(sys.argv[2], "w", encoding="utf-8").write("\\n".join(lines))
"""


def word_ngrams(corpus: Path, folder: Path, sizes: str, name: str) -> Path:
    """The corpus with every run of ``sizes`` consecutive words as one (``"3"``, ``"3,4,5"``),
    written by a child process: a child's peak memory counts its parent's at the fork, so this
    process must stay small."""
    path = folder / f"{corpus.stem}-{name}.txt"
    measure([PYTHON, "-c", NGRAMS, str(corpus), str(path), sizes])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, nargs="*", default=[8000, 26000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--word-trigrams", type=int, metavar="MERGES", help="add the many-types session")
    parser.add_argument("--word-ngrams", type=int, metavar="MERGES", help="add the 132 MB session")
    args = parser.parse_args()
    compile_sources()
    start_up_mb = statistics.median(measure([PYTHON, "-c", START_UP]).peak_mb for _ in range(3))
    window_mb = statistics.median(measure([PYTHON, IN_WINDOW]).peak_mb for _ in range(3))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        runs = [(find_corpus(args.corpus), merges) for merges in args.merges]
        if args.word_trigrams:
            runs.append(
                (word_ngrams(find_corpus(args.corpus), Path(folder), "3", "trigrams"), args.word_trigrams)
            )
        if args.word_ngrams:
            runs.append(
                (word_ngrams(find_corpus(args.corpus), Path(folder), "3,4,5", "ngrams"), args.word_ngrams)
            )
        for corpus, merges in runs:
            session = Path(folder) / f"{corpus.stem}-{merges}.json"
            train = [measure(ours_train(corpus, "--merges", str(merges), "-o", str(session)))]
            opened, encoded, shown, kept = [], [], [], []
            for _ in range(args.runs):
                opened.append(measure([PYTHON, "-c", OPEN, str(session)]))
                printed = Path(folder) / "window.txt"
                shown.append(measure([PYTHON, IN_WINDOW, str(session)], stdout_path=printed))
                kept.append(float(printed.read_text().split("kept_mb=")[1]))
                encoded.append(measure([PYTHON, "-m", "app", "encode", "--model", str(session), "a test"]))
                train.append(measure(ours_train(corpus, "--merges", str(merges), "-o", str(session))))
            size_mb = session.stat().st_size / 2**20
            train_s = statistics.median(m.seconds for m in train)
            open_s = statistics.median(m.seconds for m in opened)
            open_mb = statistics.median(m.peak_mb for m in opened)
            shown_mb = statistics.median(m.peak_mb for m in shown)
            rows.append(
                [
                    corpus.name,
                    f"{merges:,}",
                    f"{size_mb:.1f}",
                    f"{train_s:.2f}",
                    f"{open_s:.2f}",
                    f"{open_s / train_s:.2f}",
                    f"{statistics.median(m.peak_mb for m in train):.0f}",
                    f"{open_mb:.0f}",
                    f"{open_mb / size_mb:.1f}",
                    f"{(open_mb - start_up_mb) / size_mb:.2f}",
                    f"{shown_mb - window_mb:.0f}",
                    f"{(shown_mb - window_mb) / size_mb:.2f}",
                    f"{statistics.median(kept):.0f}",
                    f"{statistics.median(kept) / size_mb:.2f}",
                    f"{statistics.median(m.seconds for m in encoded):.2f}",
                    f"{statistics.median(m.peak_mb for m in encoded):.0f}",
                ]
            )
    print(f"median of {args.runs} runs; each figure is a whole process (start-up included)")
    print(f"start-up with bpe_core imported: {start_up_mb:.0f} MB; the window's start-up: {window_mb:.0f} MB")
    header = ["corpus", "merges", "file MB", "train s", "open s", "open/train", "train peak MB"]
    header += ["open peak MB", "peak/file"]
    header += ["above start-up/file", "window above start-up MB", "window above/file"]
    header += ["window kept MB", "kept/file"]
    print(table([*header, "encode s", "encode peak MB"], rows))


if __name__ == "__main__":
    main()
