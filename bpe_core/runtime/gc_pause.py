"""Pausing Python's cyclic garbage collector around heavy engine work.

The engine's structures (word lists, heap entries, segmentations) contain no reference cycles, so
freeing them never needs the cyclic collector, yet it periodically re-scans every one of those
hundreds of thousands of live containers: 10-15% of training time, and the occasional full scan
is a latency spike in the middle of a step. Reference counting still frees everything at once.

The collector is one switch for the whole process. A pause therefore only happens on the main
thread: a worker thread (a background job of the window) pausing it would pause it for the GUI
thread too, which keeps allocating meanwhile, and two overlapping pauses would re-enable it in
the wrong order. Nested pauses count, so the collector comes back exactly when the outermost
one ends, and only if it was on before.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_MAIN = threading.main_thread().ident
_depth = 0  # nested pauses on the main thread
_resume = False  # whether the outermost pause found the collector enabled


class _Pause:
    """The context manager: a plain class, as a pause wraps calls of a few microseconds (one
    encoded line) where a generator-based one would cost more than the call."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _depth, _resume
        if threading.get_ident() != _MAIN:
            return
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1

    def __exit__(self, *_exc: object) -> None:
        global _depth
        if threading.get_ident() != _MAIN:
            return
        _depth -= 1
        if _depth == 0 and _resume:
            gc.enable()


_PAUSE = _Pause()


def gc_paused() -> _Pause:
    """Disable the cyclic collector for a ``with`` block (main thread only; elsewhere a no-op)."""
    return _PAUSE


def without_gc(function: Callable[P, R]) -> Callable[P, R]:
    """Decorator form of :func:`gc_paused`."""

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return function(*args, **kwargs)

    return wrapper
