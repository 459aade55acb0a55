"""The pipeline's options (normalize, pre-tokenize, units, marker), validated once, serialisable to JSON."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from bpe_core.errors import ConfigError, has_lone_surrogate
from bpe_core.pipeline.specials import SpecialMatch
from bpe_core.pipeline.steps import (
    ByteLevel,
    Normalizer,
    PreTokenizer,
    normalizer_from_dict,
    pre_tokenizer_from_dict,
    steps_to_dicts,
)

# What a user chooses for training; "custom" is the chain of steps in ``normalizers`` /
# ``pre_tokenizers`` that an imported tokenizer brings.
NAMED_NORMALIZATIONS = ("none", "nfc", "nfkc")
NAMED_PRETOKENIZERS = ("whitespace", "spaces", "words", "gpt2", "gpt4", "gpt4-minbpe", "o200k", "none")
NORMALIZATIONS = (*NAMED_NORMALIZATIONS, "custom")
PRETOKENIZERS = (*NAMED_PRETOKENIZERS, "custom")
UNITS = ("char", "byte")
INPUT_KINDS = ("text", "counts")
DEFAULT_MARKER = "</w>"
# Pre-tokenizers that keep whitespace inside the pieces: decoding them loses nothing.
LOSSLESS_PRETOKENIZERS = ("gpt2", "gpt4", "gpt4-minbpe", "o200k", "none", "custom")


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
    pretokenize : "whitespace" (``str.split()``), "spaces" (at spaces and line breaks only, as
        subword-nmt splits), "words" (``\\w+|[^\\w\\s]+``), "gpt2", "gpt4"
        (cl100k), "gpt4-minbpe" (cl100k as minbpe spells it), "o200k" (GPT-4o's), "none" (the
        whole text is one sequence) or "custom" (``pre_tokenizers``).
    unit : "char" or "byte" (UTF-8 bytes shown in GPT-2's alphabet).
    end_of_word : marker string appended to every word, or ``None`` for no marker.
    attach_marker : glue the marker to the word's last symbol (``w</w>``) instead of adding it as
        a symbol of its own (``w </w>``).
    special_tokens : tokens that take the first ids, split the text and are never merged.
    prefix_space : put a space before text that does not start with one, after normalizing
        (Hugging Face's ``add_prefix_space``: a text's first word then looks like any other).
    normalizers, pre_tokenizers : the chains of steps of ``normalization="custom"`` and
        ``pretokenize="custom"`` (``bpe_core.pipeline.steps``), as an imported tokenizer has them.
    byte_fallback : a character the vocabulary lacks becomes its UTF-8 bytes' tokens
        (``<0x0A>``), as SentencePiece and Hugging Face do with byte fallback.
    ignore_merges : a piece that is a token of the vocabulary is that token, whatever the
        merges would make of it (Hugging Face's ``ignore_merges``, Llama 3's tokenizer).
    fuse_unknown : consecutive unknown units become one unknown token (``fuse_unk``).
    continuing_prefix : put before every unit of a piece but its first (Hugging Face's
        ``continuing_subword_prefix``, ``##``): a merge's token is its left part and its right
        part without that prefix (``a`` + ``##b`` -> ``ab``).
    special_matching : how some special tokens are found, when not as any is by default
        (Hugging Face's added-token options: ``bpe_core.pipeline.specials``).
    """

    normalization: str = "none"
    lowercase: bool = False
    pretokenize: str = "whitespace"
    unit: str = "char"
    end_of_word: str | None = DEFAULT_MARKER
    attach_marker: bool = False
    special_tokens: tuple[str, ...] = field(default_factory=tuple)
    prefix_space: bool = False
    normalizers: tuple[Normalizer, ...] = ()
    pre_tokenizers: tuple[PreTokenizer, ...] = ()
    byte_fallback: bool = False
    ignore_merges: bool = False
    fuse_unknown: bool = False
    continuing_prefix: str | None = None
    special_matching: tuple[SpecialMatch, ...] = ()

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
        self._check_steps()

    def _check_steps(self) -> None:
        matching = tuple(self.special_matching)
        object.__setattr__(self, "special_matching", matching)
        if not all(isinstance(m, SpecialMatch) and m.content in self.special_tokens for m in matching):
            raise ConfigError("Matching options are given for a token that is not a special token.")
        prefix = self.continuing_prefix
        if prefix is not None and (not prefix or "\x00" in prefix or has_lone_surrogate(prefix)):
            raise ConfigError("The continuing-subword prefix must be a non-empty string without NUL.")
        if prefix is not None and self.end_of_word is not None and not self.attach_marker:
            raise ConfigError("A continuing-subword prefix goes with an attached end-of-word marker or none.")
        if self.byte_fallback and (self.unit != "char" or self.end_of_word is not None):
            raise ConfigError("Byte fallback goes with character units and no end-of-word marker.")
        normalizers, pre_tokenizers = tuple(self.normalizers), tuple(self.pre_tokenizers)
        object.__setattr__(self, "normalizers", normalizers)
        object.__setattr__(self, "pre_tokenizers", pre_tokenizers)
        if (self.normalization == "custom") != bool(normalizers):
            raise ConfigError("Normalizer steps go with the normalization 'custom', and it needs them.")
        if (self.pretokenize == "custom") != bool(pre_tokenizers):
            raise ConfigError("Pre-tokenizer steps go with the pre-tokenizer 'custom', and it needs them.")
        if not all(isinstance(step, Normalizer) for step in normalizers) or not all(
            isinstance(step, PreTokenizer) for step in pre_tokenizers
        ):
            raise ConfigError("A normalizer or pre-tokenizer step is of the wrong kind.")
        if normalizers and self.lowercase:
            raise ConfigError("A chain of normalizer steps lowercases with a Lowercase step of its own.")
        if not set(self.always_matched) <= set(self.special_tokens):
            raise ConfigError("A SentencePiece normalizer's user-defined pieces must be special tokens.")
        if any(isinstance(step, ByteLevel) for step in pre_tokenizers):
            if self.unit != "byte" or not isinstance(pre_tokenizers[-1], ByteLevel):
                raise ConfigError("A ByteLevel pre-tokenizer comes last, with the unit 'byte'.")
            if self.prefix_space:
                raise ConfigError("With a ByteLevel step the prefix space is the step's own setting.")

    @property
    def always_matched(self) -> tuple[str, ...]:
        """Special tokens found in every text, also where special tokens are not matched: those
        the normalizer steps say so of (SentencePiece's user-defined pieces, which its encoder
        always splits out)."""
        return tuple(token for step in self.normalizers for token in step.always_matched)

    @property
    def prefixes_first_piece(self) -> bool:
        """True when a step puts a prefix before the text's first piece only (Metaspace's
        ``first`` scheme), which then depends on where that piece came from."""
        return any(getattr(step, "prepend_scheme", None) == "first" for step in self.pre_tokenizers)

    @property
    def keeps_whitespace(self) -> bool:
        """True when pieces carry their whitespace, so decoding needs no separators."""
        return self.pretokenize in LOSSLESS_PRETOKENIZERS

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["special_tokens"] = list(self.special_tokens)
        data["normalizers"] = steps_to_dicts(self.normalizers)
        data["pre_tokenizers"] = steps_to_dicts(self.pre_tokenizers)
        data["special_matching"] = [match.to_dict() for match in self.special_matching]
        for name in _OPTIONAL:  # left out at their defaults: files stay as older versions wrote them
            if data[name] == _OPTIONAL[name]:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        data = checked_fields(cls, data, "pipeline")
        for name, read in (
            ("normalizers", normalizer_from_dict),
            ("pre_tokenizers", pre_tokenizer_from_dict),
        ):
            if name in data:
                if not all(isinstance(node, dict) for node in data[name]):
                    raise ConfigError(f"The pipeline's {name} must be JSON objects.")
                data[name] = tuple(read(node) for node in data[name])
        if "special_matching" in data:
            data["special_matching"] = tuple(map(SpecialMatch.from_dict, data["special_matching"]))
        return cls(**data)


# Settings added after the first session format, written only when they differ from these.
_OPTIONAL: dict[str, Any] = {
    "normalizers": [],
    "pre_tokenizers": [],
    "byte_fallback": False,
    "ignore_merges": False,
    "fuse_unknown": False,
    "continuing_prefix": None,
    "special_matching": [],
}


_EXPECTED_TYPES: dict[str, type | tuple[type, ...]] = {
    "normalization": str,
    "lowercase": bool,
    "pretokenize": str,
    "unit": str,
    "end_of_word": (str, type(None)),
    "attach_marker": bool,
    "special_tokens": (list, tuple),
    "prefix_space": bool,
    "normalizers": list,
    "pre_tokenizers": list,
    "byte_fallback": bool,
    "ignore_merges": bool,
    "fuse_unknown": bool,
    "continuing_prefix": (str, type(None)),
    "special_matching": list,
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
