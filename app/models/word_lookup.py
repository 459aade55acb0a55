"""What filtering and sorting a corpus' words needs, worked out once per corpus: the casefolded
words, their byte frequencies, the words' order and the counts' orders.

A corpus' words and counts never change, so these never go stale. For a large corpus the
first two are worked out in a thread as soon as the corpus opens (numpy does most of that work
without the interpreter lock: the window keeps turning meanwhile), and a filter or a sort by
word waits for them only if it comes first; a small corpus works them out when first asked.
Nothing here imports Qt.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import numpy as np

from app.models.word_search import (
    Folded,
    byte_frequencies,
    byte_order,
    casefolded,
    stable_order,
    words_containing,
)
from bpe_core.pipeline.word_types import Counts, Words
from bpe_core.runtime.memory import release_free_memory

T = TypeVar("T")
IN_BACKGROUND = 100_000  # word types from which the preparation starts in a thread at once


class Prepared(Generic[T]):
    """A value worked out once, by the first :meth:`get` (which a thread may call ahead)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work: Callable[[], T] | None = work
        self._value: T | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()

    def _run(self) -> None:
        with self._lock:
            if self._work is None:
                return
            try:
                self._value = self._work()
            except BaseException as error:  # raised again in the thread that asks
                self._error = error
            finally:
                self._work = None
                self._done.set()
            # What the work freed stays in this thread's allocator arena otherwise (see
            # bpe_core.runtime.memory): for a million word types, about 140 MB kept for nothing.
            release_free_memory()

    def get(self) -> T:
        self._run()  # waits for the thread if it is at work; does the work if none started
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


class WordLookup:
    """Filtering and ordering helpers for one corpus' word types (see the module's note)."""

    def __init__(self, words: Words, counts: Counts) -> None:
        self._words, self._counts = words, counts
        self._search: Prepared[tuple[Folded, np.ndarray]] = Prepared(self._fold)
        self._order: Prepared[np.ndarray] = Prepared(self._word_order)
        if len(words) >= IN_BACKGROUND:
            threading.Thread(target=self._prepare, name="word lookup", daemon=True).start()
        self._count_orders: dict[bool, np.ndarray] = {}

    def _prepare(self) -> None:
        """Both values, one after the other: each makes temporaries of about 100 bytes a word
        type, and made at once they were most of the peak of opening a million word types."""
        for prepared in (self._search, self._order):
            with contextlib.suppress(BaseException):  # raised again to the thread that asks
                prepared.get()

    def _fold(self) -> tuple[Folded, np.ndarray]:
        folded = casefolded(self._words)
        return folded, byte_frequencies(folded)

    def _word_order(self) -> np.ndarray:
        return byte_order(self._words).astype(np.int32)

    def containing(self, needle: str) -> np.ndarray:
        """Indices (ascending) of the words whose casefolded text holds ``needle`` (casefolded)."""
        folded, frequencies = self._search.get()
        return words_containing(folded, needle, frequencies)

    def by_word(self, descending: bool) -> np.ndarray:
        """Every word index, in order of the words (word types are distinct: descending is the
        ascending order reversed)."""
        order = self._order.get()
        return order[::-1] if descending else order

    def by_count(self, descending: bool) -> np.ndarray:
        """Every word index by count, equal counts in word order (a stable sort)."""
        order = self._count_orders.get(descending)
        if order is None:
            order = self._count_orders[descending] = stable_order(self._counts.numpy(), descending).astype(
                np.int32
            )
        return order
