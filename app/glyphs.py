"""How tokens are shown: whitespace and control characters as visible glyphs, byte-level tokens
as the text they encode (a partial UTF-8 sequence as hex), the end-of-word marker kept apart so
it can be drawn muted."""

from __future__ import annotations

import re
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


def in_place(token: str) -> str:
    """A token shown among signs ("left + right → token") kept in its place: where it holds
    right-to-left letters, the Unicode bidirectional algorithm takes the row for right-to-left
    text and lays the tokens and signs out from the right ("مر → ر + م"). A left-to-right
    mark on either side of the token (an invisible strong letter) keeps the row and the signs
    around it left to right, the token's own letters right to left, and a marker after it
    after it. (Isolates would say it better, but Qt's layout does not know them.)"""
    if not _RIGHT_TO_LEFT.search(token):
        return token
    return f"\u200e{token}\u200e"


def without_marks(text: str) -> str:
    """``text`` as typed: without the marks :func:`in_place` adds (for finding it)."""
    return text.replace("\u200e", "") if "\u200e" in text else text


def show_whitespace(text: str) -> str:
    """Example: ``show_whitespace(" a\\n")`` -> ``"␣a↵"``."""
    return text.translate(_TABLE)


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
    return show_whitespace(body), end


token_parts = lru_cache(maxsize=SHOWN_TOKENS_KEPT)(_parts)  # the same, the most recent kept


def visible(token: str, config: PipelineConfig) -> str:
    """A token as one visible string (text then marker), made afresh: callers that show it
    again keep it themselves."""
    body, end = _parts(token, config)
    return body + end
