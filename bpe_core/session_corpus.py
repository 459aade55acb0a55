"""Reading a session's corpus straight into compact columns.

``json.loads`` turns a corpus of a million word types into a million lists, strings and ints
(over 150 bytes each), only for them to be copied into ``Words`` and ``Counts`` and dropped: the
largest part of the memory an opening session peaks at. A file as ``save_session`` writes it
holds the corpus on one line, ``  "corpus": {"words": [["w", 3], ...], "special_counts": [...]},``;
that line is read here item by item, chunk by chunk, straight into the columns.

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
from dataclasses import dataclass

import numpy as np

from bpe_core.word_types import Counts, Words

_START = b'\n  "corpus": {"words": ['
_END = re.compile(rb"\], \"special_counts\": \[((?:0|[1-9][0-9]{0,18})(?:, (?:0|[1-9][0-9]{0,18}))*)?\]\},\n")
# One [word, count] item and the separator after it (none after the chunk's last). The string is
# JSON's: no raw quote, backslash or control character, escapes checked when decoded. A count
# has at most 19 digits (2^62 has 19); one beyond 64 bits is left to json.
_ITEM = re.compile(rb'\["((?:[^"\\\x00-\x1f]|\\.)+)", ([1-9][0-9]{0,18})\](?:, |\Z)')
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class CorpusColumns:
    """A session's corpus as read: distinct words, their positive counts, the special counts."""

    words: Words
    counts: Counts
    special_counts: list[int]


def split_corpus(data: bytes) -> tuple[bytes, CorpusColumns] | None:
    """The file's bytes with the corpus line emptied, and the corpus read from it; ``None`` if
    the file has no such line or the line is not plainly what ``save_session`` writes."""
    start = data.find(_START)
    if start < 0:
        return None
    items_start = start + len(_START)
    end = data.find(b"\n", items_start)
    if end < 0:
        return None
    end += 1
    tail = _END.search(data, items_start, end)
    # The tail must close the line: a word spelling it would leave more bytes after it.
    if tail is None or tail.end() != end:
        return None
    columns = _read_items(memoryview(data)[items_start : tail.start()])
    if columns is None:
        return None
    specials = [int(n) for n in tail.group(1).split(b", ")] if tail.group(1) else []
    emptied = b'\n  "corpus": {"words": [], "special_counts": []},\n'
    return data[:start] + emptied + data[end:], CorpusColumns(*columns, specials)


def _read_items(body: memoryview) -> tuple[Words, Counts] | None:
    blobs: list[bytes] = []
    ends: list[np.ndarray] = []
    counts = array("q")
    hashes = array("q")
    offset = 0
    position = 0
    while position < len(body):
        stop = _chunk_end(body, position)
        chunk = bytes(body[position:stop])
        position = stop + 2  # past the ", " between chunks
        items = _ITEM.findall(chunk)
        raw_words, raw_counts = zip(*items) if items else ((), ())
        if sum(map(len, raw_words)) + sum(map(len, raw_counts)) + 8 * len(items) - 2 != len(chunk):
            return None  # a gap: something the pattern does not cover
        try:
            chunk.decode("utf-8")
            counts.extend(map(int, raw_counts))
        except (UnicodeDecodeError, OverflowError):
            return None
        words = raw_words if b"\\" not in chunk else [_unescaped(w) if b"\\" in w else w for w in raw_words]
        if None in words:
            return None
        blob = b"".join(words)  # type: ignore[arg-type]
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))  # type: ignore[arg-type]
        ends.append(np.cumsum(lengths) + offset)
        offset += len(blob)
        blobs.append(blob)
        hashes.extend(map(hash, words))
    if not counts or _has_duplicates(np.frombuffer(hashes, dtype=np.int64)):
        return None  # empty, or perhaps a word twice: JSON's reading merges duplicates
    return Words(b"".join(blobs), np.concatenate(ends)), Counts(counts)


def _has_duplicates(hashes: np.ndarray) -> bool:
    """Whether two hashes are equal (an in-place sort: several times faster than ``np.unique``)."""
    ordered = np.sort(hashes)
    return bool((ordered[1:] == ordered[:-1]).any())


def _chunk_end(body: memoryview, position: int) -> int:
    """Where the chunk from ``position`` ends: before an item separator about ``_CHUNK`` bytes
    on, or at the end. A separator found inside a string only makes the chunk fail to tile."""
    if position + _CHUNK >= len(body):
        return len(body)
    cut = bytes(body[position + _CHUNK : position + 2 * _CHUNK]).find(b'], ["')
    return len(body) if cut < 0 else position + _CHUNK + cut + 1


def _unescaped(raw: bytes) -> bytes | None:
    """A JSON string body with escapes, as UTF-8 (lone surrogates kept, as ``Words`` keeps them)."""
    try:
        return json.loads(b'"' + raw + b'"').encode("utf-8", "surrogatepass")
    except ValueError:
        return None
