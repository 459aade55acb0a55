"""A line of the merge history, stored as columns.

A history of tens of thousands of merges held as :class:`MergeRecord` objects costs about
350 bytes a merge (the record, its pair and candidate tuples, its integers), several times what
the session file spends on it. Here a merge is a row of machine integers, each column 2 bytes
a value until one needs 4, then 8 (about 40 bytes a merge on real text), and a record is made
only when one is read.

A line that forks from another shares that line's first ``fork`` rows instead of copying them:
it reads them from its ``base``. Lines only grow at their end, so shared rows never move; a row
changed in place (a step decided anew) is changed for every line that shares it, as it must
be: they pass through the same node of the history tree (``bpe_core.history.branches``).
"""

from __future__ import annotations

import threading
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import numpy as np

from bpe_core.history.records import MergeRecord
from bpe_core.pipeline.word_types import equal_items

_NEW_TOKEN = 1
_UNVERIFIED = 2  # read from a file and not yet checked against the corpus (see Trainer._verify)
_UNCHECKED = 4  # its decision data not yet checked against the state before it (Trainer._check_decision)

# Who decided each merge, by number: a rule's name or "user", a handful of strings in all.
_DECIDERS: list[str] = []
_DECIDER_CODES: dict[str, int] = {}
_DECIDERS_LOCK = threading.Lock()  # a job's thread may name a decider while the window reads


def _decider_code(name: str) -> int:
    code = _DECIDER_CODES.get(name)
    if code is None:
        with _DECIDERS_LOCK:
            code = _DECIDER_CODES.get(name)
            if code is None:
                _DECIDERS.append(name)
                code = _DECIDER_CODES[name] = len(_DECIDERS) - 1
    return code


# The integer columns (all non-negative), each widened from 2 to 4 to 8 bytes a value as its
# values need.
_COLUMNS = (
    "left",
    "right",
    "token",
    "count",
    "top_count",
    "replacements",
    "ties",
    "decider",
    "vocab_size",
    "corpus_tokens",
    "pass_number",
)
_WIDER = {"H": "I", "I": "Q"}
_DTYPES = {"H": np.uint16, "I": np.uint32, "Q": np.uint64}


def _fitting(column: array, *values: int) -> array:
    """``column``, or a wider copy of it if one of ``values`` does not fit its type."""
    top = max(values, default=0)
    while column.typecode in _WIDER and top >= 1 << (8 * column.itemsize):
        column = array(_WIDER[column.typecode], column)
    return column


def _appended(column: array, value: int) -> array:
    """``column`` with ``value`` at its end (widened first if it needs that)."""
    try:
        column.append(value)
    except OverflowError:  # rare: once a column, at most twice
        column = _fitting(column, value)
        column.append(value)
    return column


def _narrowest(values: np.ndarray) -> array:
    """Non-negative values as an ``array`` of the narrowest of the columns' types."""
    top = int(values.max(initial=0))
    code = "H" if top < 1 << 16 else "I" if top < 1 << 32 else "Q"
    return array(code, np.ascontiguousarray(values, dtype=_DTYPES[code]).tobytes())


class MergeLine:
    """The merges of one line from step 1, as a list of records that stores rows.

    Reading ``line[i]`` makes the :class:`MergeRecord` of step ``i + 1``; the single-field
    readers (:meth:`pair`, :meth:`pass_number`, ...) make none. Rows ``0`` to ``fork - 1`` are
    ``base``'s.
    """

    __slots__ = ("_base", "_cand", "_cand_ends", "_cols", "_flags", "_fork")

    def __init__(self, base: MergeLine | None = None, fork: int = 0) -> None:
        if fork and (base is None or fork > len(base)):
            raise ValueError("A line forks within its base.")
        self._base = base if fork else None
        self._fork = fork
        self._cols = {name: array("H") for name in _COLUMNS}
        self._flags = bytearray()
        self._cand_ends = array("H")  # per own row: where its candidates end in _cand (in pairs)
        self._cand = array("H")  # candidate pairs, left and right ids side by side

    @classmethod
    def of(cls, records: Iterable[MergeRecord]) -> MergeLine:
        line = cls()
        for record in records:
            line.append(record)
        return line

    def fork(self, position: int) -> MergeLine:
        """A new line sharing this one's first ``position`` merges."""
        return MergeLine(self, position)

    # -- size and rows ---------------------------------------------------------------------

    def __len__(self) -> int:
        return self._fork + len(self._flags)

    def _owner(self, i: int) -> tuple[MergeLine, int]:
        """The line that stores row ``i`` (0-based) of this one, and the row's index there."""
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("merge line index out of range")
        line = self
        while i < line._fork:
            line = line._base  # type: ignore[assignment]
        return line, i - line._fork

    @overload
    def __getitem__(self, i: int) -> MergeRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[MergeRecord]: ...
    def __getitem__(self, i: int | slice) -> MergeRecord | list[MergeRecord]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        line, j = self._owner(i)
        return line._record(j)

    def __iter__(self) -> Iterator[MergeRecord]:
        return (self[i] for i in range(len(self)))

    def _record(self, j: int) -> MergeRecord:
        c = self._cols
        return MergeRecord(
            step=self._fork + j + 1,
            pair=(c["left"][j], c["right"][j]),
            token=c["token"][j],
            count=c["count"][j],
            top_count=c["top_count"][j],
            replacements=c["replacements"][j],
            ties=c["ties"][j],
            candidates=self._own_candidates(j),
            decided_by=_DECIDERS[c["decider"][j]],
            new_token=bool(self._flags[j] & _NEW_TOKEN),
            vocab_size=c["vocab_size"][j],
            corpus_tokens=c["corpus_tokens"][j],
            pass_number=c["pass_number"][j],
        )

    def _field(self, name: str, i: int) -> int:
        line, j = self._owner(i)
        return line._cols[name][j]

    def pairs(self) -> Iterator[tuple[int, int]]:
        """Each merge's (left, right) ids, in order, one at a time."""
        if self._base is not None:
            yield from (self._base.pair(i) for i in range(self._fork))
        yield from zip(self._cols["left"], self._cols["right"], strict=True)

    def pair(self, i: int) -> tuple[int, int]:
        line, j = self._owner(i)
        return line._cols["left"][j], line._cols["right"][j]

    def pass_number(self, i: int) -> int:
        return self._field("pass_number", i)

    def pass_end(self, position: int) -> int:
        """``position`` if it is a node of this line (a pass ends there), else the end of the
        pass it falls in: a pass is one node of the history, never stood inside."""
        while 0 < position < len(self) and self.pass_number(position) == self.pass_number(position - 1):
            position += 1
        return position

    def pass_start(self, position: int) -> int:
        """The node at or before ``position``: where the pass it falls in begins."""
        while 0 < position < len(self) and self.pass_number(position) == self.pass_number(position - 1):
            position -= 1
        return position

    def decided_by(self, i: int) -> str:
        return _DECIDERS[self._field("decider", i)]

    def candidates(self, i: int) -> tuple[tuple[int, int], ...]:
        line, j = self._owner(i)
        return line._own_candidates(j)

    def _own_candidates(self, j: int) -> tuple[tuple[int, int], ...]:
        low, high = (self._cand_ends[j - 1] if j else 0), self._cand_ends[j]
        cand = self._cand
        return tuple((cand[2 * k], cand[2 * k + 1]) for k in range(low, high))

    def candidate_counts(self, start: int = 0, length: int | None = None) -> np.ndarray:
        """How many candidates each of rows ``start`` to ``length`` (default: all) lists."""
        parts: list[np.ndarray] = []
        line: MergeLine | None = self
        length = len(self) if length is None else length
        while line is not None and length > start:
            low = max(line._fork, start)
            if low < length:
                first, last = low - line._fork, length - line._fork
                raw = line._cand_ends[max(first - 1, 0) : last].tobytes()
                ends = np.frombuffer(raw, dtype=_DTYPES[line._cand_ends.typecode]).astype(np.int64)
                parts.append(np.diff(ends, prepend=0) if first == 0 else np.diff(ends))
            length, line = min(line._fork, length), line._base
        parts.reverse()
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def new_token(self, i: int) -> bool:
        line, j = self._owner(i)
        return bool(line._flags[j] & _NEW_TOKEN)

    # -- changes ---------------------------------------------------------------------------

    def append(self, record: MergeRecord, verified: bool = True) -> None:
        """Add ``record`` as the next step (its ``step`` must be that step). The row counts in
        the line's length only once all of it is written: a view made meanwhile (on another
        thread) ends before it."""
        if record.step != len(self) + 1:
            raise ValueError(f"Step {record.step} cannot follow step {len(self)}.")
        values, ids = _values(record)
        c = self._cols  # its values are the columns in the order of _COLUMNS
        try:  # one C-level loop: a training run appends a row a merge
            deque(map(array.append, c.values(), values), maxlen=0)
        except OverflowError:  # rare (once a column, at most twice): undo the part written, widen
            rows = len(self._flags)
            for name, value in zip(_COLUMNS, values, strict=True):
                column = c[name]
                if len(column) > rows:
                    column.pop()
                c[name] = _appended(column, value)
        if ids:
            cand = self._cand
            written = len(cand)
            try:
                cand.extend(ids)
            except OverflowError:
                del cand[written:]
                self._cand = cand = _fitting(cand, *ids)
                cand.extend(ids)
        self._cand_ends = _appended(self._cand_ends, len(self._cand) // 2)
        self._flags.append((_NEW_TOKEN if record.new_token else 0) | (0 if verified else _UNVERIFIED))

    def __setitem__(self, i: int, record: MergeRecord) -> None:
        """Replace step ``i + 1`` (in every line that shares it)."""
        line, j = self._owner(i)
        if record.step != line._fork + j + 1:
            raise ValueError(f"A record of step {record.step} cannot replace step {line._fork + j + 1}.")
        values, listed = _values(record)
        c = line._cols
        for name, value in zip(_COLUMNS, values, strict=True):
            c[name] = _fitting(c[name], value)
            c[name][j] = value
        line._flags[j] = (line._flags[j] & _UNVERIFIED) | (_NEW_TOKEN if record.new_token else 0)  # checked
        low, high = (line._cand_ends[j - 1] if j else 0), line._cand_ends[j]
        line._cand = _fitting(line._cand, *listed)
        line._cand[2 * low : 2 * high] = array(line._cand.typecode, listed)
        shift = len(record.candidates) - (high - low)
        if shift:  # later rows' candidates moved
            line._cand_ends = _fitting(line._cand_ends, len(line._cand) // 2)
            for k in range(j, len(line._cand_ends)):
                line._cand_ends[k] += shift

    def unverified(self, i: int) -> bool:
        line, j = self._owner(i)
        return bool(line._flags[j] & _UNVERIFIED)

    def mark_verified(self, i: int) -> None:
        line, j = self._owner(i)
        line._flags[j] &= ~_UNVERIFIED

    def unchecked(self, i: int) -> bool:
        line, j = self._owner(i)
        return bool(line._flags[j] & _UNCHECKED)

    def mark_checked(self, i: int) -> None:
        line, j = self._owner(i)
        line._flags[j] &= ~_UNCHECKED

    # -- columns ---------------------------------------------------------------------------

    def column(self, name: str, length: int | None = None, start: int = 0) -> np.ndarray:
        """The values of rows ``start`` to ``length`` (default: all) of a column as one int64
        array: ``left``, ``right``, ``token``, ``count``, ``top_count``, ``replacements``,
        ``ties``, ``vocab_size``, ``corpus_tokens``, ``pass_number`` or ``new_token`` (0 or 1)."""
        length = len(self) if length is None else length
        parts: list[np.ndarray] = []
        line: MergeLine | None = self
        while line is not None and length > start:
            low = max(line._fork, start)  # rows low to length, if any, are this line's own
            if low < length:
                # Copied in one call (not viewed): an array viewed by numpy cannot grow, and the
                # trainer may be appending to it on another thread.
                rows = slice(low - line._fork, length - line._fork)
                if name == "new_token":
                    parts.append(np.frombuffer(line._flags[rows], dtype=np.uint8) & _NEW_TOKEN)
                else:
                    column = line._cols[name][rows]
                    parts.append(
                        np.frombuffer(column.tobytes(), dtype=_DTYPES[column.typecode]).astype(np.int64)
                    )
            length, line = min(line._fork, length), line._base
        parts.reverse()
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)  # int64 (flags uint8)

    def decider_codes(self, *names: str) -> list[int]:
        """The codes the ``decider`` column gives these deciders."""
        return [_decider_code(name) for name in names]

    def deciders(self, length: int | None = None) -> set[str]:
        """Who decided any of the first ``length`` merges."""
        return {_DECIDERS[code] for code in np.unique(self.column("decider", length)).tolist()}

    def fill(self, columns: dict[str, np.ndarray], new_token: np.ndarray, unchecked: np.ndarray) -> None:
        """Replace whole columns (each as long as the line, which forks from none) and every
        row's ``new_token`` flag and ``unchecked`` one: how a restored history gets the values
        worked out for it."""
        if self._fork:
            raise ValueError("Only a line that forks from none is filled.")
        for name, values in columns.items():
            self._cols[name] = _narrowest(values)
        flags = np.frombuffer(self._flags, dtype=np.uint8) & _UNVERIFIED
        flags = flags | np.where(new_token, _NEW_TOKEN, 0).astype(np.uint8)
        self._flags = bytearray((flags | np.where(unchecked, _UNCHECKED, 0).astype(np.uint8)).tobytes())


def _values(record: MergeRecord) -> tuple[tuple[int, ...], list[int]]:
    """A record's values in the order of ``_COLUMNS`` and its candidates' ids, left and right
    side by side, checked before any is stored (a row is never left half written)."""
    values = (
        *record.pair,
        record.token,
        record.count,
        record.top_count,
        record.replacements,
        record.ties,
        _decider_code(record.decided_by),
        record.vocab_size,
        record.corpus_tokens,
        record.pass_number,
    )
    ids = [x for pair in record.candidates for x in pair]
    if min(*values, *ids) < 0 or max(*values, *ids) >= 1 << 64:
        raise ValueError(f"Merge {record.step} holds a number outside 0 to 2^64.")
    return values, ids


def _shares(line: MergeLine) -> dict[int, tuple[MergeLine, int]]:
    """Every line whose rows ``line`` reads, by ``id``, with how many of its first rows."""
    out: dict[int, tuple[MergeLine, int]] = {}
    length = len(line)
    current: MergeLine | None = line
    while current is not None:
        out[id(current)] = (current, length)
        length = min(length, current._fork)
        current = current._base
    return out


def common_length(a: MergeLine, b: MergeLine, limit: int | None = None) -> int:
    """How many first steps two lines share (at most ``limit``). Rows one line reads from the
    other are shared; past them, records equal in every field at the same step are the same
    merge even when stored twice (a branch read from a file)."""
    n = min(len(a), len(b)) if limit is None else min(len(a), len(b), limit)
    if a is b:
        return n
    mine = _shares(a)
    shared = 0
    for key, (_, length) in _shares(b).items():
        if key in mine:
            shared = max(shared, min(length, mine[key][1]))
    shared = min(shared, n)
    while shared < n and a[shared] == b[shared]:
        shared += 1
    return shared


class LineView(Sequence[MergeRecord]):
    """The first ``length`` merges of a line, as :attr:`Trainer.history` gives them: its length
    is fixed; its records are made when first read, and kept (a few thousand at most) for a
    view that is read again and again, such as a table's rows."""

    __slots__ = ("_made", "length", "line")
    __hash__ = None  # type: ignore[assignment]
    KEPT = 4096

    def __init__(self, line: MergeLine, length: int | None = None) -> None:
        self.line = line
        self.length = len(line) if length is None else length
        self._made: dict[int, MergeRecord] = {}

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, i: int) -> MergeRecord: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[MergeRecord]: ...
    def __getitem__(self, i: int | slice) -> MergeRecord | Sequence[MergeRecord]:
        if isinstance(i, slice):
            start, stop, step = i.indices(self.length)
            if start == 0 and step == 1:  # a prefix is a view too
                return self.prefix(stop)
            return tuple(self.line[k] for k in range(start, stop, step))
        if i < 0:
            i += self.length
        if not 0 <= i < self.length:
            raise IndexError("history index out of range")
        record = self._made.get(i)
        if record is None:
            if len(self._made) >= self.KEPT:
                self._made.clear()
            record = self._made[i] = self.line[i]
        return record

    def __iter__(self) -> Iterator[MergeRecord]:
        line = self.line
        return (line[i] for i in range(self.length))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LineView):
            return self.length == other.length and self.extends(other)
        return equal_items(self, other)

    def extends(self, older: LineView) -> bool:
        """Whether ``older``'s merges are this view's first ones (the same line, grown, or one
        that forked from it later)."""
        return (
            self.length >= older.length and common_length(self.line, older.line, older.length) == older.length
        )

    def prefix(self, length: int) -> LineView:
        """The first ``length`` of these merges."""
        return LineView(self.line, min(max(length, 0), self.length))

    def column(self, name: str, start: int = 0) -> np.ndarray:
        """A column of these merges, from merge ``start`` on (see :meth:`MergeLine.column`)."""
        return self.line.column(name, self.length, start)

    def pairs(self) -> list[tuple[int, int]]:
        """Each merge's (left, right) ids, made without a record each."""
        return list(zip(self.column("left").tolist(), self.column("right").tolist(), strict=True))

    def deciders(self) -> set[str]:
        return self.line.deciders(self.length)

    def __repr__(self) -> str:
        return f"LineView({self.length} merges)"


def field_values(records: Sequence[MergeRecord], name: str) -> list[int]:
    """One integer field of every record (``count``, ``ties``, ``new_token`` as 0 or 1, ...):
    read from the columns of a :class:`LineView` without making its records."""
    if isinstance(records, LineView):
        return records.column(name).tolist()
    return [int(getattr(record, name)) for record in records]
