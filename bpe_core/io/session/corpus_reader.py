"""Reading a session's corpus straight into compact columns, from the file as it streams in.

``json.loads`` turns a corpus of a million word types into a million lists, strings and ints
(over 150 bytes each), only for them to be copied into ``Words`` and ``Counts`` and dropped;
and the file read whole is itself one more copy. A file as ``save_session`` writes it holds the
corpus on one line, ``  "corpus": {"words": [["w", 3], ...], "special_counts": [...]},``; that
line is read here a chunk of the file at a time, item by item, straight into the columns.

The fast reading accepts exactly what JSON accepts for these items, or gives up: each chunk's
items must tile it without a gap, strings follow JSON's grammar (escapes decoded by ``json``
itself), the text is valid UTF-8, words are distinct, counts positive and 64-bit. Anything else
(a file edited by hand, a huge count, a duplicate) returns ``None``, and the caller reads the
file as plain JSON, which then reports the problem in its usual words.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from bpe_core.pipeline.word_types import Counts, Words

CORPUS_KEY = b'  "corpus": '
START = CORPUS_KEY + b'{"words": ['
_END = re.compile(rb"\], \"special_counts\": \[((?:0|[1-9][0-9]{0,18})(?:, (?:0|[1-9][0-9]{0,18}))*)?\]\},\n")
# One [word, count] item and the separator after it (none after the chunk's last). The string is
# JSON's: no raw quote, backslash or control character, escapes checked when decoded. A count
# has at most 19 digits (2^62 has 19); one beyond 64 bits is left to json.
_ITEM = re.compile(rb'\["((?:[^"\\\x00-\x1f]|\\.)+)", ([1-9][0-9]{0,18})\](?:, |\Z)')
_SEPARATOR = b'], ["'
_CHUNK = 1 << 15  # findall makes ~9 bytes of objects per byte read: keep chunks small


def never_stop() -> None:
    """The checkpoint of a reading that nothing stops (the window passes one that may raise)."""


@dataclass(frozen=True, slots=True)
class CorpusColumns:
    """A session's corpus as read: distinct words, their positive counts, the special counts."""

    words: Words
    counts: Counts
    special_counts: list[int]


def read_corpus(
    stream: BinaryIO, head: bytes, checkpoint: Callable[[], object] = never_stop
) -> CorpusColumns | None:
    """The corpus line whose first bytes ``head`` (starting with ``START``) were read from
    ``stream``, read to its end; ``None`` if it is not plainly what ``save_session`` writes
    (the stream is then left anywhere). ``checkpoint()`` is called before each chunk: it may
    raise to stop (the window's Cancel)."""
    if not head.startswith(START):
        return None
    columns = _Columns()
    pending = head[len(START) :]
    while True:
        checkpoint()
        end = pending.find(b"\n")
        if end >= 0:  # the whole rest of the line is here: raw newlines never occur inside it
            if end + 1 != len(pending):
                return None
            tail = _END.search(pending)
            # The tail must close the line: a word spelling it would leave more bytes after it.
            if tail is None or tail.end() != len(pending) or not columns.add(pending[: tail.start()]):
                return None
            specials = [int(n) for n in tail.group(1).split(b", ")] if tail.group(1) else []
            return columns.finished(specials)
        more = stream.readline(_CHUNK)
        if not more:
            return None
        cut = pending.rfind(_SEPARATOR)  # a separator inside a string only makes the chunk fail to tile
        if cut >= 0:
            if not columns.add(pending[: cut + 1]):
                return None
            pending = pending[cut + 3 :]
        pending += more


class _Columns:
    """The columns as they grow, a chunk of items at a time: offsets and counts take 4 bytes
    each until one does not fit, then 8."""

    def __init__(self) -> None:
        self.blob = bytearray()
        self.ends = array("i")
        self.counts = array("i")
        self.hashes = array("q")

    def add(self, chunk: bytes) -> bool:
        """Read a run of whole items (``[word, count], ... [word, count]``); ``False`` if it is
        not one."""
        items = _ITEM.findall(chunk)
        raw_words, raw_counts = zip(*items) if items else ((), ())
        if sum(map(len, raw_words)) + sum(map(len, raw_counts)) + 8 * len(items) - 2 != len(chunk):
            return False  # a gap: something the pattern does not cover
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError:
            return False
        counts = np.fromiter(map(int, raw_counts), dtype=np.uint64, count=len(raw_counts))
        if len(counts) and counts.max() >= 2**63:
            return False
        self.counts = _appended(self.counts, counts)
        words = raw_words if b"\\" not in chunk else [_unescaped(w) if b"\\" in w else w for w in raw_words]
        if None in words:
            return False
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))  # type: ignore[arg-type]
        self.ends = _appended(self.ends, np.cumsum(lengths) + len(self.blob))
        self.blob += b"".join(words)  # type: ignore[arg-type]
        self.hashes.extend(map(hash, words))
        return True

    def finished(self, specials: list[int]) -> CorpusColumns | None:
        hashes = np.frombuffer(self.hashes, dtype=np.int64)
        if not len(hashes) or _has_duplicates(hashes):
            return None  # empty, or perhaps a word twice: JSON's reading merges duplicates
        del hashes
        self.hashes = array("q")
        ends = self.ends if self.ends.typecode == "i" else np.frombuffer(self.ends, np.int64)
        words = Words(self.blob, ends)
        del ends
        self.ends = array("i")
        return CorpusColumns(words, Counts(self.counts), specials)


def _appended(column: array, values: np.ndarray) -> array:
    """``column`` with ``values`` (non-negative, below 2^63) at its end, widened to 8 bytes an
    item if one needs it."""
    if column.typecode == "i" and len(values) and int(values.max()) >= 2**31:
        column = array("q", column)
    column.frombytes(values.astype(np.int32 if column.typecode == "i" else np.int64).tobytes())
    return column


def _has_duplicates(hashes: np.ndarray) -> bool:
    """Whether two hashes are equal (sorted in place: several times faster than ``np.unique``)."""
    hashes.sort()
    return bool((hashes[1:] == hashes[:-1]).any())


def _unescaped(raw: bytes) -> bytes | None:
    """A JSON string body with escapes, as UTF-8 (lone surrogates kept, as ``Words`` keeps them)."""
    try:
        return json.loads(b'"' + raw + b'"').encode("utf-8", "surrogatepass")
    except ValueError:
        return None
