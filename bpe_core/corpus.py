"""The corpus as word types with counts, built from raw text or from ``word<TAB>count`` lines.

Word types keep the order of their first appearance in the text: the ``first-seen`` tie-break
(and Python's ``max`` over a dict, as the seeds, minbpe and tiktoken use it) depends on it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from bpe_core.byte_alphabet import bytes_to_display
from bpe_core.config import INPUT_KINDS, PipelineConfig
from bpe_core.errors import ConfigError, InputError
from bpe_core.fileio import read_bounded
from bpe_core.gc_pause import without_gc
from bpe_core.normalize import normalize
from bpe_core.pretokenize import count_pieces
from bpe_core.vocab import MARK

Progress = Callable[[int, int], None]
MAX_TOTAL = 2**62  # symbol occurrences in a corpus: every count stays an exact int64


@dataclass(frozen=True, eq=False)
class Corpus:
    """Word types (pieces after normalization and pre-tokenization) with their counts.

    Attributes
    ----------
    config : the pipeline that produced the words.
    words : distinct pieces in order of first appearance.
    counts : how often each piece occurs.
    special_counts : occurrences of each special token in the text (they are split out).
    """

    config: PipelineConfig
    words: tuple[str, ...]
    counts: tuple[int, ...]
    special_counts: tuple[int, ...] = ()

    @cached_property
    def total_words(self) -> int:
        """Running words (the sum of the counts)."""
        return sum(self.counts)

    @classmethod
    def from_word_counts(
        cls, items: Iterable[tuple[str, int]], config: PipelineConfig, special_counts=()
    ) -> Corpus:
        """Build from already pre-tokenized pieces (e.g. a saved session); merges duplicates."""
        if isinstance(items, list):  # as a session holds them: usually without duplicates
            counts = dict(items)
            if len(counts) == len(items):
                return cls._checked(counts, config, tuple(special_counts))
        counter: Counter[str] = Counter()
        for word, count in items:
            counter[word] += count
        return cls._checked(counter, config, tuple(special_counts))

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
        segments = _split_specials(text, config.special_tokens, specials)
        done = 0
        for segment in segments:
            count_pieces(normalize(segment, config), config.pretokenize, counter, workers)
            done += len(segment)
            if progress is not None:
                progress(done, len(text))
        return cls._checked(counter, config, tuple(specials))

    @classmethod
    def from_counts(cls, text: str, config: PipelineConfig) -> Corpus:
        """Parse ``word<TAB>count`` lines; each word is normalized and pre-tokenized like text."""
        return cls.from_texts(_parse_counts(text), config)

    @classmethod
    def from_texts(cls, items: Iterable[tuple[str, int]], config: PipelineConfig) -> Corpus:
        """Each ``(text, count)`` is text occurring ``count`` times: normalized, split at special
        tokens and pre-tokenized, its pieces counted ``count`` times."""
        counter: Counter[str] = Counter()
        specials = [0] * len(config.special_tokens)
        for text, count in items:
            found = [0] * len(specials)
            for segment in _split_specials(text, config.special_tokens, found):
                for piece, n in count_pieces(normalize(segment, config), config.pretokenize).items():
                    counter[piece] += n * count
            for i, n in enumerate(found):
                specials[i] += n * count
        return cls._checked(counter, config, tuple(specials))

    @classmethod
    def _checked(cls, counter: dict[str, int], config: PipelineConfig, specials: tuple[int, ...]) -> Corpus:
        if not counter:
            raise InputError("The corpus is empty: it has no words after pre-tokenization.")
        # NUL is the end-of-word marker's identity (bpe_core.vocab); without a marker it is text.
        if config.end_of_word is not None and any(MARK in word for word in counter):
            raise InputError("The corpus contains NUL characters, which text never holds.")
        # Every count the engine keeps (a pair's, a token's, the corpus total) is at most the
        # number of symbol occurrences: bounding it keeps all of them exact 64-bit integers.
        if max(counter.values()) > MAX_TOTAL or _symbol_occurrences(counter, config) > MAX_TOTAL:
            raise InputError(
                f"The corpus counts are too large: BPE Studio counts exactly up to {MAX_TOTAL:,} (2^62) "
                "symbol occurrences in all."
            )
        return cls(config, tuple(counter), tuple(counter.values()), specials)


def _symbol_occurrences(counter: dict[str, int], config: PipelineConfig) -> int:
    """An upper bound of the corpus' symbol occurrences (units plus a marker per word)."""
    if config.unit == "byte":
        return sum(count * (len(word.encode("utf-8")) + 1) for word, count in counter.items())
    return sum(count * (len(word) + 1) for word, count in counter.items())


def _parse_counts(text: str) -> Iterator[tuple[str, int]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        word, tab, count_text = line.rpartition("\t")
        if not tab:
            raise InputError(f"Line {number} of the counts file has no TAB between word and count.")
        if not word:
            raise InputError(f"Line {number} of the counts file has an empty word.")
        count_text = count_text.strip()
        if not count_text.isdigit() or not count_text.isascii() or int(count_text[:30]) < 1:
            shown = count_text if len(count_text) <= 30 else count_text[:27] + "..."
            raise InputError(
                f"Line {number} of the counts file has count {shown!r}, which is not a positive whole number."
            )
        if len(count_text) > len(str(MAX_TOTAL)):
            raise InputError(f"Line {number} of the counts file has a count beyond {MAX_TOTAL:,} (2^62).")
        yield word, int(count_text)


def base_symbols(word: str, config: PipelineConfig) -> list[str]:
    """Keys (see ``bpe_core.vocab``) of a piece's unit symbols and its end-of-word marker.

    Example: ``base_symbols("low", PipelineConfig())`` -> ``["l", "o", "w", "\\x00"]``.
    """
    symbols = list(bytes_to_display(word.encode("utf-8"))) if config.unit == "byte" else list(word)
    if config.end_of_word is not None and symbols:
        if config.attach_marker:
            symbols[-1] += MARK
        else:
            symbols.append(MARK)
    return symbols


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


def read_text_file(path: str | Path) -> str:
    """Read a UTF-8 text file, refusing binary and undecodable files with a clear message."""
    path = Path(path)
    data = read_bounded(path)
    if b"\x00" in data:  # anywhere: a NUL byte deep in a file is as binary as one at the start
        raise InputError(f"The file {str(path)!r} looks binary, not like text (it contains NUL bytes).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"The file {str(path)!r} is not valid UTF-8 (byte {error.start} cannot be decoded)."
        ) from None


def load_corpus(
    path: str | Path,
    config: PipelineConfig,
    input_kind: str = "text",
    progress: Progress | None = None,
    workers: int = 1,
) -> Corpus:
    """Read ``path`` as raw text or as ``word<TAB>count`` lines and build the corpus."""
    if input_kind not in INPUT_KINDS:
        raise ConfigError(f"Unknown input kind {input_kind!r}; choose one of: {', '.join(INPUT_KINDS)}.")
    text = read_text_file(path)
    if input_kind == "counts":
        return Corpus.from_counts(text, config)
    return Corpus.from_text(text, config, progress, workers)
