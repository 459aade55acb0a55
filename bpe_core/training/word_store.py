"""Where the pair index keeps each word's segmentation: one interface, three ways of holding.

A word type's current segmentation is a symbol string (``bpe_core.training.pair_index``). The
index holds each word in exactly one of three stores, asked in this order:

* :class:`LongWords`: words longer than ``pair_index.LONG_WORD`` symbols, as linked lists
  (``bpe_core.training.long_word``), so that a merge costs what it replaces, not the word's length;
* :class:`WarmWords`: Python strings, rewritten whole by each merge (every other word of an index
  counted afresh; the words a merge or an undo has touched, in an index opened from a session);
* :class:`ColdWords`: the flat arrays an opened session starts from (``bpe_core.training.cold_index``),
  for the words nothing has touched yet.

Every store answers the same questions about the words it holds, so each of the index's word
queries is written once. Example: ``WarmWords(["ab"]).position(0, "b")`` is ``1``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np

from bpe_core.training.batch_merge import Segs
from bpe_core.training.cold_index import ColdIndex
from bpe_core.training.long_word import LongWord


class WordStore(Protocol):
    """What the pair index asks of the words a store holds (``word``: a word type's index)."""

    def holds(self, word: int) -> bool:
        """Whether the word is held here (a store asked later does not hold it then)."""
        ...

    def seg(self, word: int) -> str:
        """The word's segmentation as a symbol string."""
        ...

    def length(self, word: int) -> int:
        """The word's number of symbols."""
        ...

    def has(self, word: int, pair: str) -> bool:
        """Whether the word holds ``pair``."""
        ...

    def position(self, word: int, pair: str) -> int:
        """A position of the pair's first occurrence in the word that orders occurrences."""
        ...

    def replacements(self, word: int, pair: str) -> int:
        """Occurrences a left-to-right merge of ``pair`` would replace in the word."""
        ...

    def words_with_symbol(self, symbol: int) -> Iterable[int]:
        """The words held here whose segmentation holds ``symbol``."""
        ...

    def write_lengths(self, lengths: np.ndarray) -> None:
        """Write each held word's length into ``lengths`` (indexed by word)."""
        ...


class _StringWords:
    """Answers for words read as symbol strings (``seg`` is the one thing a subclass supplies)."""

    def seg(self, word: int) -> str:
        raise NotImplementedError

    def length(self, word: int) -> int:
        return len(self.seg(word))

    def has(self, word: int, pair: str) -> bool:
        return pair in self.seg(word)

    def position(self, word: int, pair: str) -> int:
        return self.seg(word).find(pair)

    def replacements(self, word: int, pair: str) -> int:
        return self.seg(word).count(pair)  # str.count is left to right, non-overlapping


class WarmWords(_StringWords):
    """Words as Python strings: ``segs`` is every word's (a list: an index counted afresh, where
    a long word's entry is an unread ``""``) or only the warm words' (a dict: an index with a
    cold part). The merge loops read and rewrite ``segs`` directly."""

    __slots__ = ("segs",)

    def __init__(self, segs: Segs) -> None:
        self.segs = segs

    def holds(self, word: int) -> bool:
        return isinstance(self.segs, list) or word in self.segs

    def seg(self, word: int) -> str:
        return self.segs[word]

    def length(self, word: int) -> int:
        return len(self.segs[word])

    def has(self, word: int, pair: str) -> bool:
        return pair in self.segs[word]

    def position(self, word: int, pair: str) -> int:
        return self.segs[word].find(pair)

    def words_with_symbol(self, symbol: int) -> Iterable[int]:
        char = chr(symbol)
        items = enumerate(self.segs) if isinstance(self.segs, list) else self.segs.items()
        return [word for word, seg in items if char in seg]

    def write_lengths(self, lengths: np.ndarray) -> None:
        if isinstance(self.segs, list):
            lengths[:] = np.fromiter(map(len, self.segs), dtype=np.int64, count=len(self.segs))
        else:
            for word, seg in self.segs.items():
                lengths[word] = len(seg)


class LongWords:
    """Long words as linked symbols: ``words`` maps a word to its :class:`LongWord`."""

    __slots__ = ("words",)

    def __init__(self, words: dict[int, LongWord]) -> None:
        self.words = words

    def holds(self, word: int) -> bool:
        return word in self.words

    def seg(self, word: int) -> str:
        return self.words[word].text()

    def length(self, word: int) -> int:
        return self.words[word].length

    def has(self, word: int, pair: str) -> bool:
        return self.words[word].contains(pair)

    def position(self, word: int, pair: str) -> int:
        return self.words[word].first(pair)

    def replacements(self, word: int, pair: str) -> int:
        return self.words[word].replacements(pair)

    def words_with_symbol(self, symbol: int) -> Iterable[int]:
        char = chr(symbol)
        return [word for word, long in self.words.items() if char in long.text()]

    def write_lengths(self, lengths: np.ndarray) -> None:
        for word, long in self.words.items():
            lengths[word] = long.length


class ColdWords(_StringWords):
    """The words of the cold part that have not warmed up yet (decoded on each question)."""

    __slots__ = ("cold",)

    def __init__(self, cold: ColdIndex) -> None:
        self.cold = cold

    def holds(self, word: int) -> bool:
        return not self.cold.warm[word]

    def seg(self, word: int) -> str:
        return self.cold.seg(word)

    def length(self, word: int) -> int:
        return self.cold.length(word)

    def words_with_symbol(self, symbol: int) -> Iterable[int]:
        return self.cold.words_with_symbol(symbol).tolist()

    def write_lengths(self, lengths: np.ndarray) -> None:
        cold = np.flatnonzero(~self.cold.warm)
        lengths[cold] = self.cold.starts[cold + 1] - self.cold.starts[cold]
