"""Finding special tokens in text, with the options Hugging Face gives added tokens.

By default a special token is found wherever its text occurs, the longest first at any place.
A tokenizer read from a ``tokenizer.json`` may ask more of some (``SpecialMatch``): take the
whitespace before (``lstrip``) or after (``rstrip``) into the token, match only as a word of
its own (``single_word``: no word character just before or after), or match in the normalized
text rather than the raw one (``normalized``). Found as Hugging Face finds them: the leftmost
longest occurrences first, then the single-word test, then the whitespace taken. An added token
Hugging Face does not mark special (``special=False``) is ordinary vocabulary to it, found in
every text: the encoder finds it whether or not special tokens are matched.

Imports only the standard library, ``regex`` and :mod:`bpe_core.errors`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import regex

from bpe_core.errors import ConfigError


@cache
def _classes() -> tuple[regex.Pattern[str], regex.Pattern[str]]:
    r"""(word character, whitespace) as Unicode defines ``\w`` and White_Space, and Rust's regex
    crate, which Hugging Face uses (compiled when first needed: few tokenizers ask)."""
    return regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]"), regex.compile(
        r"\p{White_Space}"
    )


@dataclass(frozen=True)
class SpecialMatch:
    """How a special token is found: Hugging Face's ``AddedToken`` options."""

    content: str
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    normalized: bool = False
    special: bool = True

    def to_dict(self) -> dict[str, Any]:
        data = {
            "content": self.content,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "single_word": self.single_word,
            "normalized": self.normalized,
        }
        if not self.special:  # written only when false: files written before keep their form
            data["special"] = False
        return data

    @classmethod
    def from_dict(cls, data: Any) -> SpecialMatch:
        if not (
            isinstance(data, dict)
            and isinstance(data.get("content"), str)
            and all(isinstance(data.get(name, False), bool) for name in _OPTIONS)
            and isinstance(data.get("special", True), bool)
        ):
            raise ConfigError("A special token's matching options are malformed.")
        options = {name: data.get(name, False) for name in _OPTIONS}
        return cls(data["content"], **options, special=data.get("special", True))

    @property
    def plain(self) -> bool:
        """Whether it is found as any special token is by default."""
        return self.special and not (self.lstrip or self.rstrip or self.single_word or self.normalized)


_OPTIONS = ("lstrip", "rstrip", "single_word", "normalized")


class SpecialFinder:
    """Finds a set of special tokens in text: ``find`` gives ``(start, end, token)`` for each,
    in order and without overlaps (``start:end`` includes the whitespace a token takes).

    ``spelled``: a token searched in another form (token -> form: its normalized text, for a
    token Hugging Face matches in normalized text, as it normalizes the token too)."""

    def __init__(
        self,
        tokens: Iterable[str],
        options: Sequence[SpecialMatch] = (),
        spelled: Mapping[str, str] | None = None,
    ) -> None:
        spelled = spelled or {}
        self._token_of = {spelled.get(token, token): token for token in tokens}
        forms = sorted((form for form in self._token_of if form), key=len, reverse=True)  # longest wins
        self._options = {match.content: match for match in options if not match.plain}
        self._pattern = re.compile("|".join(map(re.escape, forms))) if forms else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def find(self, text: str) -> list[tuple[int, int, str]]:
        if self._pattern is None:
            return []
        found: list[tuple[int, int, str]] = []
        done = 0  # the end of the last token taken: whitespace before it is taken already
        for match in self._pattern.finditer(text):
            start, end, token = match.start(), match.end(), self._token_of[match.group()]
            option = self._options.get(token)
            if option is not None:
                word, space = _classes()
                if option.single_word and (
                    (start > 0 and word.match(text[start - 1])) or (end < len(text) and word.match(text[end]))
                ):
                    continue
                if option.lstrip:
                    while start > done and space.match(text[start - 1]):
                        start -= 1
                if option.rstrip:
                    while end < len(text) and space.match(text[end]):
                        end += 1
            if start < done:  # a token found inside the whitespace the last one took
                continue
            found.append((start, end, token))
            done = end
        return found


def finders(
    tokens: Sequence[str], options: Sequence[SpecialMatch], spelled: Mapping[str, str] | None = None
) -> tuple[SpecialFinder, SpecialFinder]:
    """(the finder of tokens matched in raw text, the finder of those matched in normalized text,
    each searched as ``spelled`` spells it there, else as it is)."""
    normalized = {match.content for match in options if match.normalized}
    raw = [token for token in tokens if token not in normalized]
    in_normalized = [token for token in tokens if token in normalized]
    return SpecialFinder(raw, options), SpecialFinder(in_normalized, options, spelled)
