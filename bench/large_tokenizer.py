"""A Llama-3-sized tokenizer.json (about 128,000 tokens): opened, encoded and measured.

The tokenizer is trained here by Hugging Face ``tokenizers`` on the corpus with Llama 3's
pipeline (its split pattern, ByteLevel, ``ignore_merges``) and cached in the temporary folder.
Each figure is one fresh process, as a user meets it:

  open     ``bpe-studio encode --model tokenizer.json x``: read the file, build the encoder and
           encode one character (the window's open minus drawing);
  import   ``bpe-studio import tokenizer.json -o S.json``: the same as a session, saved;
  encode   the corpus encoded, ids only: ours (``Encoder.encode_ids``, in parts) against HF's
           normal fast way, ``Tokenizer.encode_batch(lines)`` on one thread (RAYON_NUM_THREADS=1);
  measure  ``bpe_core.tools.measure`` with three tokenizers on the corpus, against one encode.

Targets: open ≤ 2 s; ours encode ≤ HF encode_batch; measure of three ≤ 3× one encode.

    python bench/large_tokenizer.py [--corpus english_10mb.txt] [--vocab 128000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from common import ENV, PYTHON, compile_sources, find_corpus, measure, table

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TRAIN = """
import json, sys
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
tokenizer = Tokenizer(models.BPE(ignore_merges=True))
tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
    pre_tokenizers.Split(Regex(sys.argv[3]), behavior="isolated"),
    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
])
trainer = trainers.BpeTrainer(vocab_size=int(sys.argv[2]), min_frequency=1, show_progress=False,
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                              special_tokens=["<|begin_of_text|>", "<|end_of_text|>"])
tokenizer.train([sys.argv[1]], trainer)
data = json.loads(tokenizer.to_str())
vocab, merges = data["model"]["vocab"], data["model"]["merges"]
# A corpus of one language runs out of pairs before a Llama 3-sized vocabulary: the rest are
# merges of common tokens, valid BPE that real text rarely reaches (as a large vocabulary's tail).
common = [t for t, _ in sorted(vocab.items(), key=lambda item: item[1])[256:2256]]
for left in common:
    for right in common:
        if len(vocab) >= int(sys.argv[2]):
            break
        if left + right not in vocab:
            vocab[left + right] = len(vocab)  # ids run on (the special tokens are in the vocabulary)
            merges.append([left, right] if isinstance(merges[0], list) else f"{left} {right}")
with open(sys.argv[4], "w", encoding="utf-8") as out:
    json.dump(data, out, ensure_ascii=False)
"""
OURS_ENCODE = """
import sys
from bpe_core.io.formats import read_tokenizer
encoder = read_tokenizer(sys.argv[1]).encoder
def blocks():
    with open(sys.argv[2], encoding="utf-8") as stream:
        while block := stream.read(1 << 20):
            yield block
offset = tokens = 0
for part in encoder.parts(blocks()):
    tokens += len(encoder.encode_ids(part, offset=offset))
    offset += len(part)
    encoder.trim_caches()
print(tokens)
"""
HF_ENCODE = """
import os, sys
os.environ["RAYON_NUM_THREADS"] = "1"
from tokenizers import Tokenizer
tokenizer = Tokenizer.from_file(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as stream:
    lines = stream.read().splitlines(keepends=True)
print(sum(len(e.ids) for e in tokenizer.encode_batch(lines, add_special_tokens=False)))
"""
MEASURE = """
import sys
from bpe_core.io.formats import read_tokenizer
from bpe_core.tools.measure import measure
def blocks():
    with open(sys.argv[2], encoding="utf-8") as stream:
        while block := stream.read(1 << 20):
            yield block
models = {str(i): read_tokenizer(sys.argv[1]).encoder for i in range(int(sys.argv[3]))}
counts = measure(models, {"corpus": blocks})
print(counts["0"]["corpus"].tokens)
"""


def tokenizer_file(corpus: Path, vocab: int) -> Path:
    """The trained tokenizer, cached by corpus and size (training takes a minute or so)."""
    folder = Path(tempfile.gettempdir()) / "bpe-studio-bench"
    folder.mkdir(exist_ok=True)
    path = folder / f"llama3-style-{corpus.stem}-{corpus.stat().st_size}-{vocab}.json"
    if not path.exists():
        print(
            f"training a {vocab:,}-token tokenizer on {corpus.name} (once; cached in {folder})…", flush=True
        )
        measure([PYTHON, "-c", TRAIN, str(corpus), str(vocab), LLAMA3, str(path)])
    return path


def median_seconds(runs: int, argv: list[str], env=None) -> float:
    return statistics.median(measure(argv, env=env).seconds for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="english_10mb.txt")
    parser.add_argument("--vocab", type=int, default=128_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpus = find_corpus(args.corpus)
    compile_sources()
    path = tokenizer_file(corpus, args.vocab)
    size = len(json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"])
    cli = [PYTHON, "-m", "app"]
    with tempfile.TemporaryDirectory() as scratch:
        session = os.path.join(scratch, "session.json")
        opened = median_seconds(args.runs, [*cli, "encode", "--model", str(path), "x"])
        imported = median_seconds(args.runs, [*cli, "import", str(path), "-o", session])
    hf_env = {**ENV, "RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    ours = median_seconds(args.runs, [PYTHON, "-c", OURS_ENCODE, str(path), str(corpus)])
    theirs = median_seconds(args.runs, [PYTHON, "-c", HF_ENCODE, str(path), str(corpus)], env=hf_env)
    one = median_seconds(args.runs, [PYTHON, "-c", MEASURE, str(path), str(corpus), "1"])
    three = median_seconds(args.runs, [PYTHON, "-c", MEASURE, str(path), str(corpus), "3"])
    rows = [
        ["open (read, build the encoder, encode one character)", f"{opened:.2f} s", "≤ 2 s"],
        ["import as a session, saved", f"{imported:.2f} s", ""],
        ["encode the corpus, ids: BPE Studio", f"{ours:.2f} s", ""],
        ["encode the corpus, ids: HF encode_batch(lines), 1 thread", f"{theirs:.2f} s", ""],
        ["ours / HF", f"{ours / theirs:.2f}", "≤ 1"],
        ["measure, one tokenizer", f"{one:.2f} s", ""],
        ["measure, three tokenizers", f"{three:.2f} s", ""],
        ["three / one", f"{three / one:.2f}", "≤ 3"],
    ]
    print(
        f"\n{size:,}-token Llama-3-style tokenizer.json trained on {corpus.name}; whole processes, "
        f"medians of {args.runs} runs\n"
    )
    print(table(["task", "time", "target"], rows))


if __name__ == "__main__":
    main()
