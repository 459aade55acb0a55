"""The boundary where Qt calls into Python: an exception there must never end the process.

PySide6 turns an exception raised inside a Python override of a Qt virtual (``data``,
``paint``, ``sizeHint``, an event handler...) into a fatal error that bypasses
``sys.excepthook``. Every such override of ours is wrapped by :func:`guard_overrides`: the
exception is logged, reported once per place through :func:`reporter`, and the override returns
a harmless default so Qt carries on. Slots called by signals and timers already reach
``sys.excepthook``, which the application routes to the same reporter.
"""

from __future__ import annotations

import inspect
import logging
import traceback
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QSize, Qt, Signal

log = logging.getLogger("bpe_studio")
C = TypeVar("C", bound=type)

# What an override returns when it failed: Qt needs a value of the right type.
_DEFAULTS: dict[str, Callable[[], Any]] = {
    "rowCount": lambda: 0,
    "columnCount": lambda: 0,
    "canFetchMore": lambda: False,
    "hasChildren": lambda: False,
    "event": lambda: False,
    "eventFilter": lambda: False,
    "sizeHint": QSize,
    "minimumSizeHint": QSize,
    "flags": lambda: Qt.ItemFlag.NoItemFlags,
    "tickStrings": list,
    "tickValues": list,
}


class ErrorReporter(QObject):
    """Counts internal errors and announces each place that failed, once."""

    sig_reported = Signal(str, str)
    """A place failed for the first time: (where, one line about the error)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self._places: set[str] = set()

    def report(self, where: str, error: BaseException, details: str = "") -> None:
        self.count += 1
        log.error("Internal error in %s:\n%s", where, details or traceback.format_exc())
        if where not in self._places:
            self._places.add(where)
            self.sig_reported.emit(where, f"{type(error).__name__}: {error}")


_reporter: ErrorReporter | None = None


def reporter() -> ErrorReporter:
    """The process's reporter (errors are a property of the process, like ``sys.excepthook``)."""
    global _reporter
    if _reporter is None:
        _reporter = ErrorReporter()
    return _reporter


def guarded(function: Callable, default: Callable[[], Any] | None = None) -> Callable:
    """``function`` with exceptions reported and ``default()`` (or None) returned instead."""
    where = getattr(function, "__qualname__", None) or getattr(function, "func", function).__qualname__

    @wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as error:
            reporter().report(where, error)
            return None if default is None else default()

    call.__bpe_guarded__ = True  # type: ignore[attr-defined]
    return call


def overrides(cls: type) -> list[str]:
    """Names of the methods ``cls`` itself defines that override a method of a Qt class."""
    qt_bases = [base for base in cls.__mro__[1:] if base.__module__.startswith(("PySide6", "shiboken6"))]
    return [
        name
        for name, value in vars(cls).items()
        if inspect.isfunction(value)
        and not name.startswith("__")
        and any(hasattr(base, name) for base in qt_bases)
    ]


def guard_overrides(cls: C) -> C:
    """Class decorator: wrap every Qt override ``cls`` defines with :func:`guarded`."""
    for name in overrides(cls):
        method = vars(cls)[name]
        if not getattr(method, "__bpe_guarded__", False):
            setattr(cls, name, guarded(method, _DEFAULTS.get(name)))
    return cls
