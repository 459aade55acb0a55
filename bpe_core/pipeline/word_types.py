"""The corpus' word types and their counts, stored compactly.

A corpus may hold millions of word types. As Python objects each costs about 60 bytes for its
``str`` and 8 to 36 for its count; here the words are one UTF-8 buffer with an end offset per
word, and the counts one array of 64-bit integers that numpy views without a copy. Both read as
ordinary sequences (``words[i]`` is a ``str``, ``counts[i]`` an ``int``) and compare equal to
any sequence of the same items, such as a tuple.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, overload

import numpy as np


def _offsets(ends: np.ndarray | array) -> array:
    """Non-decreasing offsets as an ``array``: 4 bytes each while they fit, else 8 (an ``array``
    of 4-byte offsets is taken as it is)."""
    if isinstance(ends, array) and ends.typecode == "i":
        return ends
    ends = np.asarray(ends)
    small = not len(ends) or ends[-1] < 2**31
    offsets = array("i" if small else "q")
    offsets.frombytes(ends.astype(np.int32 if small else np.int64).tobytes())
    return offsets


def equal_items(items: Sequence[Any], other: object) -> bool:
    """Whether ``other`` is a sequence of the same items (``NotImplemented`` for a non-sequence
    or a string): how the compact sequences compare with lists and tuples."""
    if not isinstance(other, Sequence) or isinstance(other, str | bytes):
        return NotImplemented
    return len(items) == len(other) and all(a == b for a, b in zip(items, other, strict=True))


class Words(Sequence[str]):
    """Word types in order, as one UTF-8 buffer and the end offset of each word in it.

    Example: ``Words.of(["low", "né"])[1]`` is ``"né"``; ``Words.of(["a"]) == ("a",)``.
    Lone surrogates (which a hand-written JSON file can hold) are kept, encoded as UTF-8 would
    encode them were they characters.
    """

    __slots__ = ("_blob", "_ends")
    __hash__ = None  # type: ignore[assignment]  # equal to tuples, so not hashable like them

    def __init__(self, blob: bytes | bytearray, ends: np.ndarray | array) -> None:
        """``ends``: where each word ends in ``blob``, ascending (a bytearray is never changed)."""
        self._blob = blob
        self._ends = _offsets(ends)

    @classmethod
    def of(cls, words: Iterable[str]) -> Words:
        encoded = [word.encode("utf-8", "surrogatepass") for word in words]
        return cls(
            b"".join(encoded), np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))
        )

    @property
    def blob(self) -> bytes | bytearray:
        """All words' UTF-8 bytes, end to end."""
        return self._blob

    def byte_ends(self) -> np.ndarray:
        """The end offset of each word in :attr:`blob` (a read-only view)."""
        return np.frombuffer(self._ends, dtype=np.int32 if self._ends.typecode == "i" else np.int64)

    def byte_span(self, start: int, stop: int) -> tuple[int, int]:
        """Where words ``start`` to ``stop - 1`` lie in :attr:`blob`."""
        return (self._ends[start - 1] if start else 0), (self._ends[stop - 1] if stop else 0)

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):  # a tuple, as slicing the tuple this replaced gave
            return tuple(self[i] for i in range(*index.indices(len(self))))
        ends = self._ends
        if index < 0:
            index += len(ends)
        return self._blob[ends[index - 1] if index > 0 else 0 : ends[index]].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        blob, start = self._blob, 0
        for end in self._ends:
            yield blob[start:end].decode("utf-8", "surrogatepass")
            start = end

    def __eq__(self, other: object) -> bool:
        return equal_items(self, other)

    def __repr__(self) -> str:
        more = ", ..." if len(self) > 8 else ""
        return f"Words({', '.join(map(repr, islice(self, 8)))}{more})"


class Counts(Sequence[int]):
    """Counts as machine integers: 4 bytes each while they all fit, else 8 (exact either way: a
    corpus holds at most 2^62 symbol occurrences).

    ``values`` is the ``array`` itself, for loops that index it; :meth:`numpy` views it (numpy
    sums int32 as int64; multiply its items only after widening them).
    """

    __slots__ = ("values",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, values: Iterable[int]) -> None:
        wide = values if isinstance(values, array) and values.typecode == "q" else None
        if isinstance(values, array) and values.typecode == "i":
            self.values = values
            return
        wide = wide if wide is not None else array("q", values)
        viewed = np.frombuffer(wide, dtype=np.int64)
        if len(viewed) and int(viewed.max()) >= 2**31:
            self.values = wide
        else:
            self.values = array("i", viewed.astype(np.int32).tobytes())

    def numpy(self) -> np.ndarray:
        """The counts as an array (int32 or int64) sharing this object's memory."""
        return np.frombuffer(self.values, dtype=np.int32 if self.values.typecode == "i" else np.int64)

    def __len__(self) -> int:
        return len(self.values)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...
    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        if isinstance(index, slice):
            return tuple(self.values[index])
        return self.values[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self.values)

    def __eq__(self, other: object) -> bool:
        return equal_items(self, other)

    def __repr__(self) -> str:
        more = ", ..." if len(self) > 8 else ""
        return f"Counts({', '.join(map(str, self.values[:8]))}{more})"
