"""Counting word types over many inputs on every core, streaming.

BPE's data-sized work is counting word types (pieces after normalization and
pre-tokenization); the merge loop then works on the types. Here the inputs
(``bpe_core.io.sources``) are handed out as tasks: an uncompressed text file as parts of about
:data:`CHUNK` bytes, named by offset, which the counting process reads and decodes itself (the
main process only looks for the cuts, so it reads next to nothing); a compressed text in chunks
it decompresses; JSONL lines and Parquet rows in batches. Worker
processes count the tasks into running totals (``bpe_core.io.count_workers``), added up at the
end so that word types keep the order of their first appearance (the ``first-seen`` tie-break
depends on it); peak memory follows the number of word types, not the size of the input.

With ``lines`` each line of a text input (its line break kept) is a text of its own, as
Hugging Face's ``train(files)`` reads files: a prefix space or a first-piece rule then applies to
every line, and a run of spaces before a line break never joins the break. Such a text is cut
after any line break.

A text is cut only where nothing it holds crosses the cut: before a space between two letters
(``bpe_core.pipeline.pretokenize.safe_chunks``) that no special token spans. Normalization keeps
such a boundary (every normal form and lowercasing map a letter and a space on their own), so
the counts of the parts add up to the counts of the whole text, exactly. Pipelines whose steps
give no such guarantee (custom chains, ``none``: one piece per text) count each text whole.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import AnyStr, BinaryIO

from bpe_core.errors import Cancelled, InputError
from bpe_core.io.count_workers import count_on_workers
from bpe_core.io.counts_file import HEADER, has_header, is_counts_parquet
from bpe_core.io.sources import (
    DEFAULT_FIELD,
    SESSION_FORMAT,
    Source,
    byte_blocks,
    jsonl_line_batches,
    named,
    parquet_batches,
    part_text,
    spannable,
    text_blocks,
    texts_of_lines,
    unreadable,
)
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus, count_text_into
from bpe_core.pipeline.pretokenize import letter_spaces
from bpe_core.runtime.fileio import input_limit

CHUNK = 1 << 21  # characters (bytes, in a part) of text a task holds at least (cut at the next safe place)
# Tasks each worker should get from inputs of known size, at least: with a few large tasks one
# worker may be left counting the last alone (10 MB with the GPT-2 pattern on two workers: five
# tasks of 2 MB took 0.41 s, 32 tasks 0.34 s). Tasks are never smaller than CHUNK / 8.
TASKS_PER_WORKER = 16
CUT_WINDOW = 1 << 16  # bytes of a file read at a time while looking for a cut
# Bytes of input under which one process counts: starting workers and adding their totals up
# costs more than they save. Measured on 10 MB of English: the GPT-2 pattern 0.60 s on one
# process, 0.44 s on two; a whitespace split (str.split, in C, a few times cheaper a byte)
# 0.24 s on one, 0.30 s on two, even at 20 MB: its bar is WHITESPACE_FACTOR times higher.
ONE_WORKER_BELOW = 1 << 22
WHITESPACE_FACTOR = 4

Progress = Callable[[int, int], None]  # (bytes read, bytes in all, or 0 when unknown)


@dataclass(frozen=True)
class Task:
    """What one worker counts: ``text`` (part of a text file; ``continues`` after an earlier
    part), ``part`` (bytes ``span`` of the file ``name``, read by the worker), ``lines`` (JSONL
    lines from line ``first``) or ``texts`` (Parquet rows). A ``text`` or ``part`` is a text
    a line, with ``each_line``."""

    kind: str
    name: str
    items: str | list[str]
    continues: bool = False
    first: int = 1
    span: tuple[int, int] = (0, 0)
    each_line: bool = False


@dataclass
class WordCounts:
    """Pieces in order of first appearance with their counts, and each special token's."""

    counter: Counter[str]
    specials: list[int]

    def corpus(self, config: PipelineConfig) -> Corpus:
        return Corpus.from_counter(self.counter, config, tuple(self.specials))


def count_sources(
    sources: Sequence[Source],
    config: PipelineConfig,
    field: str = DEFAULT_FIELD,
    workers: int = 1,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    fork: bool = False,
    lines: bool = False,
) -> WordCounts:
    """The word counts of every source, as :meth:`Corpus.from_text` counts each text, summed;
    with ``lines`` each line of a text source is a text (see the module's docstring).

    ``workers`` processes count (1: this one); ``progress(read, total)`` hears of the bytes
    read from the files; ``cancelled()`` is asked between tasks and stops the count
    (:class:`Cancelled`); ``fork``: the caller starts no threads, so the workers may be forked
    (else they are spawned). Raises ``InputError`` naming the file (and line or row) that cannot be read,
    before anything is returned.
    """
    for source in sources:
        refuse_other_than_text(source)
    sized = all(s.size is not None for s in sources)  # standard input's size is not known
    total = sum(s.size or 0 for s in sources) if sized else 0
    read = _Reading(progress, total)
    bar = ONE_WORKER_BELOW * (WHITESPACE_FACTOR if config.pretokenize == "whitespace" else 1)
    if sized and total < bar:  # empty files too: starting workers would cost a second for nothing
        workers = 1
    chunk = min(CHUNK, max(total // (workers * TASKS_PER_WORKER), CHUNK // 8)) if total else CHUNK
    chunk = max(chunk, 1)  # a part of no bytes would be cut at its own start again and again
    work = tasks(sources, config, field, read, chunk, lines)
    if workers <= 1:
        result = WordCounts(Counter(), [0] * len(config.special_tokens))
        for task in work:
            if cancelled():
                raise Cancelled
            count_task(task, config, field, result.counter, result.specials)
        return result
    # Forking is quick, but unsafe in a process with threads. Python cannot see every thread
    # (a GUI toolkit's own, a job on a QThread), so only a caller that knows it starts none
    # (the command line) lets the workers fork; the others spawn them.
    forks = fork and threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if forks else "spawn")
    return WordCounts(*count_on_workers(work, config, field, workers, context, cancelled))


_SESSION = re.compile(
    rb'\s*\{\s*"format"\s*:\s*"%s"' % re.escape(SESSION_FORMAT.encode())
)  # how a session begins


def refuse_other_than_text(source: Source) -> None:
    """A file named as text, JSON lines (a session is often named ``.json``) or Parquet that is
    word counts or a saved session is refused, named: counted, its counts or its JSON would be taken
    for words, or fail at a line. Only a regular file is looked at (a pipe's first bytes, read
    here, would be lost to the count)."""
    if source.data is not None or not os.path.isfile(source.name):
        return
    if source.kind == "parquet":
        if is_counts_parquet(source.name, exactly=True):
            raise InputError(
                f"The file {source.name!r} holds word counts (the columns word and count), not texts: "
                "give word counts with --input counts."
            )
        return
    _refuse_beginning(source, next(byte_blocks(source), b""))


def _refuse_beginning(source: Source, first: bytes) -> None:
    """:func:`refuse_other_than_text` told by the ``first`` bytes of the source's text."""
    first = first.removeprefix(b"\xef\xbb\xbf")
    if first.startswith(b"PAR1\x15"):  # Parquet's magic and its first page, without the suffix
        raise InputError(f"{named(source.name)} is a Parquet file: give it a name ending in .parquet.")
    if has_header(first[: len(HEADER) + 4]):
        raise InputError(
            f"{named(source.name)} holds word counts (its first line says so), not text: "
            "give word counts with --input counts."
        )
    if _SESSION.match(first):
        opened = "decompress it to open it" if source.compression else "open it"  # the window reads it plain
        raise InputError(
            f"{named(source.name)} is a saved BPE Studio session, not text: {opened} in the window, "
            "or give the corpus it was trained on."
        )


class _Reading:
    """Adds up the bytes read and tells ``progress`` (at most every 4 MB)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress = progress
        self._total = total
        self.done = 0
        self._told = 0

    def __call__(self, n: int) -> None:
        self.done += n
        if self._progress is not None and self.done - self._told >= 1 << 22:
            self._told = self.done
            self._progress(self.done, self._total)


def tasks(
    sources: Sequence[Source],
    config: PipelineConfig,
    field: str,
    read: Callable[[int], None],
    chunk: int = CHUNK,
    lines: bool = False,
) -> Iterator[Task]:
    """The tasks counting ``sources`` takes, a text in parts of about ``chunk`` (with ``lines``,
    each of its lines a text)."""
    for source in sources:
        if source.kind == "text":
            yield from _text_tasks(source, config, read, chunk, lines)
        elif source.kind == "jsonl":
            for first, batch in jsonl_line_batches(source, read):
                yield Task("lines", source.name, batch, first=first)
        else:
            for texts in parquet_batches(source, field, read):
                yield Task("texts", source.name, texts)


def _text_tasks(
    source: Source, config: PipelineConfig, read: Callable[[int], None], chunk: int, lines: bool
) -> Iterator[Task]:
    """A text file in parts cut where nothing crosses (see the module's docstring)."""
    cuttable = lines or (config.pretokenize not in ("none", "custom") and config.normalization != "custom")
    limit = input_limit()
    if spannable(source):
        yield from _part_tasks(source.name, cuttable, _special_bytes(config), limit, read, chunk, lines)
        return
    buffer = ""
    continues = False
    scan_from = chunk  # where to look for a cut: not again through text already searched
    for block in text_blocks(source, read):
        if not buffer and not continues:  # a stream's beginning, which no one looked at before
            _refuse_beginning(source, block[:4096].encode("utf-8", "surrogatepass"))
        buffer += block
        while cuttable and len(buffer) >= scan_from:
            cut = (
                _line_cut(buffer, scan_from) if lines else safe_cut(buffer, scan_from, config.special_tokens)
            )
            if cut is None:
                scan_from = max(len(buffer) - 1, chunk)  # the last space may yet have a letter after it
                break
            yield Task("text", source.name, buffer[:cut], continues, each_line=lines)
            buffer, continues, scan_from = buffer[cut:], True, chunk
        if len(buffer) > limit:
            raise _uncuttable(source.name, limit)
    if buffer:
        yield Task("text", source.name, buffer, continues, each_line=lines)


def _part_tasks(
    name: str,
    cuttable: bool,
    specials: list[bytes],
    limit: int,
    read: Callable[[int], None],
    chunk: int,
    lines: bool,
) -> Iterator[Task]:
    """An uncompressed file as parts named by offset, cut where :func:`safe_cut` would cut its
    text (found in its bytes: a space is one byte in UTF-8, and no character holds it); with
    ``lines``, a text a line, cut after a line break."""
    try:
        file = open(name, "rb")  # noqa: SIM115
    except OSError as error:
        raise unreadable(name, error) from None
    with file:
        size = os.fstat(file.fileno()).st_size
        start = 0
        find_cut = partial(_line_byte_cut, file) if lines else partial(_byte_cut, file, specials=specials)
        while start < size:
            cut = find_cut(start + chunk, size) if cuttable else None
            stop = size if cut is None else cut
            if stop - start > limit:
                raise _uncuttable(name, limit)
            read(stop - start)
            yield Task("part", name, "", continues=start > 0, span=(start, stop), each_line=lines)
            start = stop


def _uncuttable(name: str, limit: int) -> InputError:
    return InputError(
        f"{named(name)} holds more than {limit // 2**20:,} MB of text with no place to cut "
        "it, which is counted whole: beyond the input limit (BPE_STUDIO_MAX_INPUT_MB)."
    )


def _special_bytes(config: PipelineConfig) -> list[bytes]:
    return [token.encode("utf-8", "surrogatepass") for token in config.special_tokens]


def _byte_cut(file: BinaryIO, after: int, size: int, specials: list[bytes]) -> int | None:
    """The first offset at or after ``after`` of a space between two letters that no special
    token's occurrence spans, or ``None``."""
    margin = max([4, *map(len, specials)])  # bytes either side a cut's checks read
    at = after
    while at < size:
        base = max(at - margin, 0)
        file.seek(base)
        data = file.read(at - base + CUT_WINDOW + margin)
        end = at - base + CUT_WINDOW
        for found in _CUT_CANDIDATE.finditer(data, at - base, end + 1):  # (+1: the look at the byte after)
            space = found.start()
            letters = _letter_before(data, space) and _letter_after(data, space)
            if letters and not _spanned(data, space, specials):
                return base + space
        at += CUT_WINDOW
    return None


def _line_byte_cut(file: BinaryIO, after: int, size: int) -> int | None:
    """The offset just past the first line break at or after ``after``, or ``None``."""
    at = after
    while at < size:
        file.seek(at)
        found = file.read(CUT_WINDOW).find(b"\n")
        if found >= 0:
            return at + found + 1
        at += CUT_WINDOW
    return None


def _line_cut(text: str, after: int) -> int | None:
    found = text.find("\n", after)
    return None if found < 0 else found + 1


def lines_of(text: str) -> list[str]:
    """``text``'s lines, each with its line break (``\n``; a ``\r`` before it stays in the line),
    as Rust's ``lines_with_ending``, which Hugging Face's ``train(files)`` reads with."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


# A space that may sit between two letters: after an ASCII letter or a character's last byte,
# before an ASCII letter or a character's first byte (the others, such as the spaces of a table
# of numbers, are passed over in C: checked one by one, 30 MB of them took seconds).
_CUT_CANDIDATE = re.compile(rb"(?<=[A-Za-z\x80-\xbf]) (?=[A-Za-z\xc2-\xf4])")


def _letter_before(data: bytes, at: int) -> bool:
    start = max(at - 1, 0)
    while start > max(at - 4, 0) and data[start] & 0xC0 == 0x80:  # back over continuation bytes
        start -= 1
    return _is_letter(data[start:at])


def _letter_after(data: bytes, at: int) -> bool:
    if at + 1 >= len(data):
        return False
    lead = data[at + 1]
    length = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return _is_letter(data[at + 1 : at + 1 + length])


def _is_letter(encoded: bytes) -> bool:
    try:
        character = encoded.decode("utf-8")
    except UnicodeDecodeError:  # not a whole character: the part's reader names the fault
        return False
    return len(character) == 1 and character.isalpha()


def safe_cut(text: str, after: int, specials: Sequence[str] = ()) -> int | None:
    """The first place at or after ``after`` before a space between two letters that no
    special token's occurrence spans, or ``None``."""
    for cut in letter_spaces(text, after):
        if not _spanned(text, cut, specials):
            return cut
    return None


def _spanned(text: AnyStr, cut: int, specials: Sequence[AnyStr]) -> bool:
    for token in specials:
        start = text.find(token, max(cut - len(token) + 1, 0), cut + len(token) - 1)
        while start != -1 and start < cut:
            if start + len(token) > cut:
                return True
            start = text.find(token, start + 1, cut + len(token) - 1)
    return False


def count_task(
    task: Task,
    config: PipelineConfig,
    field: str,
    counter: Counter[str] | None = None,
    specials: list[int] | None = None,
) -> tuple[Counter[str], list[int]]:
    """The counts of one task's text or records (each record a text of its own), added to
    ``counter`` and ``specials`` when given (running totals), else counted afresh."""
    counter = Counter() if counter is None else counter
    specials = [0] * len(config.special_tokens) if specials is None else specials
    if task.kind in ("text", "part"):
        text = part_text(task.name, *task.span) if task.kind == "part" else task.items
        assert isinstance(text, str)
        if text and task.each_line:
            for line in lines_of(text):
                count_text_into(line, config, counter, specials)
        elif text:
            count_text_into(text, config, counter, specials, continues=task.continues)
        return counter, specials
    assert isinstance(task.items, list)
    texts = texts_of_lines(task.name, task.first, task.items, field) if task.kind == "lines" else task.items
    for text in texts:
        count_text_into(text, config, counter, specials)
    return counter, specials
