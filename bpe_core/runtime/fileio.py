"""Reading input files within a size limit, and writing files atomically.

Reading stops with one sentence past a size limit (``/dev/zero`` or a FIFO would otherwise be
read until memory runs out). Writing goes through a temporary file beside the target and a
rename, so a crash, kill or full disk never leaves a half-written file; a new file gets the
user's umask, a replaced one keeps its mode, and a symlink is written through (the link stays).
A character device or a FIFO (``-o /dev/null``) is written into, as ``cp`` would: there is no
file to replace, and replacing it would put a file where the device was.
Temporary files that a killed save left behind are removed by the next save to that folder.

A tokenizer is read more than once (its format is told from its head, then it is read): a pipe
or FIFO given as one (``--model <(zcat model.json.gz)``) is read once into memory by
:func:`spooled`, and every reader opens it with :func:`open_input`.
"""

from __future__ import annotations

import codecs
import contextlib
import glob
import io
import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from bpe_core.errors import InputError, SessionError

LIMIT_VARIABLE = "BPE_STUDIO_MAX_INPUT_MB"
DEFAULT_LIMIT_MB = 2048  # well above the largest real corpus anyone trains on a desktop
_CHUNK = 16 * 2**20
TEXT_BLOCK = 2**20  # bytes of text read at a time by text_blocks()
# What tempfile.mkstemp puts between our prefix (".NAME.PID.") and suffix (".tmp").
_RANDOM_PART = re.compile(r"[a-z0-9_]{8}")
_STEM_BYTES = 200  # of a long name, begin its temporary files' names (see _stem)
_MAX_PID = 2**31 - 1  # pid_t: a larger number is no process's, and os.kill refuses it
STDIN_COPY = "bpe-studio-stdin-"  # the start of a temporary folder's name holding standard input
STDIN_NAME = "-"  # standard input, where a file is named
_SPOOLED: dict[str, bytes] = {}  # path -> the bytes of a pipe read by spooled()
_placing = 0  # see placements()
_interrupted = False  # see note_interrupt()
_together = threading.local()  # .prepared: the files a replaced_together() block will place


def input_limit() -> int:
    """Bytes a single input file may have (``BPE_STUDIO_MAX_INPUT_MB`` overrides the default)."""
    value = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not value:
        return DEFAULT_LIMIT_MB * 2**20
    if not (value.isdigit() and value.isascii() and int(value) > 0):
        raise InputError(
            f"{LIMIT_VARIABLE} is {value!r}; set it to a whole number of megabytes, such as 4096."
        )
    return int(value) * 2**20


def read_bounded(path: Path, what: str = "file") -> bytes:
    """The bytes of ``path``, refusing more than :func:`input_limit` with one sentence. A
    leading UTF-8 byte-order mark, which some editors write, is dropped: every file read here
    is UTF-8 text or JSON, where it means nothing."""
    data = b"".join(_blocks(path, what, _CHUNK))
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def text_blocks(path: str | Path, size: int | None = None) -> Iterator[str]:
    """The UTF-8 text of ``path`` (``-``: standard input) a block of about ``size`` bytes at a
    time, without a leading byte-order mark, refused as a whole text file is
    (``corpus.read_text_file``): beyond the input limit, binary (a NUL byte) or not UTF-8.
    The refusal comes when the block that holds the fault is read, after the blocks before it:
    where nothing may be written before it, read a file through once first."""
    if not str(path):  # Path("") is the current folder, and would be named so
        raise InputError("The file '' does not exist.")
    path = Path(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    fed = 0  # bytes given to the decoder so far
    marks = 2  # byte-order marks dropped at the start at most (as read_text_file does)
    for data in _blocks(path, "file", size or TEXT_BLOCK, stdin=True):
        if b"\x00" in data:  # anywhere: a NUL byte deep in a file is as binary as one at the start
            raise InputError(f"{_named(path)} looks binary, not like text (it contains NUL bytes).")
        text = _decoded(decoder, data, fed, path)
        fed += len(data)
        while marks and text:
            if not text.startswith("\ufeff"):
                marks = 0
                break
            text, marks = text[1:], marks - 1
        if text:
            yield text
    _decoded(decoder, b"", fed, path, final=True)


def _decoded(
    decoder: codecs.IncrementalDecoder, data: bytes, fed: int, path: Path, final: bool = False
) -> str:
    held = len(decoder.getstate()[0])  # bytes of a character the last block cut in two
    try:
        return decoder.decode(data, final)
    except UnicodeDecodeError as error:
        at = fed - held + error.start
        raise InputError(f"{_named(path)} is not valid UTF-8 (byte {at} cannot be decoded).") from None


def _named(path: Path, what: str = "file") -> str:
    """How a message names ``path``: ``-`` is standard input."""
    return "Standard input" if str(path) == STDIN_NAME else f"The {what} {str(path)!r}"


def _blocks(path: Path, what: str, size: int, stdin: bool = False) -> Iterator[bytes]:
    """The bytes of ``path`` a block at a time, within :func:`input_limit`; ``stdin``: ``-``
    is standard input."""
    limit = input_limit()
    total = 0
    try:
        from_stdin = stdin and str(path) == STDIN_NAME
        opened = contextlib.nullcontext(sys.stdin.buffer) if from_stdin else open_input(path)
        with opened as stream:
            while block := stream.read(min(size, limit + 1 - total)):
                total += len(block)
                if total > limit:
                    raise InputError(
                        f"{_named(path, what)} is larger than {limit // 2**20:,} MB, the input limit "
                        f"(set {LIMIT_VARIABLE} to raise it)."
                    )
                yield block
    except FileNotFoundError:
        raise InputError(f"The {what} {str(path)!r} does not exist.") from None
    except IsADirectoryError:
        raise InputError(f"{str(path)!r} is a folder, not a file.") from None
    except OSError as error:
        raise InputError(f"{_named(path, what)} cannot be read ({error.strerror}).") from None


def open_input(path: Path) -> BinaryIO:
    """``path`` opened for reading in binary, from memory if :func:`spooled` read it."""
    data = _SPOOLED.get(str(path))
    return io.BytesIO(data) if data is not None else path.open("rb")


def within_limit(stream: BinaryIO) -> bool:
    """Whether a stream from :func:`open_input` is in memory, or a regular file no larger than
    the input limit (readers that stream a file give up on anything else)."""
    if isinstance(stream, io.BytesIO):
        return True
    info = os.fstat(stream.fileno())
    return stat.S_ISREG(info.st_mode) and info.st_size <= input_limit()


def regular_file_size(path: str | Path) -> int | None:
    """The size of ``path`` if it is a regular file (which can be read again), else ``None``."""
    if str(path) in _SPOOLED:
        return len(_SPOOLED[str(path)])
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None  # missing or unreadable: the reader reports it
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def is_pipe(path: str | Path) -> bool:
    """Whether ``path`` is a pipe or FIFO (``<(command)`` gives one), which can be read only once."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False  # missing or unreadable: the reader reports it


@contextmanager
def spooled(path: str | Path, what: str = "file") -> Iterator[None]:
    """Within the block, a pipe or FIFO at ``path`` is read once (within the input limit) and
    :func:`open_input` serves its bytes to every reader: opening it a second time would wait
    forever for a writer that has gone. Anything else is read as usual (``/dev/zero`` is then
    told from its head not to be a tokenizer, without reading 2 GB of it first)."""
    if not is_pipe(path) or str(path) in _SPOOLED:
        yield
        return
    _SPOOLED[str(path)] = read_bounded(Path(path), what)
    try:
        yield
    finally:
        del _SPOOLED[str(path)]


def check_writable(path: str | Path, example: str = "model.json") -> Path:
    """Where saving to ``path`` will write (a symlink's target), checked before long work, so a
    bad output path is reported at once rather than after training (``example``: a file name
    to suggest where ``path`` is a folder)."""
    text = str(path)
    if not text.strip():
        raise SessionError("The output file name is empty.")
    try:  # a name too long, or a loop of symbolic links, is said by the system
        is_folder = text.endswith(os.sep) or Path(text).is_dir()
        target = Path(os.path.realpath(text))
        if not target.exists() and Path(text).exists():  # /dev/fd/63: a pipe, whose "pipe:[N]" no path names
            target = Path(text)
        _kind(target)
    except OSError as error:
        raise SessionError(f"Cannot write {text!r} ({error.strerror}).") from None
    if is_folder:
        raise SessionError(
            f"The output {text!r} is a folder; give a file name such as {text.rstrip(os.sep)}/{example}."
        )
    folder = target.parent
    if not folder.is_dir():
        raise SessionError(f"Cannot write {text!r}: the folder {str(folder)!r} does not exist.")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise SessionError(f"Cannot write {text!r}: permission denied.")
    return target


def placements() -> int:
    """How many writes of this process have begun putting their files in place.

    After that point only renames remain, which a signal does not stop, so the new files are
    in place: a command that sees this number rise has done its work, and a Ctrl+C or SIGTERM
    then comes too late to interrupt it (the command line ends with success, not "Interrupted.").
    """
    return _placing


def note_interrupt() -> None:
    """A Ctrl+C or SIGTERM came before any file was placed: none will be. Its handler raises
    KeyboardInterrupt, which Python prints and drops when it lands in a weakref's or the
    collector's callback; the command went on and wrote its output with success."""
    global _interrupted
    _interrupted = True


def interrupted() -> bool:
    return _interrupted


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (UTF-8 text, or bytes) via a temporary file in the same
    folder and a rename."""
    write_all_atomic([(path, text)])


def write_all_atomic(files: Sequence[tuple[str | Path, str | bytes]]) -> None:
    """Write several files that belong together (GPT-2's vocabulary and merges): every one is
    written to its temporary file before any is renamed into place, so that a full disk or an
    interrupt leaves the old set whole rather than a new file beside an old one. Within
    :func:`replaced_together`, the renames wait for the end of the block."""
    prepared: list[tuple[str, Path, str | Path]] = []  # (temporary, target, path) once written
    targets: list[Path] = []
    try:
        for path, text in files:
            target = check_writable(path)
            targets.append(target)
            data = text.encode("utf-8") if isinstance(text, str) else text
            kind = _kind(target)
            if kind is not None and (stat.S_ISCHR(kind) or stat.S_ISFIFO(kind)):
                _write_into(path, target, data)
            elif kind is not None and not stat.S_ISREG(kind):
                raise SessionError(
                    f"Cannot write {str(path)!r}: it is neither a file nor a device to write into."
                )
            else:
                prepared.append((_written_beside(path, target, data), target, path))
        waiting = getattr(_together, "prepared", None)
        if waiting is not None:
            waiting.extend(prepared)  # the block's end renames them, or removes them
            prepared = []
        else:
            _place(prepared)
    except BaseException:
        for target in targets:  # one made just before Ctrl+C, not yet listed in ``prepared``
            _remove_own_temporaries(target)
        raise
    finally:  # Ctrl+C, SIGTERM, a full disk: no temporary left behind
        _remove(prepared)


@contextmanager
def replaced_together() -> Iterator[None]:
    """Files written in the block (:func:`write_atomic`, :func:`write_all_atomic`) are renamed
    into place together when it ends, and none is if it ends with an exception: a command's
    outputs (a model and its walk-through) are then all new or all as they were."""
    if getattr(_together, "prepared", None) is not None:  # nested: the outer block places them
        yield
        return
    prepared: list[tuple[str, Path, str | Path]] = []
    _together.prepared = prepared
    try:
        yield
        _together.prepared = None
        _place(prepared)
    finally:
        _together.prepared = None
        _remove(prepared)


def _place(prepared: list[tuple[str, Path, str | Path]]) -> None:
    global _placing
    if _interrupted:  # an interrupt dropped on its way (see note_interrupt)
        raise KeyboardInterrupt
    _placing += 1  # from here the new files are going in, whatever signal comes (see placements)
    for temporary, target, path in prepared:
        try:
            os.replace(temporary, target)
        except OSError as error:
            raise SessionError(f"Cannot write {str(path)!r} ({error.strerror}).") from None


def _remove(prepared: list[tuple[str, Path, str | Path]]) -> None:
    for temporary, _, _ in prepared:
        Path(temporary).unlink(missing_ok=True)


def _write_into(path: str | Path, target: Path, data: bytes) -> None:
    try:
        with target.open("wb") as stream:
            stream.write(data)
    except OSError as error:
        raise SessionError(f"Cannot write {str(path)!r} ({error.strerror}).") from None


def _written_beside(path: str | Path, target: Path, data: bytes) -> str:
    """A temporary file beside ``target`` holding ``data``, flushed to disk, with the mode the
    target will have."""
    with contextlib.suppress(Exception):  # a courtesy: nothing in it may cost the user a save
        _remove_stale_temporaries(target)
    try:
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{_stem(target)}.{os.getpid()}.", suffix=".tmp"
        )
    except OSError as error:
        raise SessionError(f"Cannot write to the folder of {str(path)!r} ({error.strerror}).") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, _mode_for(target))
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise SessionError(f"Cannot write {str(path)!r} ({error.strerror}).") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def _stem(target: Path) -> str:
    """The part of ``target``'s name its temporary files begin with: the name, cut to leave
    room for the rest of theirs where it is long (a name may take 255 bytes, and so may theirs)."""
    name = target.name
    while len(os.fsencode(name)) > _STEM_BYTES:
        name = name[:-1]
    return name


def _kind(target: Path) -> int | None:
    """The file type bits of ``target`` (``None`` if it does not exist)."""
    try:
        return stat.S_IFMT(target.stat().st_mode)
    except FileNotFoundError:
        return None


def _mode_for(target: Path) -> int:
    """A replaced file keeps its mode; a new one gets the user's umask (as ``open`` would)."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove_own_temporaries(target: Path) -> None:
    """This process's temporary files for ``target``: an interrupt between a temporary's
    making and its listing among those to remove left it behind."""
    with contextlib.suppress(OSError):
        for leftover in target.parent.glob(f".{glob.escape(_stem(target))}.{os.getpid()}.*.tmp"):
            leftover.unlink(missing_ok=True)


def _remove_stale_temporaries(target: Path) -> None:
    """Temporary files of ours for ``target`` whose writing process is gone (killed mid-save).

    A courtesy, so it never fails a save: a name that only looks like ours (a number no process
    can have, other digits, anything after ``.tmp``), a folder or link so named, or a file that
    cannot be removed is left where it is."""
    prefix = f".{_stem(target)}."
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid, _, random = name[len(prefix) : -len(".tmp")].partition(".")
        if not (_RANDOM_PART.fullmatch(random) and _writer_gone(pid)):
            continue
        path = target.parent / name
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):  # mkstemp makes plain files, nothing else
                os.unlink(path)
        except OSError:
            pass


def _writer_gone(pid_text: str) -> bool:
    """Whether ``pid_text`` names a process id and no such process runs any more."""
    if not (pid_text.isascii() and pid_text.isdigit() and len(pid_text) <= len(str(_MAX_PID))):
        return False
    pid = int(pid_text)
    if not 0 < pid <= _MAX_PID or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError, ValueError):  # another user's process, or anything unexpected
        return False
    return False
