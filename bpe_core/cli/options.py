"""The option types of the command line and the options several commands share.

Every command's parser is built from these, so this module imports only what building them
needs (the engine's light configuration modules).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from bpe_core.cli.common import shown
from bpe_core.encoding.numbering import UNKNOWN_ID
from bpe_core.errors import BpeError
from bpe_core.io.sources import DEFAULT_FIELD, STDIN, expand, is_remote, kind_of
from bpe_core.pipeline.config import NAMED_NORMALIZATIONS, NAMED_PRETOKENIZERS, UNITS, PipelineConfig
from bpe_core.training.tie_rules import RULE_NAMES, parse_rule


def positive(text: str) -> int:
    if not (text.isdigit() and text.isascii()) or int(text[:19]) < 1:
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a positive whole number")
    if len(text) > 18:  # more than any run could use, and int() refuses 4,300 digits
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is too large (at most 18 digits)")
    return int(text)


def workers(text: str) -> int:
    """A number of counting processes: at most four a core (at least 8), since each holds its
    own word counts and more only wait their turn; a slip of a digit must not fork thousands."""
    number = positive(text)
    most = max(8, 4 * (os.cpu_count() or 1))
    if number > most:
        raise argparse.ArgumentTypeError(
            f"{number:,} is more processes than this machine can use (at most {most})"
        )
    return number


def count(text: str) -> int:
    if not (text.isdigit() and text.isascii()):
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a whole number")
    if len(text) > 18:
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is too large (at most 18 digits)")
    return int(text)


def utf8(text: str) -> str:
    """A text option: bytes the system could not decode arrive as lone surrogates."""
    if any("\udc80" <= char <= "\udcff" for char in text):
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not valid UTF-8")
    return text


def rule(text: str) -> str:
    try:
        return parse_rule(text).spec
    except BpeError as error:
        raise argparse.ArgumentTypeError(str(error).rstrip(".")) from None


def token_id(text: str) -> int:
    """A token id, or the unknown id ``encode`` prints for a unit the vocabulary lacks (-1:
    decoded as U+FFFD, as the window's decode field decodes it)."""
    if text == str(UNKNOWN_ID):
        return UNKNOWN_ID
    # Digits only: int() would also take "٣" and "1_000".
    if not (text.isdigit() and text.isascii() and len(text) <= 18):
        raise argparse.ArgumentTypeError(f"'{shown(text, 40)}' is not a token id")
    return int(text)


def per_pass(text: str) -> int:
    """``all`` (0) or a positive number of merges per pass."""
    if text == "all":
        return 0
    try:
        return positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"'{shown(text, 40)}' is neither a positive whole number nor 'all'"
        ) from None


def input_options(parser: argparse.ArgumentParser) -> None:
    """The corpus inputs ``train``, ``compare`` and ``count`` take, and how many processes count them."""
    parser.add_argument(
        "file",
        nargs="+",
        metavar="INPUT",
        help="UTF-8 text files, folders, globs, - for standard input (text, or JSON lines with "
        "--field; compressed or not); .gz .bz2 .xz .zst; .jsonl, .json (JSON lines) and .parquet "
        "(a text per record)",
    )
    parser.add_argument(
        "--field",
        type=utf8,
        metavar="NAME",
        help="the JSONL field or Parquet column (default text); given, standard input is JSON lines",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="each line of a text input is a text of its own, its line break kept (as Hugging Face's "
        "train(files) reads files: a prefix space then begins every line)",
    )
    parser.add_argument(
        "--workers",
        type=workers,
        default=os.cpu_count() or 1,
        metavar="N",
        help="processes counting the inputs (default: the machine's cores)",
    )


def pipeline_options(parser: argparse.ArgumentParser) -> None:
    """How text becomes word types (``pipeline_of`` reads them)."""
    parser.add_argument("--unit", choices=UNITS, default="char")
    # No default of their own: given or not, for counts files, which say how they were counted
    parser.add_argument(
        "--pretokenize", choices=NAMED_PRETOKENIZERS, help="how text splits into words (default whitespace)"
    )
    parser.add_argument(
        "--normalize", choices=NAMED_NORMALIZATIONS, help="Unicode normal form (default none)"
    )
    parser.add_argument("--lowercase", action="store_true")
    parser.add_argument(
        "--end-of-word",
        type=utf8,
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
    parser.add_argument("--special-token", type=utf8, action="append", default=[], metavar="TOKEN")


def training_options(parser: argparse.ArgumentParser) -> None:
    """The corpus, pipeline and target options ``train`` and ``compare`` share."""
    input_options(parser)
    parser.add_argument(
        "--input",
        choices=("text", "counts"),
        default="text",
        help="counts: word<TAB>count files (as bpe-studio count writes them)",
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--merges", type=positive, metavar="N", help="stop after N merges")
    target.add_argument(
        "--vocab-size", type=positive, metavar="N", help="stop at N tokens (special + alphabet + merged)"
    )
    parser.add_argument(
        "--min-frequency",
        type=positive,
        default=2,
        metavar="F",
        help="only merge pairs occurring at least F times (default 2)",
    )
    pipeline_options(parser)
    parser.add_argument(
        "--merges-per-pass",
        type=per_pass,
        default=1,
        metavar="K|all",
        help="merge up to K non-conflicting pairs per pass, or all of them (default 1: classic BPE)",
    )


def tie_break_option(parser: argparse.ArgumentParser) -> None:
    """The one tie rule of ``train`` and ``compress`` (``compare`` takes several)."""
    parser.add_argument(
        "--tie-break",
        type=rule,
        default="first-seen",
        metavar="{" + ",".join(RULE_NAMES[:-1]) + ",random[:SEED]}",
    )


def pipeline_of(args: argparse.Namespace) -> PipelineConfig:
    """The pipeline :func:`training_options` describe."""
    marker = None if args.end_of_word == "none" else args.end_of_word
    defaults = PipelineConfig()
    return PipelineConfig(
        normalization=args.normalize or defaults.normalization,
        lowercase=args.lowercase,
        pretokenize=args.pretokenize or defaults.pretokenize,
        unit=args.unit,
        end_of_word=marker,
        attach_marker=args.attach_marker,
        special_tokens=tuple(args.special_token),
        prefix_space=args.prefix_space,
    )


def counting_given(args: argparse.Namespace) -> frozenset[str]:
    """The counting settings (``bpe_core.io.counts_file``) given on the command line: a counts
    file's own stand for the others."""
    given = {
        "normalization": args.normalize is not None,
        "lowercase": args.lowercase,
        "pretokenize": args.pretokenize is not None,
        "special_tokens": bool(args.special_token),
        "prefix_space": args.prefix_space,
    }
    return frozenset(setting for setting, was in given.items() if was)


def field_of(args: argparse.Namespace) -> str:
    """The JSONL field or Parquet column the inputs' texts are in (an empty name is a name:
    JSON allows it)."""
    return DEFAULT_FIELD if args.field is None else args.field


def note_records_on_stdin(args: argparse.Namespace, stderr: TextIO) -> None:
    """Say so when standard input, read as text (no ``--field``), looks like JSON lines: its
    keys and braces would be counted as words (``zcat shard.jsonl.gz | bpe-studio count -``).
    Its first line is peeked at, not read: the count still reads all of it."""
    if STDIN not in args.file or args.field is not None or getattr(args, "input", "text") != "text":
        return
    try:
        head = sys.stdin.buffer.peek(1 << 16)[: 1 << 16] if sys.stdin is not None else b""  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # not a buffered stream: nothing to peek at
        return
    first = head.split(b"\n", 1)[0].strip()
    try:
        record = json.loads(first) if first.startswith(b"{") and first.endswith(b"}") else None
    except ValueError:
        return
    if isinstance(record, dict):
        stderr.write(
            "bpe-studio: note: standard input looks like JSON lines and is counted as text (keys "
            "and braces as words); give --field NAME, such as --field text, to count each record's field.\n"
        )


def note_field_unread(args: argparse.Namespace, stderr: TextIO) -> None:
    """Say so when ``--field`` is given and no input has fields (JSON lines, Parquet, standard
    input): it reads nothing there, and each text file is counted whole. Inputs on a cluster's
    storage (read by Spark) are not looked at."""
    if args.field is None or getattr(args, "input", "text") != "text" or STDIN in args.file:
        return
    if any(is_remote(spec) or kind_of(spec)[0] != "text" for spec in args.file):
        return
    try:
        kinds = {source.kind for source in expand(args.file)}
    except BpeError:
        return  # the count says what is wrong
    if kinds == {"text"}:
        stderr.write(
            f"bpe-studio: note: --field {shown(args.field, 40)} names a field of JSON lines or Parquet "
            "records, and no input is either: each text file is counted whole.\n"
        )


def note_lines_unread(args: argparse.Namespace, stderr: TextIO) -> None:
    """Say so when ``--lines`` is given and no input is text read a line at a time: counts files
    are counted already, and JSON lines and Parquet records are texts of their own."""
    if not args.lines or STDIN in args.file or any(is_remote(spec) for spec in args.file):
        return
    if getattr(args, "input", "text") == "counts":
        stderr.write(
            "bpe-studio: note: --lines reads text a line at a time; counts files are counted already.\n"
        )
        return
    try:
        kinds = {source.kind for source in expand(args.file, stdin_kind_of(args))}
    except BpeError:
        return  # the count says what is wrong
    if "text" not in kinds:
        stderr.write(
            "bpe-studio: note: --lines reads text files a line at a time, and no input is one: "
            "each JSON line or Parquet record is a text already.\n"
        )


def stdin_kind_of(args: argparse.Namespace) -> str:
    """What standard input (``-``) holds: text, or JSON lines once ``--field`` names their field
    (``zcat shard.jsonl.gz | bpe-studio count - --field text``)."""
    return "text" if args.field is None else "jsonl"
