"""``bpe-studio compress``: the classic compression variant of BPE, the file as one sequence and
each merge a new symbol; every step shown on one line (or as JSON), and the check that the
result decompresses back to the input."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from bpe_core.cli.common import VISIBLE, WIDTH, elided, shown
from bpe_core.cli.options import count, positive, tie_break_option
from bpe_core.io.corpus_files import read_text_file
from bpe_core.tools.compress import Compression, compress
from bpe_core.training.config import TrainingConfig

_SHORT_DATA = 1_000  # compress --json gives the data after every step for inputs this short


def options_compress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="UTF-8 text")
    parser.add_argument("--merges", type=positive, metavar="N", help="stop after N merges")
    parser.add_argument("--min-frequency", type=positive, default=2, metavar="F")
    tie_break_option(parser)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--data-every",
        type=count,
        metavar="K",
        help="with --json, the data after every K-th step (0: never; by default after every step "
        f"for an input of at most {_SHORT_DATA:,} characters, else never)",
    )


def run_compress(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    text = read_text_file(args.file)
    training = TrainingConfig(min_frequency=args.min_frequency, tie_break=args.tie_break)
    # Without the data after every step: the views below need a few symbols of each.
    result = compress(text, training, args.merges, every_step=False)
    decompressed = result.decompress()
    if args.json:
        every = args.data_every
        if every is None:
            every = 1 if len(text) <= _SHORT_DATA else 0
        _compress_json(result, decompressed, decompressed == text, every, stdout)
        return 0
    print(f"{shown(text)}  (the input, {len(text):,} symbols)", file=stdout)
    for step, (length, head, tail) in zip(result.steps, result.edges(WIDTH), strict=True):
        rule = f"{step.symbol} = {(step.pair[0] + step.pair[1]).translate(VISIBLE)}"
        print(f"{rule}  ({step.count:,}x)  ->  {elided(head, tail, length)}", file=stdout)
    verdict = "lossless" if decompressed == text else "NOT lossless"
    print(
        f"{len(text):,} -> {len(result.compressed):,} symbols with {len(result.steps):,} rules; "
        f"decompressed back to the input: {verdict}.",
        file=stdout,
    )
    return 0


def _compress_json(result: Compression, decompressed: str, lossless: bool, every: int, out: TextIO) -> None:
    """``compress --json``, written a step at a time; ``"data"`` after every ``every``-th step
    (never with 0), as each costs a pass over the data and a copy of it in the output."""
    data_after = result.data_after_steps() if every else None
    out.write('{"steps": [')
    for number, step in enumerate(result.steps, 1):
        data = next(data_after) if data_after is not None else None
        item: dict = {"data": data} if data is not None and number % every == 0 else {}
        item.update(symbol=step.symbol, pair=list(step.pair), rule=step.rule, count=step.count)
        out.write((", " if number > 1 else "") + json.dumps(item, ensure_ascii=False))
    ending = {
        "compressed": result.compressed,
        "decompressed": decompressed,
        "lossless": lossless,
    }
    out.write("], " + json.dumps(ending, ensure_ascii=False)[1:] + "\n")
