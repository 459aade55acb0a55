"""Pre-tokenization: split normalized text into pieces ("words") that merges never cross.

Modes: ``whitespace`` is exactly ``str.split()``; ``spaces`` splits at spaces and line breaks
only, as subword-nmt does (a tab or U+3000 stays inside a word); ``words`` is
``\\w+|[^\\w\\s]+``; ``gpt2`` and ``gpt4`` are the GPT-2 and cl100k patterns; ``none`` keeps
the whole text as one sequence. Patterns apply to the whole text, not line by line.
"""

from __future__ import annotations

import marshal
import os
import re
from collections import Counter
from collections.abc import Iterator

import regex

from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.steps import piece_strings

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# minbpe's spelling of cl100k: without ``\s++$`` a text's final whitespace after a line break
# splits differently, so it is a mode of its own (models trained with minbpe use it).
MINBPE_GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
# GPT-4o's (tiktoken's o200k_base): cased letter runs take a contraction after them.
O200K_PATTERN = "|".join(
    [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)
WORDS_PATTERN = r"\w+|[^\w\s]+"
# subword-nmt reads lines as Python's str.splitlines cuts them, strips "\r\n " from their ends and
# splits them at single spaces: a line's last word keeps a line break other than \r and \n
# (\x0b, \x85, U+2028...), and a line of one such break is a word.
_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
SPACES_PATTERN = f"[^ \\n\\r{_LINE_BREAKS}]*[{_LINE_BREAKS}]|[^ \\n\\r{_LINE_BREAKS}]+"

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
    "gpt4-minbpe": regex.compile(MINBPE_GPT4_PATTERN),
    "o200k": regex.compile(O200K_PATTERN),
    "words": regex.compile(WORDS_PATTERN),
    "spaces": re.compile(SPACES_PATTERN),
}
_ASCII = {
    "gpt2": re.compile(_ascii(GPT2_PATTERN)),
    "gpt4": re.compile(_ascii(GPT4_PATTERN)),
    "gpt4-minbpe": re.compile(_ascii(MINBPE_GPT4_PATTERN)),
    "words": re.compile(rf"\w+|[^\w{_WS}]+", re.ASCII),
}
_NON_SPACE_RUN = re.compile(r"\S+")  # re's \s is exactly str.split()'s whitespace
_CHUNK_SIZE = 1 << 20
# Text is counted in pieces about this size: a piece without a non-ASCII character takes the
# quicker engine (real text has a curly quote or a dash in most megabytes), and a small piece's
# matches stay in the processor's cache until counted. On English text, against pieces of a
# megabyte, the GPT-2 pattern's counting took a tenth less time.
_COUNTED_SIZE = 1 << 14
_PARALLEL_MIN = 4 << 20  # below this, forking costs more than it saves


def _pattern(mode: str, text: str) -> re.Pattern[str] | regex.Pattern[str]:
    return _ASCII[mode] if mode in _ASCII and text.isascii() else _UNICODE[mode]


# A space between two characters that may be letters (word characters, not digits or "_"):
# the spaces of a table of numbers are passed over in C, where looking at each in Python took
# seconds on 30 MB of them. Each is then checked with str.isalpha.
_LETTER_SPACE = re.compile(r"(?<=[^\W\d_]) (?=[^\W\d_])")


def letter_spaces(text: str, at: int) -> Iterator[int]:
    """Where a space between two letters is in ``text``, from ``at`` on, in order."""
    for found in _LETTER_SPACE.finditer(text, at):
        cut = found.start()
        if text[cut - 1].isalpha() and text[cut + 1].isalpha():
            yield cut


def safe_chunks(text: str, size: int = _CHUNK_SIZE) -> Iterator[str]:
    """Cut ``text`` into pieces that every mode splits exactly as it splits the whole.

    A cut is made just before a space that sits between two letters: no pattern's match crosses
    it (letter runs stop at the space, the space starts the next word) and none of the
    whitespace look-aheads or end anchors can see past it.
    """
    start = 0
    while len(text) - start > size:
        cut = next(letter_spaces(text, start + size), -1)
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


def pieces_of(text: str, config: PipelineConfig, at_start: bool = True) -> list[str]:
    """The pieces of normalized ``text`` as ``config`` pre-tokenizes it (``at_start``: the text
    begins the user's text, which a custom chain's first-piece prefix depends on)."""
    if config.pretokenize == "custom":
        return piece_strings(text, config.pre_tokenizers, at_start)
    return split(text, config.pretokenize)


def count_pieces_of(
    text: str, config: PipelineConfig, counter: Counter[str], workers: int = 1, at_start: bool = True
) -> Counter[str]:
    """:func:`count_pieces` for ``config``'s pre-tokenizer, a custom chain of steps included
    (counted whole: its patterns give no safe place to cut)."""
    if config.pretokenize == "custom":
        counter.update(piece_strings(text, config.pre_tokenizers, at_start))
        return counter
    return count_pieces(text, config.pretokenize, counter, workers)


def count_pieces(text: str, mode: str, counter: Counter[str] | None = None, workers: int = 1) -> Counter[str]:
    """Count pieces in ``text`` chunk by chunk, so a large text never becomes one huge list.

    The counter keeps first-appearance order, which the ``first-seen`` tie-break relies on. With
    ``workers=2`` a forked child counts the second half of a large text meanwhile (POSIX only;
    use it only from a process without threads).
    """
    counter = Counter() if counter is None else counter
    if mode == "none":
        if text:
            counter[text] += 1
        return counter
    if workers > 1 and len(text) >= _PARALLEL_MIN and hasattr(os, "fork"):
        cut = _middle_cut(text)
        if cut:
            child = _fork_counter(text[cut:], mode)
            _count_chunks(text[:cut], mode, counter)
            second = _join_counter(child)
            if second is None:
                _count_chunks(text[cut:], mode, counter)
            else:
                counter.update(second)  # new keys append in the child's order: first appearance
            return counter
    return _count_chunks(text, mode, counter)


def _count_chunks(text: str, mode: str, counter: Counter[str]) -> Counter[str]:
    for chunk in safe_chunks(text, _COUNTED_SIZE):
        counter.update(split(chunk, mode))
    return counter


def _middle_cut(text: str) -> int:
    """A safe cut (see :func:`safe_chunks`) near the middle of ``text``, or 0 if there is none."""
    first = next(safe_chunks(text, len(text) // 2))
    return len(first) if len(first) < len(text) else 0


def _fork_counter(text: str, mode: str) -> tuple[int, int] | None:
    """Start a child that counts ``text`` and sends the counts back as marshalled plain data."""
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the child: count, send, and leave without running any cleanup
        code = 1
        try:
            os.close(read_end)
            data = marshal.dumps(dict(_count_chunks(text, mode, Counter())))
            with os.fdopen(write_end, "wb") as stream:
                stream.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _join_counter(child: tuple[int, int] | None) -> dict[str, int] | None:
    """The child's counts, or ``None`` if it failed (the caller then counts that part itself)."""
    if child is None:
        return None
    pid, read_end = child
    with os.fdopen(read_end, "rb") as stream:
        data = stream.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    counts = marshal.loads(data)  # plain str -> int data written by our own child, never code
    return counts if isinstance(counts, dict) else None


def spans(text: str, mode: str) -> Iterator[tuple[int, int]]:
    """Start and end offsets of each piece, in order (for encoding with character spans)."""
    if mode == "none":
        if text:
            yield 0, len(text)
        return
    pattern = _NON_SPACE_RUN if mode == "whitespace" else _pattern(mode, text)
    for match in pattern.finditer(text):
        yield match.span()
