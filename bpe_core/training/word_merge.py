"""The per-word merge and unmerge loops of the pair index, for merges touching few words.

A word is a symbol string (``bpe_core.training.pair_index``): merging ``pair`` into ``new`` is one
``str.replace``, and only the pairs beside each occurrence change. These loops rewrite the words
in ``segs`` and add the weighted count changes to ``delta`` and the words of pairs they create to
``where`` (a superset: stale entries are skipped when read). Merges touching many words take the
vectorised path instead (``bpe_core.training.batch_merge``); both give identical results.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence

from bpe_core.training.batch_merge import Segs
from bpe_core.training.long_word import LongWord

Delta = defaultdict[str, int]  # pair -> change of its weighted count
Where = defaultdict[str, array]  # pair -> words that may hold it


def pairs_of(seg: str) -> list[str]:
    """Adjacent pairs of a symbol string. Example: ``pairs_of("abc")`` -> ``["ab", "bc"]``."""
    return [seg[i : i + 2] for i in range(len(seg) - 1)]


def merge_words(
    segs: Segs,
    counts: Sequence[int],
    where: Where,
    candidates: Iterable[int],
    pair: str,
    new: str,
    fresh: bool,
    delta: Delta,
    gained: dict[str, int],
) -> tuple[list[int], int, list[str] | None]:
    """Merge ``pair`` into ``new`` in the candidate words; returns the words that changed, the
    weighted replacements and (unless ``new`` is ``fresh``, i.e. occurs nowhere yet) their old
    segmentations, which undo needs.

    With ``new`` fresh, the pairs holding it are new pairs: their counts go to ``gained`` (the
    pair index stores them without reading an old count), the other changes to ``delta``."""
    if not fresh:
        return _merge_into_existing(segs, counts, where, candidates, pair, new, delta)
    a, b = pair[0], pair[1]
    # Words with a single occurrence (nearly all) are grouped by the symbol left and right of
    # it: each occurrence turns (p, a) into (p, new) and (b, x) into (new, x), so one weighted
    # sum per neighbour symbol updates the counts, and keys are built per group, not per word.
    left: defaultdict[str, list[int]] = defaultdict(list)
    right: defaultdict[str, list[int]] = defaultdict(list)
    changed: list[int] = []
    extra = 0  # replacements beyond the first in words with several occurrences
    for w in candidates:
        seg = segs[w]
        merged = seg.replace(pair, new)
        if merged is seg:  # stale or repeated entry: nothing to merge here
            continue
        segs[w] = merged
        changed.append(w)
        j = merged.find(new)
        n = len(seg) - len(merged)
        if n == 1:
            if j:
                left[merged[j - 1]].append(w)
            if j + 1 < len(merged):
                right[merged[j + 1]].append(w)
        else:
            c = counts[w]
            extra += (n - 1) * c
            _merge_repeats(where, w, merged, j, a, b, new, c, delta, gained)
    weight = counts.__getitem__
    gain = gained.get
    for p, words in left.items():
        total = sum(map(weight, words))
        delta[p + a] -= total
        k = p + new
        gained[k] = gain(k, 0) + total
        where[k].extend(words)
    for x, words in right.items():
        total = sum(map(weight, words))
        delta[b + x] -= total
        k = new + x
        gained[k] = gain(k, 0) + total
        where[k].extend(words)
    return changed, sum(map(weight, changed)) + extra, None


def _merge_into_existing(
    segs: Segs,
    counts: Sequence[int],
    where: Where,
    candidates: Iterable[int],
    pair: str,
    new: str,
    delta: Delta,
) -> tuple[list[int], int, list[str]]:
    """:func:`merge_words` when ``new`` already occurs (a merge into an existing token): the
    words already holding it are diffed whole, and every old segmentation is kept for undo."""
    a, b = pair[0], pair[1]
    changed: list[int] = []
    old_segs: list[str] = []
    replaced = 0
    for w in candidates:
        seg = segs[w]
        merged = seg.replace(pair, new)
        if merged is seg:  # stale or repeated entry: nothing to merge here
            continue
        segs[w] = merged
        changed.append(w)
        old_segs.append(seg)
        c = counts[w]
        n = len(seg) - len(merged)
        replaced += n * c
        if new in seg:
            diff_word(where, w, seg, merged, c, delta)
            delta[pair] += n * c  # the diff already removed this word's own pairs
        else:
            _merge_repeats(where, w, merged, merged.find(new), a, b, new, c, delta, delta)
    return changed, replaced, old_segs


def _merge_repeats(
    where: Where,
    w: int,
    merged: str,
    j: int,
    a: str,
    b: str,
    new: str,
    c: int,
    delta: Delta,
    gained: dict[str, int],
) -> None:
    """Neighbour updates for a word with several occurrences of the merged pair (the first at
    ``j`` of ``merged``): pairs holding ``new`` gain in ``gained``, the others lose in ``delta``."""
    new_pairs = set()
    while True:
        if j:
            p = merged[j - 1]
            if p != new:
                delta[p + a] -= c
                k = p + new
            else:  # between two adjacent occurrences (b, a) becomes (new, new)
                delta[b + a] -= c
                k = new + new
            gained[k] = gained.get(k, 0) + c
            new_pairs.add(k)
        x = merged[j + 1 : j + 2]
        if not x:
            break
        if x != new:
            delta[b + x] -= c
            k = new + x
            gained[k] = gained.get(k, 0) + c
            new_pairs.add(k)
        j = merged.find(new, j + 1)
        if j < 0:
            break
    for k in new_pairs:
        where[k].append(w)


def unmerge_words(
    segs: Segs, counts: Sequence[int], where: Where, words: Iterable[int], pair: str, new: str, delta: Delta
) -> None:
    """Split every ``new`` back into ``pair`` in ``words`` (``new`` was fresh when merged)."""
    a, b = pair[0], pair[1]
    for w in words:
        seg = segs[w]
        c = counts[w]
        segs[w] = seg.replace(new, pair)
        restored = [pair]
        j = seg.find(new)
        while j >= 0:
            if j:
                p = seg[j - 1]
                delta[p + new] -= c
                k = (b if p == new else p) + a
                delta[k] += c
                restored.append(k)
            x = seg[j + 1 : j + 2]
            if x and x != new:
                delta[new + x] -= c
                k = b + x
                delta[k] += c
                restored.append(k)
            j = seg.find(new, j + 1)
        for k in set(restored):
            where[k].append(w)


def restore_words(
    segs: Segs, counts: Sequence[int], where: Where, words: Iterable[int], old_segs: list[str], delta: Delta
) -> None:
    """Undo a merge whose new symbol was not fresh: give ``words`` back their ``old_segs``."""
    for w, old in zip(words, old_segs, strict=True):
        diff_word(where, w, segs[w], old, counts[w], delta)
        segs[w] = old


def diff_word(where: Where, w: int, old: str, new: str, c: int, delta: Delta) -> None:
    """General update for one word: subtract all its old pairs, add all its new ones."""
    for k in pairs_of(old):
        delta[k] -= c
    added = pairs_of(new)
    for k in added:
        delta[k] += c
    for k in set(added):
        where[k].append(w)


def merge_long(
    long: dict[int, LongWord],
    counts: Sequence[int],
    where: Where,
    candidates: Iterable[int],
    pair: str,
    new: str,
    delta: Delta,
    nodes: dict[int, tuple[list[int], list[int]]],
) -> int:
    """Merge ``pair`` in the long words among ``candidates`` (their merged nodes go to
    ``nodes``); returns the weighted replacements."""
    replaced = 0
    for w in dict.fromkeys(w for w in candidates if w in long):
        added: set[str] = set()
        merged = long[w].merge(pair, new, counts[w], delta, added)
        if merged[0]:
            nodes[w] = merged
            replaced += len(merged[0]) * counts[w]
            for k in added:
                where[k].append(w)
    return replaced


def unmerge_long(
    long: dict[int, LongWord],
    counts: Sequence[int],
    where: Where,
    merged: dict[int, tuple[list[int], list[int]]],
    pair: str,
    new: str,
    delta: Delta,
) -> None:
    """Undo :func:`merge_long` (``merged``: the nodes it recorded per word)."""
    for w, nodes in merged.items():
        restored: set[str] = set()
        long[w].unmerge(pair, new, nodes, counts[w], delta, restored)
        for k in restored:
            where[k].append(w)
