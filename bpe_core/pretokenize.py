"""Pre-tokenization: split normalized text into pieces ("words") that merges never cross.

Modes: ``whitespace`` is exactly ``str.split()``; ``words`` is ``\\w+|[^\\w\\s]+``; ``gpt2`` and
``gpt4`` are the GPT-2 and cl100k patterns; ``none`` keeps the whole text as one sequence.
Patterns apply to the whole text, not line by line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import regex

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
WORDS_PATTERN = r"\w+|[^\w\s]+"

# On pure-ASCII text the Unicode classes reduce to these (checked by a property test), and the
# standard ``re`` engine runs them about twice as fast as ``regex``. ``regex``'s \s omits
# \x1c-\x1f, which ``re``'s \s includes, hence the explicit class.
_WS = r"\t\n\x0b\x0c\r "


def _ascii(pattern: str) -> str:
    return (
        pattern.replace(r"[^\s\p{L}\p{N}]", f"[^{_WS}A-Za-z0-9]")
        .replace(r"[^\r\n\p{L}\p{N}]", r"[^\r\nA-Za-z0-9]")
        .replace(r"(?!\S)", f"(?![^{_WS}])")
        .replace(r"\s", f"[{_WS}]")
        .replace(r"\p{L}", "[A-Za-z]")
        .replace(r"\p{N}", "[0-9]")
    )


_UNICODE = {
    "gpt2": regex.compile(GPT2_PATTERN),
    "gpt4": regex.compile(GPT4_PATTERN),
    "words": regex.compile(WORDS_PATTERN),
}
_ASCII = {
    "gpt2": re.compile(_ascii(GPT2_PATTERN)),
    "gpt4": re.compile(_ascii(GPT4_PATTERN)),
    "words": re.compile(rf"\w+|[^\w{_WS}]+", re.ASCII),
}
_NON_SPACE_RUN = re.compile(r"\S+")  # re's \s is exactly str.split()'s whitespace
_CHUNK_SIZE = 1 << 20


def _pattern(mode: str, text: str) -> re.Pattern[str] | regex.Pattern[str]:
    return _ASCII[mode] if text.isascii() else _UNICODE[mode]


def safe_chunks(text: str, size: int = _CHUNK_SIZE) -> Iterator[str]:
    """Cut ``text`` into pieces that every mode splits exactly as it splits the whole.

    A cut is made just before a space that sits between two letters: no pattern's match crosses
    it (letter runs stop at the space, the space starts the next word) and none of the
    whitespace look-aheads or end anchors can see past it.
    """
    start = 0
    while len(text) - start > size:
        cut = text.find(" ", start + size)
        while cut != -1 and not (text[cut - 1].isalpha() and text[cut + 1 : cut + 2].isalpha()):
            cut = text.find(" ", cut + 1)
        if cut == -1:
            break
        yield text[start:cut]
        start = cut
    yield text[start:]


def split(text: str, mode: str) -> list[str]:
    """Pieces of ``text`` in order. Example: ``split("a, b", "words")`` -> ``["a", ",", "b"]``."""
    if mode == "whitespace":
        return text.split()
    if mode == "none":
        return [text] if text else []
    return _pattern(mode, text).findall(text)


def count_pieces(text: str, mode: str, counter: Counter[str] | None = None) -> Counter[str]:
    """Count pieces in ``text`` chunk by chunk, so a large text never becomes one huge list.

    The counter keeps first-appearance order, which the ``first-seen`` tie-break relies on.
    """
    counter = Counter() if counter is None else counter
    if mode == "none":
        if text:
            counter[text] += 1
        return counter
    for chunk in safe_chunks(text):
        counter.update(split(chunk, mode))
    return counter


def spans(text: str, mode: str) -> Iterator[tuple[int, int]]:
    """Start and end offsets of each piece, in order (for encoding with character spans)."""
    if mode == "none":
        if text:
            yield 0, len(text)
        return
    pattern = _NON_SPACE_RUN if mode == "whitespace" else _pattern(mode, text)
    for match in pattern.finditer(text):
        yield match.span()
