"""Encoding when normalization changes lengths: NFKC turns the ligature ``ﬁ`` (one character) into
``fi`` (two), so every span must be mapped back to the user's text.

Mapping by normalizing every prefix of a word was quadratic (a 64k-character run of ``ﬁ`` took
103 s); the map is meant to be linear now. Trains a small model (2,000 merges, NFKC + lowercase,
``</w>`` attached so Hugging Face ``tokenizers`` can hold the same model), then encodes about 1 MB of:

- words made of long runs of ``ﬁ`` separated by spaces, at three run lengths with the same total;
  word ``i`` is one ligature shorter than word ``i - 1``, so every word is new and no word cache
  hides the cost;
- Jane Austen's prose (from english_10mb.txt) with every ``fi`` written as ``ﬁ``;

each also with ``ﬁ`` written as ASCII ``fi`` (the same text once normalized, so the same tokens).
Ours is ``Encoder.encode(text)``; HF is ``Tokenizer.encode(text)`` with an ``NFKC`` + ``Lowercase``
normalizer and exactly our vocabulary and merges (single thread), its ids, tokens and offsets read
into Python. Runs alternate; each encode gets a fresh encoder (ligature and ASCII texts normalize
to the same words, so a shared cache would make the second one free).

    python bench/normalize_encode.py [--corpus english_10mb.txt] [--merges 2000] [--runs 5]
"""

from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"  # HF single-threaded, before tokenizers is imported
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse
import statistics
import sys
import time

from common import REPO, find_corpus, table
from encode_vs_hf import hf_tokenizer

sys.path.insert(0, str(REPO))
from bpe_core import PipelineConfig, Trainer, TrainingConfig, load_corpus
from bpe_core.encoding.encoder import UNKNOWN_ID

CONFIG = PipelineConfig(normalization="nfkc", lowercase=True, attach_marker=True)
LIGATURE = "ﬁ"
RUN_LENGTHS = [16_384, 32_768, 65_536]
TOTAL_LIGATURES = 5 * 65_536  # every run length gets the same total: ~1 MB of UTF-8 (3 bytes each)
PROSE = ("english_10mb.txt", "SENSE AND SENSIBILITY", 1_000_000)  # file, where to start, characters


def ligature_runs(length: int) -> str:
    """Words of about ``length`` ligatures, all distinct, separated by spaces."""
    return " ".join(LIGATURE * (length - i) for i in range(TOTAL_LIGATURES // length))


def prose() -> str:
    name, start, size = PROSE
    text = find_corpus(name).read_text(encoding="utf-8")
    begin = text.index(start)
    return text[begin : begin + size].replace("fi", LIGATURE)


def hf_normalized(trainer: Trainer):
    from tokenizers import normalizers

    tokenizer = hf_tokenizer(trainer)
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    return tokenizer


def encode_ours(trainer: Trainer, text: str):
    encoder = trainer.encoder()  # fresh: empty word cache
    started = time.perf_counter()
    encoding = encoder.encode(text)
    seconds = time.perf_counter() - started
    return seconds, (encoding.ids, [tuple(s) for s in encoding.spans], encoding.ids.count(UNKNOWN_ID))


def encode_hf(trainer: Trainer, text: str):
    tokenizer = hf_normalized(trainer)
    started = time.perf_counter()
    encoding = tokenizer.encode(text)
    result = encoding.ids, encoding.tokens, encoding.offsets  # read out what ours returns too
    return time.perf_counter() - started, (result[0], [tuple(o) for o in result[2]], 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    # english_10mb.txt, not tinyshakespeare.txt: the model must know every character of the prose.
    # Shakespeare has no digits or brackets; HF's BPE (no unknown token) drops such characters and
    # merges across them where ours keeps an unknown token, and the encodings could not be compared.
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)  # each encode is short: more runs, less noise
    args = parser.parse_args()
    trainer = Trainer(load_corpus(find_corpus(args.corpus), CONFIG), TrainingConfig(tie_break="hf"))
    trainer.run(merges=args.merges)
    runs = {f"runs of {n:,} ﬁ": ligature_runs(n) for n in RUN_LENGTHS}
    inputs = {**runs, "Austen, every fi as ﬁ": prose()}
    texts = {
        (name, form): text if form == "ﬁ" else text.replace(LIGATURE, "fi")
        for name, text in inputs.items()
        for form in ("ﬁ", "fi")
    }
    times: dict[tuple, list[float]] = {(key, who): [] for key in texts for who in ("ours", "hf")}
    results = {}
    for _ in range(args.runs):  # alternate: ours and HF on each text see the same machine moments
        for key, text in texts.items():
            for who, encode in (("ours", encode_ours), ("hf", encode_hf)):
                seconds, results[key, who] = encode(trainer, text)
                times[key, who].append(seconds)
    median = {key: statistics.median(samples) for key, samples in times.items()}
    rows, notes = [], []
    for name, text in inputs.items():
        lig, asc = (name, "ﬁ"), (name, "fi")
        ligatures = text.count(LIGATURE)
        same = True
        for key in (lig, asc):
            ours, theirs = results[key, "ours"], results[key, "hf"]
            if ours[:2] != theirs[:2]:
                same = False
                notes.append(f"{name} ({key[1]}): our ids or spans differ from HF's")
            if ours[2]:
                notes.append(
                    f"{name} ({key[1]}): {ours[2]:,} unknown characters (HF drops them and merges across)"
                )
        if results[lig, "ours"][0] != results[asc, "ours"][0]:
            notes.append(f"{name}: our ids differ between the ligature and the ASCII text")
        rows.append(
            [
                name,
                f"{len(text.encode()) / 1e6:.2f} / {len(texts[asc].encode()) / 1e6:.2f}",
                f"{ligatures:,}",
                f"{median[lig, 'ours']:.3f}",
                f"{median[asc, 'ours']:.3f}",
                f"{median[lig, 'ours'] / median[asc, 'ours']:.2f}",
                f"{median[lig, 'ours'] / ligatures * 1e6:.2f}" if name in runs else "-",
                f"{median[lig, 'hf']:.3f}",
                f"{median[asc, 'hf']:.3f}",
                f"{median[lig, 'hf'] / median[asc, 'hf']:.2f}",
                f"{median[lig, 'hf'] / median[lig, 'ours']:.2f}x",
                "yes" if same else "NO",
            ]
        )
    print(
        f"Encoding with NFKC + lowercase: a {args.merges:,}-merge model trained on {args.corpus}; ours "
        f"Encoder.encode(text), HF Tokenizer.encode(text) (one thread); medians of {args.runs} alternated "
        "runs, fresh encoders each time.\n"
        f"Every run length holds about {TOTAL_LIGATURES:,} ligatures: a linear encoder takes the same time "
        "on each row (the same µs per ﬁ), a quadratic one twice as long per doubling.\n"
        "lig / ASCII = seconds on the ﬁ text over seconds on the same text with fi (1 = ligatures cost "
        "nothing extra); ours / HF = HF's seconds over ours on the ﬁ text (above 1 we are faster).\n"
    )
    header = [
        "text",
        "MB (ﬁ / fi)",
        "ﬁ count",
        "ours ﬁ s",
        "ours fi s",
        "ours lig / ASCII",
        "ours µs per ﬁ",
        "HF ﬁ s",
        "HF fi s",
        "HF lig / ASCII",
        "ours / HF (ﬁ)",
        "same as HF",
    ]
    print(table(header, rows))
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
