"""Where each character of transformed text came from: a map back to source offsets, in linear time.

Encoding reports character spans into the user's text, so when a normalizer changes lengths
(NFKC turns ``ﬁ`` into ``fi``; ``İ`` lowercases to two characters) each output character is
mapped back to the source character it came from. Works for any transformation that acts on
characters with their combining marks (Unicode normal forms, lowercasing, character maps).

Imports only the standard library.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from itertools import pairwise

Transform = Callable[[str], str]
_RUNS = re.compile(r"\s+|\S+")


def aligned_by(text: str, fn: Transform, expands_only: bool = False) -> tuple[str, list[int] | None]:
    """``fn(text)`` and the source index of each of its characters (non-decreasing), or ``None``
    for the identity map. ``expands_only``: ``fn`` never merges or reorders characters, it
    only ever replaces one by one or more (lowercasing), so equal lengths mean one to one.
    """
    out = fn(text)
    if _one_to_one(text, out, expands_only):
        return out, None
    starts: list[int] = []
    pieces: list[str] = []
    # Whitespace never composes or reorders with its neighbours, so whitespace and non-whitespace
    # runs transform independently; only runs whose length changes need a finer map.
    for run in _RUNS.finditer(text):
        source = run.group()
        piece = fn(source)
        pieces.append(piece)
        if _one_to_one(source, piece, expands_only):
            starts.extend(range(run.start(), run.end()))
        else:
            starts.extend(_run_starts(source, run.start(), piece, fn))
    if "".join(pieces) != out or len(starts) != len(out):
        return out, _proportional(len(text), len(out))  # not expected: degrade, never fail
    return out, starts


def _one_to_one(source: str, normalized: str, expands_only: bool) -> bool:
    """Whether each normalized character comes from the source character at its index. A
    function that only ever expands a character (lower()) is one to one at equal length."""
    return normalized == source or (expands_only and len(normalized) == len(source))


_PREFIX_LIMIT = 2_000  # characters: beyond this the quadratic prefix map is not attempted


def _run_starts(source: str, offset: int, piece: str, fn: Transform) -> list[int]:
    """Source offsets of the characters of ``piece`` (the normalized ``source``).

    Normalization acts on a starter and the combining marks after it, so each such cluster
    is normalized alone; where that differs from the whole (a composition across clusters,
    such as Hangul jamo), neighbouring clusters that interact are grouped.
    Only a group whose length changes needs the per-prefix map, and groups are short.
    """
    clusters = _clusters(source)
    groups = clusters
    parts = [fn(cluster) for cluster in clusters]
    if "".join(parts) != piece:
        groups = _grouped(clusters, fn)
        parts = [fn(group) for group in groups]
        if sum(map(len, parts)) != len(piece):
            if len(source) <= _PREFIX_LIMIT:
                return _prefix_starts(source, offset, len(piece), fn)
            return [offset + i for i in _proportional(len(source), len(piece))]
    starts: list[int] = []
    for group, part in zip(groups, parts, strict=True):
        if _one_to_one(group, part, False):
            starts.extend(range(offset, offset + len(group)))
        elif len(group) == 1:  # one character (a ligature, say): all it became comes from it
            starts.extend([offset] * len(part))
        else:
            starts.extend(_prefix_starts(group, offset, len(part), fn))
        offset += len(group)
    return starts


def _clusters(text: str) -> list[str]:
    """``text`` cut before every character of combining class 0 (a starter)."""
    cuts = [i for i, char in enumerate(text) if i == 0 or not unicodedata.combining(char)]
    cuts.append(len(text))
    return [text[a:b] for a, b in pairwise(cuts)]


def _grouped(clusters: list[str], fn: Transform) -> list[str]:
    """Clusters joined wherever two neighbours normalize differently together than apart."""
    groups = [clusters[0]]
    for cluster in clusters[1:]:
        last = groups[-1]
        tail = last[-8:]  # compositions reach back a few characters at most
        if fn(tail + cluster) != fn(tail) + fn(cluster):
            groups[-1] = last + cluster
        else:
            groups.append(cluster)
    return groups


def _prefix_starts(source: str, offset: int, length: int, fn: Transform) -> list[int]:
    """The map by normalizing every prefix: exact for any text, quadratic in its length."""
    starts: list[int] = []
    for end in range(1, len(source) + 1):
        covered = min(len(fn(source[:end])), length)
        starts.extend([offset + end - 1] * (covered - len(starts)))
    starts.extend([offset + len(source) - 1] * (length - len(starts)))
    return starts


def _proportional(source_length: int, length: int) -> list[int]:
    scale = source_length / max(1, length)
    return [min(source_length - 1, int(i * scale)) for i in range(length)]
