"""Reading a session file as it streams in, never whole.

``json.loads`` of a whole session makes a dict of nine entries for every merge and a list for
every corpus word, and the file's text is one more copy: several times the file in memory
before the trainer is built. A file as ``save_session`` writes it has one key per line, one
merge per line, and the corpus on one line; here each merge becomes a row of a
:class:`MergeLine` as its line is read, and the corpus goes straight into columns
(``bpe_core.io.session.corpus_reader``).

Anything not plainly in that layout (a file edited by hand, an old version, a damaged merge)
makes :func:`read_streamed` give up, and the caller reads the file as plain JSON, whose reading
then reports any problem in its usual words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, overload

from bpe_core.errors import SessionError
from bpe_core.history.merge_line import MergeLine
from bpe_core.history.records import MergeRecord
from bpe_core.io.session.corpus_reader import CORPUS_KEY, START, never_stop, read_corpus
from bpe_core.pipeline.corpus import MAX_TOTAL
from bpe_core.runtime.fileio import open_input, within_limit

_LINE = 4096  # lines are read this much at a time: the corpus line is only ever streamed
_BATCH = 64  # merge lines parsed together
_MERGE_KEYS = frozenset(
    ("pair", "token", "count", "top_count", "ties", "candidates", "decided_by", "replacements", "pass")
)


class SavedMerges(Sequence[dict[str, Any]]):
    """A line of merges as read, held as rows with ids (``token`` not yet numbered,
    ``replacements`` as the file says) and the key of each id. Indexing gives each merge as
    the JSON object it was read from."""

    def __init__(self, records: MergeLine, names: list[str]) -> None:
        self.records = records
        self.names = names  # token id -> key

    def __len__(self) -> int:
        return len(self.records)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        record, names = self.records[index], self.names
        left, right = names[record.pair[0]], names[record.pair[1]]
        return {
            "pair": [left, right],
            "token": left + right,
            "count": record.count,
            "top_count": record.top_count,
            "ties": record.ties,
            "candidates": [[names[a], names[b]] for a, b in record.candidates],
            "decided_by": record.decided_by,
            "replacements": record.replacements,
            "pass": record.pass_number,
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(len(self)))


def read_streamed(
    path: Path, check_merge, model_only: bool = False, checkpoint: Callable[[], object] = never_stop
) -> dict[str, Any] | None:
    """The session's data with ``"merges"`` a :class:`SavedMerges` and the corpus as columns,
    or ``None`` if the file is not plainly in ``save_session``'s layout (or cannot be read).
    ``check_merge(number, merge)`` validates a merge's JSON object (raising ``SessionError``).
    With ``model_only`` the reading stops where the corpus starts (encoding needs no more)."""
    try:
        with open_input(path) as stream:
            if not within_limit(stream):
                return None
            return _read(stream, check_merge, model_only, checkpoint)
    except (OSError, UnicodeDecodeError, ValueError, TypeError, RecursionError, SessionError):
        return None


def _line(stream: BinaryIO) -> bytes:
    line = stream.readline(_LINE)
    if len(line) == _LINE and not line.endswith(b"\n"):
        line += stream.readline()
    return line


def _read(
    stream: BinaryIO, check_merge, model_only: bool, checkpoint: Callable[[], object]
) -> dict[str, Any] | None:
    if stream.readline(_LINE) != b"{\n":
        return None
    lines: list[bytes] = []  # every line but the merges' and the corpus'
    merges: SavedMerges | None = None
    columns = None
    while (head := stream.readline(_LINE)) != b"}\n":
        if not head:
            return None
        if model_only and head.startswith(CORPUS_KEY):
            lines.append(CORPUS_KEY + b"{}\n")
            break
        if head.startswith(START):
            if columns is not None:
                return None
            columns = read_corpus(stream, head, checkpoint)
            if columns is None:
                return None
            lines.append(CORPUS_KEY + b"{},\n")
        elif head == b'  "merges": [\n':
            if merges is not None:
                return None
            merges = _merges(stream, json.loads(b"{" + b"".join(lines).rstrip(b",\n") + b"}"), check_merge)
            if merges is None:
                return None
            lines.append(b'  "merges": [],\n')
        else:
            lines.append(head if head.endswith(b"\n") else head + _line(stream))
    if not model_only and stream.read(1):
        return None
    data = json.loads(b"{" + b"".join(lines) + b"}")
    if not isinstance(data, dict) or data.get("version") == 1:
        return None
    if merges is None:  # none saved: "merges": [] on one line
        if data.get("merges") != [] or not isinstance(data.get("alphabet"), list):
            return None
        merges = SavedMerges(MergeLine(), [])
    data["merges"] = merges
    if columns is not None:
        data["corpus"] = {"words": columns, "special_counts": columns.special_counts}
    return data


def _merges(stream: BinaryIO, head: Any, check_merge) -> SavedMerges | None:
    """The merges' lines, each turned into its record as it is read (ids as the trainer numbers
    them, from the alphabet read before); ``None`` at anything unusual."""
    if not isinstance(head, dict) or not isinstance(head.get("version"), int) or head["version"] < 2:
        return None
    pipeline, alphabet = head.get("pipeline"), head.get("alphabet")
    specials = pipeline.get("special_tokens", []) if isinstance(pipeline, dict) else None
    if not (isinstance(specials, list) and isinstance(alphabet, list)):
        return None
    # Merged tokens drop a continuing-subword prefix: the plain reading checks them.
    if isinstance(pipeline, dict) and pipeline.get("continuing_prefix") is not None:
        return None
    names: list[str] = [*specials, *alphabet]
    ids = {key: i for i, key in enumerate(names) if i >= len(specials)}
    if len(ids) != len(alphabet):
        return None
    records = MergeLine()

    def pair(left: str, right: str) -> tuple[int, int]:
        return ids[left], ids[right]

    for merge in _merge_objects(stream):
        if merge is None:
            return None
        number = len(records) + 1
        if not (isinstance(merge, dict) and merge.keys() == _MERGE_KEYS):
            return None
        check_merge(number, merge)  # raises SessionError: the caller then reads the file as JSON
        if not (isinstance(merge["replacements"], int) and 0 <= merge["replacements"] <= MAX_TOTAL):
            return None
        try:  # a token not made yet: the plain reading says which
            merged = pair(*merge["pair"])
            candidates = tuple(pair(a, b) for a, b in merge["candidates"])
        except KeyError:
            return None
        if ids.setdefault(merge["token"], len(names)) == len(names):
            names.append(merge["token"])
        records.append(
            MergeRecord.saved(
                number,
                merged,
                merge["decided_by"],
                merge["pass"],
                count=merge["count"],
                top_count=merge["top_count"],
                ties=merge["ties"],
                candidates=candidates,
                replacements=merge["replacements"],
            )
        )
    return SavedMerges(records, names)


def _merge_objects(stream: BinaryIO) -> Iterator[Any]:
    """The merges' objects, a line each, up to the line closing their list; ``None`` for a line
    not in the layout. Lines are parsed ``_BATCH`` at a time: a ``json.loads`` call for each
    line cost more than the parsing itself."""
    batch: list[bytes] = []
    while True:
        line = _line(stream)
        end = line in (b"  ],\n", b"  ]\n")
        if not end:
            if not line.startswith(b"    {"):
                yield None
                return
            batch.append(line.rstrip(b",\n"))
        if batch and (end or len(batch) == _BATCH):
            merges = json.loads(b"[" + b",".join(batch) + b"]")
            if len(merges) != len(batch):  # a line held more than one object
                yield None
                return
            yield from merges
            batch.clear()
        if end:
            return
