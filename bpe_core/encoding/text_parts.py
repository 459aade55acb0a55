"""A long text cut into parts that encode, one after another, exactly as the whole text does.

Encoding a 20 MB file whole holds the text, its pieces and every token's record at once. Cut
into parts of a quarter of a megabyte, it holds one part at a time, provided no cut changes
what the pipeline makes of the text around it:

* pre-tokenization: a cut falls where every mode ends a piece and starts the next one whatever
  follows; ``whitespace`` ends pieces at any whitespace character, and the pattern modes
  (``gpt2``, ``gpt4``, ``words``) just before a space between two letters, or between a letter
  and a punctuation mark (a letter run never takes the mark, and a piece that starts with the
  mark starts there in the whole text too). ``none`` is one piece: it is never cut, and
  neither is text for a ``custom`` chain of an imported tokenizer's steps.
* normalization: a cut falls before an ASCII character, which never composes with what comes
  before it; with a normal form or lowercasing, the letter before the cut is an ASCII one too
  (lowercasing ``İ`` gives a combining mark, which would join the punctuation after it). An
  imported tokenizer's chain of normalizers is cut only if each of its steps works a character
  at a time (:data:`CUT_NORMALIZERS`): ``Prepend`` and ``Strip`` work on the text's ends, and a
  ``Replace`` or a SentencePiece map may match across a cut.
* special tokens (when they are matched): no cut falls inside one or at its end, where the text
  after it would start anew (with a prefix space).

Example::

    >>> list(cut(["Hello wor", "ld, this is it."], "gpt2", size=3))
    ['Hello', ' world', ', this', ' is', ' it.']
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator

import regex

PART_SIZE = 1 << 18  # characters of text a part: a quarter of a megabyte
# An imported tokenizer's normalizers that leave text cut as above meaning what it did.
CUT_NORMALIZERS = frozenset({"UnicodeForm", "Lowercase", "StripAccents"})

_PUNCTUATION = re.escape("".join(sorted(set(string.punctuation) - {"_"})))  # "_" is a word character
_CUTS = {
    "whitespace": re.compile(r"(?<=.)[\t\n\x0b\x0c\r ]", re.DOTALL),
    "ascii": re.compile(rf"(?<=[A-Za-z])(?: (?=[A-Za-z])|[{_PUNCTUATION}])"),
    "letters": regex.compile(rf"(?<=\p{{L}})(?: (?=\p{{L}})|[{_PUNCTUATION}])"),
    # o200k joins a contraction to the letters before it: only a space between letters is safe.
    "spaces": regex.compile(r"(?<=\p{L}) (?=\p{L})"),
}


def cut(
    blocks: Iterable[str],
    mode: str,
    *,
    normalized: bool = False,
    special: re.Pattern[str] | None = None,
    longest: int = 0,
    size: int = PART_SIZE,
) -> Iterator[str]:
    """The text that ``blocks`` spell together, in consecutive parts of at least ``size``
    characters (all but the last) where it can be cut (see the module's notes).

    ``mode`` is the pre-tokenizer; ``normalized`` says the pipeline normalizes or lowercases;
    ``special`` matches the special tokens, the longest of which has ``longest`` characters,
    when they are matched."""
    if mode in ("none", "custom"):  # one piece, or a chain of steps no cut is proven safe for
        whole = "".join(blocks)
        yield from [whole] if whole else []
        return
    if mode == "o200k":
        finder = _CUTS["spaces"]
    else:
        finder = _CUTS["whitespace" if mode == "whitespace" else "ascii" if normalized else "letters"]
    # A cut needs the character after it (a space between letters) and, with special tokens,
    # enough text after it to see that none goes on across it.
    ahead = max(1, longest if special is not None else 0)
    text = ""
    searched = 0  # cuts before this have been looked for in ``text``
    for block in blocks:
        text += block
        while len(text) > max(size, searched) + ahead:
            at = _next_cut(text, max(size, searched), len(text) - ahead, finder, special)
            if at is None:
                searched = len(text) - ahead
                break
            yield text[:at]
            text, searched = text[at:], 0
    if text:
        yield text


def _next_cut(
    text: str,
    start: int,
    end: int,
    finder: re.Pattern[str] | regex.Pattern[str],
    special: re.Pattern[str] | None,
) -> int | None:
    """The first cut from ``start`` on that is before ``end``, or ``None``."""
    while (match := finder.search(text, start)) is not None and match.start() < end:
        at = match.start()
        if special is None:
            return at
        for token in special.finditer(text):  # from a cut, as the whole text's matching finds them
            if token.end() >= at:  # inside it, or at its end: go on after it
                break
        else:
            return at
        if token.start() >= at:
            return at
        start = token.end() + 1
    return None
