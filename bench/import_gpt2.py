"""GPT-2's ranks opened as a session, and a corpus attached to it, against training that corpus.

Each figure is one fresh process, as a user meets it (the real CLI, start-up included):
  open    ``bpe-studio import gpt2.tiktoken -o S.json``: read the ranks, recover the 50,000
          merges, make the session, save it (the window does the same minus the save);
  attach  ``bpe-studio import gpt2.tiktoken --corpus CORPUS -o S.json``, less ``open``: reading
          the corpus and replaying the 50,000 merges on it, counts filled in;
  train   ``bpe-studio train CORPUS --unit byte --pretokenize gpt2 --end-of-word none --merges
          8000`` (the same pipeline, 8,000 merges).
Targets: open ≤ 1.5 s; attach ≤ 2× train. The time of ``import`` inside its process
(without start-up and the save) is printed too, from ``bpe_core`` calls in one process.

    python bench/import_gpt2.py [--corpus english_10mb.txt] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import CORPORA, PYTHON, REPO, compile_sources, measure, ours_train, table

RANKS = REPO / "resources" / "tokenizers" / "gpt2.tiktoken"
IN_PROCESS = """
import sys, time
started = time.perf_counter()
from bpe_core.formats import read_tokenizer
from bpe_core.imported import trainer_from_encoder
from bpe_core.corpus import load_corpus
imported = read_tokenizer(sys.argv[1], specials=["<|endoftext|>"])
read = time.perf_counter()
trainer = trainer_from_encoder(imported.encoder)
opened = time.perf_counter()
corpus = load_corpus(sys.argv[2], imported.encoder.config)
counted = time.perf_counter()
trainer = trainer_from_encoder(imported.encoder, corpus)
attached = time.perf_counter()
print(f"{read - started:.2f} {opened - read:.2f} {counted - opened:.2f} {attached - counted:.2f}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_sources()
    corpus = CORPORA / args.corpus
    importing = [PYTHON, "-m", "app", "import", str(RANKS), "--special-token", "<|endoftext|>"]
    opens, attaches, trains, inside = [], [], [], []
    with tempfile.TemporaryDirectory() as folder:
        session = str(Path(folder) / "s.json")
        out = Path(folder) / "out.txt"
        for _ in range(args.runs):
            opens.append(measure([*importing, "-o", session]).seconds)
            attaches.append(measure([*importing, "--corpus", str(corpus), "-o", session]).seconds)
            trains.append(
                measure(
                    ours_train(
                        corpus,
                        "--unit",
                        "byte",
                        "--pretokenize",
                        "gpt2",
                        "--end-of-word",
                        "none",
                        "--merges",
                        "8000",
                    )
                ).seconds
            )
            measure([PYTHON, "-c", IN_PROCESS, str(RANKS), str(corpus)], out)
            inside.append([float(x) for x in out.read_text().split()])
    open_s, attach_s, train_s = map(statistics.median, (opens, attaches, trains))
    attach_only = attach_s - open_s
    print(f"median of {args.runs} runs, whole processes; corpus {corpus.name}")
    rows = [
        [
            "open GPT-2's ranks as a session (import, saved)",
            f"{open_s:.2f}",
            "≤ 1.50",
            f"{open_s / 1.5:.2f}× target",
        ],
        ["attach the corpus (import --corpus, less open)", f"{attach_only:.2f}", "", ""],
        ["train the corpus to 8,000 merges", f"{train_s:.2f}", "", ""],
        ["attach / train", f"{attach_only / train_s:.2f}", "≤ 2.00", ""],
    ]
    print(table(["what", "seconds", "target", ""], rows))
    parts = [statistics.median(run[i] for run in inside) for i in range(4)]
    print(
        "in one process: read ranks {:.2f} s, make the session {:.2f} s, read the corpus {:.2f} s, "
        "replay the merges on it {:.2f} s".format(*parts)
    )


if __name__ == "__main__":
    main()
