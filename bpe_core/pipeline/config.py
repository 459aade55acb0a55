"""The pipeline's options (normalize, pre-tokenize, units, marker), validated once, serialisable to JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from bpe_core.errors import ConfigError, has_lone_surrogate

NORMALIZATIONS = ("none", "nfc", "nfkc")
PRETOKENIZERS = ("whitespace", "words", "gpt2", "gpt4", "gpt4-minbpe", "none")
UNITS = ("char", "byte")
INPUT_KINDS = ("text", "counts")
DEFAULT_MARKER = "</w>"
# Pre-tokenizers that keep whitespace inside the pieces: decoding them loses nothing.
LOSSLESS_PRETOKENIZERS = ("gpt2", "gpt4", "gpt4-minbpe", "none")


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"Unknown {name} {value!r}; choose one of: {', '.join(allowed)}.")


@dataclass(frozen=True)
class PipelineConfig:
    """How text becomes sequences of base symbols (normalize -> pre-tokenize -> units -> marker).

    Attributes
    ----------
    normalization : "none", "nfc" or "nfkc" (Unicode normal form applied first).
    lowercase : lowercase after Unicode normalization.
    pretokenize : "whitespace" (``str.split()``), "words" (``\\w+|[^\\w\\s]+``), "gpt2", "gpt4"
        (cl100k), "gpt4-minbpe" (cl100k as minbpe spells it) or "none" (the whole text is one
        sequence).
    unit : "char" or "byte" (UTF-8 bytes shown in GPT-2's alphabet).
    end_of_word : marker string appended to every word, or ``None`` for no marker.
    attach_marker : glue the marker to the word's last symbol (``w</w>``) instead of adding it as
        a symbol of its own (``w </w>``).
    special_tokens : tokens that take the first ids, split the text and are never merged.
    prefix_space : put a space before text that does not start with one, after normalizing
        (Hugging Face's ``add_prefix_space``: a text's first word then looks like any other).
    """

    normalization: str = "none"
    lowercase: bool = False
    pretokenize: str = "whitespace"
    unit: str = "char"
    end_of_word: str | None = DEFAULT_MARKER
    attach_marker: bool = False
    special_tokens: tuple[str, ...] = field(default_factory=tuple)
    prefix_space: bool = False

    def __post_init__(self) -> None:
        _choice("normalization", self.normalization, NORMALIZATIONS)
        _choice("pre-tokenizer", self.pretokenize, PRETOKENIZERS)
        _choice("unit", self.unit, UNITS)
        if self.end_of_word is not None and (
            not self.end_of_word
            or self.end_of_word.isspace()
            or "\x00" in self.end_of_word
            or has_lone_surrogate(self.end_of_word)
        ):
            raise ConfigError("The end-of-word marker must be a visible, non-empty string.")
        if self.attach_marker and self.end_of_word is None:
            raise ConfigError("--attach-marker needs an end-of-word marker.")
        specials = tuple(self.special_tokens)
        if any(not token or "\x00" in token for token in specials):  # NUL: see bpe_core.pipeline.vocab
            raise ConfigError("A special token must be a non-empty string without NUL characters.")
        if any(has_lone_surrogate(token) for token in specials):
            raise ConfigError("A special token holds a lone surrogate (U+D800 to U+DFFF), not text.")
        if len(set(specials)) != len(specials):
            raise ConfigError("Special tokens must be distinct.")
        object.__setattr__(self, "special_tokens", specials)

    @property
    def keeps_whitespace(self) -> bool:
        """True when pieces carry their whitespace, so decoding needs no separators."""
        return self.pretokenize in LOSSLESS_PRETOKENIZERS

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["special_tokens"] = list(self.special_tokens)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        return cls(**checked_fields(cls, data, "pipeline"))


_EXPECTED_TYPES: dict[str, type | tuple[type, ...]] = {
    "normalization": str,
    "lowercase": bool,
    "pretokenize": str,
    "unit": str,
    "end_of_word": (str, type(None)),
    "attach_marker": bool,
    "special_tokens": (list, tuple),
    "prefix_space": bool,
    "min_frequency": int,
    "tie_break": str,
    "merges_per_pass": int,
}


def checked_fields(cls: type, data: Any, what: str) -> dict[str, Any]:
    """Keep only known keys and check their JSON types, so a bad file gives a clear message."""
    if not isinstance(data, dict):
        raise ConfigError(f"The {what} settings must be a JSON object.")
    known = {f.name for f in fields(cls) if f.init}  # a derived field (the parsed rule) is no setting
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"Unknown {what} setting {sorted(unknown)[0]!r}.")
    for name, value in data.items():
        expected = _EXPECTED_TYPES[name]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"The {what} setting {name!r} has a value of the wrong type.")
    if "special_tokens" in data:
        if not all(isinstance(token, str) for token in data["special_tokens"]):
            raise ConfigError("Special tokens must be strings.")
        data = {**data, "special_tokens": tuple(data["special_tokens"])}
    return data
