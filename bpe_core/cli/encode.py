"""``bpe-studio encode`` and ``bpe-studio decode``: text to tokens and ids with a saved model or
any tokenizer file BPE Studio reads, and ids back to text.

Encoding goes a part of the text at a time, so that a large file takes flat memory: the tokens
are written as they are made, the ids and spans held as machine integers until the end."""

from __future__ import annotations

import argparse
import json
from array import array
from collections import deque
from collections.abc import Iterable
from typing import TextIO

from bpe_core.cli.common import VISIBLE
from bpe_core.cli.formats import model_options, read_model
from bpe_core.cli.options import token_id
from bpe_core.encoding import text_parts
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import BpeError
from bpe_core.runtime.fileio import STDIN_NAME, regular_file_size, text_blocks

_NUMBERS_AT_ONCE = 1 << 16  # ids or spans turned into text at once


def options_encode(parser: argparse.ArgumentParser) -> None:
    model_options(parser)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("text", nargs="?", metavar="TEXT")
    source.add_argument("--file", metavar="PATH", help="a UTF-8 file to encode (- for standard input)")
    parser.add_argument("--allow-special", action="store_true", help="match special tokens in the text")
    parser.add_argument("--json", action="store_true")


def options_decode(parser: argparse.ArgumentParser) -> None:
    model_options(parser)
    parser.add_argument("ids", nargs="+", type=token_id, metavar="ID")


def run_encode(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Encode a part of the text at a time (``Encoder.parts``), writing the tokens as they are
    made and holding only the ids and spans, as machine integers, for the lines after them."""
    encoder = read_model(args.model, args.format, args, stderr)
    if args.file is None:
        blocks: Iterable[str] = [_argument_text(args.text)]
        size: int | None = 0
    else:
        # A bad file is refused before any of it is written: a file is read through once first,
        # a pipe (standard input, ``-``) is read whole, as it can be read only once.
        size = regular_file_size(args.file) if args.file != STDIN_NAME else None
        if size is not None:
            deque(text_blocks(args.file), maxlen=0)
            blocks = text_blocks(args.file)
        else:
            blocks = list(text_blocks(args.file))
    parts = encoder.parts(blocks, allow_special=args.allow_special, size=text_parts.PART_SIZE)
    if args.json:
        offsets = "I" if size is not None and size < 2**32 else "q"  # characters are at most bytes
        _encode_json(encoder, parts, args.allow_special, offsets, stdout)
    else:
        _encode_lines(encoder, parts, args.allow_special, stdout)
    return 0


def _encode_lines(encoder: Encoder, parts: Iterable[str], allow_special: bool, out: TextIO) -> None:
    """The tokens on a line, the ids on the next, then how many."""
    shown = [token.translate(VISIBLE) for token in encoder.tokens]
    flagged = encoder.unknown_id  # what unknown units become (None: they are dropped)
    ids = array("i")
    characters = unknown = 0
    for part in parts:
        part_ids = encoder.encode_ids(part, allow_special=allow_special, offset=characters)
        tokens: Iterable[str] = map(shown.__getitem__, part_ids)
        if flagged is not None and flagged in part_ids:  # an unknown unit shows its own text
            encoding = encoder.encode(part, allow_special=allow_special, offset=characters)
            tokens = (token.translate(VISIBLE) for token in encoding.tokens)
            unknown += sum(encoding.unknown)
        if part_ids:
            out.write((" " if ids else "") + " ".join(tokens))
        ids.extend(part_ids)
        characters += len(part)
        encoder.trim_caches()
    out.write("\n")
    _write_numbers(out, ids)
    note = f"; {unknown} unknown" if unknown else ""
    out.write(f"\n{len(ids):,} tokens for {characters:,} characters{note}.\n")


def _encode_json(
    encoder: Encoder, parts: Iterable[str], allow_special: bool, offsets: str, out: TextIO
) -> None:
    """``{"tokens": [...], "ids": [...], "spans": [...]}`` and ``"unknown"`` if any, as
    ``json.dumps`` writes it."""
    quoted = [json.dumps(token, ensure_ascii=False) for token in encoder.tokens]
    ids, starts, ends, unknown = array("i"), array(offsets), array(offsets), array("b")
    characters = 0
    out.write('{"tokens": [')
    for part in parts:
        first = len(ids)
        encoder.encode_columns(
            part, ids, starts, ends, unknown, allow_special=allow_special, offset=characters
        )
        tokens: Iterable[str] = map(quoted.__getitem__, ids[first:])
        if any(unknown[first:]):  # an unknown unit's token is its own text
            strings = encoder.encode(part, allow_special=allow_special, offset=characters).tokens
            tokens = (json.dumps(string, ensure_ascii=False) for string in strings)
        if len(ids) > first:
            out.write((", " if first else "") + ", ".join(tokens))
        characters += len(part)
        encoder.trim_caches()
    out.write('], "ids": [')
    _write_numbers(out, ids, ", ")
    out.write('], "spans": [')
    for at in range(0, len(ids), _NUMBERS_AT_ONCE):
        spans = map("[{}, {}]".format, starts[at : at + _NUMBERS_AT_ONCE], ends[at : at + _NUMBERS_AT_ONCE])
        out.write((", " if at else "") + ", ".join(spans))
    out.write("]")
    if any(unknown):
        out.write(', "unknown": [')
        _write_numbers(out, array("q", (i for i, flag in enumerate(unknown) if flag)), ", ")
        out.write("]")
    out.write("}\n")


def _write_numbers(out: TextIO, numbers: array, separator: str = " ") -> None:
    for at in range(0, len(numbers), _NUMBERS_AT_ONCE):
        out.write((separator if at else "") + separator.join(map(str, numbers[at : at + _NUMBERS_AT_ONCE])))


def _argument_text(text: str) -> str:
    """A TEXT argument: bytes the system could not decode arrive as lone surrogates, which no
    output could carry; refuse them with one sentence."""
    for position, char in enumerate(text):
        if "\udc80" <= char <= "\udcff":
            raise BpeError(
                f"The text is not valid UTF-8 (byte 0x{ord(char) - 0xDC00:02x} at character {position + 1})."
            )
    return text


def run_decode(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    encoder = read_model(args.model, args.format, args, stderr)
    print(encoder.decode(args.ids), file=stdout)
    return 0
