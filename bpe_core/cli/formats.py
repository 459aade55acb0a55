"""Tokenizer files on the command line: ``bpe-studio import`` (a tokenizer file as a session) and
``bpe-studio export`` (a model in another tool's format), and what ``encode`` and ``decode``
share with them: the options that name a model and complete tiktoken ranks, and reading a model
with its notes on stderr."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from bpe_core.cli import PROG
from bpe_core.cli.common import TO_STDOUT, amount, write_out
from bpe_core.cli.options import utf8
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import BpeError
from bpe_core.io.corpus_files import load_corpus
from bpe_core.io.counts_file import named_settings
from bpe_core.io.formats import (
    DESCRIPTIONS,
    READABLE,
    WRITABLE,
    export_notes,
    files_read,
    read_tokenizer,
    tokenizer_texts,
    write_tokenizer,
)
from bpe_core.io.formats.tiktoken_encodings import ENCODINGS
from bpe_core.io.formats.tiktoken_ranks import PATTERNS
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.local_tokenizers import model_path
from bpe_core.io.session import save_session, session_text
from bpe_core.io.sources import refuse_overwriting_inputs
from bpe_core.runtime.fileio import check_writable


def options_import(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="FILE",
        help="a tokenizer file or folder (" + ", ".join(READABLE[1:]) + "), or hf:ORG/NAME from the "
        "Hugging Face cache",
    )
    parser.add_argument(
        "--format", choices=READABLE[1:], help="its format (found from its content by default)"
    )
    tiktoken_options(parser)
    parser.add_argument("--corpus", metavar="TEXT", help="attach this corpus: each merge's count on it")
    parser.add_argument("--input", choices=("text", "counts"), default="text", help="how to read --corpus")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="SESSION.json",
        help="the session (- writes it to standard output)",
    )


def options_export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="MODEL", help="a session, any tokenizer file BPE Studio reads, or hf:ORG/NAME"
    )
    parser.add_argument("--format", required=True, choices=WRITABLE, help="the format to write")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="the file (a folder for gpt2; - writes the file to standard output)",
    )
    tiktoken_options(parser)


def model_options(parser: argparse.ArgumentParser) -> None:
    """``--model`` and its format, as ``encode`` and ``decode`` take them."""
    parser.add_argument(
        "--model",
        required=True,
        metavar="MODEL",
        help="a session or a tokenizer file (" + ", ".join(READABLE) + "), or hf:ORG/NAME from the "
        "Hugging Face cache",
    )
    parser.add_argument(
        "--format", choices=READABLE, help="the model's format (found from its content by default)"
    )
    tiktoken_options(parser)


def tiktoken_options(parser: argparse.ArgumentParser) -> None:
    """What tiktoken ranks (and GPT-2 files, for the pattern) lack: a split pattern or a whole
    encoding, and special tokens."""
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--encoding",
        choices=ENCODINGS,
        dest="pattern",
        help="the tiktoken encoding tiktoken ranks are: its split pattern and special tokens",
    )
    chosen.add_argument(
        "--pattern",
        choices=[name for name in PATTERNS if name not in ENCODINGS],
        help="split pattern (or tiktoken encoding, such as cl100k_base) of tiktoken ranks and GPT-2 files; "
        "by default the encoding the ranks are, else gpt2",
    )
    parser.add_argument(
        "--special-token",
        type=utf8,
        action="append",
        default=[],
        metavar="T",
        help="a special token of tiktoken ranks, numbered after them (repeat for more)",
    )


def read_model(path: str, format: str | None, args: argparse.Namespace, stderr: TextIO) -> Encoder:
    """The encoder of a session or tokenizer file; what it holds that is not applied is noted
    on stderr."""
    imported = read_tokenizer(model_path(path), format, args.pattern, args.special_token)
    for note in imported.notes:
        print(f"{PROG}: note: {note}", file=stderr)
    return imported.encoder


def _named(spec: str) -> bool:
    """Whether ``spec`` names an input here (a file, a folder, standard input)."""
    return spec == "-" or os.path.exists(spec)


def run_import(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    to_stdout = args.output == TO_STDOUT
    if not to_stdout:
        check_writable(args.output)
        inputs = [args.corpus] if args.corpus is not None and _named(args.corpus) else []
        if _named(args.model):  # both of GPT-2's files when one is named
            inputs += files_read(args.model)
        refuse_overwriting_inputs([args.output], inputs)  # the corpus, or the model, replaced by the session
    imported = read_tokenizer(model_path(args.model), args.format, args.pattern, args.special_token)
    for note in imported.notes:
        print(f"{PROG}: note: {note}", file=stderr)
    encoder = imported.encoder
    corpus = None
    if args.corpus is not None:
        workers = min(2, os.cpu_count() or 1)
        corpus = load_corpus(  # counts made otherwise than the tokenizer's pipeline are refused
            args.corpus,
            encoder.config,
            args.input,
            workers=workers,
            fork=True,
            chosen=named_settings(encoder.config),
            adopt=False,
        )
    trainer = trainer_from_encoder(encoder, corpus)
    if to_stdout:
        write_out(session_text(trainer), stdout)
    else:
        save_session(trainer, args.output)
    attached = ""
    if corpus is not None:
        attached = f", with the counts of {amount(trainer.word_count, 'word type')} of {args.corpus}"
        left_out = len(corpus.words) - trainer.word_count
        if left_out > 0:  # (a corpus cut at byte-fallback characters may have more types)
            attached += f" ({left_out:,} left out: they hold characters the tokenizer lacks)"
    saved = "Wrote the session to standard output" if to_stdout else f"Saved the session to {args.output}"
    print(
        f"Imported {args.model} ({DESCRIPTIONS[imported.format]}): {amount(len(encoder.keys), 'token')}, "
        f"{amount(len(encoder.merges), 'merge')}{attached}. {saved}.",
        file=stderr if to_stdout else stdout,
    )
    return 0


def run_export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if not args.output:
        raise BpeError("The output path is empty.")
    if args.output == TO_STDOUT and args.format == "gpt2":
        raise BpeError(
            "GPT-2's vocab.json and merges.txt go in a folder; standard output (-) holds one file."
        )
    # The model, or a file of its folder, replaced by its own export (changed: a decoder added).
    written = (
        [os.path.join(args.output, name) for name in ("vocab.json", "merges.txt")]
        if args.format == "gpt2"
        else []
    )
    source = model_path(args.model)
    if os.path.exists(source):
        refuse_overwriting_inputs([args.output, *written], files_read(source))
    encoder = read_model(args.model, None, args, stderr)
    if args.output == TO_STDOUT:
        (text,) = tokenizer_texts(encoder, args.format).values()
        write_out(text, stdout)
        names, out = "to standard output", stderr
    else:
        files = write_tokenizer(encoder, args.format, args.output)
        names, out = " and ".join(str(f) for f in files), stdout
    for note in export_notes(encoder, args.format):
        print(f"{PROG}: note: {note}", file=stderr)
    print(f"Wrote {names}: {len(encoder.keys):,} tokens, {len(encoder.merges):,} merges.", file=out)
    return 0
