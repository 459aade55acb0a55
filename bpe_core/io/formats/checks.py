"""Checks the readers of tokenizer files share: what a file spells must be text and numbers that
BPE Studio can hold, or the file is refused on load with one sentence (never a traceback later,
at encode, decode or save)."""

from __future__ import annotations

import re
from typing import Any

LONE_SURROGATE = "a lone surrogate (U+D800 to U+DFFF, written \\ud800 in JSON), which text never has"
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # how JSON spells one (a pair, or a lone one)


def has_lone_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def json_has_lone_surrogate(raw: bytes, data: Any) -> bool:
    """Whether JSON ``data``, parsed from the UTF-8 ``raw``, holds a lone surrogate in any string.
    UTF-8 cannot spell one, so only a file with a ``\\uD8xx``-style escape is walked."""
    if _SURROGATE_ESCAPE.search(raw) is None:
        return False
    stack = [data]  # not recursive: the JSON may be nested as deep as json.loads allows
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if has_lone_surrogate(node):
                return True
        elif isinstance(node, dict):
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def after_colon(error: Exception) -> str:
    """An error's sentence to follow a colon in another: ``"…: the marker must be …"``."""
    sentence = str(error)
    return sentence[:1].lower() + sentence[1:]


def whole_number(text: str | bytes, digits: int = 18) -> int | None:
    """``text`` (or bytes) as a whole number if it is 1 to ``digits`` ASCII digits, else ``None``.
    ``str.isdigit`` accepts ``²``, which ``int`` refuses; ``int`` reads Arabic-Indic digits, which
    no tokenizer library writes, and refuses 4,300 digits with a message of its own.

    Example: ``whole_number("256")`` is 256; ``whole_number("2²")`` and ``whole_number("9" * 19)``
    are ``None``.
    """
    return int(text) if 0 < len(text) <= digits and text.isascii() and text.isdigit() else None
