"""How tokens are shown: whitespace and control characters as visible glyphs, byte-level tokens
as the text they encode (a partial UTF-8 sequence as hex), the end-of-word marker kept apart so
it can be drawn muted."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from bpe_core import PipelineConfig
from bpe_core.pipeline.byte_alphabet import CHAR_TO_BYTE

_GLYPHS = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "⍽", "\x7f": "␡"}
_GLYPHS.update({chr(c): chr(0x2400 + c) for c in range(0x20) if chr(c) not in _GLYPHS})
_TABLE = str.maketrans(_GLYPHS)


# Right-to-left letters: Hebrew to the Arabic extensions, their presentation forms, and the
# right-to-left scripts beyond the first plane (Phoenician to Adlam).
_RIGHT_TO_LEFT = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


def left_to_right(text: str) -> str:
    """A row of tokens and signs ("left + right → token") as it is to be laid out: read left
    to right whatever the tokens' script. With right-to-left letters in it, the Unicode
    bidirectional algorithm would take the row for right-to-left text and lay it out from the
    right ("مر → ر + م"). Tokens show spaces as glyphs, so the row's spaces are its separators:
    a left-to-right mark (an invisible strong letter) either side of each keeps the signs and
    the row left to right, each token's own letters right to left. For painting only: the
    text copied, exported, searched and read out stays as it is."""
    if not _RIGHT_TO_LEFT.search(text):
        return text
    return "\u200e" + text.replace(" ", "\u200e \u200e") + "\u200e"


def show_whitespace(text: str) -> str:
    """Example: ``show_whitespace(" a\\n")`` -> ``"␣a↵"``."""
    return text.translate(_TABLE)


# Characters that draw nothing by themselves, named where a token would otherwise look empty
# or like another: a joiner or a variation selector on its own, a direction mark.
_INVISIBLE_NAMES = {
    "\u200b": "ZWSP",
    "\u200c": "ZWNJ",
    "\u200d": "ZWJ",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u2060": "WJ",
    "\ufeff": "BOM",
    "\u00ad": "SHY",
    "\u034f": "CGJ",
    "\u061c": "ALM",
}
_DOTTED_CIRCLE = "\u25cc"  # the base a combining mark is shown on where it has none, as in Unicode's charts


def _invisible_name(c: str) -> str | None:
    """``c``'s short name if it draws nothing by itself (a format character or a variation
    selector), else ``None``."""
    code = ord(c)
    if 0xFE00 <= code <= 0xFE0F:
        return f"VS{code - 0xFE00 + 1}"
    if 0xE0100 <= code <= 0xE01EF:
        return f"VS{code - 0xE0100 + 17}"
    if c in _INVISIBLE_NAMES:
        return _INVISIBLE_NAMES[c]
    # Direction embeddings and isolates, invisible operators: zero-width controls. Not every
    # format character: a flag's tag characters draw it, Arabic's number signs are visible.
    zero_width = 0x202A <= code <= 0x202E or 0x2061 <= code <= 0x2064 or 0x2066 <= code <= 0x206F
    return f"U+{code:04X}" if zero_width else None


def show_invisible(text: str) -> str:
    """``text`` (a token) with what would draw nothing shown: format characters and variation
    selectors it starts with, and format characters it ends with, by name ("⟨ZWJ⟩"); a
    combining mark it starts with on a dotted circle ("◌́"). Within a token they draw as meant
    (the joiners of "👨‍👩‍👧", the selector of "❤️").

    Example: ``show_invisible("\u200d")`` -> ``"⟨ZWJ⟩"``.
    """
    if not text or text.isascii():
        return text
    start, end = 0, len(text)
    head: list[str] = []
    while start < end and (name := _invisible_name(text[start])) is not None:
        head.append(f"⟨{name}⟩")
        start += 1
    tail: list[str] = []
    while end > start and unicodedata.category(text[end - 1]) == "Cf":
        name = _invisible_name(text[end - 1])
        if name is None:
            break
        tail.append(f"⟨{name}⟩")
        end -= 1
    body = text[start:end]
    if body and unicodedata.category(body[0]) in ("Mn", "Mc", "Me"):
        body = _DOTTED_CIRCLE + body
    return "".join(head) + body + "".join(reversed(tail))


# Tokens whose parts are kept: the Corpus pane shows the same few thousand again on every
# repaint. Not every token of a long history: a label kept elsewhere (the Vocabulary pane's)
# would then be held twice, with its key and its parts (about 300 bytes a token).
SHOWN_TOKENS_KEPT = 4096


def _parts(token: str, config: PipelineConfig) -> tuple[str, str]:
    """A token as (visible text, visible marker). The marker part is empty if there is none.

    Example: ``_parts("est</w>", PipelineConfig())`` -> ``("est", "</w>")``.
    """
    marker = config.end_of_word or ""
    body, end = token, ""
    if marker and token.endswith(marker) and token != marker:
        body, end = token[: -len(marker)], marker
    elif marker and token == marker:
        body, end = "", marker
    if config.unit == "byte" and body:
        try:
            data = bytes(CHAR_TO_BYTE[c] for c in body)
        except KeyError:  # a special token: shown as written
            return show_whitespace(body), end
        body = data.decode("utf-8", errors="backslashreplace")
    return show_invisible(show_whitespace(body)), end


token_parts = lru_cache(maxsize=SHOWN_TOKENS_KEPT)(_parts)  # the same, the most recent kept


def visible(token: str, config: PipelineConfig) -> str:
    """A token as one visible string (text then marker), made afresh: callers that show it
    again keep it themselves."""
    body, end = _parts(token, config)
    return body + end
