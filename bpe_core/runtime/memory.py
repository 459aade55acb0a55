"""Handing freed memory back to the system between the phases of a large piece of work.

Opening a session makes and frees hundreds of megabytes of temporary arrays and objects. The
C library's allocator keeps what was freed inside its heap for reuse, yet small long-lived
objects allocated in between pin it, so the process would keep the memory of every phase and
the next phase's peak would stand on top of it. A background thread is served from an arena of
its own, which keeps what the thread freed the same way (opening a corpus of two million word
types left 160 MB so held). glibc can give the free pages of every arena back
(``malloc_trim``); elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import mmap
import sys
from collections.abc import Callable

import numpy as np


def _trimmer() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # in glibc; absent in musl
    except (OSError, AttributeError):
        return None


_TRIM = _trimmer()


def release_free_memory() -> None:
    """Give the allocator's free pages back to the system, where the C library can."""
    if _TRIM is not None:
        _TRIM(0)


def spare_array(capacity: int, dtype: type | np.dtype) -> np.ndarray:
    """A zeroed array of ``capacity`` items whose pages take memory only once written (an
    anonymous mapping, never handed to the C library's heap): for a result whose length is
    only bounded in advance, filled from the start and then cut to what was written, so that
    it is built in place instead of from parts joined at the end."""
    size = max(capacity, 1) * np.dtype(dtype).itemsize
    try:  # private, as the C library's own large blocks are
        mapped = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, ValueError, TypeError, AttributeError):  # refused, or no such flags here
        return np.zeros(capacity, dtype=dtype)
    return np.frombuffer(mapped, dtype=dtype)[:capacity]
