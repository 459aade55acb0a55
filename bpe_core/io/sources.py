"""Corpus inputs as users have them: files, folders, globs and standard input; plain or
compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``); whole texts, JSONL records or Parquet rows.

:func:`expand` turns what the user typed into :class:`Source` s, each read as one kind:

* a text file is one text (streamed a block at a time, :func:`text_blocks`);
* a JSONL file (``.jsonl``, ``.ndjson``, ``.json``) is one text per line, the string in field
  ``text`` (or the field asked for); blank lines are skipped (:func:`jsonl_batches`);
* a Parquet file (``.parquet``) is one text per row, the string in column ``text`` (or the
  column asked for), read with ``pyarrow`` (:func:`parquet_batches`).

A folder is every file under it, recursively, in path order, without hidden files and
folders (``.name``) or Hadoop's bookkeeping files (``_SUCCESS``, ``_name``), as Spark lists
a folder, nor sessions (``*.bpe.json``). Whatever cannot be read is refused with one sentence
naming the file and, where it has one, the line or row.
"""

from __future__ import annotations

import bz2
import codecs
import fnmatch
import glob
import gzip
import io
import itertools
import json
import lzma
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

from bpe_core.errors import InputError, has_lone_surrogate, quoted
from bpe_core.runtime.fileio import LIMIT_VARIABLE, STDIN_NAME, input_limit

STDIN = STDIN_NAME
COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}
# A ``.json`` corpus file is JSON lines too: C4's shards (``c4-train.00000-of-01024.json.gz``) and
# many datasets' ``train.json`` are; a JSON document (an array, an object over several lines)
# is refused at its first line.
RECORD_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".parquet": "parquet"}
DEFAULT_FIELD = "text"
SESSION_FORMAT = "bpe-studio-session"  # a saved session's "format": told apart from a corpus
SESSION_SUFFIX = ".bpe.json"  # the window's sessions: left out of folders
BLOCK = 1 << 20  # bytes read from a file at a time
# Compressed zstd bytes decompressed at a time: zstd gives all a call's output at once, and a
# block of a few bytes may stand for 128 kB (a run), so small inputs bound the memory (32 MB at worst).
ZSTD_INPUT = 1 << 10
RECORDS_PER_BATCH = 2_000  # JSONL lines or Parquet rows handed on together


@dataclass(frozen=True)
class Source:
    """One input: ``name`` is its path as found (or ``-``), ``kind`` ``text``, ``jsonl`` or
    ``parquet``, ``compression`` a name of :data:`COMPRESSIONS` or ``None``, ``size`` its bytes on
    disk (``None`` for standard input), ``data`` its bytes when they were read elsewhere, and
    ``sniffed`` whether its compression is told by its first bytes."""

    name: str
    kind: str
    compression: str | None
    size: int | None
    data: bytes | None = field(default=None, repr=False)  # the file's bytes, already read (Spark's)
    sniffed: bool = False  # a stream without a suffix to tell (standard input, a pipe): its first bytes tell


def kind_of(name: str) -> tuple[str, str | None]:
    """(kind, compression) by the file's suffixes: ``a.jsonl.gz`` is JSONL compressed by gzip."""
    suffixes = [s.lower() for s in Path(name).suffixes]
    compression = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression is not None:
        suffixes = suffixes[:-1]
    kind = RECORD_SUFFIXES.get(suffixes[-1], "text") if suffixes else "text"
    return kind, compression


def expand(specs: Sequence[str], stdin_kind: str = "text") -> list[Source]:
    """The sources the user's paths (or ``file://`` URLs), folders, globs and ``-`` name, each
    once, in the order given (a folder's and a glob's files in path order). Standard input has
    no name to tell its kind by: it is ``stdin_kind``, ``text`` or ``jsonl``."""
    names: list[str] = []
    for spec in specs:
        spec = file_url_path(spec) or spec  # a file manager's or Spark's way of naming a local file
        if spec == STDIN:
            names.append(STDIN)
        elif os.path.isdir(spec):
            found = _folder_files(spec)
            if not found:
                raise InputError(f"The folder {spec!r} holds no files{_but_hidden(spec)}.")
            names.extend(found)
        elif _exists(spec):
            names.append(spec)
        elif glob.has_magic(spec):
            # Hidden names are skipped below the pattern's fixed folders, not in them: the user
            # typed those ("_data/*.txt", "~/.cache/corpus/*.jsonl"); nor where the pattern
            # itself starts a name so (".*", "_part*"), as a shell's ".*" matches dot files.
            fixed = _fixed_folder(spec)
            globbed = sorted(_glob(spec, fixed))
            asked = _pattern_parts(spec, fixed)
            matches = [p for p in globbed if not _hidden_unasked(os.path.relpath(p, fixed), asked)]
            listed = (_folder_files(p) if os.path.isdir(p) else [p] for p in matches)
            files = [f for found in listed for f in found if _listed(f)]
            if not files:
                # (glob's "*" passes over dot files itself: asked again with them, without a
                # "**", whose walk could follow a link back up without end)
                skipped = len(matches) < len(globbed) or (
                    "**" not in spec and bool(set(glob.glob(spec, include_hidden=True)) - set(globbed))
                )
                but_hidden = _SKIPPED if skipped else ""
                raise InputError(f"No file matches {spec!r}{but_hidden}.")
            names.extend(files)
        else:
            raise InputError(f"The file {spec!r} does not exist.")
    if names.count(STDIN) > 1:
        raise InputError("Standard input (-) can be read only once.")
    sources = []
    for name in one_name_per_file(names):
        kind, compression = kind_of(name) if name != STDIN else (stdin_kind, None)
        if kind == "parquet" and compression is not None:
            raise InputError(f"The file {name!r} is a compressed Parquet file; Parquet compresses itself.")
        # A pipe named by a path without a suffix (``<(zcat shard.gz)``) is read as standard input is.
        sniffed = name == STDIN or (not Path(name).suffix and _is_stream(name))
        if sniffed:
            kind = stdin_kind
        elif Path(name).suffix.lower() not in _NAMED_KINDS:
            compression = compression_of_head(name)  # ``part-00001``, ``data.00001``: its first bytes tell
        sources.append(Source(name, kind, compression, None if sniffed else _size(name), sniffed=sniffed))
    return sources


def file_url_path(spec: str) -> str | None:
    """The local path a ``file:`` URL names, or ``None`` if ``spec`` is none: ``file:///p``,
    ``file://localhost/p`` (RFC 8089) and Hadoop's ``file:/p`` all name ``/p``."""
    if not spec.startswith("file:"):
        return None
    rest = spec.removeprefix("file:")
    if rest.startswith("//localhost/"):
        rest = rest.removeprefix("//localhost")
    elif rest.startswith("//"):
        rest = rest[2:]  # (a path after the two slashes is read as it is written)
    elif not rest.startswith("/"):
        return None  # "file:name" names a file called so
    return unquote(rest)


# A URL's scheme (``s3a://``, ``hdfs://``, ``file://``): a remote input Spark's readers read
URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_remote(spec: str) -> bool:
    """Whether an input names storage elsewhere (a cluster's), not a local file."""
    return bool(URL.match(spec)) and not spec.startswith("file://")


# Suffixes that say what a file holds; a file with another or none has its first bytes read for
# a compression (jobs name their output ``part-00001``, ``data.00001``).
_NAMED_KINDS = {*COMPRESSIONS, *RECORD_SUFFIXES, ".txt", ".text", ".tsv", ".csv", ".md"}


def compression_of_head(name: str) -> str | None:
    """The compression a file's first bytes show (``None`` for plain bytes, Parquet, or a file
    that cannot be read: its reading says why). Only a regular file is opened: a pipe's bytes,
    read here, would be lost to its reading."""
    if not os.path.isfile(name):
        return None
    try:
        with open(name, "rb") as file:
            found = _MAGIC.match(file.read(16))
    except OSError:
        return None
    return None if found is None or found.lastindex == 5 else _COMPRESSION_GROUPS[found.lastindex - 1]  # type: ignore[operator]


def _is_stream(name: str) -> bool:
    """Whether ``name`` is a pipe or a device: read once, from its beginning, size unknown."""
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False  # the reading says why it cannot be read
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def one_name_per_file(names: Iterable[str]) -> list[str]:
    """``names`` without a second name for a file already named (a link, another spelling, a
    shard named beside its folder): each file is read once, under the first name given."""
    kept, seen = [], set()
    for name in names:
        same = _identity(name)
        if same not in seen:
            seen.add(same)
            kept.append(name)
    return kept


def _identity(name: str) -> object:
    """What tells one file from another: its device and inode (a hard link is the same file;
    so is standard input redirected from a file), else its real path (a file not there yet
    is refused when read)."""
    try:
        info = os.fstat(sys.stdin.fileno()) if name == STDIN else os.stat(name)
    except (OSError, ValueError, AttributeError):  # ValueError: no stdin, or a NUL in the name
        return name if name == STDIN else os.path.realpath(name)
    if name == STDIN and not stat.S_ISREG(info.st_mode):
        return STDIN  # a pipe or a terminal: no file read by name can be it
    return (info.st_dev, info.st_ino)


def refuse_overwriting_inputs(outputs: Sequence[str | None], specs: Sequence[str]) -> None:
    """Refuse an output file that is one of the files ``specs`` name, before the work: a slip
    of ``-o`` must never replace the corpus. Inputs that cannot be listed, or that are remote,
    are left to the reading to refuse."""
    existing = [output for output in outputs if output and os.path.isfile(output)]  # a new file is no input
    try:
        local = [spec for spec in specs if "://" not in spec or spec.startswith("file://")]
        sources = expand(local) if existing else []
    except InputError:
        return
    for source in sources:
        for output in existing:  # the same file by any name: a link, a case-insensitive spelling
            if _same_file(source.name, output):
                shown = "read on standard input" if source.name == STDIN else "one of the inputs"
                raise InputError(f"The output {output!r} is {shown}; writing it would replace it.")


def _same_file(name: str, output: str) -> bool:
    """Whether the input ``name`` (standard input: the file it is redirected from) is ``output``."""
    try:
        if name == STDIN:
            return sys.stdin is not None and os.path.samestat(os.fstat(sys.stdin.fileno()), os.stat(output))
        return os.path.samefile(name, output)
    except (OSError, ValueError):  # one of them cannot be reached (the reading says so), or no stdin
        return False


def _exists(spec: str) -> bool:
    """Whether ``spec`` names something; one a folder on its path hides from us is refused."""
    try:
        os.lstat(spec)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in the name
        return False
    except OSError as error:
        if getattr(error, "winerror", None) in (21, 123, 1921):  # Windows: a pattern, or no drive
            return False
        if glob.has_magic(spec):  # a pattern: its globbing names the folder it cannot read
            return False
        raise unreadable(spec, error) from None
    return True


def _glob(pattern: str, fixed: str) -> list[str]:
    """What ``glob.glob(pattern, recursive=True)`` matches, but where the pattern holds ``**``
    every real folder under ``fixed`` is walked once, as a folder input's are (hidden ones
    left out): glob follows every link, and a link back up (``ln -s .. up``) had it list paths
    without end. A folder the pattern must look into but that cannot be listed is refused
    (glob passes over it without a word, leaving its files out)."""
    parts = _pattern_parts(pattern, fixed)
    if "**" not in parts:
        _refuse_unlistable(fixed, parts)
        return glob.glob(pattern, recursive=True)

    def refuse(error: OSError) -> None:
        if isinstance(error, FileNotFoundError | NotADirectoryError):  # nothing there: no match
            return
        folder = error.filename if isinstance(error.filename, str) else fixed
        relative = Path(os.path.relpath(folder, fixed)).parts if folder != fixed else ()
        if _begins(relative, parts) and not _hidden(os.path.join(*relative) if relative else ""):
            raise InputError(f"The folder {folder!r} cannot be read ({error.strerror}).")

    found: list[str] = []
    for root, dirs, files in _walked(fixed, refuse, hidden_files=parts[-1][:1] in (".", "_")):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, fixed)
            if _matched(Path(relative).parts, parts):
                found.append(relative if fixed == os.curdir else path)
    return found


def _matched(names: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether a path's ``names`` match a glob pattern's ``parts`` (``**``: any number of names)."""
    if not parts:
        return not names
    if parts[0] == "**":
        return any(_matched(names[skipped:], parts[1:]) for skipped in range(len(names) + 1))
    return bool(names) and fnmatch.fnmatch(names[0], parts[0]) and _matched(names[1:], parts[1:])


def _begins(names: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether a folder's ``names`` could begin a path matching a glob pattern's ``parts``."""
    if not names or (parts and parts[0] == "**"):
        return True
    return bool(parts) and fnmatch.fnmatch(names[0], parts[0]) and _begins(names[1:], parts[1:])


def _refuse_unlistable(fixed: str, parts: tuple[str, ...]) -> None:
    """Refuse a folder that glob would look into for a pattern without ``**`` (``fixed``, then
    each folder the ``parts`` before another one match) but that cannot be read."""
    for k, part in enumerate(parts):  # parts[0] is a wildcard part: it follows ``fixed``
        for folder in glob.glob(os.path.join(fixed, *parts[:k])) if k else [fixed]:
            if os.path.isdir(folder) and not (k and _hidden(os.path.relpath(folder, fixed))):
                try:
                    if glob.has_magic(part):
                        with os.scandir(folder):
                            pass
                    else:  # glob looks the name up: the folder must let it through
                        os.lstat(os.path.join(folder, part))
                except (FileNotFoundError, NotADirectoryError):
                    pass
                except OSError as error:
                    raise InputError(f"The folder {folder!r} cannot be read ({error.strerror}).") from None


def _fixed_folder(pattern: str) -> str:
    """The folders a glob pattern starts with, before its first wildcard."""
    parts = Path(pattern).parts
    fixed = list(itertools.takewhile(lambda part: not glob.has_magic(part), parts[:-1]))
    return os.path.join(*fixed) if fixed else os.curdir


def _folder_files(folder: str) -> list[str]:
    """Every file under ``folder`` that is read (:func:`_listed`), folders linked into it
    followed (each real folder once: a link back up is not a loop), hidden names skipped. A
    folder that cannot be listed is refused, as a file that cannot be read is."""

    def refuse(error: OSError) -> None:
        name = error.filename if isinstance(error.filename, str) else folder
        raise InputError(f"The folder {name!r} cannot be read ({error.strerror}).")

    out = [os.path.join(root, f) for root, _, files in _walked(folder, refuse) for f in files]
    return sorted(filter(_listed, out))


def _walked(
    folder: str, onerror: Callable[[OSError], None] | None = None, hidden_files: bool = False
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk`` of ``folder`` following linked folders, each real folder once (a link back
    up is not a loop), hidden names left out of the folders and (unless ``hidden_files``: a
    pattern asks for them, ``**/_*.txt``) of the files it gives."""
    walked = set()
    for root, dirs, files in os.walk(folder, onerror=onerror, followlinks=True):
        walked.add(os.path.realpath(root))
        dirs[:] = sorted(
            d for d in dirs if not _hidden_name(d) and os.path.realpath(os.path.join(root, d)) not in walked
        )
        yield root, dirs, [f for f in files if hidden_files or not _hidden_name(f)]


def _but_hidden(folder: str) -> str:
    """What to add to "holds no files" where the folder holds hidden ones only (skipped: a
    ``.git`` or an editor's backup is not corpus text)."""
    try:
        hidden = any(_hidden_name(name) for _, dirs, files in os.walk(folder) for name in [*dirs, *files])
    except OSError:
        return ""
    return " that are read" + _SKIPPED if hidden else ""


_SKIPPED = " (names starting with . or _ are skipped)"


def _listed(path: str) -> bool:
    """Whether a file a folder or a pattern lists is read: a regular file, or a link that leads
    nowhere (reading it says so). A named pipe, socket or device is not data at rest: reading
    one would wait for a writer forever. (Named on its own, a pipe is read: ``<(zcat x.gz)``.)"""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def _hidden_name(name: str) -> bool:
    """Hidden, Hadoop's bookkeeping, or a session the window saved beside the corpus (which
    its folder's default for saving makes likely): never the corpus's text."""
    return name.startswith((".", "_")) or name.lower().endswith(SESSION_SUFFIX)


def _hidden(path: str) -> bool:
    return any(_hidden_name(part) for part in Path(path).parts if part not in (".", ".."))


def _pattern_parts(pattern: str, fixed: str) -> tuple[str, ...]:
    """A pattern's parts below its fixed folder (``data/**/*.txt`` below ``data``: ``**``, ``*.txt``)."""
    return Path(pattern).parts[len(Path(fixed).parts) if fixed != os.curdir else 0 :]


def _hidden_unasked(path: str, asked: tuple[str, ...]) -> bool:
    """Whether ``path`` (relative to the pattern's fixed folder) has a hidden name the pattern's
    parts below that folder (``asked``) did not ask for: a name starting with ``.`` or ``_`` is
    asked for where its part of the pattern starts so too (its own part up to any ``**``, and
    the last part always); a saved session never is."""
    parts = Path(path).parts
    for i, part in enumerate(parts):
        if part in (".", "..") or not _hidden_name(part):
            continue
        wanted = asked[i] if i < len(asked) and "**" not in asked[: i + 1] else ""
        if i == len(parts) - 1 and asked:
            wanted = wanted or asked[-1]
        if not (part[:1] in "._" and wanted.startswith(part[:1])):
            return True
    return False


def _size(name: str) -> int:
    try:
        return os.stat(name).st_size
    except OSError as error:
        raise unreadable(name, error) from None


def named(name: str) -> str:
    """An input as a sentence names it: standard input, or the file."""
    return "Standard input" if name == STDIN else f"The file {name!r}"


def unreadable(name: str, error: OSError) -> InputError:
    """The sentence refusing a file the system would not let us read."""
    return InputError(f"The file {name!r} cannot be read ({error.strerror}).")


# -- bytes -------------------------------------------------------------------------------------


class _Counted(io.RawIOBase):
    """A binary stream that tells how many bytes have been read from it (progress on the
    compressed file, whose size is known, not on the text it holds)."""

    def __init__(self, stream: BinaryIO, read: Callable[[int], None]) -> None:
        self._stream = stream
        self._read = read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        self._read(len(data))
        return len(data)


def byte_blocks(source: Source, read: Callable[[int], None] = lambda n: None) -> Iterator[bytes]:
    """The source's bytes, decompressed, a block at a time; ``read(n)`` is told of every ``n``
    bytes taken from the file itself. A damaged archive is refused with one sentence."""
    try:
        if source.data is not None:
            raw: BinaryIO = io.BytesIO(source.data)
        elif source.name == STDIN:
            if sys.stdin is None:  # started with standard input closed
                raise InputError("Standard input (-) is closed: there is nothing to read.")
            raw = sys.stdin.buffer
        else:
            raw = open(source.name, "rb")  # noqa: SIM115
    except OSError as error:
        raise unreadable(source.name, error) from None
    compression = source.compression
    try:
        stream: BinaryIO | None = None
        while True:
            try:
                if stream is None:  # opened here: its first read (peek) may fail as any read
                    buffered = io.BufferedReader(_Counted(raw, read), BLOCK)  # type: ignore[arg-type,type-var]
                    if source.sniffed:  # no name to tell: its first bytes tell
                        compression = _compression_of_stream(buffered.peek(16), source.name)
                    stream = _decompressed(buffered, compression, source.name)
                block = stream.read(BLOCK)
            except InputError:
                raise
            except (EOFError, OSError, lzma.LZMAError, zlib.error, ValueError) as error:
                if isinstance(error, OSError) and error.errno is not None:
                    raise unreadable(source.name, error) from None
                raise InputError(
                    f"{named(source.name)} is a damaged or truncated {compression} archive."
                ) from None
            except Exception as error:  # zstandard's own error type
                if type(error).__name__ != "ZstdError":
                    raise
                raise InputError(f"{named(source.name)} is a damaged or truncated zstd archive.") from None
            if not block:
                return
            yield block
    finally:
        if sys.stdin is None or raw is not sys.stdin.buffer:
            raw.close()


ZSTD_WINDOW_MOST = 1 << 31  # zstd's largest window (``--long=31``)

# How each compression's streams begin (bzip2's: a block's or the end's magic after the level;
# zstd's: a frame's, or a skippable frame's, as pzstd writes first), and Parquet's first page.
_MAGIC = re.compile(
    rb"(\x1f\x8b\x08)|(BZh[1-9](?:1AY&SY|\x17rE8P\x90))|(\xfd7zXZ\x00)|(\x28\xb5\x2f\xfd|[\x50-\x5f]\x2a\x4d\x18)"
    rb"|(PAR1\x15)"
)
_COMPRESSION_GROUPS = ("gzip", "bzip2", "xz", "zstd")  # the first four groups'


def stream_suffix(first: bytes, name: str) -> str:
    """The suffix a file of a stream's bytes takes (``.gz``…, or ``""``), told by its first bytes."""
    compression = _compression_of_stream(first, name)
    return "" if compression is None else suffix_of(compression)


def suffix_of(compression: str) -> str:
    """The suffix of a compression of :data:`COMPRESSIONS` (``gzip``: ``.gz``)."""
    return next(suffix for suffix, c in COMPRESSIONS.items() if c == compression)


def _compression_of_stream(first: bytes, name: str) -> str | None:
    """The compression a stream's first bytes show, or ``None`` for plain bytes. Parquet, which
    is read by its footer, is refused."""
    found = _MAGIC.match(first)
    if found is None:
        return None
    if found.lastindex == 5:
        raise InputError(f"{named(name)} holds a Parquet file, which is read from a file: give its path.")
    return _COMPRESSION_GROUPS[found.lastindex - 1]  # type: ignore[operator]


def _decompressed(buffered: io.BufferedReader[Any], compression: str | None, name: str) -> BinaryIO:
    if compression is None or not buffered.peek(1):  # an empty file is empty text, whatever its suffix
        return buffered  # type: ignore[return-value]
    if compression == "gzip":  # refuses bytes after its members that begin none (but zeros)
        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    if compression == "bzip2":
        streams = _Streams(buffered, bz2.BZ2Decompressor)
    elif compression == "xz":  # streams may be padded with NUL bytes (the xz format)
        streams = _Streams(buffered, lzma.LZMADecompressor, padding=b"\0")
    else:
        try:
            import zstandard
        except ImportError:
            raise InputError(
                f"Reading {name!r} needs the zstandard package: pip install zstandard."
            ) from None
        # Frames written with a long window (``zstd --long=31``, for large corpora) need up to
        # 2 GB to decode, as ``zstd -d --long=31`` gives them; zstandard refuses beyond 128 MB.
        decompressor = zstandard.ZstdDecompressor(max_window_size=ZSTD_WINDOW_MOST)
        streams = _Streams(buffered, decompressor.decompressobj, bounded=False)
    return io.BufferedReader(streams, BLOCK)  # type: ignore[arg-type,return-value]


class _Streams(io.RawIOBase):
    """The text of compressed streams one after another (``cat a.xz b.xz`` is one file). The
    standard library's bzip2 and xz readers take whatever follows a first stream and does not
    decode for trailing junk, and end there quietly: a damaged second stream, or xz's padding
    between streams, lost the rest of the file uncounted. Here bytes after a stream (but the
    format's ``padding``) begin the next one or fail as a damaged archive, and input that ends
    inside a stream is a truncated one (``EOFError``).

    ``new_stream()`` makes a decompressor of one stream; ``bounded``: its ``decompress`` takes a
    ``max_length`` (zstandard's does not, and gives a call's whole output at once: it is given
    ``ZSTD_INPUT`` bytes at a time, which bounds the memory)."""

    def __init__(
        self, compressed: BinaryIO, new_stream: Callable[[], Any], padding: bytes = b"", bounded: bool = True
    ) -> None:
        self._compressed = compressed
        self._new_stream = new_stream
        self._padding = padding
        self._bounded = bounded
        self._stream: Any = None  # the stream being read, if one has begun
        self._pending = b""  # input after the stream that ended, not yet read
        self._padded = 0  # padding bytes since the last stream ended
        self._out = memoryview(b"")  # decompressed and not yet read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out:
            out = self._more(len(buffer))
            if out is None:
                return 0
            self._out = memoryview(out)
        size = min(len(buffer), len(self._out))
        buffer[:size] = self._out[:size]
        # once read out, the output is let go before the next is made (a view would keep it)
        self._out = self._out[size:] if size < len(self._out) else memoryview(b"")
        return size

    def _more(self, size: int) -> bytes | None:
        """More decompressed bytes (perhaps none yet), or ``None`` at the end of the input."""
        stream = self._stream
        if self._bounded and stream is not None and not stream.eof and not stream.needs_input:
            return self._decompress(stream, b"", size)  # the output held back from input given before
        data = self._pending or self._compressed.read(BLOCK if self._bounded else ZSTD_INPUT)
        self._pending = b""
        if not data:
            if (stream is not None and not stream.eof) or self._padded % 4:
                raise EOFError("the input ends inside a stream, or its padding")
            return None
        if stream is None or stream.eof:
            if self._padding and stream is not None:  # padding comes after a stream, four bytes at a time
                kept = data.lstrip(self._padding)
                self._padded += len(data) - len(kept)
                if not kept:
                    return b""
                if self._padded % 4:
                    raise EOFError("the padding between streams is not whole")
                data, self._padded = kept, 0
            stream = self._stream = self._new_stream()
        return self._decompress(stream, data, size)

    def _decompress(self, stream: Any, data: bytes, size: int) -> bytes:
        out = stream.decompress(data, size) if self._bounded else stream.decompress(data)
        if stream.eof:  # what follows it (the next stream, padding or damage) is read next
            self._pending = stream.unused_data
        return out  # type: ignore[no-any-return]


# -- text --------------------------------------------------------------------------------------


def text_blocks(source: Source, read: Callable[[int], None] = lambda n: None) -> Iterator[str]:
    """The source's UTF-8 text a block at a time, without a leading byte-order mark; binary
    (a NUL byte) or undecodable text is refused naming the line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 1  # the line the next decoded character is on
    first = True
    for data in byte_blocks(source, read):
        text = _decode(decoder, data, source, lines)
        if "\x00" in text:
            line = lines + text[: text.index("\x00")].count("\n")
            raise InputError(
                f"{named(source.name)} looks binary, not like text (a NUL byte on line {line:,})."
            )
        lines += text.count("\n")
        if first and text:
            text, first = text.removeprefix("\ufeff"), False
        if text:
            yield text
    _decode(decoder, b"", source, lines, final=True)


def _decode(
    decoder: codecs.IncrementalDecoder, data: bytes, source: Source, line: int, final: bool = False
) -> str:
    held = len(decoder.getstate()[0])  # bytes of a character the last block cut in two
    try:
        return decoder.decode(data, final)
    except UnicodeDecodeError as error:
        line += data[: max(error.start - held, 0)].count(b"\n")
        raise InputError(f"{named(source.name)} is not valid UTF-8 (line {line:,}).") from None


def head_refusal(name: str) -> InputError | None:
    """Why a file surely cannot be read as text, told by its first 64 kB (a picture, a binary
    file), or ``None``: asked before the user is asked about unsaved work that opening it would
    replace. A compressed or Parquet file is left to its reading, as is anything not a regular
    file."""
    kind, compression = kind_of(name)
    if kind == "parquet" or compression is not None or not os.path.isfile(name):
        return None
    if Path(name).suffix.lower() not in _NAMED_KINDS and compression_of_head(name) is not None:
        return None
    try:
        with open(name, "rb") as stream:
            head = stream.read(1 << 16)
    except OSError as error:
        return unreadable(name, error)
    source = Source(name, kind, None, len(head))
    try:
        _decode(codecs.getincrementaldecoder("utf-8")(), head, source, 1)
    except InputError as error:
        return error
    return None


def spannable(source: Source) -> bool:
    """Whether parts of ``source`` can be read by offset (:func:`part_text`): an uncompressed
    regular file, so that a counting process reads its own part and nothing is read twice."""
    if source.data is not None or source.compression is not None or source.name == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(source.name).st_mode)
    except OSError:
        return False  # the reading path says why it cannot be read


def part_text(name: str, start: int, stop: int) -> str:
    """The UTF-8 text of bytes ``start`` to ``stop`` of a file cut where no character is split,
    refused as :func:`text_blocks` refuses a fault, naming its line in the whole file."""
    try:
        with open(name, "rb") as file:
            file.seek(start)
            data = file.read(stop - start)
    except OSError as error:
        raise unreadable(name, error) from None
    if len(data) < stop - start:  # cut shorter since it was measured: what was counted is not the file
        raise InputError(f"The file {name!r} changed while it was being read; count it again.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = _line_at(name, start + error.start)
        raise InputError(f"The file {name!r} is not valid UTF-8 (line {line:,}).") from None
    if "\x00" in text:
        line = _line_at(name, start + data.index(b"\x00"))
        raise InputError(f"The file {name!r} looks binary, not like text (a NUL byte on line {line:,}).")
    return text.removeprefix("\ufeff") if start == 0 else text


def _line_at(name: str, offset: int) -> int:
    """The line of a file holding byte ``offset`` (counted only to name a fault)."""
    line = 1
    with open(name, "rb") as file:
        while offset > 0:
            block = file.read(min(BLOCK, offset))
            if not block:
                break
            line += block.count(b"\n")
            offset -= len(block)
    return line


# -- records -----------------------------------------------------------------------------------


def jsonl_line_batches(
    source: Source, read: Callable[[int], None] = lambda n: None
) -> Iterator[tuple[int, list[str]]]:
    """The source's lines in batches, each with the number of its first line (the lines are
    parsed where they are counted: :func:`texts_of_lines`). A line is held whole, so one longer
    than the input limit is refused (a JSON document of gigabytes saved on one line)."""
    limit = input_limit()
    pending: list[str] = []  # the line begun in the blocks before, in pieces (joined once)
    held = 0
    number = 1
    batch: list[str] = []
    first_number = 1
    for block in text_blocks(source, read):
        lines = block.split("\n")
        if held + len(block) > limit:  # some line may be too long: which?
            lengths = [held + len(lines[0]), *map(len, lines[1:])]
            if (longest := max(lengths)) > limit:
                shown = "standard input" if source.name == STDIN else repr(source.name)
                raise InputError(
                    f"Line {number + lengths.index(longest):,} of {shown} is longer than "
                    f"{limit // 2**20:,} MB, the input limit (set {LIMIT_VARIABLE} to raise it)."
                )
        if len(lines) == 1:
            pending.append(block)
            held += len(block)
            continue
        lines[0] = "".join([*pending, lines[0]])
        tail = lines.pop()
        pending, held = [tail], len(tail)
        for line in lines:
            if not batch:
                first_number = number
            batch.append(line)
            number += 1
            if len(batch) >= RECORDS_PER_BATCH:
                yield first_number, batch
                batch = []
    if last := "".join(pending):
        if not batch:
            first_number = number
        batch.append(last)
    if batch:
        yield first_number, batch


PARSED_ONLY_OBJECTS = 1 << 20  # characters beyond which only a line that is an object is parsed
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_ONE_A_LINE = " (JSON lines hold one object a line: a JSON document is not read)"


# A JSON lines file's first line is read up to this long to tell it from a JSON document.
FIRST_LINE_MOST = 64 << 20
_BLANK = b"\xef\xbb\xbf \t\r\n"  # a byte order mark and blank lines before the first line


def looks_like_json_lines(path: str | Path) -> bool:
    """Whether a file (plain or compressed) reads as JSON lines: its first line that is not
    blank a whole JSON object, and not one of the JSON documents saved on one line that
    share the ``.json`` suffix (a BPE Studio session, a Hugging Face tokenizer). A
    pretty-printed document's first line is ``{`` or ``[`` alone."""
    first = bytearray()  # from the first byte that is not blank
    try:
        for block in byte_blocks(Source(str(path), *kind_of(str(path)), None)):
            block = block if first else block.lstrip(_BLANK)
            first += block
            if b"\n" in block or len(first) >= FIRST_LINE_MOST:
                break
        record = json.loads(bytes(first).split(b"\n", 1)[0])
    except (InputError, ValueError, RecursionError):
        return False
    return isinstance(record, dict) and _document_kind(record) is None


def _json_record(line: str) -> Any:
    """A JSON line's value; also where ``json.loads`` alone refuses a line that is JSON all the
    same: one beginning with a byte order mark (files that each begin with one, joined by
    ``cat``), or holding a whole number of more digits than Python converts (read as 0: only
    the text field's string is used). Raises ``ValueError`` or ``RecursionError`` otherwise."""
    try:
        return json.loads(line)
    except ValueError:
        return json.loads(line.removeprefix("\ufeff"), parse_int=_any_whole_number)


def _any_whole_number(_digits: str) -> int:
    return 0


def _document_kind(record: dict) -> str | None:
    """What a JSON document saved on one line is, when it is one people give for a corpus by
    mistake (found where a first record lacks the text field)."""
    if record.get("format") == SESSION_FORMAT:
        return "a saved BPE Studio session"
    model = record.get("model")
    if isinstance(model, dict) and ("vocab" in model or model.get("type") in _TOKENIZER_MODELS):
        return "a Hugging Face tokenizer"
    return None


_TOKENIZER_MODELS = {"BPE", "WordPiece", "WordLevel", "Unigram"}


_CR_ENDED = re.compile(r"\}[ \t]*\r[ \t]*\{")


def texts_of_lines(name: str, first_number: int, lines: list[str], field: str) -> list[str]:
    """The text of each JSONL line (blank lines skipped), or one sentence naming the line that
    is not a JSON object with a string in ``field``."""
    texts: list[str] = []
    source = "standard input" if name == STDIN else repr(name)

    def hint() -> str:  # the file's first record: most likely the file is one JSON document
        return _ONE_A_LINE if first_number == 1 and not texts else ""

    for number, line in enumerate(lines, start=first_number):
        if not line.lstrip("\ufeff").strip():  # blank, or a byte order mark alone (files joined by cat)
            continue
        # A long line that is no object (a JSON array saved on one line) is not parsed: a parse
        # would take many times its size in memory only to be refused.
        if len(line) > PARSED_ONLY_OBJECTS and not line.lstrip("\ufeff \t\r").startswith("{"):
            raise InputError(f"Line {number:,} of {source} is not a JSON object{hint()}.")
        try:
            record = _json_record(line)
        except RecursionError:
            raise InputError(f"Line {number:,} of {source} nests JSON too deeply to be read.") from None
        except ValueError:
            if _CR_ENDED.search(line):  # records ended by CR alone, as old Mac files end lines, read as one
                raise InputError(
                    f"Line {number:,} of {source} is not JSON: its records end with a carriage return "
                    "alone, and JSON lines end with a line feed."
                ) from None
            raise InputError(f"Line {number:,} of {source} is not JSON{hint()}.") from None
        if not isinstance(record, dict):
            raise InputError(f"Line {number:,} of {source} is not a JSON object{hint()}.")
        if field not in record:
            if first_number == 1 and not texts and (what := _document_kind(record)):
                raise InputError(f"{named(name)} is {what}, not a corpus of JSON lines.")
            keys = ", ".join(quoted(key) for key in list(record)[:8]) + (", …" if len(record) > 8 else "")
            has = f" (it has {keys})" if record else " (it is empty)"
            raise InputError(f"Line {number:,} of {source} has no field {quoted(field)}{has}.")
        text = record[field]
        if not isinstance(text, str):
            raise InputError(f"Line {number:,} of {source} has a {quoted(field)} that is not a string.")
        if "\x00" in text:  # an escaped NUL (\u0000): no text holds one
            raise InputError(
                f"Line {number:,} of {source} has a {quoted(field)} holding a NUL character, "
                "which is not text."
            )
        # A JSON escape may name half of a surrogate pair alone ("\ud800"), which no text holds and
        # no UTF-8 file can store: refused here, where the line is known. Only lines spelling such
        # an escape are searched.
        if "\\u" in line and _SURROGATE_ESCAPE.search(line) and has_lone_surrogate(text):
            raise InputError(
                f"Line {number:,} of {source} has a {quoted(field)} holding a lone surrogate "
                "(an escape from \\ud800 to \\udfff without its pair), which is not text."
            )
        texts.append(text)
    return texts


def parquet_batches(
    source: Source, field: str, read: Callable[[int], None] = lambda n: None
) -> Iterator[list[str]]:
    """The strings of column ``field``, a batch of rows at a time; a missing column, a column
    that is not text, a null and a file that is not Parquet are refused with one sentence. An
    empty file is no rows, as an empty file of any kind is no text."""
    if source.size == 0 and source.data is None:
        return
    parquet = parquet_text_column(source, field)  # (which says if pyarrow is missing)
    import pyarrow as pa
    import pyarrow.compute as pc

    row = 1
    done = 0
    try:
        for group in range(parquet.num_row_groups):
            batches = parquet.iter_batches(RECORDS_PER_BATCH, row_groups=[group], columns=[field])
            for batch in batches:
                column = batch.column(0)
                if column.null_count:
                    nulls = column.is_null().to_pylist()
                    at = row + nulls.index(True)
                    raise InputError(f"Row {at:,} of {source.name!r} has no {quoted(field)} (null).")
                try:
                    texts = column.to_pylist()
                except UnicodeDecodeError:  # a string column may hold bytes that are not UTF-8
                    at = row + first_not_utf8(column)
                    raise InputError(
                        f"Row {at:,} of {source.name!r} has a {quoted(field)} that is not valid UTF-8."
                    ) from None
                # searched as plain strings: compute has no kernel for dictionaries or views
                plain_type = pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
                plain = column if plain_type else column.cast(pa.large_string())
                if pc.any(pc.match_substring(plain, "\x00")).as_py():
                    at = row + next(i for i, text in enumerate(texts) if "\x00" in text)
                    raise InputError(
                        f"Row {at:,} of {source.name!r} has a {quoted(field)} holding a NUL character, "
                        "which is not text."
                    )
                yield texts
                row += len(column)
            size = source.size or 0
            now = size * (group + 1) // max(parquet.num_row_groups, 1)
            read(now - done)
            done = now
    except (OSError, pa.ArrowException):  # a damaged page: pyarrow says OSError
        raise InputError(f"The Parquet file {source.name!r} is damaged (from row {row:,}).") from None


def first_not_utf8(column: Any) -> int:
    """The place of the first string in ``column`` (a pyarrow array, chunked or not) that is
    not UTF-8 (0 if none is)."""
    for place, value in enumerate(column):
        try:
            value.as_py()
        except UnicodeDecodeError:
            return place
    return 0


def parquet_text_column(source: Source, field: str) -> Any:
    """The Parquet file of ``source`` opened (a ``pyarrow.parquet.ParquetFile``), once its
    column ``field`` is known to be one column of strings: else refused with one sentence
    naming the file (its schema only is read)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            f'Reading the Parquet file {source.name!r} needs pyarrow: pip install "bpe-studio[parquet]".'
        ) from None
    if source.name == STDIN:
        raise InputError("Standard input is read as text; give a Parquet file by its path.")
    try:
        parquet = pq.ParquetFile(source.name)
    except (OSError, pa.ArrowException):
        raise InputError(f"The file {source.name!r} is not a Parquet file, or it is damaged.") from None
    names = parquet.schema_arrow.names
    if field not in names:
        shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
        raise InputError(f"The Parquet file {source.name!r} has no column {quoted(field)} (it has: {shown}).")
    if names.count(field) > 1:
        raise InputError(
            f"The Parquet file {source.name!r} has {names.count(field)} columns named {quoted(field)}, "
            "so which one holds the text is unclear."
        )
    column_type = parquet.schema_arrow.field(field).type
    if not is_text_type(column_type):
        raise InputError(f"The column {quoted(field)} of {source.name!r} holds {column_type}, not strings.")
    return parquet


def is_text_type(column_type: Any) -> bool:
    """Whether a Parquet column of this Arrow type holds strings: plain, large, viewed, or
    dictionary-encoded (pandas' ``category``)."""
    import pyarrow as pa

    if pa.types.is_dictionary(column_type):
        column_type = column_type.value_type
    viewed = getattr(pa.types, "is_string_view", lambda t: False)(column_type)
    return bool(pa.types.is_string(column_type) or pa.types.is_large_string(column_type) or viewed)
