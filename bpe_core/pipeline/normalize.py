"""Normalization: Unicode normal form, then lowercase; with a map back to source offsets.

Encoding reports character spans into the user's text, so when normalization changes lengths
(NFKC turns ``ﬁ`` into ``fi``; ``İ`` lowercases to two characters) each normalized character is
mapped back to the source character it came from.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Literal

from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.steps import normalize_with, normalize_with_aligned
from bpe_core.pipeline.unicode_align import aligned_by

_FORMS: dict[str, Literal["NFC", "NFKC"]] = {"nfc": "NFC", "nfkc": "NFKC"}


def normalize(text: str, config: PipelineConfig) -> str:
    """Apply the configured normal form, then lowercase, then the prefix space.
    Example: ``"ＡB"`` (NFKC, lower) -> ``"ab"``."""
    if config.normalization == "custom":
        text = normalize_with(text, config.normalizers)
    elif config.normalization != "none":
        text = unicodedata.normalize(_FORMS[config.normalization], text)
    if config.lowercase:
        # One character at a time, as Hugging Face's Lowercase does: str.lower() alone would
        # make a word-final Σ a ς (the only rule of its that looks at neighbours).
        text = text.replace("Σ", "σ").lower()
    # Text that normalizes to nothing stays nothing: Hugging Face drops an empty split before
    # its pre-tokenizer would add the space.
    return " " + text if config.prefix_space and text and not text.startswith(" ") else text


def normalize_aligned(text: str, config: PipelineConfig) -> tuple[str, list[int] | None]:
    """Normalize ``text`` and map each normalized character to its source offset, in linear time.

    Returns ``(normalized, starts)`` where ``starts[i]`` is the source index of normalized
    character ``i`` (non-decreasing); ``starts`` is ``None`` when the mapping is the identity.
    A prefix space comes from offset 0.
    """
    if config.prefix_space:
        plain, plain_starts = normalize_aligned(text, replace(config, prefix_space=False))
        if not plain or plain.startswith(" "):
            return plain, plain_starts
        return " " + plain, [0, *(range(len(plain)) if plain_starts is None else plain_starts)]
    if config.normalization == "custom":
        return normalize_with_aligned(text, config.normalizers)
    expands_only = config.normalization == "none"  # lowercasing alone
    return aligned_by(text, lambda part: normalize(part, config), expands_only)


def begins_with_text(text: str, config: PipelineConfig, at_start: bool) -> bool:
    """Whether normalized ``text`` (which begins the user's text where ``at_start``) still begins
    there: Hugging Face's Metaspace puts its ``first`` prefix only before a piece that comes from
    the text's very first character, so not where a normalizer dropped that character (``Strip``,
    a ``Replace`` that deletes it or replaces it along with the next ones)."""
    if not at_start or not config.prefixes_first_piece:
        return at_start
    _, starts = normalize_aligned(text, config)
    return not starts or starts[0] == 0
