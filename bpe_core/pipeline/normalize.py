"""Normalization: Unicode normal form, then lowercase; with a map back to source offsets.

Encoding reports character spans into the user's text, so when normalization changes lengths
(NFKC turns ``ﬁ`` into ``fi``; ``İ`` lowercases to two characters) each normalized character is
mapped back to the source character it came from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from itertools import pairwise
from typing import Literal

from bpe_core.pipeline.config import PipelineConfig

_RUNS = re.compile(r"\s+|\S+")
_FORMS: dict[str, Literal["NFC", "NFKC"]] = {"nfc": "NFC", "nfkc": "NFKC"}


def normalize(text: str, config: PipelineConfig) -> str:
    """Apply the configured normal form, then lowercase, then the prefix space.
    Example: ``"ＡB"`` (NFKC, lower) -> ``"ab"``."""
    if config.normalization != "none":
        text = unicodedata.normalize(_FORMS[config.normalization], text)
    if config.lowercase:
        # One character at a time, as Hugging Face's Lowercase does: str.lower() alone would
        # make a word-final Σ a ς (the only rule of its that looks at neighbours).
        text = text.replace("Σ", "σ").lower()
    return " " + text if config.prefix_space and not text.startswith(" ") else text


def normalize_aligned(text: str, config: PipelineConfig) -> tuple[str, list[int] | None]:
    """Normalize ``text`` and map each normalized character to its source offset, in linear time.

    Returns ``(normalized, starts)`` where ``starts[i]`` is the source index of normalized
    character ``i`` (non-decreasing); ``starts`` is ``None`` when the mapping is the identity.
    A prefix space comes from offset 0.
    """
    if config.prefix_space:
        plain, plain_starts = normalize_aligned(text, replace(config, prefix_space=False))
        if plain.startswith(" "):
            return plain, plain_starts
        return " " + plain, [0, *(range(len(plain)) if plain_starts is None else plain_starts)]
    normalized = normalize(text, config)
    if _one_to_one(text, normalized, config):
        return normalized, None
    starts: list[int] = []
    pieces: list[str] = []
    # Whitespace never composes or reorders with its neighbours, so whitespace and non-whitespace
    # runs normalize independently; only runs whose length changes need a finer map.
    for run in _RUNS.finditer(text):
        source = run.group()
        piece = normalize(source, config)
        pieces.append(piece)
        if _one_to_one(source, piece, config):
            starts.extend(range(run.start(), run.end()))
        else:
            starts.extend(_run_starts(source, run.start(), piece, config))
    if "".join(pieces) != normalized or len(starts) != len(normalized):
        return normalized, _proportional(len(text), len(normalized))  # not expected: degrade, never fail
    return normalized, starts


def _one_to_one(source: str, normalized: str, config: PipelineConfig) -> bool:
    """Whether each normalized character comes from the source character at its index.
    lower() alone only ever expands a character, so there equal length is enough."""
    return normalized == source or (config.normalization == "none" and len(normalized) == len(source))


_PREFIX_LIMIT = 2_000  # characters: beyond this the quadratic prefix map is not attempted


def _run_starts(source: str, offset: int, piece: str, config: PipelineConfig) -> list[int]:
    """Source offsets of the characters of ``piece`` (the normalized ``source``).

    Normalization acts on a starter and the combining marks after it, so each such cluster
    is normalized alone; where that differs from the whole (a composition across clusters,
    such as Hangul jamo), neighbouring clusters that interact are grouped.
    Only a group whose length changes needs the per-prefix map, and groups are short.
    """
    clusters = _clusters(source)
    groups = clusters
    parts = [normalize(cluster, config) for cluster in clusters]
    if "".join(parts) != piece:
        groups = _grouped(clusters, config)
        parts = [normalize(group, config) for group in groups]
        if sum(map(len, parts)) != len(piece):
            if len(source) <= _PREFIX_LIMIT:
                return _prefix_starts(source, offset, len(piece), config)
            return [offset + i for i in _proportional(len(source), len(piece))]
    starts: list[int] = []
    for group, part in zip(groups, parts, strict=True):
        if _one_to_one(group, part, config):
            starts.extend(range(offset, offset + len(group)))
        elif len(group) == 1:  # one character (a ligature, say): all it became comes from it
            starts.extend([offset] * len(part))
        else:
            starts.extend(_prefix_starts(group, offset, len(part), config))
        offset += len(group)
    return starts


def _clusters(text: str) -> list[str]:
    """``text`` cut before every character of combining class 0 (a starter)."""
    cuts = [i for i, char in enumerate(text) if i == 0 or not unicodedata.combining(char)]
    cuts.append(len(text))
    return [text[a:b] for a, b in pairwise(cuts)]


def _grouped(clusters: list[str], config: PipelineConfig) -> list[str]:
    """Clusters joined wherever two neighbours normalize differently together than apart."""
    groups = [clusters[0]]
    for cluster in clusters[1:]:
        last = groups[-1]
        tail = last[-8:]  # compositions reach back a few characters at most
        if normalize(tail + cluster, config) != normalize(tail, config) + normalize(cluster, config):
            groups[-1] = last + cluster
        else:
            groups.append(cluster)
    return groups


def _prefix_starts(source: str, offset: int, length: int, config: PipelineConfig) -> list[int]:
    """The map by normalizing every prefix: exact for any text, quadratic in its length."""
    starts: list[int] = []
    for end in range(1, len(source) + 1):
        covered = min(len(normalize(source[:end], config)), length)
        starts.extend([offset + end - 1] * (covered - len(starts)))
    starts.extend([offset + len(source) - 1] * (length - len(starts)))
    return starts


def _proportional(source_length: int, length: int) -> list[int]:
    scale = source_length / max(1, length)
    return [min(source_length - 1, int(i * scale)) for i in range(length)]
