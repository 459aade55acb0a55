"""The corpus as word types with counts, built from raw text or from ``word<TAB>count`` lines.

Word types keep the order of their first appearance in the text: the ``first-seen`` tie-break
(and Python's ``max`` over a dict, as the classic walk-throughs, minbpe and tiktoken use it) depends on it.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from bpe_core.errors import InputError, quoted
from bpe_core.pipeline.byte_alphabet import bytes_to_display
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.normalize import begins_with_text, normalize
from bpe_core.pipeline.pretokenize import count_pieces_of
from bpe_core.pipeline.vocab import MARK
from bpe_core.pipeline.word_types import Counts, Words
from bpe_core.runtime.gc_pause import without_gc

Progress = Callable[[int, int], None]
_Item = tuple[str, int]  # a word or a text, and its count
MAX_TOTAL = 2**62  # symbol occurrences in a corpus: every count stays an exact int64


@dataclass(frozen=True, eq=False)
class Corpus:
    """Word types (pieces after normalization and pre-tokenization) with their counts.

    Attributes
    ----------
    config : the pipeline that produced the words.
    words : distinct pieces in order of first appearance (a compact sequence of ``str``, see
        ``bpe_core.pipeline.word_types``; any sequence given is stored that way).
    counts : how often each piece occurs (a compact sequence of ``int``).
    special_counts : occurrences of each special token in the text (they are split out).
    """

    config: PipelineConfig
    words: Words
    counts: Counts
    special_counts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.words, Words):
            object.__setattr__(self, "words", Words.of(self.words))
        if not isinstance(self.counts, Counts):
            object.__setattr__(self, "counts", Counts(self.counts))
        object.__setattr__(self, "special_counts", tuple(self.special_counts))

    @classmethod
    def without_words(cls, config: PipelineConfig, special_counts: tuple[int, ...]) -> Corpus:
        """The corpus of an imported tokenizer on its own (``bpe_core.io.imported``)."""
        return cls(config, Words.of(()), Counts(()), special_counts)

    @cached_property
    def total_words(self) -> int:
        """Running words (the sum of the counts)."""
        return int(self.counts.numpy().sum())  # exact: the total is at most 2^62

    @classmethod
    def from_word_counts(
        cls,
        items: Iterable[tuple[str, int]],
        config: PipelineConfig,
        special_counts=(),
        progress: Progress | None = None,
        total: int = 0,
    ) -> Corpus:
        """Build from already pre-tokenized pieces (e.g. a saved session); merges duplicates.
        ``progress(done, total)`` hears of the items taken, ``total`` being their number."""
        counter: Counter[str] = Counter()
        for word, count in _told(items, progress, total):
            counter[word] += count
        return cls.from_counter(counter, config, tuple(special_counts))

    @classmethod
    @without_gc
    def from_text(
        cls, text: str, config: PipelineConfig, progress: Progress | None = None, workers: int = 1
    ) -> Corpus:
        """Normalize and pre-tokenize ``text``. Example: ``from_text("a b a", cfg).counts == (2, 1)``.

        ``workers=2`` counts a large text in two processes (see ``pretokenize.count_pieces``).
        """
        counter: Counter[str] = Counter()
        specials = [0] * len(config.special_tokens)
        count_text_into(text, config, counter, specials, workers=workers, progress=progress)
        return cls.from_counter(counter, config, tuple(specials))

    @classmethod
    def from_counts(
        cls, text: str, config: PipelineConfig, progress: Progress | None = None, name: str | None = None
    ) -> Corpus:
        """Parse ``word<TAB>count`` lines; each word is normalized and pre-tokenized like text.
        ``progress(lines done, lines)`` hears of the lines read; ``name``, the file's, is named
        with a line at fault."""
        lines = text.count("\n") + 1 if progress is not None else 0
        return cls.from_texts(_parse_counts(text, name), config, progress, lines)

    @classmethod
    def from_texts(
        cls,
        items: Iterable[tuple[str, int]],
        config: PipelineConfig,
        progress: Progress | None = None,
        total: int = 0,
    ) -> Corpus:
        """Each ``(text, count)`` is text occurring ``count`` times: normalized, split at special
        tokens and pre-tokenized, its pieces counted ``count`` times. ``progress(done, total)``
        hears of the items taken, ``total`` being their number."""
        counter: Counter[str] = Counter()
        specials = [0] * len(config.special_tokens)
        for text, count in _told(items, progress, total):
            found = [0] * len(specials)
            for number, segment in enumerate(_split_specials(text, config.special_tokens, found)):
                at_start = begins_with_text(segment, config, number == 0)
                pieces = count_pieces_of(normalize(segment, config), config, Counter(), at_start=at_start)
                for piece, n in pieces.items():
                    counter[piece] += n * count
            for i, n in enumerate(found):
                specials[i] += n * count
        return cls.from_counter(counter, config, tuple(specials))

    @classmethod
    def from_counter(
        cls, counter: dict[str, int], config: PipelineConfig, specials: tuple[int, ...]
    ) -> Corpus:
        """The corpus of counted pieces (in the counter's order: first appearance) and the
        occurrences of each special token."""
        # Counts summed over a text can exceed what 64 bits hold: refuse those before storing.
        if counter and max(counter.values()) > MAX_TOTAL:
            raise _too_large()
        return cls.checked(Words.of(counter), Counts(counter.values()), config, specials)

    @classmethod
    def checked(
        cls, words: Words, counts: Counts, config: PipelineConfig, specials: tuple[int, ...]
    ) -> Corpus:
        """A corpus of distinct ``words`` with positive ``counts``, refused with one sentence if
        it is empty, holds NUL where that is the marker's identity, or counts beyond 2^62."""
        if not len(words):
            raise InputError("The corpus is empty: it has no words after pre-tokenization.")
        # NUL is the end-of-word marker's identity (bpe_core.pipeline.vocab); without a marker it is text.
        if config.end_of_word is not None and b"\x00" in words.blob:
            raise InputError("The corpus contains NUL characters, which text never holds.")
        # A lone surrogate (U+D800 to U+DFFF, written \ud800 in JSON) is no character of UTF-8 text.
        if re.search(rb"\xed[\xa0-\xbf]", words.blob):
            raise InputError("The corpus contains lone surrogates (U+D800 to U+DFFF), which text never has.")
        # Every count the engine keeps (a pair's, a token's, the corpus total) is at most the
        # number of symbol occurrences: bounding it keeps all of them exact 64-bit integers.
        if _beyond_limit(words, counts, config):
            raise _too_large()
        return cls(config, words, counts, specials)


def _too_large() -> InputError:
    return InputError(
        f"The corpus counts are too large: BPE Studio counts exactly up to {MAX_TOTAL:,} (2^62) "
        "symbol occurrences in all."
    )


def unit_lengths(words: Words, unit: str) -> np.ndarray:
    """Each word's length in units (int32): bytes, or characters (its UTF-8 lead bytes). Taken
    a slice of the text at a time, so that no array per byte of the corpus is ever made."""
    ends = words.byte_ends()
    if unit == "byte":
        return np.diff(ends, prepend=0).astype(np.int32)
    lengths = np.empty(len(ends), dtype=np.int32)
    blob = np.frombuffer(words.blob, dtype=np.uint8)
    for first, last in word_slices(ends, 1 << 16):
        low, high = words.byte_span(first, last)
        leads = (blob[low:high] & 0xC0) != 0x80
        starts = np.concatenate(([0], ends[first : last - 1].astype(np.int64) - low))
        lengths[first:last] = np.add.reduceat(leads, starts, dtype=np.int64)  # words are non-empty
    return lengths


def word_slices(ends: np.ndarray, size: int = 1 << 20) -> list[tuple[int, int]]:
    """Runs of consecutive words whose text (ending at ``ends``) is about ``size`` units."""
    if not len(ends):
        return []
    cuts = np.searchsorted(ends, np.arange(size, int(ends[-1]), size, dtype=ends.dtype)).tolist()
    bounds = sorted({0, *cuts, len(ends)})
    return list(itertools.pairwise(bounds))


def weighted_total(lengths: np.ndarray, weights: np.ndarray) -> float:
    """``lengths @ weights`` in float64 (close, never overflowing), a slice at a time."""
    size = 1 << 13  # the slices' float copies stay small
    return sum(
        float(lengths[i : i + size].astype(np.float64) @ weights[i : i + size].astype(np.float64))
        for i in range(0, len(lengths), size)
    )


def _beyond_limit(words: Words, counts: Counts, config: PipelineConfig) -> bool:
    """Whether the corpus holds more than ``MAX_TOTAL`` symbol occurrences (units plus a marker
    per word)."""
    weights = counts.numpy()
    if int(weights.max()) > MAX_TOTAL:
        return True
    lengths = unit_lengths(words, config.unit)
    lengths += 1
    # float64 bounds the sum closely; only near the limit is it summed exactly (int64 could overflow).
    if weighted_total(lengths, weights) < MAX_TOTAL / 2:
        return False
    return sum(int(n) * int(c) for n, c in zip(lengths.tolist(), weights.tolist(), strict=True)) > MAX_TOTAL


# Items (lines of a counts file) between two reports of progress: a few milliseconds of work.
TOLD_EVERY = 1 << 14


def _told(items: Iterable[_Item], progress: Progress | None, total: int) -> Iterable[_Item]:
    """``items``, telling ``progress`` how many were taken every ``TOLD_EVERY`` of them."""
    if progress is None:
        return items
    return _telling(items, progress, total)


def _telling(items: Iterable[_Item], progress: Progress, total: int) -> Iterator[_Item]:
    for done, item in enumerate(items, start=1):
        if not done % TOLD_EVERY:
            progress(done, max(total, done))
        yield item


def _parse_counts(text: str, name: str | None = None) -> Iterator[tuple[str, int]]:
    counts_file = "the counts file" if name is None else f"the counts file {name!r}"
    # Lines end at LF, CRLF or a lone CR, not at the other breaks str.splitlines() knows (a
    # vertical tab, U+2028): a word may hold those, as any piece of text may.
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"Line {number:,} of {counts_file}"
        word, tab, count_text = line.rpartition("\t")
        if not tab:
            raise InputError(f"{where} has no TAB between word and count.")
        if not word:
            raise InputError(f"{where} has an empty word.")
        yield word, parsed_count(count_text.strip(), where)


def parsed_count(text: str, where: str) -> int:
    """A count written in a counts file (``where`` names its line): ASCII digits of a number
    from 1 to 2^62, refused with one sentence otherwise (never an ``int`` of thousands of digits)."""
    digits = text.lstrip("0")
    if not (text.isascii() and text.isdigit()) or not digits:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise InputError(f"{where} has the count {quoted(shown)}, which is not a positive whole number.")
    if len(digits) > len(str(MAX_TOTAL)) or int(digits) > MAX_TOTAL:
        raise InputError(f"{where} has a count beyond {MAX_TOTAL:,} (2^62).")
    return int(digits)


def base_symbols(word: str, config: PipelineConfig) -> list[str]:
    """Keys (see ``bpe_core.pipeline.vocab``) of a piece's unit symbols and its end-of-word marker.

    Example: ``base_symbols("low", PipelineConfig())`` -> ``["l", "o", "w", "\\x00"]``.
    """
    symbols = list(bytes_to_display(word.encode("utf-8"))) if config.unit == "byte" else list(word)
    if config.continuing_prefix is not None:
        symbols[1:] = [config.continuing_prefix + symbol for symbol in symbols[1:]]
    if config.end_of_word is not None and symbols:
        if config.attach_marker:
            symbols[-1] += MARK
        else:
            symbols.append(MARK)
    return symbols


def count_text_into(
    text: str,
    config: PipelineConfig,
    counter: Counter[str],
    specials: list[int],
    *,
    continues: bool = False,
    workers: int = 1,
    progress: Progress | None = None,
) -> None:
    """Count the pieces of ``text`` into ``counter`` and its special tokens into ``specials``:
    split at special tokens, each part normalized and pre-tokenized. ``continues``: the text
    goes on from an earlier part of the same text, cut where nothing crosses
    (``bpe_core.io.counting``), so its first part takes no prefix space and does not start the
    text."""
    segments = _split_specials(text, config.special_tokens, specials)
    plain = replace(config, prefix_space=False) if continues and config.prefix_space else config
    done = 0
    for number, segment in enumerate(segments):
        first = number == 0
        if not segment:  # no text (an empty one, or between special tokens): no word, not even a prefix space
            continue
        normalized = normalize(segment, plain if first else config)
        at_start = begins_with_text(segment, config, first and not continues)
        count_pieces_of(normalized, config, counter, workers, at_start=at_start)
        done += len(segment)
        if progress is not None:
            progress(done, len(text))


def _split_specials(text: str, specials: tuple[str, ...], found: list[int]) -> list[str]:
    """Cut ``text`` at special tokens (longest first), counting each into ``found``."""
    if not specials:
        return [text]
    pattern = re.compile("|".join(re.escape(t) for t in sorted(specials, key=len, reverse=True)))
    index = {token: i for i, token in enumerate(specials)}
    segments, start = [], 0
    for match in pattern.finditer(text):
        segments.append(text[start : match.start()])
        found[index[match.group()]] += 1
        start = match.end()
    segments.append(text[start:])
    return segments
