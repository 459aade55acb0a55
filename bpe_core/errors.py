"""Errors the engine raises for bad input: each carries one clear sentence for the user."""

import re


class BpeError(ValueError):
    """Base class: the message is a complete sentence fit to show a user as is."""


class ConfigError(BpeError):
    """An option has a value the pipeline or trainer does not support."""


class InputError(BpeError):
    """A corpus file or text cannot be used (missing, binary, not UTF-8, malformed, empty)."""


class SessionError(BpeError):
    """A session/model file is unreadable, malformed or inconsistent."""


class MergeError(BpeError):
    """A requested merge or history move is not possible in the current state."""


class Cancelled(Exception):
    """Long work (loading, encoding a long text) stopped because its caller asked it to."""


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut to about ``limit`` characters: a file can hold a token
    of a megabyte, and a message names it, it does not echo it.

    Example: ``quoted("a" * 100, 5)`` is ``"'aaaaa…' (100 characters)"``.
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '…'!r} ({len(text):,} characters)"


def plural(n: int, word: str) -> str:
    """``word`` as many ``n`` take: "merge" for one, "merges" for any other number."""
    return word if n == 1 else word + "s"


def shown(value: object) -> str:
    """A value read from a file, for a message: text quoted and cut to a short excerpt (a file
    may hold a token of a megabyte), a number as written, a list or an object named only.

    Example: ``shown("Metaspace")`` is ``"'Metaspace'"``; ``shown([1, 2])`` is ``"a list"``.
    """
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (U+D800 to U+DFFF): JSON can spell one
    (``"\\ud800"``), no UTF-8 text holds it, and it fails wherever text is encoded."""
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None
