"""The base symbols of a corpus: its alphabet, and each word as symbol ids before any merge.

Training holds each word as a symbol string (``bpe_core.training.pair_index``); opening a session
replays the history over runs of words given as arrays (``bpe_core.training.word_replay``), so that no
string per word is ever made for a corpus the replay only passes through.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus, unit_lengths, word_slices
from bpe_core.pipeline.vocab import MARK
from bpe_core.training.batch_merge import symbols_of

# Words are handed to the replay in runs of about this many bytes of text.
RUN_BYTES = 1 << 14
TRANSLATED_CHARS = 1 << 20  # characters translated to symbols at a time (see _translated)


def alphabet(corpus: Corpus) -> set[str]:
    """Keys of the base symbols: every unit in the corpus (all 256 bytes in byte mode) and the
    marker.

    With an attached marker both ``w`` and ``w</w>`` are base symbols, as with the
    ``end_of_word_suffix`` of Hugging Face's trainer (in byte mode for all 256 bytes).
    """
    config = corpus.config
    words = corpus.words
    attached = config.end_of_word is not None and config.attach_marker
    if config.unit == "byte":
        symbols = set(BYTE_TO_CHAR)
        if attached:  # any byte can end a word: byte mode never meets an unknown unit
            symbols.update(char + MARK for char in BYTE_TO_CHAR)
    else:  # a slice at a time: the whole text as one string could take four bytes a character
        symbols = set()
        lasts: set[str] = set()
        ends = words.byte_ends()
        for first, last in word_slices(ends, RUN_BYTES):
            low, high = words.byte_span(first, last)
            text = words.blob[low:high].decode("utf-8", "surrogatepass")
            symbols.update(text)
            if attached:  # each word's last character, read from the slice (not word by word)
                data = np.frombuffer(words.blob, dtype=np.uint8, count=high - low, offset=low)
                chars = np.cumsum((data & 0xC0) != 0x80, dtype=np.int64)  # characters up to each byte
                at = chars[ends[first:last].astype(np.int64) - low - 1] - 1
                lasts.update(map(text.__getitem__, at.tolist()))
        symbols.update(char + MARK for char in lasts)
    if config.end_of_word is not None and not attached:
        symbols.add(MARK)
    return symbols


def word_symbols(corpus: Corpus) -> set[str]:
    """Keys of the base symbols the corpus's words are made of (``corpus.base_symbols`` of each):
    :func:`alphabet` without the bytes no word holds and, with an attached marker, without the
    plain twin of a unit that only ends words. An imported tokenizer's alphabet is its own, so
    its vocabulary holds these beside that alphabet, not a corpus's whole alphabet.

    Example: the words ``ab`` and ``b`` with an attached marker give ``a`` and ``b</w>``.
    """
    config = corpus.config
    words = corpus.words
    attached = config.end_of_word is not None and config.attach_marker
    if not len(words):
        return set()
    if config.unit == "char" and not attached:
        return alphabet(corpus)  # its units, and a separate marker
    if config.unit == "char":
        symbols: set[str] = set()
        for word in words:
            symbols.update(word[:-1])
            symbols.add(word[-1] + MARK)
        return symbols
    data = np.frombuffer(words.blob, dtype=np.uint8)
    if not attached:
        units = {BYTE_TO_CHAR[b] for b in _present(data)}
        return units if config.end_of_word is None else units | {MARK}
    last = words.byte_ends() - 1
    inner = np.ones(len(data), dtype=bool)
    inner[last] = False
    units = {BYTE_TO_CHAR[b] for b in _present(data[inner])}
    return units | {BYTE_TO_CHAR[b] + MARK for b in _present(data[last])}


def _present(data: np.ndarray) -> list[int]:
    """The byte values ``data`` holds (a count per value: no sort of a corpus' bytes)."""
    return np.flatnonzero(np.bincount(data, minlength=256)).tolist()


def initial_lengths(corpus: Corpus) -> np.ndarray:
    """Each word's number of base symbols (its units, and a separate marker)."""
    config = corpus.config
    lengths = unit_lengths(corpus.words, config.unit)
    if config.end_of_word is not None and not config.attach_marker:
        lengths += 1
    return lengths


def initial_segs(corpus: Corpus, ids: dict[str, int]) -> list[str]:
    """Each word's base symbols as a symbol string (see ``bpe_core.training.pair_index``)."""
    config = corpus.config
    ids = _with_plain_twins(ids, config)
    text = _translated(corpus, ids, 0, len(corpus.words.blob))
    ends = np.cumsum(unit_lengths(corpus.words, config.unit)).tolist()
    units = [text[start:end] for start, end in itertools.pairwise([0, *ends])]
    if config.end_of_word is None:
        return units
    if not config.attach_marker:
        end = chr(ids[MARK])
        return [seg + end for seg in units]
    # The last unit becomes its marked twin: ``w`` -> ``w</w>`` (both are base symbols).
    marked = {chr(i): chr(ids[key + MARK]) for key, i in ids.items() if key + MARK in ids}
    return [seg[:-1] + marked[seg[-1]] for seg in units]


def initial_runs(corpus: Corpus, ids: dict[str, int]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The words in runs of about ``RUN_BYTES`` of text: each run's base symbol ids end to end
    (int32) and each word's number of them. ``ids`` are read now, not as the runs are made."""
    config = corpus.config
    ids = _with_plain_twins(ids, config)
    table = _table(corpus, ids)
    marker = ids[MARK] if config.end_of_word is not None and not config.attach_marker else None
    marked = None
    if config.end_of_word is not None and config.attach_marker:  # unit id -> its marked twin's
        marked = np.zeros(max(ids.values(), default=0) + 1, dtype=np.int32)
        for key, i in ids.items():
            if len(key) == 2 and key.endswith(MARK):
                marked[ids[key[0]]] = i
    return _runs(corpus, table, marker, marked)


def _runs(
    corpus: Corpus, table: np.ndarray | dict, marker: int | None, marked: np.ndarray | None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    words = corpus.words
    byte_ends = words.byte_ends()
    for start, stop in word_slices(byte_ends, RUN_BYTES):
        low, high = words.byte_span(start, stop)
        blob = words.blob[low:high]
        lengths: np.ndarray
        if isinstance(table, np.ndarray):  # bytes
            units = table[np.frombuffer(blob, dtype=np.uint8)]
            lengths = np.diff(byte_ends[start:stop].astype(np.int64), prepend=low)
        else:
            units = symbols_of(blob.decode("utf-8", "surrogatepass").translate(table)).astype(np.int32)
            leads = (np.frombuffer(blob, dtype=np.uint8) & 0xC0) != 0x80
            offsets = np.concatenate(([0], byte_ends[start : stop - 1].astype(np.int64) - low))
            lengths = np.add.reduceat(leads, offsets, dtype=np.int64)
        if marker is not None:
            symbols = np.full(len(units) + len(lengths), marker, dtype=np.int32)
            symbols[np.arange(len(units)) + np.repeat(np.arange(len(lengths)), lengths)] = units
            yield symbols, lengths + 1
        else:
            if marked is not None:  # the last unit becomes its marked twin
                last = np.cumsum(lengths) - 1
                units[last] = marked[units[last]]
            yield units, lengths


def _with_plain_twins(ids: dict[str, int], config: PipelineConfig) -> dict[str, int]:
    """``ids`` and, with an attached marker, an id past them for each unit that has none while its
    marked twin has one. An imported tokenizer's alphabet may hold ``w</w>`` without ``w``, and a
    word's last unit is read plain before it becomes its marked twin; its corpus was fitted to
    the alphabet (``bpe_core.io.imported.fit_corpus``), so no such unit stays plain."""
    if config.end_of_word is None or not config.attach_marker:
        return ids
    lacking = [key[0] for key in ids if len(key) == 2 and key[1] == MARK and key[0] not in ids]
    if not lacking:
        return ids
    fresh = max(ids.values()) + 1
    return {**ids, **{unit: fresh + k for k, unit in enumerate(lacking)}}


def _table(corpus: Corpus, ids: dict[str, int]):
    """Unit -> symbol id: an array indexed by byte in byte mode, else a ``str.translate`` table.
    An imported tokenizer's alphabet may lack bytes (-1 here): its corpus holds none of them."""
    if corpus.config.unit == "byte":
        return np.array([ids.get(char, -1) for char in BYTE_TO_CHAR], dtype=np.int32)
    marker_key = MARK if corpus.config.end_of_word is not None else None  # else NUL is a character
    return {ord(key): chr(i) for key, i in ids.items() if len(key) == 1 and key != marker_key}


def _translated(corpus: Corpus, ids: dict[str, int], low: int, high: int) -> str:
    """The units of the corpus' bytes ``low`` to ``high`` (whole words) as symbol characters."""
    blob = corpus.words.blob[low:high]
    if corpus.config.unit == "byte":
        table = {byte: chr(ids[char]) for byte, char in enumerate(BYTE_TO_CHAR) if char in ids}
        text = blob.decode("latin-1")
    else:
        table, text = _table(corpus, ids), blob.decode("utf-8", "surrogatepass")
    # A part at a time: one call over millions of words holds the interpreter for half a
    # second, and a window counting in the background would stand still meanwhile.
    parts = range(0, len(text), TRANSLATED_CHARS)
    return "".join(text[start : start + TRANSLATED_CHARS].translate(table) for start in parts)
