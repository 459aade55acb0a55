"""Normalization: Unicode normal form, then lowercase; with a map back to source offsets.

Encoding reports character spans into the user's text, so when normalization changes lengths
(NFKC turns ``ﬁ`` into ``fi``; ``İ`` lowercases to two characters) each normalized character is
mapped back to the source character it came from.
"""

from __future__ import annotations

import re
import unicodedata

from bpe_core.config import PipelineConfig

_RUNS = re.compile(r"\s+|\S+")


def normalize(text: str, config: PipelineConfig) -> str:
    """Apply the configured normal form, then lowercase. Example: ``"ＡB"`` (NFKC, lower) -> ``"ab"``."""
    if config.normalization != "none":
        text = unicodedata.normalize(config.normalization.upper(), text)
    if config.lowercase:
        text = text.lower()
    return text


def normalize_aligned(text: str, config: PipelineConfig) -> tuple[str, list[int] | None]:
    """Normalize ``text`` and map each normalized character to its source offset.

    Returns ``(normalized, starts)`` where ``starts[i]`` is the source index of normalized
    character ``i`` (non-decreasing); ``starts`` is ``None`` when the mapping is the identity.
    """
    normalized = normalize(text, config)
    if normalized == text or (config.normalization == "none" and len(normalized) == len(text)):
        # lower() only ever expands a character, so equal length means a 1:1 mapping.
        return normalized, None
    starts: list[int] = []
    pieces: list[str] = []
    # Whitespace never composes or reorders with its neighbours, so whitespace and non-whitespace
    # runs normalize independently; only runs whose length changes need per-prefix work.
    for run in _RUNS.finditer(text):
        source = run.group()
        piece = normalize(source, config)
        pieces.append(piece)
        if len(piece) == len(source):
            starts.extend(range(run.start(), run.end()))
            continue
        run_starts: list[int] = []
        for end in range(1, len(source) + 1):
            covered = min(len(normalize(source[:end], config)), len(piece))
            run_starts.extend([run.start() + end - 1] * (covered - len(run_starts)))
        run_starts.extend([run.end() - 1] * (len(piece) - len(run_starts)))
        starts.extend(run_starts)
    if "".join(pieces) != normalized or len(starts) != len(normalized):
        # Should not happen; degrade to a proportional map rather than wrong content.
        scale = len(text) / max(1, len(normalized))
        return normalized, [min(len(text) - 1, int(i * scale)) for i in range(len(normalized))]
    return normalized, starts
