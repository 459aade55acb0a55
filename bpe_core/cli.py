"""Headless command line: ``bpe-studio train | encode | decode | compress | compare | import |
export``
(a contract scripts rely on).

Bad input of any kind ends with one sentence on stderr and a non-zero exit, never a traceback:
exit 2 for a malformed command line, 1 for unusable input.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from typing import NoReturn, TextIO

from bpe_core.encoding import text_parts
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import BpeError
from bpe_core.io.corpus_files import load_corpus, read_text_file
from bpe_core.io.formats import (
    DESCRIPTIONS,
    READABLE,
    WRITABLE,
    export_notes,
    read_tokenizer,
    write_tokenizer,
)
from bpe_core.io.formats.tiktoken_encodings import ENCODINGS
from bpe_core.io.formats.tiktoken_ranks import PATTERNS
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import save_session
from bpe_core.pipeline.config import NAMED_NORMALIZATIONS, NAMED_PRETOKENIZERS, UNITS, PipelineConfig
from bpe_core.runtime.fileio import (
    check_writable,
    placements,
    regular_file_size,
    replaced_together,
    text_blocks,
    write_atomic,
)
from bpe_core.runtime.gc_pause import gc_paused
from bpe_core.tools.compare import Run, pairwise_comparisons, run_of, sweep
from bpe_core.tools.compress import Compression, compress
from bpe_core.tools.walkthrough import walkthrough
from bpe_core.training.config import TrainingConfig
from bpe_core.training.tie_rules import RULE_NAMES, parse_rule
from bpe_core.training.trainer import Trainer

PROG = "bpe-studio"  # the program's one name, which the launcher (app.launcher) says too
# The commands, declared once: the launcher sends these to main() and opens the window otherwise.
COMMANDS = ("train", "encode", "decode", "compress", "compare", "export", "import")
_VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})
_WIDTH = 72  # characters of data shown on one line
_SHORT_DATA = 1_000  # compress --json gives the data after every step for inputs this short
_OUTPUT_PIECE = 1 << 20  # characters of output held before they are written out
_NUMBERS_AT_ONCE = 1 << 16  # ids or spans turned into text at once


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2), not usage plus error."""

    def error(self, message: str) -> NoReturn:
        sentence = message[0].upper() + message[1:]
        self.exit(2, f"{PROG}: {sentence.rstrip('.')}.\n")


def _positive(text: str) -> int:
    if not (text.isdigit() and text.isascii()) or int(text[:19]) < 1:
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is not a positive whole number")
    if len(text) > 18:  # more than any run could use, and int() refuses 4,300 digits
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is too large (at most 18 digits)")
    return int(text)


def _count(text: str) -> int:
    if not (text.isdigit() and text.isascii()):
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is not a whole number")
    if len(text) > 18:
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is too large (at most 18 digits)")
    return int(text)


def _utf8(text: str) -> str:
    """A text option: bytes the system could not decode arrive as lone surrogates."""
    if any("\udc80" <= char <= "\udcff" for char in text):
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is not valid UTF-8")
    return text


def _rule(text: str) -> str:
    try:
        return parse_rule(text).spec
    except BpeError as error:
        raise argparse.ArgumentTypeError(str(error).rstrip(".")) from None


def _token_id(text: str) -> int:
    # Digits only: int() would also take "٣", "1_000" and "-1".
    if not (text.isdigit() and text.isascii() and len(text) <= 18):
        raise argparse.ArgumentTypeError(f"'{_shown(text, 40)}' is not a token id")
    return int(text)


def _per_pass(text: str) -> int:
    """``all`` (0) or a positive number of merges per pass."""
    if text == "all":
        return 0
    try:
        return _positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"'{_shown(text, 40)}' is neither a positive whole number nor 'all'"
        ) from None


def _training_options(parser: argparse.ArgumentParser) -> None:
    """The corpus, pipeline and target options ``train`` and ``compare`` share."""
    parser.add_argument(
        "file", metavar="FILE", help="UTF-8 text, or word<TAB>count lines with --input counts"
    )
    parser.add_argument("--input", choices=("text", "counts"), default="text")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--merges", type=_positive, metavar="N", help="stop after N merges")
    target.add_argument(
        "--vocab-size", type=_positive, metavar="N", help="stop at N tokens (special + alphabet + merged)"
    )
    parser.add_argument(
        "--min-frequency",
        type=_positive,
        default=2,
        metavar="F",
        help="only merge pairs occurring at least F times (default 2)",
    )
    parser.add_argument("--unit", choices=UNITS, default="char")
    parser.add_argument("--pretokenize", choices=NAMED_PRETOKENIZERS, default="whitespace")
    parser.add_argument(
        "--normalize", choices=NAMED_NORMALIZATIONS, default="none", help="Unicode normal form"
    )
    parser.add_argument("--lowercase", action="store_true")
    parser.add_argument(
        "--end-of-word",
        type=_utf8,
        default="</w>",
        metavar="MARKER",
        help='end-of-word marker, or "none" (default "</w>")',
    )
    parser.add_argument(
        "--attach-marker",
        action="store_true",
        help="glue the marker to the last symbol (w</w>) instead of a symbol of its own",
    )
    parser.add_argument(
        "--prefix-space",
        action="store_true",
        help="put a space before text that does not start with one (Hugging Face's add_prefix_space)",
    )
    parser.add_argument("--special-token", type=_utf8, action="append", default=[], metavar="TOKEN")
    parser.add_argument(
        "--merges-per-pass",
        type=_per_pass,
        default=1,
        metavar="K|all",
        help="merge up to K non-conflicting pairs per pass, or all of them (default 1: classic BPE)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Explore Byte Pair Encoding. Without a command, opens the desktop window "
        f"({PROG} [FILE]).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    train = commands.add_parser("train", help="learn merges from a corpus file")
    _training_options(train)
    _tie_break_option(train)
    train.add_argument("-o", "--output", metavar="MODEL.json", help="save the model/session here")
    train.add_argument("--json", action="store_true", help="print the merges as one JSON object")
    train.add_argument(
        "--walkthrough",
        metavar="FILE.md",
        help="write every iteration as a lesson document (HTML if FILE ends in .html)",
    )

    compare = commands.add_parser("compare", help="train with several tie rules and compare the runs")
    _training_options(compare)
    compare.add_argument(
        "--tie-break",
        type=_rule,
        action="append",
        required=True,
        metavar="RULE",
        help="a rule to train with (twice or more)",
    )
    compare.add_argument("--json", action="store_true", help="print the runs and their comparisons as JSON")

    encode = commands.add_parser("encode", help="encode text with a saved model or tokenizer file")
    _model_options(encode)
    source = encode.add_mutually_exclusive_group(required=True)
    source.add_argument("text", nargs="?", metavar="TEXT")
    source.add_argument("--file", metavar="PATH")
    encode.add_argument("--allow-special", action="store_true", help="match special tokens in the text")
    encode.add_argument("--json", action="store_true")

    decode = commands.add_parser("decode", help="turn token ids back into text")
    _model_options(decode)
    decode.add_argument("ids", nargs="+", type=_token_id, metavar="ID")

    imports = commands.add_parser("import", help="open a tokenizer file as a session (its merges as history)")
    imports.add_argument(
        "model", metavar="FILE", help="a tokenizer file or folder (" + ", ".join(READABLE[1:]) + ")"
    )
    imports.add_argument(
        "--format", choices=READABLE[1:], help="its format (found from its content by default)"
    )
    _tiktoken_options(imports)
    imports.add_argument("--corpus", metavar="TEXT", help="attach this corpus: each merge's count on it")
    imports.add_argument("--input", choices=("text", "counts"), default="text", help="how to read --corpus")
    imports.add_argument("-o", "--output", required=True, metavar="SESSION.json")

    export = commands.add_parser("export", help="write a model or tokenizer in another tool's format")
    export.add_argument("model", metavar="MODEL", help="a session or any tokenizer file BPE Studio reads")
    export.add_argument("--format", required=True, choices=WRITABLE, help="the format to write")
    export.add_argument("-o", "--output", required=True, metavar="PATH", help="the file (a folder for gpt2)")
    _tiktoken_options(export)

    compress = commands.add_parser(
        "compress", help="the classic compression variant: the file as one sequence, each merge a new symbol"
    )
    compress.add_argument("file", metavar="FILE", help="UTF-8 text")
    compress.add_argument("--merges", type=_positive, metavar="N", help="stop after N merges")
    compress.add_argument("--min-frequency", type=_positive, default=2, metavar="F")
    _tie_break_option(compress)
    compress.add_argument("--json", action="store_true")
    compress.add_argument(
        "--data-every",
        type=_count,
        metavar="K",
        help="with --json, the data after every K-th step (0: never; by default after every step "
        f"for an input of at most {_SHORT_DATA:,} characters, else never)",
    )
    return parser


def _tie_break_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tie-break",
        type=_rule,
        default="first-seen",
        metavar="{" + ",".join(RULE_NAMES[:-1]) + ",random[:SEED]}",
    )


def _model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        required=True,
        metavar="MODEL",
        help="a session or a tokenizer file (" + ", ".join(READABLE) + ")",
    )
    parser.add_argument(
        "--format", choices=READABLE, help="the model's format (found from its content by default)"
    )
    _tiktoken_options(parser)


def _tiktoken_options(parser: argparse.ArgumentParser) -> None:
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
        type=_utf8,
        action="append",
        default=[],
        metavar="T",
        help="a special token of tiktoken ranks, numbered after them (repeat for more)",
    )


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run one command; returns the exit status. Output is written at the end, in one piece:
    a reader that went away (``| head``) ends the command quietly, a full disk or a closed
    output gets one sentence. Ctrl+C ends it with "Interrupted." (status 130) until its files
    are in place; after that it has succeeded, and ends quietly with status 0."""
    stderr = stderr or sys.stderr
    out = _Output(stdout or sys.stdout)
    placed = placements()
    code = 0
    try:
        args = build_parser().parse_args(argv)
        with gc_paused():  # see bpe_core.runtime.gc_pause; a command never builds reference cycles to collect
            code = _run_command(args, out, stderr)
        out.send()
    except _OutputEnded as ended:  # a reader that went away has what it wanted, as with any Unix filter
        if ended.message is not None:
            print(f"{PROG}: {ended.message}", file=stderr)
            return 1
    except KeyboardInterrupt:
        if placements() != placed:  # the new files are in place: the command has done its work
            return 0
        print(f"{PROG}: Interrupted.", file=stderr)
        return 130
    return code


def _run_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    try:
        if args.command == "train":
            return _train(args, stdout, stderr)
        if args.command == "encode":
            return _encode(args, stdout, stderr)
        if args.command == "compress":
            return _compress(args, stdout)
        if args.command == "compare":
            return _compare(args, stdout, stderr)
        if args.command == "export":
            return _export(args, stdout, stderr)
        if args.command == "import":
            return _import(args, stdout, stderr)
        return _decode(args, stdout, stderr)
    except BpeError as error:
        print(f"{PROG}: {error}", file=stderr)
        return 1


class _OutputEnded(Exception):
    """The standard output ended under a command: ``message`` says why it failed, or is
    ``None`` when the reader went away (``| head``)."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message)
        self.message = message


class _Output(io.StringIO):
    """What a command prints: written out in one piece at the end, or a piece at a time once
    it grows past ``_OUTPUT_PIECE`` (encoding a large file), so that memory stays flat. A
    failed write stops the command with :class:`_OutputEnded`."""

    def __init__(self, target: TextIO | None) -> None:
        super().__init__()
        self._target = target

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() >= _OUTPUT_PIECE:
            self.send()
        return written

    def send(self) -> None:
        """Write out what is held."""
        text = self.getvalue()
        if text:
            self.seek(0)
            self.truncate()
            _deliver(text, self._target)


def _deliver(text: str, stdout: TextIO | None) -> None:
    if stdout is None:  # the standard output was closed before we started (``>&-``)
        raise _OutputEnded("Cannot write the output: the standard output is closed.")
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        _silence(stdout)
        raise _OutputEnded(None) from None
    except OSError as error:
        _silence(stdout)
        raise _OutputEnded(f"Cannot write the output ({error.strerror or error}).") from None


def _silence(stdout: TextIO) -> None:
    """Point the failed output at /dev/null, so the interpreter's final flush stays quiet."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stdout.fileno())
        os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _pipeline(args: argparse.Namespace) -> PipelineConfig:
    marker = None if args.end_of_word == "none" else args.end_of_word
    return PipelineConfig(
        normalization=args.normalize,
        lowercase=args.lowercase,
        pretokenize=args.pretokenize,
        unit=args.unit,
        end_of_word=marker,
        attach_marker=args.attach_marker,
        special_tokens=tuple(args.special_token),
        prefix_space=args.prefix_space,
    )


def _train(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    started = time.perf_counter()
    config = _pipeline(args)
    training = TrainingConfig(
        min_frequency=args.min_frequency, tie_break=args.tie_break, merges_per_pass=args.merges_per_pass
    )
    for path in (args.output, args.walkthrough):
        if path is not None:
            check_writable(path)  # now, not after minutes of training
    # A command-line process has no threads, so counting may fork a second process.
    corpus = load_corpus(args.file, config, args.input, workers=min(2, os.cpu_count() or 1))
    trainer = Trainer(corpus, training)
    bar = _ProgressBar(
        stderr, args.merges or (max(0, args.vocab_size - trainer.vocab_size) if args.vocab_size else 0)
    )
    base_size = trainer.vocab_size
    reason = trainer.run(merges=args.merges, vocab_size=args.vocab_size, progress=bar.update)
    bar.close()
    message = reason.value
    if args.vocab_size is not None and args.vocab_size < base_size:
        message = (
            f"the vocabulary starts with {base_size:,} tokens (special tokens and the alphabet), "
            f"more than the {args.vocab_size:,} requested, so no merge was made"
        )
    with replaced_together():  # the model and its walk-through: both new, or both as they were
        if args.output:
            save_session(trainer, args.output)
        if args.walkthrough:
            html_output = args.walkthrough.lower().endswith((".html", ".htm"))
            write_atomic(args.walkthrough, walkthrough(trainer, html_output=html_output))
    if args.json:
        # One write: json.dump streams thousands of tiny writes, several times slower.
        stdout.write(
            json.dumps(_train_json(trainer, reason.name.lower(), message), ensure_ascii=False) + "\n"
        )
    else:
        _train_summary(trainer, message, time.perf_counter() - started, args.output, stdout)
    return 0


def _train_json(trainer: Trainer, reason: str, message: str) -> dict:
    run = run_of(trainer, trainer.rule.spec, trainer.history)
    return {
        "merges": _merges_json(run, trainer.training.merges_per_pass != 1),
        "vocab_size": trainer.vocab_size,
        "stop_reason": reason,
        "stop_message": message,
    }


def _merges_json(run: Run, passes: bool) -> list[dict]:
    """A run's merges as ``train --json`` prints them; ``"pass"`` only with several merges per
    pass (the classic output stays as it always was)."""
    shown = run.display
    return [
        {
            "pair": [shown(left), shown(right)],
            "token": shown(left + right),
            "count": record.count,
            "ties": record.ties,
            **({"pass": record.pass_number} if passes else {}),
        }
        for (left, right), record in zip(run.merges, run.records, strict=True)
    ]


def _compare(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if len(args.tie_break) < 2:
        print(f"{PROG} compare: give --tie-break at least twice, one rule each time.", file=stderr)
        return 2
    training = TrainingConfig(min_frequency=args.min_frequency, merges_per_pass=args.merges_per_pass)
    corpus = load_corpus(args.file, _pipeline(args), args.input, workers=min(2, os.cpu_count() or 1))
    bar = _ProgressBar(stderr, (args.merges or 0) * len(args.tie_break))
    runs = sweep(corpus, training, args.tie_break, args.merges, args.vocab_size, progress=bar.update)
    bar.close()
    comparisons = pairwise_comparisons(runs)
    if args.json:
        data = {
            "runs": [
                {
                    "tie_break": run.label,
                    "merges": _merges_json(run, args.merges_per_pass != 1),
                    "corpus_tokens": run.corpus_tokens,
                    "vocab_size": run.records[-1].vocab_size if run.records else len(run.base),
                }
                for run in runs
            ],
            "pairs": [
                {
                    "a": c.a.label,
                    "b": c.b.label,
                    "first_divergence": c.first_divergence,
                    "vocab_overlap": round(c.vocab_overlap, 6),
                    "tokens_a": c.tokens_a,
                    "tokens_b": c.tokens_b,
                }
                for c in comparisons
            ],
        }
        stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    for run in runs:
        print(f"{run.label}: {len(run.merges):,} merges, {run.corpus_tokens:,} corpus tokens", file=stdout)
    for comparison in comparisons:
        print(comparison.summary() + ".", file=stdout)
    return 0


def _train_summary(trainer: Trainer, reason: str, seconds: float, output: str | None, out: TextIO) -> None:
    initial = trainer.initial_point
    corpus = trainer.corpus
    merged = trainer.vocab_size - initial.vocab_size
    ratio = initial.corpus_tokens / max(1, trainer.corpus_tokens)
    passes = ""
    if trainer.training.merges_per_pass != 1 and trainer.position:
        passes = f" ({trainer.record(trainer.position).pass_number:,} passes)"
    print(f"Trained {trainer.position:,} merges{passes} in {seconds:.1f} s; stopped: {reason}.", file=out)
    print(
        f"Corpus: {trainer.word_count:,} word types, {corpus.total_words:,} words; "
        f"{initial.corpus_tokens:,} -> {trainer.corpus_tokens:,} tokens ({ratio:.2f}x fewer).",
        file=out,
    )
    print(
        f"Vocabulary: {trainer.vocab_size:,} tokens ({trainer.vocab.n_special} special, "
        f"{trainer.vocab.n_base:,} base, {merged:,} merged).",
        file=out,
    )
    tied = sum(1 for r in trainer.history if r.ties > 1)
    print(
        f"Ties: {tied:,} of {trainer.position:,} merges met a tie, decided by {trainer.rule.spec}.", file=out
    )
    shown = trainer.history[:10]
    if shown:
        token = trainer.token_string
        preview = ", ".join(
            f"{token(r.pair[0]).translate(_VISIBLE)} + {token(r.pair[1]).translate(_VISIBLE)} ({r.count:,})"
            for r in shown
        )
        print(f"First merges: {preview}{', ...' if trainer.position > len(shown) else ''}", file=out)
    if output:
        print(f"Saved the model to {output}.", file=out)


def _read_model(path: str, format: str | None, args: argparse.Namespace, stderr: TextIO) -> Encoder:
    imported = read_tokenizer(path, format, args.pattern, args.special_token)
    for note in imported.notes:
        print(f"{PROG}: note: {note}", file=stderr)
    return imported.encoder


def _encode(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Encode a part of the text at a time (``Encoder.parts``), writing the tokens as they are
    made and holding only the ids and spans, as machine integers, for the lines after them."""
    encoder = _read_model(args.model, args.format, args, stderr)
    if args.file is None:
        blocks: Iterable[str] = [_argument_text(args.text)]
        size: int | None = 0
    else:
        size = regular_file_size(args.file)
        if size is not None:  # refuse a bad file before any of it is written (a pipe is read once)
            deque(text_blocks(args.file), maxlen=0)
        blocks = text_blocks(args.file)
    parts = encoder.parts(blocks, allow_special=args.allow_special, size=text_parts.PART_SIZE)
    if args.json:
        offsets = "I" if size is not None and size < 2**32 else "q"  # characters are at most bytes
        _encode_json(encoder, parts, args.allow_special, offsets, stdout)
    else:
        _encode_lines(encoder, parts, args.allow_special, stdout)
    return 0


def _encode_lines(encoder: Encoder, parts: Iterable[str], allow_special: bool, out: TextIO) -> None:
    """The tokens on a line, the ids on the next, then how many."""
    shown = [token.translate(_VISIBLE) for token in encoder.tokens]
    flagged = encoder.unknown_id  # what unknown units become (None: they are dropped)
    ids = array("i")
    characters = unknown = 0
    for part in parts:
        part_ids = encoder.encode_ids(part, allow_special=allow_special, offset=characters)
        tokens: Iterable[str] = map(shown.__getitem__, part_ids)
        if flagged is not None and flagged in part_ids:  # an unknown unit shows its own text
            encoding = encoder.encode(part, allow_special=allow_special, offset=characters)
            tokens = (token.translate(_VISIBLE) for token in encoding.tokens)
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


def _decode(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    encoder = _read_model(args.model, args.format, args, stderr)
    print(encoder.decode(args.ids), file=stdout)
    return 0


def _import(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    check_writable(args.output)
    imported = read_tokenizer(args.model, args.format, args.pattern, args.special_token)
    for note in imported.notes:
        print(f"{PROG}: note: {note}", file=stderr)
    encoder = imported.encoder
    corpus = None
    if args.corpus is not None:
        corpus = load_corpus(args.corpus, encoder.config, args.input, workers=min(2, os.cpu_count() or 1))
    trainer = trainer_from_encoder(encoder, corpus)
    save_session(trainer, args.output)
    attached = ""
    if corpus is not None:
        attached = f", with the counts of {trainer.word_count:,} word types of {args.corpus}"
        left_out = len(corpus.words) - trainer.word_count
        if left_out:
            attached += f" ({left_out:,} left out: they hold characters the tokenizer lacks)"
    print(
        f"Imported {args.model} ({DESCRIPTIONS[imported.format]}): {len(encoder.keys):,} tokens, "
        f"{len(encoder.merges):,} merges{attached}. Saved the session to {args.output}.",
        file=stdout,
    )
    return 0


def _export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    encoder = _read_model(args.model, None, args, stderr)
    if not args.output:
        raise BpeError("The output path is empty.")
    files = write_tokenizer(encoder, args.format, args.output)
    for note in export_notes(encoder, args.format):
        print(f"{PROG}: note: {note}", file=stderr)
    names = " and ".join(str(f) for f in files)
    print(f"Wrote {names}: {len(encoder.keys):,} tokens, {len(encoder.merges):,} merges.", file=stdout)
    return 0


def _compress(args: argparse.Namespace, stdout: TextIO) -> int:
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
    print(f"{_shown(text)}  (the input, {len(text):,} symbols)", file=stdout)
    for step, (length, head, tail) in zip(result.steps, result.edges(_WIDTH), strict=True):
        rule = f"{step.symbol} = {(step.pair[0] + step.pair[1]).translate(_VISIBLE)}"
        print(f"{rule}  ({step.count:,}x)  ->  {_elided(head, tail, length)}", file=stdout)
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


def _shown(data: str, width: int = _WIDTH) -> str:
    """Data made visible on one line, elided in the middle when long."""
    return _elided(data[:width], data[-width:], len(data), width)


def _elided(head: str, tail: str, length: int, width: int = _WIDTH) -> str:
    """``_shown`` of data of ``length`` symbols, from its first and last ``width`` symbols."""
    if length <= width:
        return head.translate(_VISIBLE)
    return head[: width // 2 - 1].translate(_VISIBLE) + " … " + tail[-(width // 2 - 2) :].translate(_VISIBLE)


class _ProgressBar:
    """A one-line progress bar on stderr, shown only on a terminal and only for long runs."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self._stream = stream
        self._total = total
        self._enabled = stream.isatty() if hasattr(stream, "isatty") else False
        self._started = time.perf_counter()
        self._shown = 0.0

    def update(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self._enabled or now - self._started < 0.5 or now - self._shown < 0.1:
            return
        self._shown = now
        total = self._total or total
        if total:
            filled = int(30 * min(done, total) / total)
            self._stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,} merges")
        else:
            self._stream.write(f"\r{done:,} merges")
        self._stream.flush()

    def close(self) -> None:
        if self._enabled and self._shown:
            self._stream.write("\r" + " " * 60 + "\r")
            self._stream.flush()


if __name__ == "__main__":
    raise SystemExit(main())
