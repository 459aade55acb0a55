"""Word counts as a file: what ``bpe-studio count`` writes and ``train --input counts`` reads.

TSV: a first line ``#bpe-studio counts 1``, then one word type a line, ``word<TAB>count``,
sorted by count (descending) then word (by code points). Under that header a word's ``\\``,
tab, line feed and carriage return are written ``\\\\``, ``\\t``, ``\\n`` and ``\\r``, so any piece
(GPT-2's ``"\\n\\n"``, a tab) survives. The words are the pieces of the pipeline that counted
them, read back as they are; so the header says which pipeline: after a TAB, its settings that
make pieces (``COUNTING_SETTINGS``) where they differ from the defaults, as a JSON object
(``#bpe-studio counts 1<TAB>{"pretokenize": "gpt2"}``). The bare header states none (``count``
writes it for the default pipeline, and wrote it for any before): the options given are taken.
A file without the header is read as before: each ``word<TAB>count`` line's word is text,
normalized and pre-tokenized like any text.

Parquet: columns ``word`` (string) and ``count`` (int64), in the same order; the same JSON
object (``{}`` for the defaults) under the schema's metadata key ``bpe-studio pipeline``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import replace
from itertools import chain
from pathlib import Path
from typing import Any

from bpe_core.errors import ConfigError, InputError, quoted
from bpe_core.io.sources import (
    STDIN,
    byte_blocks,
    expand,
    first_not_utf8,
    is_text_type,
    kind_of,
    named,
    text_blocks,
)
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import MAX_TOTAL, Corpus, Progress, parsed_count
from bpe_core.runtime.fileio import LIMIT_VARIABLE, input_limit, write_atomic

HEADER = "#bpe-studio counts 1"
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {v: k for k, v in _ESCAPES.items()}
_ESCAPED = re.compile(r"[\\\t\n\r]")
_ESCAPE = re.compile(r"\\(.?)", re.DOTALL)
_WHITESPACE = re.compile(r"\s")  # exactly what str.split() splits at
_FIRST_LINE = re.compile(r"[^\r\n]*")  # up to a LF, CRLF or lone CR

# The settings that make text into pieces: a counts file's words are the pieces of the pipeline
# that counted them, so its header names these, and training on it takes them. (The unit, the
# end-of-word marker and the rest act on the pieces, after counting.)
COUNTING_SETTINGS = ("normalization", "lowercase", "pretokenize", "special_tokens", "prefix_space")
PARQUET_KEY = b"bpe-studio pipeline"
Counting = dict[str, Any]  # counting settings as JSON values, those at their defaults left out


def counting_of(config: PipelineConfig) -> Counting:
    """The counting settings of ``config`` that differ from the defaults."""
    data, defaults = config.to_dict(), PipelineConfig().to_dict()
    return {name: data[name] for name in COUNTING_SETTINGS if data[name] != defaults[name]}


def header_of(config: PipelineConfig) -> str:
    counting = counting_of(config)
    # ASCII JSON: no character in it (U+2028, a TAB) can be taken for a line's or a cell's end
    return f"{HEADER}\t{json.dumps(counting)}" if counting else HEADER


def is_header(first: str) -> bool:
    """Whether a first line is the header, stating the pipeline or not."""
    return first == HEADER or first.startswith(HEADER + "\t")


def counting_in(first: str, name: str) -> Counting | None:
    """The counting settings a header states, or ``None`` where it states none: the bare header,
    which ``count`` writes for the default pipeline and wrote for any before it said which (so
    the options given are taken, as they were)."""
    if not first.startswith(HEADER + "\t"):
        return None
    return _counting_json(first[len(HEADER) + 1 :], f"The header of {_file(name, False)}")


def _counting_json(text: str | bytes, where: str) -> Counting:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not set(data) <= set(COUNTING_SETTINGS):
        raise InputError(
            f"{where} does not state its pipeline as a JSON object of the settings "
            f"{', '.join(COUNTING_SETTINGS)}."
        )
    return data


def counted_pipeline(
    counting: Counting | None,
    config: PipelineConfig,
    chosen: Collection[str] | None,
    name: str,
    adopt: bool = True,
) -> PipelineConfig:
    """The pipeline of a counts file's words: ``config`` with the counting settings the file
    states (or, without ``adopt``, ``config`` as it is), where those named in ``chosen`` (the
    caller's choice) must agree. ``config`` as it is for ``chosen=None`` or a file that states
    none (the bare header, Parquet written elsewhere)."""
    if chosen is None or counting is None:
        return config
    others = {key: value for key, value in config.to_dict().items() if key not in COUNTING_SETTINGS}
    try:
        counted = PipelineConfig.from_dict({**others, **counting})
    except ConfigError as error:
        why = str(error)
        raise InputError(
            f"{_file(name)} states a pipeline that cannot be used here: {why[:1].lower()}{why[1:]}"
        ) from None
    differ = [key for key in COUNTING_SETTINGS if key in chosen and not _agree(counted, config, key)]
    if differ:
        raise InputError(
            f"{_file(name)} was counted {_described(counted, differ)}, not "
            f"{_described(config, differ)}; its words are that pipeline's pieces, so train them "
            "as counted, or count the text again."
        )
    if not adopt:
        return config
    # the order of the special tokens given stands: it numbers them, and makes the same pieces
    return replace(counted, special_tokens=config.special_tokens) if "special_tokens" in chosen else counted


def named_settings(config: PipelineConfig) -> frozenset[str]:
    """The counting settings a pipeline names, where counts made otherwise surely are other
    pieces: all but the special tokens (a tokenizer's own, which counts seldom had) and those of
    its own chains of steps (which may make the same pieces as a named setting)."""
    named = {"normalization", "lowercase"} if config.normalization != "custom" else set()
    return frozenset(named | ({"pretokenize", "prefix_space"} if config.pretokenize != "custom" else set()))


def _agree(counted: PipelineConfig, config: PipelineConfig, setting: str) -> bool:
    if setting == "special_tokens":  # in any order, the same pieces
        return set(counted.special_tokens) == set(config.special_tokens)
    return getattr(counted, setting) == getattr(config, setting)


def differences(a: PipelineConfig, b: PipelineConfig) -> str:
    """How two pipelines' counting settings differ, in words (``a``'s, then ``b``'s)."""
    differ = [key for key in COUNTING_SETTINGS if not _agree(a, b, key)]
    return f"{_described(a, differ)}, and {_described(b, differ)}"


def _described(config: PipelineConfig, settings: list[str]) -> str:
    """Some counting settings of ``config`` in words."""
    tokens = ", ".join(map(quoted, config.special_tokens))
    parts = {
        "normalization": f"with normalization {config.normalization}",
        "lowercase": "with lowercasing" if config.lowercase else "without lowercasing",
        "pretokenize": f"with pre-tokenizer {config.pretokenize}",
        "special_tokens": f"with special tokens {tokens}" if tokens else "without special tokens",
        "prefix_space": "with a prefix space" if config.prefix_space else "without a prefix space",
    }
    return " and ".join(parts[setting] for setting in settings)


def _file(name: str, capital: bool = True) -> str:
    """A counts file as a message names it (standard input by that name, not ``'-'``)."""
    said = "the counts file on standard input" if name == STDIN else f"the counts file {name!r}"
    return said[:1].upper() + said[1:] if capital else said


def sorted_counts(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Word types by count (descending), then word (by code points)."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def escaped(word: str) -> str:
    return _ESCAPED.sub(lambda m: _ESCAPES[m.group()], word) if _ESCAPED.search(word) else word


def unescaped(text: str, where: str) -> str:
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        escape = "\\" + match.group(1)
        if escape not in _UNESCAPES:
            # one backslash, as the file has it (a repr doubles it)
            written = f"'{escape}'" if escape.isprintable() else quoted(escape)
            raise InputError(f"{where} has {written}, which is no escape of a counts file.")
        return _UNESCAPES[escape]

    return _ESCAPE.sub(one, text)


def counts_tsv(counts: dict[str, int], config: PipelineConfig) -> str:
    """The TSV of the counts ``config``'s pipeline made."""
    lines = [header_of(config), *(f"{escaped(word)}\t{count}" for word, count in sorted_counts(counts))]
    return "\n".join(lines) + "\n"


def write_counts(counts: dict[str, int], config: PipelineConfig, path: str | Path) -> None:
    """The counts ``config``'s pipeline made as TSV, or Parquet for a ``.parquet`` path,
    compressed as the name says (``.gz``, ``.bz2``, ``.xz``, ``.zst``: read back as any input
    is); written atomically."""
    if str(path).lower().endswith(".parquet"):
        write_atomic(path, _parquet_bytes(sorted_counts(counts), counting_of(config)))
        return
    compression = kind_of(str(path))[1]
    data = counts_tsv(counts, config).encode("utf-8")
    write_atomic(path, data if compression is None else _compressed(data, compression))


def _compressed(data: bytes, compression: str) -> bytes:
    if compression == "gzip":
        return gzip.compress(data, mtime=0)  # the same counts, the same bytes
    if compression == "bzip2":
        return bz2.compress(data)
    if compression == "xz":
        return lzma.compress(data)
    try:
        import zstandard
    except ImportError:
        raise InputError("Writing a .zst file needs the zstandard package: pip install zstandard.") from None
    return zstandard.ZstdCompressor().compress(data)


def _parquet_bytes(items: list[tuple[str, int]], counting: Counting) -> bytes:
    pa, pq = _pyarrow("Writing counts as Parquet")
    table = pa.table(
        {
            "word": pa.array([word for word, _ in items], type=pa.string()),
            "count": pa.array([count for _, count in items], type=pa.int64()),
        }
    ).replace_schema_metadata({PARQUET_KEY: json.dumps(counting).encode()})  # even {}: said, not unknown
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _pyarrow(what: str):
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f'{what} needs pyarrow: pip install "bpe-studio[parquet]".') from None
    return pa, pq


def has_header(data: bytes) -> bool:
    data = data.removeprefix(b"\xef\xbb\xbf")
    return data.startswith(HEADER.encode()) and data[len(HEADER) :][:1] in (b"\n", b"\r", b"\t", b"")


def is_counts_file(path: str | Path) -> bool:
    """Whether a file holds word counts, whatever its name: it starts with the header (once
    decompressed, as its suffix says), or it is Parquet with the columns ``word`` and ``count``."""
    name = str(path)
    if name.lower().endswith(".parquet"):
        return is_counts_parquet(path)
    return has_header(_first_bytes(name)[: len(HEADER) + 4])


def states_pipeline(path: str | Path) -> bool:
    """Whether a counts file states the pipeline that counted it (see :func:`counting_in`)."""
    name = str(path)
    if name.lower().endswith(".parquet"):
        try:
            return _parquet_counting(name) is not None
        except InputError:
            return False
    first = _first_bytes(name).removeprefix(b"\xef\xbb\xbf")
    return first.startswith(HEADER.encode() + b"\t")


def _first_bytes(name: str) -> bytes:
    """A file's first block, decompressed as its name or its first bytes say (``b""`` if it
    cannot be read: the reading says why)."""
    if os.path.isdir(name):
        return b""
    try:
        return next(byte_blocks(expand([name])[0]), b"")
    except InputError:
        return b""


def read_counts_text(name: str) -> str:
    """A counts file's text (``-``: standard input; decompressed as its suffix says), refused
    as any text input is: missing, binary, or not UTF-8, naming the line; and beyond the
    input limit, since it is held whole (a stream may never end)."""
    limit, held, blocks = input_limit(), 0, []
    for block in text_blocks(expand([name])[0]):
        held += len(block)
        if held > limit:
            raise InputError(
                f"{named(name)} holds more than {limit // 2**20:,} MB of word counts, the input limit "
                f"(set {LIMIT_VARIABLE} to raise it)."
            )
        blocks.append(block)
    return "".join(blocks)


def parquet_counts_corpus(
    name: str,
    config: PipelineConfig,
    shard: bool = False,
    chosen: Collection[str] | None = None,
    adopt: bool = True,
) -> Corpus | None:
    """The corpus of a Parquet counts file (its words as pieces, under the pipeline that
    :func:`counted_pipeline` makes of ``config`` and the file's); ``None`` for a shard (one of
    several) without rows, which adds nothing, as a shard with only the header does."""
    config = counted_pipeline(_parquet_counting(name), config, chosen, name, adopt)
    rows = _parquet_counts(name)
    first = next(rows, None)
    if first is None:
        if shard:
            return None
        raise InputError(f"The counts file {name!r} holds no word counts.")
    return Corpus.from_word_counts(chain([first], rows), config)


def _parquet_counting(name: str) -> Counting | None:
    """The counting settings a Parquet counts file states, ``None`` if it states none."""
    _, pq = _pyarrow(f"Reading the counts file {name!r}")
    try:
        metadata = pq.read_schema(name).metadata or {}
    except Exception:  # not Parquet: the reading of its rows says so
        return None
    stated = metadata.get(PARQUET_KEY)
    return None if stated is None else _counting_json(stated, f"The counts file {name!r}")


def counts_corpus(
    text: str,
    name: str,
    config: PipelineConfig,
    progress: Progress | None = None,
    chosen: Collection[str] | None = None,
    adopt: bool = True,
) -> Corpus | None:
    """The corpus of a counts file's ``text`` written by ``count`` (its words as pieces, under
    the pipeline that :func:`counted_pipeline` makes of ``config`` and the header's), or
    ``None`` for a file without the header (the caller reads it as word<TAB>count lines of
    text). ``progress(done, total)`` hears how far reading has got (characters, or lines when
    the file is read line by line)."""
    first = _FIRST_LINE.match(text).group()  # type: ignore[union-attr]  # (any text matches)
    prefix = HEADER.rsplit(" ", 1)[0] + " "
    if first.startswith(prefix) and not is_header(first):
        version = first.removeprefix(prefix)
        if version.isdigit() and version.isascii():
            raise InputError(
                f"{_file(name)} starts with {quoted(first)}, a version this BPE Studio does "
                f"not read (it reads {quoted(HEADER)})."
            )
        raise InputError(f"{_file(name)} starts with {quoted(first)}, not exactly {quoted(HEADER)}.")
    if not is_header(first):
        return None
    config = counted_pipeline(counting_in(first, name), config, chosen, name, adopt)
    if not text[len(first) :].strip("\r\n"):
        raise InputError(f"{_file(name)} holds no word counts under its header.")
    counted = counts_columns(text, progress)
    if counted is None:  # read line by line, which names the line at fault
        lines = text.count("\n") + 1 if progress is not None else 0
        return Corpus.from_word_counts(parse_counts(text, name), config, progress=progress, total=lines)
    return Corpus.from_counter(counted, config, ())


# Characters of a counts file read at a time. Each C call then takes milliseconds, and the
# window's thread has the interpreter between them: one call over two million lines (a dict
# made of them) held it for 0.7 s.
COLUMN_CHARS = 1 << 20


def counts_columns(text: str, progress: Progress | None = None) -> dict[str, int] | None:
    """The counts of a counts file's text, read a column at a time (in C: a few times quicker
    than line by line for millions of words), or ``None`` unless, under the header, every line
    is a word, one TAB and a count in range, and no word comes twice: :func:`parse_counts`
    then says what is wrong where, or adds the counts up. ``progress(characters read,
    characters)`` hears of each part read."""
    text = text.replace("\r\n", "\n") if "\r" in text else text
    start = text.find("\n") + 1
    stop = len(text) - 1 if text.endswith("\n") else len(text)  # the last line's end
    if not start or not is_header(text[: start - 1]) or start >= stop:
        return None
    return _by_columns(text, start, stop, _columns, progress)


def plain_counts(
    text: str, config: PipelineConfig, progress: Progress | None = None
) -> dict[str, int] | None:
    """The counts of a counts file without the header, read a column at a time, where its
    words are pieces as they stand: the pipeline only splits at whitespace (no normalization,
    lowercasing or special token), and every line is a word without whitespace, one TAB and a
    count. ``None`` otherwise (or for a word listed twice): ``Corpus.from_counts`` then reads
    it line by line, each word as text (two million lines: 2.2 s here, 6.8 s line by line)."""
    # (A prefix space, the unit and the marker do not change what str.split() makes of a word.)
    splits_only = (
        config.normalization == "none" and not config.lowercase and config.pretokenize == "whitespace"
    )
    if not splits_only or config.special_tokens:
        return None
    text = text.replace("\r\n", "\n") if "\r" in text else text
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    if stop <= 0 or "\r" in text:  # lines ended by a lone CR: read line by line
        return None
    return _by_columns(text, 0, stop, _plain_columns, progress)


def _by_columns(
    text: str, start: int, stop: int, columns_of: Callable[[str], Columns | None], progress: Progress | None
) -> dict[str, int] | None:
    """The counts of lines ``start`` to ``stop`` of ``text``, read a part at a time by
    ``columns_of``, or ``None`` where it finds a line out of the usual or a word comes twice."""
    counted: dict[str, int] = {}
    lines = 0
    while start < stop:
        end = text.find("\n", min(start + COLUMN_CHARS, stop))
        end = stop if end < 0 else end
        columns = columns_of(text[start:end])
        if columns is None:
            return None
        counted.update(zip(*columns, strict=True))
        lines += len(columns[0])
        if len(counted) < lines:
            return None
        if progress is not None:
            progress(end, len(text))
        start = end + 1
    return counted


Columns = tuple[list[str], list[int]]  # some lines' words and counts


def _columns(lines: str) -> Columns | None:
    """The words and counts of some lines of a counts file, or ``None`` (see above)."""
    if "\r" in lines:
        return None
    cells = _cells(lines)
    if cells is None:
        return None
    words, counts = cells
    values = _count_values(counts)
    if values is None:
        return None
    if "\\" in lines:
        try:
            words = [unescaped(word, "") if "\\" in word else word for word in words]
        except InputError:
            return None
    return words, values


def _plain_columns(lines: str) -> Columns | None:
    """:func:`_columns` for a file without the header: no escapes, and no whitespace in a word."""
    cells = _cells(lines)
    if cells is None or _WHITESPACE.search("".join(cells[0])):
        return None
    values = _count_values(cells[1])
    return None if values is None else (cells[0], values)


def _cells(lines: str) -> tuple[list[str], list[str]] | None:
    """The word and count of each line of ``lines`` if each has one TAB and a word."""
    if not lines or "\n\n" in lines or lines.count("\t") != lines.count("\n") + 1:
        return None
    cells = lines.replace("\n", "\t").split("\t")
    words = cells[0::2]
    return None if "" in words else (words, cells[1::2])


def _count_values(counts: list[str]) -> list[int] | None:
    """The counts as numbers if each is digits for a whole number from 1 to ``MAX_TOTAL``."""
    digits = "".join(counts)
    if not (digits.isascii() and digits.isdigit()):
        return None
    if min(map(len, counts)) == 0 or max(map(len, counts)) > len(str(MAX_TOTAL)):
        return None
    values = list(map(int, counts))
    if min(values) < 1 or max(values) > MAX_TOTAL:
        return None
    return values


def parse_counts(text: str, name: str) -> Iterator[tuple[str, int]]:
    """The (word, count) lines under the header (which is checked)."""
    # Under the header a CR in a word is escaped: any CR ends a line (CRLF, or a CR alone).
    lines = (text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text).split("\n")
    if not is_header(lines[0]):
        raise InputError(f"{_file(name)} does not start with {quoted(HEADER)}.")
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        where = f"Line {number:,} of {_file(name, False)}"
        word, tab, count_text = line.rpartition("\t")
        if not tab or not word:
            raise InputError(f"{where} is not a word, a TAB and a count.")
        if "\t" in word:
            raise InputError(f"{where} has more than one TAB (a TAB in a word is written \\t).")
        yield unescaped(word, where), parsed_count(count_text, where)


def is_counts_parquet(path: str | Path, exactly: bool = False) -> bool:
    """Whether a Parquet file holds word counts: the columns ``word`` and ``count`` (and, if
    ``exactly``, no other, as ``count`` writes it)."""
    try:
        import pyarrow.parquet as pq

        names = pq.read_schema(path).names
    except Exception:  # no pyarrow, or not Parquet: the corpus reader says what is wrong
        return False
    return sorted(names) == ["count", "word"] if exactly else {"word", "count"} <= set(names)


def _parquet_counts(name: str) -> Iterator[tuple[str, int]]:
    pa, pq = _pyarrow(f"Reading the counts file {name!r}")
    try:
        table = pq.read_table(name, columns=["word", "count"])
    except (OSError, pa.ArrowException, KeyError):
        raise InputError(
            f"The counts file {name!r} is not Parquet with the columns word and count."
        ) from None
    words, counts = table.column("word"), table.column("count")
    if not is_text_type(words.type) or not pa.types.is_integer(counts.type):
        raise InputError(f"The counts file {name!r} does not hold word strings and integer counts.")
    if words.null_count or counts.null_count:
        missing = [
            a or b for a, b in zip(words.is_null().to_pylist(), counts.is_null().to_pylist(), strict=True)
        ]
        raise InputError(
            f"Row {missing.index(True) + 1:,} of the counts file {name!r} has no word or no count."
        )
    try:
        listed = words.to_pylist()
    except UnicodeDecodeError:  # a string column may hold bytes that are not UTF-8
        row = first_not_utf8(words) + 1
        raise InputError(
            f"Row {row:,} of the counts file {name!r} has a word that is not valid UTF-8."
        ) from None
    for row, (word, count) in enumerate(zip(listed, counts.to_pylist(), strict=True), start=1):
        if not word or not 1 <= count <= MAX_TOTAL:
            raise InputError(
                f"Row {row:,} of the counts file {name!r} has an empty word or a count out of range."
            )
        if "\x00" in word:
            raise InputError(f"Row {row:,} of the counts file {name!r} has a word holding a NUL character.")
        yield word, count
