"""A per-model cache of computed rows that also keeps views painting during background jobs.

Views call ``data()`` for visible rows many times per paint; computing a row once per change and
caching it keeps painting cheap. While the bridge is busy a job may be changing the trainer, so
a miss returns ``None`` (the model shows a placeholder) instead of reading the trainer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

PLACEHOLDER = "…"


class RowCache(Generic[K, V]):
    def __init__(self, compute: Callable[[K], V], is_busy: Callable[[], bool]) -> None:
        self._compute = compute
        self._is_busy = is_busy
        self._rows: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        row = self._rows.get(key)
        if row is None and not self._is_busy():
            row = self._rows[key] = self._compute(key)
        return row

    @property
    def size(self) -> int:
        """How many rows are cached."""
        return len(self._rows)

    def drop(self, keys) -> None:
        pop = self._rows.pop
        for key in keys:
            pop(key, None)

    def keys(self) -> Iterable[K]:
        """The keys of the rows cached (to find the stale ones among them when the keys that
        changed outnumber them)."""
        return self._rows.keys()

    def clear(self) -> None:
        self._rows.clear()
