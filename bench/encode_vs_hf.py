"""Encoding throughput against Hugging Face ``tokenizers`` and ``tiktoken`` (one thread), same model.

Trains our model on the corpus, builds an HF ``BPE`` (and, for byte-level, a ``tiktoken.Encoding``)
from exactly our vocabulary and merges, and encodes the same text with each, in two ways:

- the whole text as one string: our ``Encoder.encode(text)``; HF ``Tokenizer.encode(text)`` (one
  10 MB sequence, not how HF is usually called); tiktoken ``encode_ordinary(text)``;
- the text's lines (``str.splitlines(keepends=True)``), the way HF's users call it: our
  ``Encoder.encode(line)`` for each line in a Python loop (ours has no batch API and is
  single-threaded); HF ``Tokenizer.encode_batch(lines)``; tiktoken
  ``encode_ordinary_batch(lines, num_threads=1)`` and, as that hands every line to a thread
  pool, also ``encode_ordinary(line)`` in a Python loop.

What each side returns: ours always builds ids, token strings and character spans; for HF we read
``ids``, ``tokens`` and ``offsets`` of every encoding into Python (what ours returns), and for the
batch also ``ids`` alone (what most callers read); tiktoken returns ids only.

Runs alternate between the programs; each run starts with a fresh encoder of ours and a fresh HF
tokenizer (empty word caches). Checks that every peer's ids (and HF's spans) equal ours, and says
where they first differ when they do not.

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
from functools import partial

from common import REPO, find_corpus, table

sys.path.insert(0, str(REPO))
from bpe_core import PipelineConfig, Trainer, TrainingConfig, load_corpus
from bpe_core.encoding.encoder import Encoder
from bpe_core.pipeline.byte_alphabet import display_to_bytes
from bpe_core.pipeline.pretokenize import GPT2_PATTERN

SETTINGS = {
    "whitespace, </w> attached": PipelineConfig(attach_marker=True),
    "byte-level gpt2": PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
}
OURS_WHOLE, OURS_LINES = "Encoder.encode(text)", "Encoder.encode(line) per line"
# Our ids-only path, against the peers' ids-only calls.
OURS_IDS_WHOLE, OURS_IDS_LINES = "Encoder.encode_ids(text)", "Encoder.encode_ids(line) per line"
HF_WHOLE, HF_LINES = "HF Tokenizer.encode(text)", "HF Tokenizer.encode_batch(lines)"
# Reading tokens and offsets into Python is a large share of HF's batch time; most callers want ids.
HF_LINES_IDS = "HF Tokenizer.encode_batch(lines), ids only"
TT_WHOLE, TT_LINES = "tiktoken encode_ordinary(text)", "tiktoken encode_ordinary_batch(lines, num_threads=1)"
# tiktoken's batch call hands each line to a thread pool, which costs more than encoding a short line
# (even with one thread); a plain loop is how a single-threaded caller would avoid that.
TT_LOOP = "tiktoken encode_ordinary(line) per line"
IDS_ONLY = (HF_LINES_IDS, TT_WHOLE, TT_LINES, TT_LOOP)
PAIRS = [
    (OURS_WHOLE, HF_WHOLE),
    (OURS_LINES, HF_LINES),
    (OURS_IDS_LINES, HF_LINES_IDS),
    (OURS_IDS_WHOLE, TT_WHOLE),
    (OURS_IDS_LINES, TT_LINES),
    (OURS_IDS_LINES, TT_LOOP),
]
WHOLE = (OURS_WHOLE, OURS_IDS_WHOLE)


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


def tiktoken_encoding(trainer: Trainer):
    """Our byte-level model as tiktoken sees one: the bytes of each token and its rank.

    Our ids put merged tokens in creation order after the base bytes, so an id is a valid rank
    (a lower id was merged earlier) and tiktoken's ids are ours with no mapping. Special tokens
    are left out (``encode_ordinary`` never produces them); their ids are simply not used."""
    import tiktoken

    vocab = trainer.vocab
    ranks = {display_to_bytes(key): i for i, key in enumerate(vocab.keys) if i >= vocab.n_special}
    return tiktoken.Encoding("bpe-studio", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})


def programs(trainer: Trainer, text: str, lines: list[str]) -> dict:
    """API name -> (make a fresh subject, not timed; encode with it, timed)."""
    fresh_ours = partial(Encoder.from_trainer, trainer)  # a fresh word cache every run
    fresh_hf = partial(hf_tokenizer, trainer)

    def hf_whole(hf):
        encoding = hf.encode(text)
        return encoding.ids, encoding.tokens, encoding.offsets  # read out what ours returns too

    def hf_lines(hf):
        return [(e.ids, e.tokens, e.offsets) for e in hf.encode_batch(lines)]

    chosen = {
        OURS_WHOLE: (fresh_ours, lambda ours: ours.encode(text)),
        HF_WHOLE: (fresh_hf, hf_whole),
        OURS_LINES: (fresh_ours, lambda ours: [ours.encode(line) for line in lines]),
        OURS_IDS_WHOLE: (fresh_ours, lambda ours: ours.encode_ids(text)),
        OURS_IDS_LINES: (fresh_ours, lambda ours: [ours.encode_ids(line) for line in lines]),
        HF_LINES: (fresh_hf, hf_lines),
        HF_LINES_IDS: (fresh_hf, lambda hf: [e.ids for e in hf.encode_batch(lines)]),
    }
    if trainer.corpus.config.unit == "byte":
        tik = tiktoken_encoding(trainer)  # keeps no cache between calls: built once
        chosen[TT_WHOLE] = (lambda: tik, lambda tt: tt.encode_ordinary(text))
        chosen[TT_LINES] = (lambda: tik, lambda tt: tt.encode_ordinary_batch(lines, num_threads=1))
        chosen[TT_LOOP] = (lambda: tik, lambda tt: [tt.encode_ordinary(line) for line in lines])
    return chosen


def ids_of(result) -> list[int]:
    return result if isinstance(result, list) else result.ids


def same(ours, theirs) -> bool:
    """Our encoding (or ids) against a peer's ``(ids, tokens, offsets)`` (HF: ids and spans) or
    ids (HF ids only, tiktoken)."""
    if isinstance(theirs, tuple):
        return ours.ids == theirs[0] and [tuple(s) for s in ours.spans] == [tuple(o) for o in theirs[2]]
    return ids_of(ours) == theirs


def first_difference(ours, theirs) -> str:
    """Where a peer's ids first differ from ours (reported, never hidden)."""
    theirs = theirs[0] if isinstance(theirs, tuple) else theirs
    ours = ids_of(ours)
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    return f"ids differ first at token {at:,} (ours {ours[at : at + 5]}, peer {theirs[at : at + 5]})"


def measure_setting(name: str, trainer: Trainer, text: str, lines: list[str], runs: int, megabytes: float):
    """Table rows for one setting, and notes on any mismatch."""
    chosen = programs(trainer, text, lines)
    times: dict[str, list[float]] = {api: [] for api in chosen}
    results = {}
    for _ in range(runs):  # alternate: every program sees the same machine moments
        for api, (make, encode) in chosen.items():
            subject = make()
            started = time.perf_counter()
            results[api] = encode(subject)
            times[api].append(time.perf_counter() - started)
    rows, notes = [], []
    for ours_api, peer_api in PAIRS:
        if peer_api not in chosen:
            continue
        ours, theirs = results[ours_api], results[peer_api]
        if ours_api in WHOLE:
            ours, theirs = [ours], [theirs]
        checks = [same(o, t) for o, t in zip(ours, theirs, strict=True)]
        if not all(checks):
            bad = checks.index(False)
            where = "the whole text" if ours_api in WHOLE else f"line {bad + 1:,}"
            notes.append(
                f"{name}, {peer_api}: {checks.count(False):,} of {len(checks):,} encodings differ; "
                f"in {where}: {first_difference(ours[bad], theirs[bad])}"
            )
        ours_s, peer_s = statistics.median(times[ours_api]), statistics.median(times[peer_api])
        rows.append(
            [
                name,
                ours_api,
                peer_api,
                f"{ours_s:.2f}",
                f"{peer_s:.2f}",
                f"{megabytes / ours_s:.2f}",
                f"{megabytes / peer_s:.2f}",
                f"{peer_s / ours_s:.2f}x",
                ("yes" if all(checks) else "NO") + (" (ids)" if peer_api in IDS_ONLY else ""),
            ]
        )
    notes.append(f"{name}: {len(results[OURS_WHOLE].ids):,} tokens for the whole text")
    return rows, notes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--text", default="english_10mb.txt")
    parser.add_argument("--merges", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    text = find_corpus(args.text).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)  # newlines kept: the same bytes as the whole text
    megabytes = len(text.encode()) / 1e6
    rows, notes = [], []
    for name, config in SETTINGS.items():
        trainer = Trainer(load_corpus(find_corpus(args.corpus), config), TrainingConfig(tie_break="hf"))
        trainer.run(merges=args.merges)
        setting_rows, setting_notes = measure_setting(name, trainer, text, lines, args.runs, megabytes)
        rows += setting_rows
        notes += setting_notes
    print(
        f"Encoding {args.text} ({megabytes:.1f} MB, {len(lines):,} lines) with a {args.merges:,}-merge model "
        f"trained on {args.corpus}; one thread everywhere (RAYON_NUM_THREADS=1, num_threads=1); seconds "
        f"are medians of {args.runs} alternated runs.\n"
        "Ours: encode returns ids, tokens and spans, encode_ids ids only; "
        "HF's ids, tokens and offsets are read into Python (ids alone "
        "where the row says so); tiktoken returns ids only.\n"
        "ours / peer = our throughput divided by the peer's (peer s / ours s): above 1 we are faster, "
        "below 1 the peer is. same: the peer's ids and spans equal ours; (ids): ids compared, the peer "
        "returned no spans.\n"
    )
    header = ["setting", "ours", "peer", "ours s", "peer s", "ours MB/s", "peer MB/s", "ours / peer", "same"]
    print(table(header, rows))
    print()
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
