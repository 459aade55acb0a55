"""Token strings by id. Ids are special tokens, then the base alphabet in code-point order of the
display strings (for bytes: GPT-2's order), then merged tokens in creation order.

Every token has a *key*, its identity, and a *display* string. They differ only in the
end-of-word marker: in a key it is ``MARK`` (NUL), a character no corpus holds (input with NUL
is refused), so the marker never collides with text that spells it (``</w>`` in the text, or
``_`` as the marker of ``snake_case``); the display shows the marker as configured.

A merge whose key already exists reuses that id, as Hugging Face ``tokenizers`` and
``tiktoken`` do for strings; the vocabulary size counts distinct keys.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import overload

from bpe_core.errors import ConfigError, quoted
from bpe_core.pipeline.word_types import equal_items

MARK = "\x00"  # the end-of-word marker in a key; only ever a key's last character


def display(key: str, marker: str | None) -> str:
    """The display string of a key. Example: ``display("low\\x00", "</w>")`` -> ``"low</w>"``.
    Without a marker NUL is an ordinary character (the corpus may then hold it)."""
    return key[:-1] + marker if marker is not None and key.endswith(MARK) else key


def key_of(string: str, marker: str | None) -> str:
    """The key of a display string written before keys existed (session files of version 1),
    where a string ending in the marker was marked."""
    return string[: -len(marker)] + MARK if marker and string.endswith(marker) else string


def sorted_alphabet(keys: Iterable[str], marker: str | None) -> list[str]:
    """Base symbols in id order: by display, so ids match the peers'; a text twin of a marked
    symbol (``_`` in ``snake_case`` when ``_`` is the marker) first."""
    return sorted(set(keys), key=lambda key: (display(key, marker), key.endswith(MARK)))


class Displays(Sequence[str]):
    """Each token's display string, made from its key when read: a marked key differs from its
    display, and keeping both strings for every merged token that ends a word would cost a
    string each."""

    __slots__ = ("_keys", "_marker")
    __hash__ = None  # type: ignore[assignment]  # equal to lists, so not hashable like them

    def __init__(self, keys: list[str], marker: str | None) -> None:
        self._keys = keys
        self._marker = marker

    def __eq__(self, other: object) -> bool:
        return equal_items(self, other)

    def __repr__(self) -> str:
        return f"Displays({self[:8]}{', ...' if len(self) > 8 else ''})"

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [display(key, self._marker) for key in self._keys[i]]
        key = self._keys[i]
        if self._marker is None or not key.endswith(MARK):
            return key
        return key[:-1] + self._marker


def joined(left: str, right: str, prefix: str | None) -> str:
    """The key a merge of ``left`` and ``right`` makes: with a continuing-subword prefix, the
    right part without it (``a`` + ``##b`` -> ``ab``, ``##a`` + ``##b`` -> ``##ab``)."""
    return left + right[len(prefix) :] if prefix and right.startswith(prefix) else left + right


class Vocabulary:
    """Attributes: ``tokens`` (id -> display string), ``keys`` (id -> key), ``ids`` (key -> id of
    a base or merged token; special tokens are apart in ``special_ids``, so that a merge that
    spells a special token's text makes a token of its own),
    ``created_at`` (id -> step, 0 for special and base tokens), ``n_special``, ``n_base``."""

    def __init__(
        self,
        specials: Iterable[str],
        alphabet: Iterable[str],
        marker: str | None,
        prefix: str | None = None,
    ) -> None:
        specials = list(specials)
        self.marker = marker
        self.prefix = prefix  # the continuing-subword prefix, see joined()
        alphabet = sorted_alphabet(alphabet, marker)
        clash = set(specials) & set(alphabet)
        if clash:
            raise ConfigError(f"The special token {quoted(sorted(clash)[0])} is also a base symbol.")
        self.keys: list[str] = [*specials, *alphabet]
        self.tokens = Displays(self.keys, marker)
        self.special_ids: dict[str, int] = {key: i for i, key in enumerate(specials)}
        self.ids: dict[str, int] = {key: i for i, key in enumerate(self.keys) if i >= len(specials)}
        self.created_at = array("i", bytes(4 * len(self.keys)))
        self.n_special = len(specials)
        self.n_base = len(alphabet)

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, string: str) -> int | None:
        """The id of a token as displayed (a string ending in the marker is taken as marked), or
        ``None``. Example: ``find("est</w>")`` is the id of the key ``"est\\x00"``."""
        token_id = self.special_ids.get(string)
        return token_id if token_id is not None else self.ids.get(key_of(string, self.marker))

    def joined(self, left: int, right: int) -> str:
        """The key the merge of tokens ``left`` and ``right`` makes."""
        return joined(self.keys[left], self.keys[right], self.prefix)

    def is_special(self, token_id: int) -> bool:
        return token_id < self.n_special

    def add(self, key: str, step: int) -> int:
        """Append a new token created at ``step``; returns its id."""
        token_id = len(self.keys)
        self.keys.append(key)
        self.ids[key] = token_id
        self.created_at.append(step)
        return token_id

    def remove_last(self) -> None:
        """Forget the most recently added token (undo of the merge that created it)."""
        del self.ids[self.keys.pop()]
        self.created_at.pop()
