"""The base symbols of a corpus: its alphabet, and each word as symbol ids before any merge.

Training holds each word as a symbol string (``bpe_core.training.pair_index``); opening a session
replays the history over runs of words given as arrays (``bpe_core.training.word_replay``), so that no
string per word is ever made for a corpus the replay only passes through.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus, unit_lengths, word_slices
from bpe_core.pipeline.vocab import MARK
from bpe_core.training.batch_merge import symbols_of

# Words are handed to the replay in runs of about this many bytes of text.
RUN_BYTES = 1 << 14
TRANSLATED_CHARS = 1 << 18  # bytes of text made into symbols at a time (their arrays take 16 bytes a byte)


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
        for first, last in word_slices(ends, TRANSLATED_CHARS):
            low, high = words.byte_span(first, last)
            codes = symbols_of(words.blob[low:high].decode("utf-8", "surrogatepass"))
            symbols.update(_characters(codes))
            if attached:  # each word's last character, read from the slice (not word by word)
                data = np.frombuffer(words.blob, dtype=np.uint8, count=high - low, offset=low)
                chars = np.cumsum((data & 0xC0) != 0x80, dtype=np.int64)  # characters up to each byte
                lasts.update(_characters(codes[chars[ends[first:last].astype(np.int64) - low - 1] - 1]))
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


def _characters(codes: np.ndarray) -> list[str]:
    """The characters of some code points, each once (counted, not sorted, while they are small)."""
    present = np.flatnonzero(np.bincount(codes)) if len(codes) and codes.max() < 1 << 16 else np.unique(codes)
    return list(map(chr, present.tolist()))


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
    """Each word's base symbols as a symbol string (see ``bpe_core.training.pair_index``).

    Made from :func:`initial_runs` in large runs: each run's ids written out with a separator
    (an id no symbol has) after each word, read as one string and ``split``. Two million words
    took 1 s translated as text and cut word by word in Python."""
    ids = _with_plain_twins(ids, corpus.config)
    separator = max(ids.values(), default=0) + 1
    # The narrowest characters the ids fit (the separator is the largest).
    dtype: type[np.unsignedinteger] = np.uint32
    encoding = "utf-32-le"
    if separator < 0xD800:
        dtype, encoding = (np.uint8, "latin-1") if separator < 1 << 8 else (np.uint16, "utf-16-le")
    segs: list[str] = []
    for symbols, lengths in initial_runs(corpus, ids, TRANSLATED_CHARS):
        out = np.empty(len(symbols) + len(lengths), dtype=dtype)
        after = np.cumsum(lengths + 1) - 1  # where each word's separator goes
        place = np.ones(len(out), dtype=bool)
        place[after] = False
        out[place] = symbols
        out[after] = separator
        pieces = out.tobytes().decode(encoding, "surrogatepass").split(chr(separator))
        pieces.pop()  # after the last separator
        segs.extend(pieces)
    return segs


def initial_runs(
    corpus: Corpus, ids: dict[str, int], size: int | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The words in runs of about ``size`` (default ``RUN_BYTES``) bytes of text: each run's base
    symbol ids end to end (int32) and each word's number of them. ``ids`` are read now, not as
    the runs are made."""
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
    return _runs(corpus, table, marker, marked, size or RUN_BYTES)


def _runs(
    corpus: Corpus, table: np.ndarray | dict, marker: int | None, marked: np.ndarray | None, size: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    words = corpus.words
    byte_ends = words.byte_ends()
    # Characters are mapped by an array indexed by code point: translating the text as a
    # string took five times longer.
    by_code = None if isinstance(table, np.ndarray) else _code_table(table)
    for start, stop in word_slices(byte_ends, size):
        low, high = words.byte_span(start, stop)
        blob = words.blob[low:high]
        lengths: np.ndarray
        if isinstance(table, np.ndarray):  # bytes
            units = table[np.frombuffer(blob, dtype=np.uint8)]
            lengths = np.diff(byte_ends[start:stop].astype(np.int64), prepend=low)
        else:
            assert by_code is not None
            text = blob.decode("utf-8", "surrogatepass")
            codes = symbols_of(text)
            if len(codes) and int(codes.max()) >= len(by_code):  # a character it does not map
                units = symbols_of(text.translate(table)).astype(np.int32)
            else:
                units = by_code[codes]
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


def _code_table(table: dict[int, str]) -> np.ndarray:
    """A ``str.translate`` table as an array indexed by code point, up to the largest it maps
    (a character it does not map keeps its code, as ``translate`` keeps it)."""
    by_code = np.arange(max(table, default=0) + 1, dtype=np.int32)
    by_code[list(table)] = [ord(symbol) for symbol in table.values()]
    return by_code


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
