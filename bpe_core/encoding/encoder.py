"""Encoding text with trained merges, decoding ids back to text, and per-word merge traces.

Encoding a word is equivalent to replaying the merges in order (as the FRED FED TED BREAD
walk-through describes): the next merge applied is the lowest-ranked one present that comes
after the last merge applied.
That is the usual "lowest rank first" loop, and stays exact even in the rare histories where a
pair is merged twice (a merged string can be re-created by another route).

Words use the same symbol-string representation as the trainer (``bpe_core.training.pair_index``).

Example
-------
>>> from bpe_core import Corpus, PipelineConfig, Trainer
>>> trainer = Trainer(Corpus.from_text("low low lower", PipelineConfig()))
>>> _ = trainer.run()
>>> trainer.encoder().encode("lowest").tokens
['low', 'e', 's', 't', '</w>']
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast, overload

import numpy as np

from bpe_core.encoding.hf_decoding import decoded, decoder_steps, takes_off
from bpe_core.encoding.merge_heap import merged_by_rank
from bpe_core.encoding.numbering import UNKNOWN_ID, joins_tokens
from bpe_core.encoding.text_parts import CUT_NORMALIZERS, PART_SIZE, cut
from bpe_core.errors import BpeError, Cancelled
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR, CHAR_TO_BYTE, bytes_to_display, fallback_token
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import base_symbols
from bpe_core.pipeline.normalize import begins_with_text, normalize, normalize_aligned
from bpe_core.pipeline.pretokenize import pieces_of
from bpe_core.pipeline.pretokenize import spans as piece_spans
from bpe_core.pipeline.specials import finders
from bpe_core.pipeline.steps import SentencePieceNormalizer, pre_tokenize_with, space_escape
from bpe_core.pipeline.vocab import MARK, Displays
from bpe_core.pipeline.word_types import equal_items
from bpe_core.runtime.gc_pause import gc_paused

# ids, starts, ends and unknown flags, as encode_columns() appends to them
_Columns = tuple[MutableSequence[int], MutableSequence[int], MutableSequence[int], MutableSequence[Any]]
# Pieces longer than this many symbols take their merges from a heap (bpe_core.encoding.merge_heap).
LONG_PIECE = 64
CACHED_POSITIONS = 4  # per-step word caches kept (the window moves back and forth around one step)
# Words a per-step cache keeps through trim_caches(): a long text of rare words (one with its
# spaces taken out) would otherwise keep hundreds of megabytes of them. A word's ids alone take
# about a quarter of what its encoding with spans does.
CACHED_WORDS = 30_000
CACHED_IDS = 400_000
# Symbol used for units missing from the vocabulary: no merge involves it.
_UNKNOWN_SYMBOL = chr(0x10FFFF)


@dataclass(frozen=True, slots=True)
class Merge:
    """A merge as ``encoder.merges`` gives it: ``rank`` is its 0-based position in the history."""

    rank: int
    left: int
    right: int
    token: int
    count: int


def _int_column(values: Iterable[int], code: str) -> array:
    """``values`` as an ``array`` of typecode ``code``: a numpy column converted whole, with no
    int object made per value."""
    if isinstance(values, np.ndarray):
        return array(code, values.astype(np.dtype(code)).tobytes())  # numpy's "i" and "q" are C's too
    return array(code, values)


class MergeColumns(Sequence[Merge]):
    """Merges in rank order as four columns of machine integers, the rank being the index: 20
    bytes a merge, where a list of :class:`Merge` takes about 170 (the object and its ints),
    which an encoder over a long history would keep for as long as the window shows it.

    Reading an item makes its ``Merge``; otherwise it behaves as the list of them (slices are
    lists). The encoder's hot paths read the columns ``lefts``, ``rights``, ``tokens`` and ``counts``.

    Example: ``MergeColumns([0], [1], [2], [5])[0]`` is ``Merge(rank=0, left=0, right=1, token=2, count=5)``.
    """

    __slots__ = ("counts", "lefts", "rights", "tokens")
    __hash__ = None  # type: ignore[assignment]  # equal to lists, so not hashable like them

    def __init__(
        self, lefts: Iterable[int], rights: Iterable[int], tokens: Iterable[int], counts: Iterable[int]
    ) -> None:
        self.lefts = _int_column(lefts, "i")
        self.rights = _int_column(rights, "i")
        self.tokens = _int_column(tokens, "i")
        self.counts = _int_column(counts, "q")  # a pair's count in a large corpus may pass 2**31
        if not len(self.lefts) == len(self.rights) == len(self.tokens) == len(self.counts):
            raise ValueError("The columns of merges differ in length.")

    @classmethod
    def of(cls, merges: Iterable[Merge]) -> MergeColumns:
        """Merges in rank order (each ``rank`` its index), as columns."""
        if isinstance(merges, MergeColumns):
            return merges
        rows = list(merges)
        return cls(
            [m.left for m in rows], [m.right for m in rows], [m.token for m in rows], [m.count for m in rows]
        )

    def renumbered(self, ids: Sequence[int]) -> MergeColumns:
        """The same merges with token ``i`` as ``ids[i]``."""
        number = ids.__getitem__
        return MergeColumns(
            map(number, self.lefts), map(number, self.rights), map(number, self.tokens), self.counts
        )

    def __len__(self) -> int:
        return len(self.tokens)

    @overload
    def __getitem__(self, i: int) -> Merge: ...
    @overload
    def __getitem__(self, i: slice) -> list[Merge]: ...
    def __getitem__(self, i: int | slice) -> Merge | list[Merge]:
        if isinstance(i, slice):
            ranks = range(len(self))[i]
            return list(map(Merge, ranks, self.lefts[i], self.rights[i], self.tokens[i], self.counts[i]))
        rank = range(len(self))[i]  # a negative index counts from the end; out of range raises
        return Merge(rank, self.lefts[rank], self.rights[rank], self.tokens[rank], self.counts[rank])

    def __iter__(self) -> Iterator[Merge]:
        return map(Merge, range(len(self)), self.lefts, self.rights, self.tokens, self.counts)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MergeColumns):  # column by column, making no Merge
            return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)
        return equal_items(self, other)

    def __repr__(self) -> str:
        return f"MergeColumns({self[:3]}{', ...' if len(self) > 3 else ''})"


@dataclass(slots=True)
class Encoding:
    """The result of :meth:`Encoder.encode`: parallel lists, one entry per token.

    ``starts`` and ``ends`` are character offsets into the text given to ``encode`` (``spans``
    pairs them); a token holding part of a character's bytes shares that character's span.
    ``unknown[i]`` is true for a unit never seen in training (its id is ``UNKNOWN_ID``).
    """

    ids: list[int]
    tokens: list[str]
    starts: list[int]
    ends: list[int]
    unknown: list[bool]
    # Built on first use: a tuple per token is most of an encode's cost, and most callers
    # never ask (tuples also wake the garbage collector; plain ints do not).
    _spans: list[tuple[int, int]] | None = field(default=None, repr=False, compare=False)

    @property
    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = list(zip(self.starts, self.ends, strict=True))
        return self._spans

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One merge applied to a word while encoding it, and the word's symbols afterwards."""

    merge: Merge
    symbols: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Word:
    ids: tuple[int, ...]
    starts: tuple[int, ...]  # character offsets inside the piece
    ends: tuple[int, ...]
    unknown: tuple[bool, ...]


class Encoder:
    """Encodes with a fixed vocabulary and merge list (a snapshot; it never changes after).

    Parameters
    ----------
    config : the pipeline the merges were trained with.
    keys : the key (identity, see ``bpe_core.pipeline.vocab``) of every id; ``tokens`` are their displays.
    merges : the merges in order, each ``rank`` its index: a list of :class:`Merge`, or a
        :class:`MergeColumns` (kept as it is: a trainer's history passes its columns so).
    specials : the ids of the special tokens (a session's come first; an imported tokenizer's
        may be anywhere, as GPT-2's ``<|endoftext|>`` is 50256).
    unknown_id : the id given to a unit the vocabulary lacks (an imported tokenizer's unknown
        token); by default ``UNKNOWN_ID``. ``None`` drops such units before merging, as Hugging
        Face ``tokenizers`` does without an unknown token (the units around them then merge).
    hf_parts : the ``decoder`` and ``post_processor`` objects of an imported ``tokenizer.json``
        (or the decoder an export gives), kept as data to write back on export; decoding runs
        the decoder as Hugging Face does, and a decoder of ``None`` (the file had none) joins the
        tokens with spaces, as Hugging Face does then. ``None`` by default. A session of an
        imported tokenizer keeps them (its numbering).
    """

    def __init__(
        self,
        config: PipelineConfig,
        keys: list[str],
        merges: Sequence[Merge],
        specials: Sequence[int] = (),
        unknown_id: int | None = UNKNOWN_ID,
        hf_parts: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.hf_parts = hf_parts
        decoder = (hf_parts or {}).get("decoder")
        self._hf_decoder = None if decoder is None else decoder_steps(decoder)
        self._joins_tokens = joins_tokens(hf_parts)
        # A suffix the decoder leaves in the text (CLIP's byte-level one does) is a space, and
        # the text stripped, as transformers' CLIP tokenizer has it.
        marker = config.end_of_word
        self._suffix_left = marker if marker is not None and not takes_off(decoder, marker) else None
        self.keys = list(keys)
        # Without a marker a token's display is its key, so the keys serve (read-only).
        self.tokens: Sequence[str] = self.keys if marker is None else Displays(self.keys, marker)
        self.merges = MergeColumns.of(merges)
        self.special_ids = frozenset(specials)
        self.unknown_id = unknown_id
        # One int object per id and rank, shared by the tables below and the ids of encoded words
        # (their own ints would keep each number two or three times).
        self._numbers = numbers = list(range(max(len(self.keys), len(self.merges))))
        self._special_of = {self.keys[i]: numbers[i] for i in sorted(self.special_ids)}
        self._ids = {
            key: i for i, key in reversed(list(zip(numbers, self.keys))) if i not in self.special_ids
        }
        self._first_rank: dict[str, int] = {}
        self._later_ranks: dict[str, list[int]] = {}
        pair_keys = map(str.__add__, map(chr, self.merges.lefts), map(chr, self.merges.rights))
        for rank, key in zip(numbers, pair_keys):
            if key in self._first_rank:
                self._later_ranks.setdefault(key, []).append(rank)
            else:
                self._first_rank[key] = rank
        # Each token's display string, shared by its every occurrence in an encoding: with a
        # marker, made when a word first holds the token (None before), so an encoder over a long
        # history makes none for the tokens no text uses.
        self._shown = cast("list[str | None]", self.keys)
        if marker is not None:
            self._shown = [None] * len(self.keys)
            for i in self.special_ids:  # special tokens enter an encoding without a word
                self._shown[i] = self.tokens[i]
        # A text that continues one cut by parts() takes no prefix space.
        self._continued = replace(config, prefix_space=False)
        self._byte_tokens = self._fallback_table() if config.byte_fallback else {}
        self._fallback_bytes = {ord(symbol): byte for byte, symbol in self._byte_tokens.items()}
        self._made_at = self._first_makings()
        self._units = self._unit_lengths()
        marked_alone = config.end_of_word is not None and not config.attach_marker
        self._marker_id = self._ids.get(MARK) if marked_alone else None
        self._unit_symbol = self._unit_table()
        self._continuing_symbol = self._unit_table(config.continuing_prefix or "")
        # Hugging Face matches a token "in normalized text" in the form the normalizer gives it
        # (lowercased, prefixed); the tokens every text matches (SentencePiece's) stay as they are.
        as_normalized = replace(config, prefix_space=False)
        spelled = {
            match.content: normalize(match.content, as_normalized)
            for match in config.special_matching
            if match.normalized and match.content not in config.always_matched
        }
        self._raw_specials, self._normalized_specials = finders(
            list(self._special_of), config.special_matching, spelled
        )
        self._spelled = {self._special_of[t]: text for t, text in spelled.items() if t in self._special_of}
        # Those found in every text, special tokens asked for or not (SentencePiece's user-defined
        # pieces; Hugging Face's added tokens not marked special, ordinary vocabulary to it):
        # without allow_special these finders are used, None when there are none.
        found_always = {
            *config.always_matched,
            *(m.content for m in config.special_matching if not m.special),
        }
        always = [token for token in self._special_of if token in found_always]
        raw_always, normalized_always = finders(always, config.special_matching, spelled)
        self._raw_always = raw_always or None
        self._normalized_always = normalized_always or None
        self._special_pattern = (
            re.compile("|".join(re.escape(t) for t in sorted(self._special_of, key=len, reverse=True)))
            if self._special_of
            else None
        )
        # Encoded words per merge count ``upto``, with their spans and alone as ids (for
        # encode_ids); only the most recently used few are kept.
        self._cache: OrderedDict[int, dict[str, _Word]] = OrderedDict()
        self._id_cache: OrderedDict[int, dict[str, tuple[int, ...]]] = OrderedDict()
        self._cache_lock = threading.Lock()

    @property
    def fallback_ids(self) -> frozenset[int]:
        """The ids of the byte-fallback tokens (none unless the pipeline falls back to bytes)."""
        return frozenset(self._fallback_bytes)

    @property
    def n_special(self) -> int:
        return len(self.special_ids)

    def renumbered(
        self, ids: list[int], unknown_id: int | None, hf_parts: dict[str, Any] | None = None
    ) -> Encoder:
        """The same encoder with token ``i`` as ``ids[i]``, units it lacks as ``unknown_id`` and
        ``hf_parts`` kept (see the class); ids no token takes are left empty (an imported
        tokenizer whose later merges are undone), and never produced."""
        keys = [""] * (max(ids, default=-1) + 1)
        for old, new in enumerate(ids):
            keys[new] = self.keys[old]
        merges = self.merges.renumbered(ids)
        return Encoder(self.config, keys, merges, [ids[i] for i in self.special_ids], unknown_id, hf_parts)

    # -- set-up ----------------------------------------------------------------------------

    def _first_makings(self) -> array:
        """The rank of the merge that first makes each token, -1 for a token no merge makes."""
        made = array("i", [-1]) * len(self.keys)
        tokens = self.merges.tokens
        for rank in reversed(range(len(tokens))):
            made[tokens[rank]] = rank
        return made

    def _unit_lengths(self) -> array:
        """How many source units (characters, or bytes in byte mode) each token covers."""
        byte_mode = self.config.unit == "byte"
        marked = self.config.end_of_word is not None
        prefix = self.config.continuing_prefix
        lengths = [0] * len(self.keys)  # a list while built: faster to write than an array
        for i, key in enumerate(self.keys):
            if i in self.special_ids:
                lengths[i] = len(key.encode("utf-8")) if byte_mode else len(key)
            else:
                lengths[i] = len(key) - (marked and key.endswith(MARK))
                if prefix and key.startswith(prefix) and lengths[i] > len(prefix):  # ``##a``: one unit
                    lengths[i] -= len(prefix)
        for symbol in self._byte_tokens.values():  # a fallback byte: one symbol of a word (see _spans)
            lengths[ord(symbol)] = 1
        merges = self.merges  # merged tokens: sum of their parts (markers cover nothing)
        for left, right, token in zip(merges.lefts, merges.rights, merges.tokens, strict=True):
            lengths[token] = lengths[left] + lengths[right]
        return array("i", lengths)

    def _fallback_table(self) -> dict[int, str]:
        """byte -> the symbol of its fallback token (``<0x0A>``), for the bytes that have one
        (an added token too: Hugging Face's trainer is given them as special tokens)."""
        table = {}
        for byte in range(256):
            name = fallback_token(byte)
            token_id = self._ids.get(name, self._special_of.get(name))
            if token_id is not None:
                table[byte] = chr(token_id)
        return table

    def _unit_table(self, prefix: str = "") -> dict[int, str]:
        """str.translate table from a unit (character, or latin-1 byte) to its symbol: of the
        token ``prefix`` + unit (a continuing unit's, ``##a``)."""
        ids = self._ids
        if self.config.unit == "byte":
            units = ((byte, prefix + char) for byte, char in enumerate(BYTE_TO_CHAR))
            return {byte: chr(ids[key]) for byte, key in units if key in ids}
        marked = MARK if self.config.end_of_word is not None else None  # else NUL is a character
        return {
            ord(key[-1]): chr(i)
            for key, i in ids.items()
            if len(key) == len(prefix) + 1 and key.startswith(prefix) and key[-1] != marked
        }

    # -- encoding --------------------------------------------------------------------------

    def encode(
        self,
        text: str,
        *,
        upto: int | None = None,
        allow_special: bool = False,
        cancelled: Callable[[], bool] | None = None,
        offset: int = 0,
    ) -> Encoding:
        """Encode ``text`` with the first ``upto`` merges (all by default). Never fails.

        Special tokens in ``text`` are matched only with ``allow_special``, save those the
        pipeline matches in every text (``PipelineConfig.always_matched``, and added tokens a
        ``SpecialMatch`` says are not special, as Hugging Face's). ``cancelled`` is
        asked between pieces; once it answers true, :class:`~bpe_core.errors.Cancelled` is raised.
        ``offset``: where ``text`` starts in a longer text that :meth:`parts` cut (spans then
        count from that text's start).
        """
        out = Encoding([], [], [], [], [])
        with gc_paused():
            columns = (out.ids, out.starts, out.ends, out.unknown)
            self._encode_into(text, columns, self._upto(upto), allow_special, cancelled, offset)
            shown = cast("list[str]", self._shown)  # has every id encoded so far: see _finished
            if any(out.unknown):
                out.tokens = [
                    shown[i] if i >= 0 else text[s - offset : e - offset]
                    for i, s, e in zip(out.ids, out.starts, out.ends, strict=True)
                ]
            else:
                out.tokens = list(map(shown.__getitem__, out.ids))
        return out

    def encode_columns(
        self,
        text: str,
        ids: MutableSequence[int],
        starts: MutableSequence[int],
        ends: MutableSequence[int],
        unknown: MutableSequence[Any],
        *,
        upto: int | None = None,
        allow_special: bool = False,
        offset: int = 0,
    ) -> None:
        """:meth:`encode`'s ids, starts, ends and unknown flags, but not its token strings,
        appended to the four sequences given: lists, or arrays of machine integers, which hold
        those of a long text in a fraction of the memory."""
        with gc_paused():
            self._encode_into(
                text, (ids, starts, ends, unknown), self._upto(upto), allow_special, None, offset
            )

    def _encode_into(
        self,
        text: str,
        columns: _Columns,
        upto: int,
        allow_special: bool,
        cancelled: Callable[[], bool] | None,
        offset: int,
    ) -> None:
        ids, starts, ends, unknown = columns
        for start, plain, special, end in self._segments(text, allow_special):
            if plain:
                config = self._continued if offset and not start else self.config
                at_start = offset + start == 0
                self._encode_plain(
                    plain, offset + start, upto, columns, cancelled, config, at_start, allow_special
                )
            elif special is not None:
                ids.append(special)
                starts.append(offset + start)
                ends.append(offset + end)
                unknown.append(False)

    def encode_ids(
        self, text: str, *, upto: int | None = None, allow_special: bool = False, offset: int = 0
    ) -> list[int]:
        """Only the ids of :meth:`encode` (what a model is fed): no tokens, spans or flags to
        build, so it is the fast path for bulk encoding. Unknown units are ``unknown_id``."""
        upto = self._upto(upto)
        cache = self._at(self._id_cache, upto)
        in_normalized = self._normalized_specials if allow_special else self._normalized_always
        with gc_paused():
            ids: list[int] = []
            for start, plain, special, _ in self._segments(text, allow_special):
                if plain:
                    config = self._continued if offset and not start else self.config
                    at_start = begins_with_text(plain, config, offset + start == 0)
                    if in_normalized:
                        normalized = normalize(plain, self._continued)  # the parts get the prefix space
                        for piece, _, _ in self._pieces(
                            normalized, at_start, config.prefix_space, allow_special
                        ):
                            if isinstance(piece, int):  # a special token matched in the normalized text
                                ids.append(piece)
                            else:
                                ids.extend(self._cached_ids(piece, cache, upto))
                        continue
                    for piece in pieces_of(normalize(plain, config), config, at_start):
                        word = cache.get(piece)
                        if word is None:
                            word = cache[piece] = self._word_ids(piece, upto)
                        ids.extend(word)
                elif special is not None:
                    ids.append(special)
        return ids

    def parts(
        self, blocks: Iterable[str], *, allow_special: bool = False, size: int = PART_SIZE
    ) -> Iterator[str]:
        """The text that ``blocks`` spell together, cut into parts of about ``size`` characters
        that encode one after another exactly as the whole text does (``bpe_core.encoding.text_parts``):
        encode each with ``offset`` the length of the parts before it. A pre-tokenizer that
        makes one piece of the whole text (``none``) gives one part."""
        config = self.config
        always = self._raw_always is not None or self._normalized_always is not None
        special = self._special_pattern if allow_special or always else None
        cut_safely = all(step.kind in CUT_NORMALIZERS for step in config.normalizers)
        return cut(
            blocks,
            config.pretokenize if cut_safely else "custom",
            normalized=config.normalization != "none" or config.lowercase,
            special=special,
            longest=max(map(len, self._special_of), default=0),
            size=size,
        )

    def _upto(self, upto: int | None) -> int:
        return len(self.merges) if upto is None else max(0, min(upto, len(self.merges)))

    def _segments(self, text: str, allow_special: bool) -> Iterator[tuple[int, str, int | None, int]]:
        """``(start, plain text, None, end)`` and ``(start, "", special id, end)`` in order: the
        text split at special tokens (with ``allow_special``; without, only at those matched in
        every text; those matched in normalized text are found later, in :meth:`_pieces`)."""
        start = 0
        finder = self._raw_specials if allow_special else self._raw_always
        if finder:
            for begin, end, token in finder.find(text):
                yield start, text[start:begin], None, begin
                yield begin, "", self._special_of[token], end
                start = end
        yield start, text[start:], None, len(text)

    def _encode_plain(
        self,
        text: str,
        offset: int,
        upto: int,
        columns: _Columns,
        cancelled: Callable[[], bool] | None,
        config: PipelineConfig,
        at_start: bool,
        allow_special: bool,
    ) -> None:
        if not text:
            return
        in_normalized = (allow_special and self._normalized_specials) or self._normalized_always
        # Special tokens found in the normalized text: the parts between them get the prefix space.
        normalized, starts = normalize_aligned(text, self._continued if in_normalized else config)
        at_start = at_start and (not starts or starts[0] == 0)  # (as begins_with_text says)
        if config.pretokenize == "custom" or in_normalized:
            spaced = config.prefix_space
            self._encode_pieces(
                text, normalized, starts, offset, upto, columns, cancelled, (at_start, spaced), allow_special
            )
            return
        # The common case, kept to the fewest steps a piece: a named pre-tokenizer's spans.
        cache = self._words_at(upto)
        ids, out_starts, out_ends, unknown = columns
        for begin, end in piece_spans(normalized, config.pretokenize):
            piece = normalized[begin:end]
            word = cache.get(piece)
            if word is None:
                if cancelled is not None and cancelled():  # only new words cost time
                    raise Cancelled
                word = cache[piece] = self._encode_word(piece, upto)
            ids.extend(word.ids)
            unknown.extend(word.unknown)
            if starts is None:
                shift = (offset + begin).__add__
                out_starts.extend(map(shift, word.starts))
                out_ends.extend(map(shift, word.ends))
            else:
                _map_back(word, begin, 0, starts, len(text), offset, out_starts, out_ends)

    def _encode_pieces(
        self,
        text: str,
        normalized: str,
        starts: list[int] | None,
        offset: int,
        upto: int,
        columns: _Columns,
        cancelled: Callable[[], bool] | None,
        first: tuple[bool, bool],
        allow_special: bool,
    ) -> None:
        """:meth:`_encode_plain` for a custom chain of steps, or special tokens matched in the
        normalized text: pieces may have a prefix, and special tokens come between them.
        ``first``: whether the text begins the user's text, and takes the prefix space."""
        cache = self._words_at(upto)
        ids, out_starts, out_ends, unknown = columns
        for piece, begin, prefix in self._pieces(normalized, *first, allow_special):
            if isinstance(piece, int):  # a special token matched in the normalized text
                source = (begin, prefix) if starts is None else (starts[begin], starts[prefix - 1] + 1)
                ids.append(piece)
                unknown.append(False)
                out_starts.append(offset + source[0])
                out_ends.append(offset + source[1])
                continue
            word = cache.get(piece)
            if word is None:
                if cancelled is not None and cancelled():
                    raise Cancelled
                word = cache[piece] = self._encode_word(piece, upto)
            ids.extend(word.ids)
            unknown.extend(word.unknown)
            if starts is None:  # a prefix the pre-tokenizer put before the piece stands at its start
                for s, e in zip(word.starts, word.ends, strict=True):
                    out_starts.append(offset + begin + max(s - prefix, 0))
                    out_ends.append(offset + begin + max(e - prefix, 0))
            else:
                _map_back(word, begin, prefix, starts, len(text), offset, out_starts, out_ends)

    def _pieces(
        self, normalized: str, at_start: bool, spaced: bool, allow_special: bool
    ) -> Iterator[tuple[str | int, int, int]]:
        """The pieces of normalized text: ``(piece, where it starts, how many characters of it
        are a prefix put before that)``; a special token matched in the normalized text comes as
        ``(its id, start, end)``. ``at_start``: the text begins the user's text (a step may
        prefix only the first piece). Where special tokens are matched in normalized text, it
        comes without the prefix space: as Hugging Face's ByteLevel does, each part between them
        gets one (the first only where ``spaced``)."""
        finder = self._normalized_specials if allow_special else self._normalized_always
        if not finder:
            yield from self._pieces_of_part(normalized, 0, at_start)
            return
        space = self.config.prefix_space
        done = 0
        for start, end, token in finder.find(normalized):
            first = done == 0
            yield from self._pieces_of_part(
                normalized[done:start], done, at_start and first, space and (spaced or not first)
            )
            yield self._special_of[token], start, end
            done = end
        first = done == 0
        yield from self._pieces_of_part(
            normalized[done:], done, at_start and first, space and (spaced or not first)
        )

    def _pieces_of_part(
        self, part: str, offset: int, at_start: bool, space: bool = False
    ) -> Iterator[tuple[str, int, int]]:
        if space and part and not part.startswith(" "):  # the prefix space stands before character 0
            for piece, begin, put in self._pieces_of_part(" " + part, 0, at_start):
                yield (piece, offset, put + 1) if begin == 0 else (piece, offset + begin - 1, put)
            return
        config = self.config
        if config.pretokenize != "custom":
            for begin, end in piece_spans(part, config.pretokenize):
                yield part[begin:end], offset + begin, 0
            return
        rewritten, pieces = pre_tokenize_with(part, config.pre_tokenizers, at_start)
        for start, end, prefix in pieces:
            yield prefix + rewritten[start:end], offset + start, len(prefix)

    def trim_caches(self) -> None:
        """Empty the word caches grown past ``CACHED_WORDS`` (with spans) or ``CACHED_IDS``
        (ids alone) words; the common ones come back at once. Encoding a long text a part at a
        time calls it between parts, so that memory stays flat."""
        with self._cache_lock:
            for caches, limit in ((self._cache, CACHED_WORDS), (self._id_cache, CACHED_IDS)):
                for cache in caches.values():
                    if len(cache) > limit:
                        cache.clear()

    def _words_at(self, upto: int) -> dict[str, _Word]:
        return self._at(self._cache, upto)

    def _at(self, caches: OrderedDict[int, dict], upto: int) -> dict:
        """The cache of ``caches`` for step ``upto``, made if need be."""
        with self._cache_lock:  # the window encodes on two threads (short texts, long ones)
            cache = caches.get(upto)
            if cache is None:
                cache = caches[upto] = {}
                while len(caches) > CACHED_POSITIONS:
                    caches.popitem(last=False)
            else:
                caches.move_to_end(upto)
            return cache

    def _cached_ids(self, piece: str, cache: dict[str, tuple[int, ...]], upto: int) -> tuple[int, ...]:
        word = cache.get(piece)
        if word is None:
            word = cache[piece] = self._word_ids(piece, upto)
        return word

    def _word_ids(self, piece: str, upto: int) -> tuple[int, ...]:
        """The ids of :meth:`_encode_word`, without the spans."""
        if self._byte_tokens or self.config.ignore_merges or self.config.fuse_unknown:
            return self._encode_word(piece, upto).ids  # the model options: the general path
        symbols, known = self._symbols(piece)
        if not known and self.unknown_id is None:  # dropped, as in _encode_word
            symbols, known = symbols.replace(_UNKNOWN_SYMBOL, ""), True
        symbols = self._apply_merges(symbols, upto)
        numbers = self._numbers
        if known:  # the ids as shared objects: a word's own ints would double what it keeps
            return tuple(map(numbers.__getitem__, map(ord, symbols)))
        unknown_id = UNKNOWN_ID if self.unknown_id is None else self.unknown_id
        return tuple(unknown_id if symbol == _UNKNOWN_SYMBOL else numbers[ord(symbol)] for symbol in symbols)

    def _encode_word(self, piece: str, upto: int) -> _Word:
        whole = self.taken_whole(piece, upto)
        if whole is not None:
            return self._finished(_Word((whole,), (0,), (len(piece),), (False,)))
        if self._byte_tokens:
            return self._encode_with_fallback(piece, upto)
        symbols, known = self._symbols(piece)
        kept: list[int] | None = None  # the unit offset of each symbol, once unknown ones are dropped
        if not known and self.unknown_id is None:
            kept = [i for i, symbol in enumerate(symbols) if symbol != _UNKNOWN_SYMBOL]
            symbols, known = symbols.replace(_UNKNOWN_SYMBOL, ""), True
        symbols = self._apply_merges(symbols, upto)
        ids = [ord(s) for s in symbols]
        flags = [False] * len(ids)
        if not known:
            unknown_id = UNKNOWN_ID if self.unknown_id is None else self.unknown_id  # never None here
            for i, symbol in enumerate(symbols):
                if symbol == _UNKNOWN_SYMBOL:
                    ids[i] = unknown_id
                    flags[i] = True
        units = self._units
        lengths = [1 if flag else units[i] for i, flag in zip(ids, flags, strict=True)]
        starts, ends, position = [], [], 0
        for length in lengths:
            if kept is None:
                starts.append(position)
                ends.append(position + length)
            else:
                start = kept[position] if position < len(kept) else len(piece)
                starts.append(start)
                ends.append(kept[position + length - 1] + 1 if length else start)
            position += length
        if self.config.unit == "byte" and not piece.isascii():  # byte offsets -> character offsets
            char_of_byte = [i for i, ch in enumerate(piece) for _ in range(len(ch.encode("utf-8")))]
            char_of_byte.append(len(piece))
            ends = [
                char_of_byte[e - 1] + 1 if e > s else char_of_byte[s]
                for s, e in zip(starts, ends, strict=True)
            ]
            starts = [char_of_byte[s] for s in starts]
        return self._finished(_Word(tuple(ids), tuple(starts), tuple(ends), tuple(flags)))

    def taken_whole(self, piece: str, upto: int) -> int | None:
        """With ``ignore_merges``: the token that is the whole piece, if the vocabulary has it
        by merge ``upto``, whatever the merges would make of the piece."""
        if not self.config.ignore_merges or not piece:
            return None
        units = bytes_to_display(piece.encode("utf-8")) if self.config.unit == "byte" else piece
        token_id = self._ids.get(units)
        if token_id is None:
            return None
        made = self._made_at[token_id]
        return token_id if made < 0 or made < upto else None  # -1: never made by a merge

    def _encode_with_fallback(self, piece: str, upto: int) -> _Word:
        """A word of character units where a character the vocabulary lacks becomes the tokens
        of its UTF-8 bytes (``<0xE2>``, ``<0x82>``, ``<0xAC>``) when it has them all, else unknown."""
        fallback, prefix = self._byte_tokens, self.config.continuing_prefix or ""
        symbols: list[str] = []
        where: list[int] = []  # the character each base symbol comes from
        for i, char in enumerate(piece):
            symbol = (self._continuing_symbol if i else self._unit_symbol).get(ord(char))
            if symbol is None:
                data = (prefix + char if i else char).encode("utf-8")  # the prefix too, as in HF
                if all(byte in fallback for byte in data):
                    symbols.extend(fallback[byte] for byte in data)
                    where.extend([i] * len(data))
                    continue
                symbol = _UNKNOWN_SYMBOL
            symbols.append(symbol)
            where.append(i)
        merged = self._apply_merges("".join(symbols), upto)
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        flags: list[bool] = []
        position = 0
        unknown_id = UNKNOWN_ID if self.unknown_id is None else self.unknown_id
        for symbol in merged:
            if symbol == _UNKNOWN_SYMBOL:
                if self.unknown_id is None:  # dropped, as Hugging Face does without an unknown token
                    position += 1
                    continue
                ids.append(unknown_id)
                flags.append(True)
                count = 1
            else:
                ids.append(ord(symbol))
                flags.append(False)
                count = self._units[ord(symbol)]
            starts.append(where[position])
            ends.append(where[position + count - 1] + 1)
            position += count
        return self._finished(_Word(tuple(ids), tuple(starts), tuple(ends), tuple(flags)))

    def _finished(self, word: _Word) -> _Word:
        """A word as the caches keep it: the display string of each of its tokens made, if it
        was not yet (so that ``_shown`` has every id an encoding holds); with ``fuse_unknown``,
        its consecutive unknown tokens as one."""
        shown = self._shown
        if shown is not self.keys:  # without a marker every display is there: the key
            for token_id in word.ids:
                if token_id >= 0 and shown[token_id] is None:
                    shown[token_id] = self.tokens[token_id]
        if not self.config.fuse_unknown or sum(word.unknown) < 2:
            return word
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        flags: list[bool] = []
        for token, start, end, flag in zip(word.ids, word.starts, word.ends, word.unknown, strict=True):
            if flag and flags and flags[-1]:
                ends[-1] = end
                continue
            ids.append(token)
            starts.append(start)
            ends.append(end)
            flags.append(flag)
        return _Word(tuple(ids), tuple(starts), tuple(ends), tuple(flags))

    def _symbols(self, piece: str) -> tuple[str, bool]:
        """The piece's base symbols as a symbol string, and whether every unit was known."""
        config = self.config
        units = piece.encode("utf-8").decode("latin-1") if config.unit == "byte" else piece
        table = self._unit_symbol
        if config.continuing_prefix is None:
            known = all(ord(u) in table for u in units)
            if known:
                symbols = units.translate(table)
            else:
                symbols = "".join(table.get(ord(u), _UNKNOWN_SYMBOL) for u in units)
        else:  # the first unit as itself, the others as continuing units (``##b``)
            rest = self._continuing_symbol
            symbols = "".join(
                [table.get(ord(u), _UNKNOWN_SYMBOL) for u in units[:1]]
                + [rest.get(ord(u), _UNKNOWN_SYMBOL) for u in units[1:]]
            )
            known = _UNKNOWN_SYMBOL not in symbols
        marker = config.end_of_word
        if marker is None or not symbols:
            return symbols, known
        if not config.attach_marker:
            return symbols + chr(self._marker_id) if self._marker_id is not None else symbols, known
        last = base_symbols(piece, config)[-1]
        last_id = self._ids.get(last)
        if last_id is None:
            return symbols[:-1] + _UNKNOWN_SYMBOL, False
        return symbols[:-1] + chr(last_id), known

    def _next_rank(self, key: str, after: int) -> int | None:
        rank = self._first_rank.get(key)
        if rank is None or rank > after:
            return rank
        later = self._later_ranks.get(key)
        if later is None:
            return None
        i = bisect_right(later, after)
        return later[i] if i < len(later) else None

    def _apply_merges(self, symbols: str, upto: int, trace: list[TraceStep] | None = None) -> str:
        """Replay the merges ranked below ``upto`` on one word's symbol string."""
        first_rank, merges = self._first_rank, self.merges
        lefts, rights, tokens = merges.lefts, merges.rights, merges.tokens
        if trace is None and len(symbols) > LONG_PIECE:
            return merged_by_rank(symbols, upto, self._next_rank, (lefts, rights, tokens))
        applied = -1
        while len(symbols) > 1:
            best = upto
            for i in range(len(symbols) - 1):
                key = symbols[i : i + 2]
                rank = first_rank.get(key)
                if rank is not None and rank <= applied:
                    rank = self._next_rank(key, applied)
                if rank is not None and rank < best:
                    best = rank
            if best == upto:
                break
            symbols = symbols.replace(chr(lefts[best]) + chr(rights[best]), chr(tokens[best]))
            applied = best
            if trace is not None:
                trace.append(TraceStep(merges[best], tuple(ord(s) for s in symbols)))
        return symbols

    def trace(self, piece: str, *, upto: int | None = None) -> tuple[tuple[int, ...], list[TraceStep]]:
        """Why a word is split as it is: its base symbols and each merge applied, in order.

        ``piece`` is one pre-tokenized, normalized word (as the corpus pane lists them).
        """
        upto = len(self.merges) if upto is None else upto
        symbols, _ = self._symbols(piece)
        steps: list[TraceStep] = []
        self._apply_merges(symbols, upto, steps)
        initial = tuple(UNKNOWN_ID if s == _UNKNOWN_SYMBOL else ord(s) for s in symbols)
        return initial, steps

    def piece_of(self, text: str, position: int) -> str | None:
        """The normalized piece of ``text`` covering character ``position`` (for traces)."""
        normalized = normalize(text, self._continued if self._normalized_always else self.config)
        for piece, begin, prefix in self._pieces(normalized, True, True, False):
            if isinstance(piece, str) and begin <= position < begin + len(piece) - prefix:
                return piece
        return None

    # -- decoding --------------------------------------------------------------------------

    def decode(self, ids: list[int]) -> str:
        """Text of ``ids``: end-of-word markers become word boundaries; ``UNKNOWN_ID`` becomes
        U+FFFD. Byte mode restores any text exactly (with a lossless pre-tokenizer); byte-fallback
        tokens are their bytes; a continuing-subword prefix is taken off, and a token without it
        begins a word (as Hugging Face's WordPiece decoder does); ``▁`` is a space where the
        pipeline spells spaces so (the one it put before the text taken off), as Hugging Face's
        decoders and SentencePiece do."""
        keys = self.keys
        for token_id in ids:
            if not (token_id == UNKNOWN_ID or 0 <= token_id < len(keys)):
                raise BpeError(f"Token id {token_id} is not in the vocabulary (0 to {len(keys) - 1}).")
        if self._joins_tokens:  # an imported tokenizer.json without a decoder, as its library decodes
            return " ".join(map(self._hf_token, ids))
        if self._hf_decoder is not None:  # an imported tokenizer.json's own decoder, as its library runs it
            text = decoded(self._hf_decoder, [self._hf_token(token_id) for token_id in ids])
            return text if self._suffix_left is None else text.replace(self._suffix_left, " ").strip()
        sentencepiece = next(
            (step for step in self.config.normalizers if isinstance(step, SentencePieceNormalizer)), None
        )
        if sentencepiece is not None:
            return self._decode_sentencepiece(ids, sentencepiece)
        config = self.config
        # A pipeline of its own (an imported one's steps) keeps its whitespace, but a marker or a
        # continuing prefix says where words end: Hugging Face's decoders put a space there.
        marked = config.end_of_word is not None or config.continuing_prefix is not None
        separated = not config.keeps_whitespace or (config.pretokenize == "custom" and marked)
        boundary = " " if separated else ""
        byte_mode = self.config.unit == "byte"
        byte_of = self._fallback_bytes
        escape, prepended = space_escape(self.config.normalizers, self.config.pre_tokenizers)
        prefix = self.config.continuing_prefix
        out: list[str] = []
        pending = bytearray()  # bytes of the current run (byte mode, byte fallback), decoded together
        fallbacks = 0  # how many of them byte-fallback tokens gave

        def flush() -> None:
            nonlocal fallbacks
            if pending:
                out.append(_run_text(pending, fallbacks))
                pending.clear()
            fallbacks = 0

        for place, token_id in enumerate(ids):
            if token_id in byte_of:  # a byte's token, an added token too (see _fallback_table)
                pending.append(byte_of[token_id])
                fallbacks += 1
                continue
            if token_id == UNKNOWN_ID or token_id in self.special_ids:
                flush()
                if prefix is not None and place:  # a word of its own (a token without the prefix)
                    out.append(boundary)
                # An added token matched in normalized text is, to Hugging Face, as normalized.
                added = "\ufffd" if token_id == UNKNOWN_ID else self._spelled.get(token_id, keys[token_id])
                out.append(added if escape is None else added.replace(escape, " "))
                continue
            key = keys[token_id] if escape is None else keys[token_id].replace(escape, " ")
            if prefix is not None:  # ``##b`` continues a word; any other token begins one
                if key.startswith(prefix) and len(key) > len(prefix) and place:  # (the first: as it is)
                    key = key[len(prefix) :]
                elif out and self.config.end_of_word is None:
                    flush()
                    out.append(boundary)
            for i, part in enumerate(key.split(MARK) if self.config.end_of_word is not None else (key,)):
                if i:
                    flush()
                    out.append(boundary)
                if byte_mode:
                    pending.extend(CHAR_TO_BYTE[char] for char in part)
                else:
                    flush()
                    out.append(part)
        flush()
        text = "".join(out)
        if prepended and text.startswith(" "):  # the space the pipeline put before the text
            text = text[1:]
        return text[: -len(boundary)] if boundary and text.endswith(boundary) else text

    def _hf_token(self, token_id: int) -> str:
        """A token as Hugging Face's decoders are given it: an added token matched in normalized
        text as normalized, any other as the file spells it (U+FFFD for a unit the vocabulary lacks)."""
        if token_id == UNKNOWN_ID:
            return "\ufffd"
        if token_id in self.special_ids:
            return self._spelled.get(token_id, self.keys[token_id])
        return self.tokens[token_id]

    def _decode_sentencepiece(self, ids: list[int], step: SentencePieceNormalizer) -> str:
        """``SentencePieceProcessor.decode``: control pieces are nothing, the unknown piece is
        its ``unk_surface`` (`` ⁇ ``); a run of byte pieces is decoded as SentencePiece does,
        one U+FFFD per byte of no character; other pieces have ``▁`` as a space, and while
        nothing is written a leading ``▁`` is dropped (the dummy prefix or extra whitespace: with
        ``remove_extra_whitespaces`` from every piece, else from the first only). SentencePiece
        drops nothing at the end, even with whitespace as a suffix."""
        keys = self.keys
        byte_of = self._fallback_bytes
        user_defined = set(step.user_defined)  # special tokens here, yet text to SentencePiece
        unknown = {UNKNOWN_ID, self.unknown_id}
        hidden = {i for i in self.special_ids if i not in unknown and keys[i] not in user_defined}
        stripping = step.add_dummy_prefix or step.remove_extra_whitespaces
        out: list[str] = []
        pending = bytearray()
        at_start = True  # nothing written yet, and no leading ▁ dropped that ends the dropping
        for token_id in ids:
            if token_id in byte_of:
                pending.append(byte_of[token_id])
                continue
            if pending:
                out.append(_sentencepiece_bytes(pending))
                pending.clear()
                at_start = False
            if token_id in hidden:
                continue
            if token_id in unknown:
                out.append(step.unk_surface)
                at_start = False
                continue
            piece = keys[token_id]
            if at_start and stripping and piece.startswith("▁"):
                piece = piece[1:]
                at_start = step.remove_extra_whitespaces
            text = piece.replace("▁", " ")
            out.append(text)
            at_start = at_start and not text
        if pending:
            out.append(_sentencepiece_bytes(pending))
        return "".join(out)


def _run_text(data: bytearray, fallbacks: int) -> str:
    """A run of bytes as text: a run all of byte-fallback tokens as Hugging Face's
    ``ByteFallback`` decoder gives it (a U+FFFD for every token of a run that is not valid UTF-8
    as a whole), any other as its ``ByteLevel`` decoder does (one for each invalid sequence)."""
    if fallbacks == len(data):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return "\ufffd" * fallbacks
    return data.decode("utf-8", errors="replace")


def _sentencepiece_bytes(data: bytes | bytearray) -> str:
    """Bytes as SentencePiece decodes a run of byte pieces: each character its lead byte
    announces where the bytes after it make a valid one, else U+FFFD for the lead byte alone and
    on from the next byte (Python's ``errors="replace"`` puts one U+FFFD for a whole truncated
    sequence, where SentencePiece puts one per byte)."""
    out: list[str] = []
    at = 0
    while at < len(data):
        lead = data[at]
        size = 1 if lead < 0x80 else 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4
        try:
            # Python's strict decoder refuses what SentencePiece does: overlong forms,
            # surrogates, code points past U+10FFFF, a missing continuation byte.
            out.append(bytes(data[at : at + size]).decode("utf-8"))
            at += size
        except UnicodeDecodeError:
            out.append("\ufffd")
            at += 1
    return "".join(out)


def _map_back(
    word: _Word,
    begin: int,
    prefix: int,
    starts: list[int],
    source_length: int,
    offset: int,
    out_starts: MutableSequence[int],
    out_ends: MutableSequence[int],
) -> None:
    """The spans of a word's tokens in the source text: the word starts at ``begin`` of the
    normalized text (after ``prefix`` characters the pre-tokenizer put before it), and
    ``starts`` maps each normalized character to the source character it came from."""
    size = len(starts)
    for s, e in zip(word.starts, word.ends, strict=True):
        s, e = begin + max(s - prefix, 0), begin + max(e - prefix, 0)
        source_start = starts[s] if s < size else source_length
        source_end = max(
            starts[e - 1] + 1 if e > s else source_start, starts[e] if e < size else source_length
        )
        out_starts.append(offset + source_start)
        out_ends.append(offset + source_end)
