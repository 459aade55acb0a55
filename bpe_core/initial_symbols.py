"""The base symbols of a corpus: its alphabet, and each word as symbol ids before any merge.

Training holds each word as a symbol string (``bpe_core.pair_index``); opening a session
replays the history over runs of words given as arrays (``bpe_core.word_replay``), so that no
string per word is ever made for a corpus the replay only passes through.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from bpe_core.batch_merge import symbols_of
from bpe_core.byte_alphabet import BYTE_TO_CHAR
from bpe_core.corpus import Corpus, unit_lengths, word_slices
from bpe_core.vocab import MARK

# Words are handed to the replay in runs of about this many bytes of text.
RUN_BYTES = 1 << 14


def alphabet(corpus: Corpus) -> set[str]:
    """Keys of the base symbols: every unit in the corpus (all 256 bytes in byte mode) and the
    marker.

    With an attached marker both ``w`` and ``w</w>`` are base symbols, as with the
    ``end_of_word_suffix`` of Hugging Face's trainer (in byte mode for all 256 bytes).
    """
    config = corpus.config
    words = corpus.words
    if config.unit == "byte":
        symbols = set(BYTE_TO_CHAR)
    else:  # a slice at a time: the whole text as one string could take four bytes a character
        symbols = set()
        for first, last in word_slices(words.byte_ends(), RUN_BYTES):
            low, high = words.byte_span(first, last)
            symbols.update(words.blob[low:high].decode("utf-8", "surrogatepass"))
    if config.end_of_word is not None and config.attach_marker:
        if config.unit == "byte":  # any byte can end a word: byte mode never meets an unknown unit
            symbols.update(char + MARK for char in BYTE_TO_CHAR)
        else:
            symbols.update(word[-1] + MARK for word in words)
    elif config.end_of_word is not None:
        symbols.add(MARK)
    return symbols


def initial_lengths(corpus: Corpus) -> np.ndarray:
    """Each word's number of base symbols (its units, and a separate marker)."""
    config = corpus.config
    lengths = unit_lengths(corpus.words, config.unit)
    if config.end_of_word is not None and not config.attach_marker:
        lengths += 1
    return lengths


def initial_segs(corpus: Corpus, ids: dict[str, int]) -> list[str]:
    """Each word's base symbols as a symbol string (see ``bpe_core.pair_index``)."""
    config = corpus.config
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
    table = _table(corpus, ids)
    marker = ids[MARK] if config.end_of_word is not None and not config.attach_marker else None
    marked = None
    if config.end_of_word is not None and config.attach_marker:  # unit id -> its marked twin's
        marked = np.zeros(max(ids.values(), default=0) + 1, dtype=np.int32)
        for key, i in ids.items():
            if (
                len(key) == 2 and key.endswith(MARK) and key[0] in ids
            ):  # an imported alphabet may lack the unit
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


def _table(corpus: Corpus, ids: dict[str, int]):
    """Unit -> symbol id: an array indexed by byte in byte mode, else a ``str.translate`` table."""
    if corpus.config.unit == "byte":
        return np.array([ids[char] for char in BYTE_TO_CHAR], dtype=np.int32)
    marker_key = MARK if corpus.config.end_of_word is not None else None  # else NUL is a character
    return {ord(key): chr(i) for key, i in ids.items() if len(key) == 1 and key != marker_key}


def _translated(corpus: Corpus, ids: dict[str, int], low: int, high: int) -> str:
    """The units of the corpus' bytes ``low`` to ``high`` (whole words) as symbol characters."""
    blob = corpus.words.blob[low:high]
    if corpus.config.unit == "byte":
        table = {byte: chr(ids[char]) for byte, char in enumerate(BYTE_TO_CHAR)}
        return blob.decode("latin-1").translate(table)
    return blob.decode("utf-8", "surrogatepass").translate(_table(corpus, ids))
