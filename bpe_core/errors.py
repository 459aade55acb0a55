"""Errors the engine raises for bad input: each carries one clear sentence for the user."""


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
