"""``bpe-studio measure``: several tokenizers on the same text or files, side by side.

Per tokenizer and file: characters (code points), bytes (UTF-8), words (``str.split()``),
tokens and unknown tokens, and the ratios people compare (characters and bytes per token,
tokens per word). A table by default; ``--json`` gives
``{"models": [{"model": NAME, "files": [{"file": PATH, "characters": N, "bytes": N, "words": N,
"tokens": N, "unknown": N}]}]}``, with the TEXT argument's file named ``-``.

    bpe-studio measure MODEL... (--file PATH... | TEXT) [--json]
"""

from __future__ import annotations

import argparse
import json
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import TextIO

from bpe_core.cli.formats import read_model, tiktoken_options
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import BpeError
from bpe_core.runtime.fileio import text_blocks
from bpe_core.tools.measure import Counts, measure

_FIELDS = ("characters", "bytes", "words", "tokens", "unknown")


def options_measure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "models",
        nargs="+",
        metavar="MODEL",
        help="sessions or tokenizer files BPE Studio reads, or hf:ORG/NAME from the Hugging Face "
        "cache; without --file, the last argument is the TEXT to measure on",
    )
    parser.add_argument("--file", nargs="+", metavar="PATH", help="files to measure on, each apart")
    parser.add_argument("--allow-special", action="store_true", help="match special tokens in the text")
    parser.add_argument("--json", action="store_true")
    tiktoken_options(parser)


def run_measure(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    models = list(args.models)
    texts: dict[str, str | Callable[[], Iterable[str]]]
    if args.file is None:
        if len(models) < 2:
            raise BpeError("Give the text to measure on after the models, or files with --file.")
        texts = {"-": models.pop()}
    else:
        for path in args.file:  # refuse a bad file before anything is measured
            deque(text_blocks(path), maxlen=0)
        texts = {path: partial(text_blocks, path) for path in args.file}
    encoders: dict[str, Encoder] = {}
    for model in models:
        name = model if model not in encoders else f"{model} ({len(encoders) + 1})"
        encoders[name] = read_model(model, None, args, stderr)
    counts = measure(encoders, texts, allow_special=args.allow_special)
    if args.json:
        listed = [
            {"model": model, "files": [{"file": f, **_fields(c)} for f, c in by_file.items()]}
            for model, by_file in counts.items()
        ]
        print(json.dumps({"models": listed}, ensure_ascii=False), file=stdout)
    else:
        print(_table(counts), file=stdout)
    return 0


def _fields(counts: Counts) -> dict[str, int]:
    return {name: getattr(counts, name) for name in _FIELDS}


def _table(counts: dict[str, dict[str, Counts]]) -> str:
    header = ["model", "file", "tokens", "chars/token", "bytes/token", "tokens/word", "unknown"]
    rows = [
        [
            model,
            file,
            f"{c.tokens:,}",
            f"{c.characters_per_token:.2f}",
            f"{c.bytes_per_token:.2f}",
            f"{c.tokens_per_word:.2f}",
            f"{c.unknown:,}",
        ]
        for model, by_file in counts.items()
        for file, c in by_file.items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]
    return "\n".join(line.rstrip() for line in lines)
