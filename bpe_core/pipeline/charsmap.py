"""SentencePiece's precompiled character map, and the two ways it is applied to text.

A SentencePiece model normalizes with the ``precompiled_charsmap`` bytes of its NormalizerSpec
(Hugging Face's ``Precompiled`` normalizer holds the same bytes, base64-encoded): a
little-endian uint32 giving the size in bytes of a Darts-clone double-array trie, the trie
(uint32 units), then NUL-terminated UTF-8 replacement strings. The trie maps UTF-8 byte
strings (the rules' left sides) to the offset of their replacement.

The same bytes give two different normalizations:

* :meth:`CharsMap.normalize_sentencepiece` is SentencePiece's ``Normalizer`` with the map alone:
  at each position the *longest* rule that is a prefix of the remaining bytes applies; with none,
  one character is copied (a byte that starts no valid UTF-8 character becomes U+FFFD).
* :meth:`CharsMap.normalize_hf` is Hugging Face ``tokenizers``' ``Precompiled``: it works per
  extended grapheme cluster; a cluster shorter than 6 bytes is replaced whole by the *shortest*
  rule that is a prefix of it (what follows that prefix in the cluster is dropped), and
  otherwise each character is replaced by its own rule or kept. So ``"\\r\\n"`` becomes one space
  (two under SentencePiece), and full-width ``"Ａ"`` plus a combining acute becomes ``"A"``
  (``"Á"`` under SentencePiece).

Both return, with the text, for each output character the index of the source character it came
from (all the characters a rule writes point at the first character it read), so the list never
decreases. Adding a dummy prefix, removing extra whitespace and escaping spaces as ``▁`` are
separate NormalizerSpec options that the caller applies; this module does none of them.

Speed: the map is checked and indexed once, at load. Text is then searched, with one compiled
character class, for the places where a rule can start (a character that is a rule by itself, or
begins a longer rule and is followed by a character that can continue one); everything between is
copied in bulk, so text the map leaves alone (most ASCII, most CJK) costs little more than a copy.
Maps that SentencePiece never writes (a rule ending inside a UTF-8 character) and, for
SentencePiece, text holding a lone surrogate take a byte-by-byte path that follows the trie
exactly as Darts-clone does.

Loading checks what both originals would trip over, and refuses it with one sentence: a size
that does not fit, a trie with no room after it for replacements (SentencePiece refuses that
too), a rule whose replacement lies outside the map, lacks its NUL or is not UTF-8. Where the
originals differ on odd maps, empty bytes are the identity map (SentencePiece's reading; Hugging
Face refuses them), and only replacements that some rule reaches must be UTF-8 (Hugging Face
asks it of the whole replacement area).

Imports only the standard library, :mod:`regex` and :mod:`bpe_core.errors`.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import struct
from collections.abc import Callable
from typing import Final

import regex

from bpe_core.errors import InputError

# Hugging Face looks a grapheme cluster up whole only below this many bytes (spm_precompiled).
HF_WHOLE_CLUSTER_BYTES: Final = 6
_LEAF_LABEL_MASK: Final = 0x800000FF  # a unit's label; the top bit marks a value unit, never a label
_VALUE_MASK: Final = 0x7FFFFFFF
# Characters that can follow a rule's first character, summed over first characters: real maps
# have about 14,000; a damaged one could ask for billions.
_MAX_FOLLOWERS: Final = 2_000_000
_SURROGATE = re.compile("[\ud800-\udfff]")
_GRAPHEME = regex.compile(r"\X")
# Characters between which a grapheme cluster always breaks (rules GB4, GB5 and GB999: neither
# is a mark, a joiner, a Hangul jamo, a regional indicator or a prepended sign), except CR LF.
_PLAIN = regex.compile(r"[\p{GCB=Other}\p{GCB=Control}\p{GCB=CR}\p{GCB=LF}]")
# UTF-8 state after a byte: 0 between characters, 1-3 continuation bytes still due, _BAD when
# the bytes so far are not the start of valid UTF-8 (only invalid input can walk there).
_BAD: Final = 4


def _offset(unit: int) -> int:
    """Where a unit's children start, relative to its own position (Darts-clone's encoding)."""
    return (unit >> 10) << ((unit & 0x200) >> 6)


def _next_state(state: int, byte: int) -> int:
    """The UTF-8 state after ``byte`` (see _BAD above); overlong forms and surrogates pass as
    valid here, which only makes the check of a map stricter than it need be."""
    if state == 0:
        if byte < 0x80:
            return 0
        if 0xC2 <= byte <= 0xDF:
            return 1
        if 0xE0 <= byte <= 0xEF:
            return 2
        if 0xF0 <= byte <= 0xF4:
            return 3
        return _BAD
    if state != _BAD and 0x80 <= byte <= 0xBF:
        return state - 1
    return _BAD


def _char_class(ranges: list[tuple[int, int]]) -> str:
    """A regular-expression character class body matching the code point ranges."""
    ranges.sort()
    merged: list[list[int]] = []
    for low, high in ranges:
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return "".join(f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}" for low, high in merged)


def _sp_char_length(data: bytes, pos: int) -> int:
    """Bytes of the valid UTF-8 character at ``pos``, or 0 where SentencePiece sees malformed
    UTF-8 (its DecodeUTF8 refuses exactly what Python's strict decoder refuses)."""
    lead = data[pos]
    if lead < 0x80:
        return 1
    length = 2 if 0xC0 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF7 else 0
    if length == 0 or pos + length > len(data):
        return 0
    try:
        data[pos : pos + length].decode("utf-8")
    except UnicodeDecodeError:
        return 0
    return length


class CharsMap:
    """A loaded precompiled character map; make one with :meth:`from_bytes` or :meth:`from_base64`."""

    __slots__ = (
        "_aligned",
        "_astral",
        "_first",
        "_plain",
        "_raw",
        "_root_base",
        "_search",
        "_single",
        "_starters",
        "_steps",
        "_units",
        "_values",
    )

    def __init__(self, raw: bytes, units: list[int], strings: bytes) -> None:
        """Index ``units`` (the trie) over ``strings``; callers use :meth:`from_bytes`."""
        self._raw = raw
        self._units = units
        self._root_base = _offset(units[0]) if units else 0
        # node (the unit reached after a rule's last byte) -> the rule's replacement
        self._values: dict[int, str] = {}
        self._steps: dict[int, int] = {}  # node * 0x110000 + code point -> next node, or -1
        self._plain: dict[str, bool] = {}  # character -> whether _PLAIN matches it
        self._aligned = True  # every rule ends between two UTF-8 characters
        self._first: dict[str, int] = {}  # character -> its node from the root
        self._single: dict[str, str] = {}  # character that is a rule by itself -> replacement
        self._starters: set[str] = set()  # characters that begin a rule of two or more
        self._search: Callable[[str, int], re.Match[str] | None] | None = None
        self._astral: set[str] = set()  # characters beyond U+FFFF that are places a rule can start
        if units:
            self._index(strings)

    @classmethod
    def from_bytes(cls, blob: bytes) -> CharsMap:
        """The map held in ``blob`` (empty bytes: the identity map); damage raises one sentence."""
        return _load(bytes(blob))

    @classmethod
    def from_base64(cls, text: str) -> CharsMap:
        """The map held base64-encoded in ``text``, as Hugging Face's ``Precompiled`` stores it."""
        try:
            blob = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise InputError("The precompiled character map is not valid base64.") from None
        return cls.from_bytes(blob)

    @property
    def raw(self) -> bytes:
        """The map's bytes, as read."""
        return self._raw

    @property
    def is_identity(self) -> bool:
        """Whether the map has no trie (an empty ``precompiled_charsmap``) and so changes nothing."""
        return not self._units

    def __repr__(self) -> str:
        return f"CharsMap({len(self._raw):,} bytes)"

    # -- loading ----------------------------------------------------------------------------------

    def _index(self, strings: bytes) -> None:
        """Check every rule the trie can reach and build the tables the fast paths use."""
        units = self._units
        children: dict[int, list[tuple[int, int]]] = {}
        # Darts-clone finds the child of the node based at ``base`` for byte ``c`` at ``base ^ c``
        # if that unit's label is ``c``: so a unit at ``p`` with label ``c`` is the child for ``c``
        # of every node based at ``p ^ c``. Indexing units by that base once lists each node's
        # children without probing 256 labels per node.
        for position, unit in enumerate(units):
            label = unit & _LEAF_LABEL_MASK
            if label < 0x100:
                children.setdefault(position ^ label, []).append((label, position))
        decoded: dict[int, str] = {}
        seen = {(0, 0)}
        stack = [(0, 0)]
        while stack:
            node, state = stack.pop()
            base = node ^ _offset(units[node])
            for label, child in children.get(base, ()):
                child_state = _next_state(state, label)
                if (child, child_state) in seen:
                    continue
                seen.add((child, child_state))
                stack.append((child, child_state))
                unit = units[child]
                if not (unit >> 8) & 1:
                    continue
                if child_state in (1, 2, 3):
                    self._aligned = False
                if child not in self._values:
                    self._values[child] = self._replacement(child, strings, decoded)
        self._first_characters(children)

    def _replacement(self, node: int, strings: bytes, decoded: dict[int, str]) -> str:
        """The replacement of the rule ending at ``node``: its value unit gives the offset of a
        NUL-terminated UTF-8 string."""
        holder = node ^ _offset(self._units[node])
        if holder >= len(self._units):
            raise InputError("The precompiled character map is damaged: a rule's value lies past its trie.")
        start = self._units[holder] & _VALUE_MASK
        text = decoded.get(start)
        if text is None:
            end = strings.find(b"\0", start)
            if start >= len(strings) or end < 0:
                raise InputError(
                    "The precompiled character map is damaged: a replacement lies past its end or "
                    "is not NUL-terminated."
                )
            try:
                text = decoded[start] = strings[start:end].decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(
                    "The precompiled character map has a replacement that is not UTF-8."
                ) from None
        return text

    def _first_characters(self, children: dict[int, list[tuple[int, int]]]) -> None:
        """Every character a rule starts with and its node, and the character class that finds the
        places where a rule can start: a character that is a rule by itself, or one that can
        follow the first character of a longer rule (the place is then the character before it)."""
        marks: list[tuple[int, int]] = []
        followers: set[str] = set()
        budget = _MAX_FOLLOWERS
        for char, node in _characters_from(self._units, children, 0):
            self._first[char] = node
            value = self._values.get(node)
            if value is not None:
                self._single[char] = value
                marks.append((ord(char), ord(char)))
            if children.get(node ^ _offset(self._units[node])):
                self._starters.add(char)
                after = _characters_from(self._units, children, node)
                budget -= len(after)
                if budget < 0:
                    raise InputError(
                        "The precompiled character map is damaged: it has too many rules to be real."
                    )
                followers.update(follower for follower, _ in after)
        marks.extend((ord(char), ord(char)) for char in followers)
        if marks:
            # A class of a few hundred ranges is tested a character at a time in a tight loop
            # only if it stays within the Basic Multilingual Plane (Python's ``re`` makes a
            # bitmap of it); beyond, it is a list of ranges tried one by one, 20 times slower.
            # So every astral character stops the search, and _next_place checks it.
            self._astral = {chr(low) for low, _ in marks if low > 0xFFFF}
            bmp = [(low, high) for low, high in marks if low <= 0xFFFF]
            self._search = re.compile(f"[{_char_class(bmp)}\\U00010000-\\U0010ffff]").search

    # -- walking the trie ---------------------------------------------------------------------------

    def _next_place(self, text: str, pos: int) -> int:
        """The first index from ``pos`` whose character is a rule by itself or can follow a rule's
        first character (-1: none); no rule starts before it, save perhaps at the character
        just before it."""
        search = self._search
        if search is None:
            return -1
        while (found := search(text, pos)) is not None:
            index = found.start()
            if text[index] <= "\uffff" or text[index] in self._astral:
                return index
            pos = index + 1
        return -1

    def _step(self, node: int, char: str) -> int:
        """The node after ``char`` from ``node`` (-1: no rule goes on with it); cached."""
        key = node * 0x110000 + ord(char)
        found = self._steps.get(key)
        if found is not None:
            return found
        units = self._units
        count = len(units)
        position = node
        for byte in char.encode("utf-8"):
            child = (position ^ _offset(units[position])) ^ byte
            if child >= count or units[child] & _LEAF_LABEL_MASK != byte:
                position = -1
                break
            position = child
        self._steps[key] = position
        return position

    def _prefix_search(self, data: bytes, start: int, stop_at_nul: bool) -> list[tuple[int, int]]:
        """Darts-clone's commonPrefixSearch: (length, node) of every rule that is a prefix of
        ``data[start:]``, shortest first. Hugging Face's copy of it stops at a NUL byte."""
        units = self._units
        count = len(units)
        base = self._root_base
        found = []
        for index in range(start, len(data)):
            byte = data[index]
            if stop_at_nul and byte == 0:
                break
            child = base ^ byte
            if child >= count:
                break  # past the array: Darts-clone would read beyond it, a damaged map's fault
            unit = units[child]
            if unit & _LEAF_LABEL_MASK != byte:
                break
            base = child ^ _offset(unit)
            if (unit >> 8) & 1:
                found.append((index + 1 - start, child))
        return found

    # -- SentencePiece ------------------------------------------------------------------------------

    def normalize_sentencepiece(self, text: str) -> tuple[str, list[int]]:
        """``text`` as SentencePiece's normalizer makes it with this map alone, with the source
        index of each output character."""
        if not self._aligned or (not text.isascii() and _SURROGATE.search(text)):
            return self._sentencepiece_bytes(text)
        if self._search is None:
            return text, list(range(len(text)))
        pieces: list[str] = []
        align: list[int] = []
        first, values, step, starters = self._first, self._values, self._step, self._starters
        size = len(text)
        pos = 0
        while (start := self._next_place(text, pos)) >= 0:
            if start > pos and text[start - 1] in starters:
                start -= 1
            if start > pos:
                pieces.append(text[pos:start])
                align.extend(range(pos, start))
            # The longest rule from ``start``: walk on while some rule continues. A place the
            # search found may start none: its character is then copied, as SentencePiece does.
            node = first.get(text[start], -1)
            end, value = 0, ""
            index = start + 1
            while node >= 0:
                replacement = values.get(node)
                if replacement is not None:
                    end, value = index, replacement
                if index >= size:
                    break
                node = step(node, text[index])
                if node < 0:
                    break
                index += 1
            if end:
                pieces.append(value)
                align.extend([start] * len(value))
                pos = end
            else:
                pieces.append(text[start])
                align.append(start)
                pos = start + 1
        if pos < size:
            pieces.append(text[pos:])
            align.extend(range(pos, size))
        return "".join(pieces), align

    def _sentencepiece_bytes(self, text: str) -> tuple[str, list[int]]:
        """SentencePiece's loop over the UTF-8 bytes (a lone surrogate is the three bytes that
        ``surrogatepass`` writes, each malformed, so each becomes U+FFFD)."""
        data = text.encode("utf-8", "surrogatepass")
        owner = _byte_owners(text)
        pieces: list[str] = []
        align: list[int] = []
        pos = 0
        while pos < len(data):
            found = self._prefix_search(data, pos, stop_at_nul=False)
            if found:
                length, node = found[-1]  # the longest
                value = self._values[node]
            else:
                length = _sp_char_length(data, pos)
                value = data[pos : pos + length].decode("utf-8") if length else "\ufffd"
                length = length or 1
            pieces.append(value)
            align.extend([owner[pos]] * len(value))
            pos += length
        return "".join(pieces), align

    # -- Hugging Face -------------------------------------------------------------------------------

    def normalize_hf(self, text: str) -> tuple[str, list[int]]:
        """``text`` as Hugging Face's ``Precompiled`` normalizer makes it with this map, with the
        source index of each output character."""
        if not text.isascii() and _SURROGATE.search(text):
            raise InputError(
                "The text holds a lone surrogate (U+D800 to U+DFFF), which Hugging Face's normalizer "
                "cannot take."
            )
        if not self._units:
            return text, list(range(len(text)))
        if not self._aligned:
            return self._hf_bytes(text)
        if self._search is None:
            return text, list(range(len(text)))
        pieces: list[str] = []
        align: list[int] = []
        size = len(text)
        pos = 0
        starters = self._starters
        while (start := self._next_place(text, pos)) >= 0:
            if start > pos and text[start - 1] in starters:
                start -= 1
            # The cluster holding ``start`` may begin before it: back up to a certain break.
            begin = start
            while begin > pos and not self._breaks(text[begin - 1], text[begin]):
                begin -= 1
            head = tail = begin
            for cluster in _GRAPHEME.finditer(text, begin):
                head, tail = cluster.span()
                if tail > start:
                    break
            if head > pos:
                pieces.append(text[pos:head])
                align.extend(range(pos, head))
            self._hf_cluster(text, head, tail, pieces, align)
            pos = tail
        if pos < size:
            pieces.append(text[pos:])
            align.extend(range(pos, size))
        return "".join(pieces), align

    def _breaks(self, before: str, after: str) -> bool:
        """Whether a grapheme cluster certainly ends between the two characters."""
        if before == "\r":
            return after != "\n"
        plain = self._plain
        for char in (before, after):
            known = plain.get(char)
            if known is None:
                known = plain[char] = _PLAIN.match(char) is not None
            if not known:
                return False
        return True

    def _hf_cluster(self, text: str, head: int, tail: int, pieces: list[str], align: list[int]) -> None:
        """One grapheme cluster, ``text[head:tail]``, as spm_precompiled normalizes it."""
        cluster = text[head:tail]
        if len(cluster.encode("utf-8", "surrogatepass")) < HF_WHOLE_CLUSTER_BYTES:
            # The shortest rule that is a prefix of the cluster replaces all of it; the search
            # stops at a NUL byte.
            values = self._values
            node = self._first.get(cluster[0], -1) if cluster[0] != "\0" else -1
            index = 1
            while node >= 0:
                value = values.get(node)
                if value is not None:
                    pieces.append(value)
                    align.extend([head] * len(value))
                    return
                if index >= len(cluster) or cluster[index] == "\0":
                    break
                node = self._step(node, cluster[index])
                index += 1
        single = self._single
        for index, char in enumerate(cluster, start=head):
            value = single.get(char) if char != "\0" else None
            if value is None:
                pieces.append(char)
                align.append(index)
            else:
                pieces.append(value)
                align.extend([index] * len(value))

    def _hf_bytes(self, text: str) -> tuple[str, list[int]]:
        """spm_precompiled's loop over grapheme clusters and their bytes, rule by rule."""
        pieces: list[str] = []
        align: list[int] = []
        for cluster in _GRAPHEME.finditer(text):
            head = cluster.start()
            data = cluster.group().encode("utf-8")
            if len(data) < HF_WHOLE_CLUSTER_BYTES:
                found = self._prefix_search(data, 0, stop_at_nul=True)
                if found:
                    value = self._values[found[0][1]]  # the shortest
                    pieces.append(value)
                    align.extend([head] * len(value))
                    continue
            for index, char in enumerate(cluster.group(), start=head):
                found = self._prefix_search(char.encode("utf-8"), 0, stop_at_nul=True)
                value = self._values[found[0][1]] if found else char
                pieces.append(value)
                align.extend([index] * len(value))
        return "".join(pieces), align


def _characters_from(
    units: list[int], children: dict[int, list[tuple[int, int]]], node: int
) -> list[tuple[str, int]]:
    """Each character that some rule continues with from ``node``, and the node after it (only
    valid UTF-8 that a ``str`` can spell: a malformed path is the byte path's business)."""
    found = []
    stack: list[tuple[int, bytes, int]] = [(node, b"", 0)]
    while stack:
        at, spelled, state = stack.pop()
        for label, child in children.get(at ^ _offset(units[at]), ()):
            child_state = _next_state(state, label)
            if child_state == _BAD:
                continue
            longer = spelled + bytes((label,))
            if child_state:
                stack.append((child, longer, child_state))
                continue
            try:
                found.append((longer.decode("utf-8"), child))
            except UnicodeDecodeError:
                continue  # an overlong form or a surrogate: no str spells it
    return found


def _byte_owners(text: str) -> list[int]:
    """For each byte of ``text`` in UTF-8 (surrogates as ``surrogatepass`` writes them), the
    index of its character."""
    owners: list[int] = []
    for index, char in enumerate(text):
        code = ord(char)
        owners.extend([index] * (1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4))
    return owners


@functools.lru_cache(maxsize=8)
def _load(blob: bytes) -> CharsMap:
    """Parse and index ``blob`` once: a model's map is loaded again each time it is opened."""
    if not blob:
        return CharsMap(blob, [], b"")
    if len(blob) < 4:
        raise InputError("The precompiled character map is damaged: it ends inside its size field.")
    size = int.from_bytes(blob[:4], "little")
    if size == 0 or size % 4:
        raise InputError(
            f"The precompiled character map is damaged: its trie size ({size:,} bytes) is not a "
            "positive multiple of 4."
        )
    if 4 + size >= len(blob):
        # SentencePiece asks for at least one byte of replacements after the trie.
        raise InputError(
            f"The precompiled character map is damaged: its trie of {size:,} bytes leaves no room for "
            f"replacements ({len(blob) - 4:,} bytes follow the size)."
        )
    units = list(struct.unpack_from(f"<{size // 4}I", blob, 4))
    return CharsMap(blob, units, blob[4 + size :])
