"""SentencePiece ``.model`` files: a serialized ``ModelProto`` (protobuf), read by hand.

The reader knows protobuf's wire format (varints, 64-bit and 32-bit fixed fields,
length-delimited fields, and groups, which it skips) and the fields of
``sentencepiece_model.proto`` that BPE Studio uses; every other field is skipped, as protobuf
itself would. A field it reads must have the wire type the schema gives it; a message field given
twice is merged and a scalar given twice keeps its last value, as protobuf does; and an enum
value the schema does not list leaves the field at its default, as a proto2 parser does. A
damaged file (truncated, a known field of the wrong wire type, a piece that is not UTF-8, empty or
given twice, no pieces, more than 1 GiB) and a model that SentencePiece itself refuses to load
(no unknown piece or two of them, byte pieces without ``byte_fallback`` or not all 256 of them
with it) raise :class:`InputError` with one sentence naming the file. Any model type is read: the
caller decides what to do with a unigram model (``trainer_spec.model_type``).

:func:`bpe_merges` gives the merge list of a BPE model, and :meth:`NormalizerSpec.chars_map` its
precompiled character map (:mod:`bpe_core.pipeline.charsmap`).

Imports only the standard library, :mod:`bpe_core.errors`, :mod:`bpe_core.runtime` and
:mod:`bpe_core.pipeline`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

from bpe_core.errors import InputError, quoted
from bpe_core.pipeline.byte_alphabet import fallback_byte
from bpe_core.pipeline.charsmap import CharsMap
from bpe_core.pipeline.steps import UNK_SURFACE
from bpe_core.runtime.fileio import input_limit, open_input, regular_file_size

# ModelProto.SentencePiece.Type
NORMAL: Final = 1
UNKNOWN: Final = 2
CONTROL: Final = 3
USER_DEFINED: Final = 4
UNUSED: Final = 5
BYTE: Final = 6
PIECE_TYPES: Final = {
    NORMAL: "normal",
    UNKNOWN: "unknown",
    CONTROL: "control",
    USER_DEFINED: "user-defined",
    UNUSED: "unused",
    BYTE: "byte",
}
# TrainerSpec.ModelType
UNIGRAM: Final = 1
BPE: Final = 2
WORD: Final = 3
CHAR: Final = 4
MODEL_TYPES: Final = {UNIGRAM: "unigram", BPE: "bpe", WORD: "word", CHAR: "char"}

MAX_MODEL_BYTES: Final = 2**30  # the largest real models have a few megabytes
_MAX_VARINT_BYTES: Final = 10
_WIRE_NAMES: Final = {
    0: "a varint",
    1: "a 64-bit number",
    2: "a length-delimited field",
    3: "a group",
    4: "a group end",
    5: "a 32-bit number",
}


@dataclass(frozen=True)
class Piece:
    """One vocabulary entry: its text, its score (for BPE: higher merges first) and its type."""

    piece: str
    score: float = 0.0
    type: int = NORMAL


@dataclass(frozen=True)
class NormalizerSpec:
    """How SentencePiece normalizes input (or, as the denormalizer, output), with proto defaults."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    normalization_rule_tsv: str = ""

    def chars_map(self) -> CharsMap:
        """The precompiled character map (the identity map when the spec has none)."""
        return CharsMap.from_bytes(self.precompiled_charsmap)


@dataclass(frozen=True)
class TrainerSpec:
    """The training options a model keeps that bear on encoding it, with proto defaults."""

    model_type: int = UNIGRAM
    vocab_size: int = 8000
    character_coverage: float = 0.9995
    max_sentencepiece_length: int = 16
    split_by_unicode_script: bool = True
    split_by_number: bool = True
    split_by_whitespace: bool = True
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False
    split_digits: bool = False
    pretokenization_delimiter: str = ""
    control_symbols: tuple[str, ...] = ()
    user_defined_symbols: tuple[str, ...] = ()
    byte_fallback: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = UNK_SURFACE

    @property
    def model_type_name(self) -> str:
        """``unigram``, ``bpe``, ``word`` or ``char``."""
        return MODEL_TYPES.get(self.model_type, str(self.model_type))


@dataclass(frozen=True)
class SentencePieceModel:
    """A parsed ``.model`` file: the pieces in id order and the specs that go with them."""

    pieces: tuple[Piece, ...]
    trainer_spec: TrainerSpec = field(default_factory=TrainerSpec)
    normalizer_spec: NormalizerSpec = field(default_factory=NormalizerSpec)
    denormalizer_spec: NormalizerSpec | None = None

    @property
    def is_bpe(self) -> bool:
        """Whether the model was trained as BPE (else unigram, word or char)."""
        return self.trainer_spec.model_type == BPE


# -- the wire format ----------------------------------------------------------------------------


class _Damaged(Exception):
    """A reason the bytes are not a valid message; the caller names the file in the sentence."""


def _varint(data: memoryview, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` (truncated to 64 bits, as protobuf reads it) and the position after."""
    result = 0
    shift = 0
    end = len(data)
    for index in range(pos, min(pos + _MAX_VARINT_BYTES, end)):
        byte = data[index]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & 0xFFFF_FFFF_FFFF_FFFF, index + 1
        shift += 7
    if pos + _MAX_VARINT_BYTES <= end:
        raise _Damaged("a number runs over 10 bytes")
    raise _Damaged("it ends inside a number")


def _fields(data: memoryview) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) for each field of the message ``data``; a varint comes as
    an int, the other types as their bytes, a group (skipped whole) as ``None``."""
    pos = 0
    end = len(data)
    while pos < end:
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0 or number >= 2**29:
            raise _Damaged(f"it has a field numbered {number}, which protobuf does not allow")
        value: Any
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise _Damaged("it ends inside a fixed-size number")
            value = data[pos : pos + size]
            pos += size
        elif wire == 2:
            size, pos = _varint(data, pos)
            if size > end - pos:
                raise _Damaged(f"a field of {size:,} bytes runs past its end")
            value = data[pos : pos + size]
            pos += size
        elif wire == 3:
            value, pos = None, _skip_group(data, pos, number)
        elif wire == 4:
            raise _Damaged(f"a group ends (field {number}) where none began")
        else:
            raise _Damaged(f"field {number} has wire type {wire}, which protobuf does not have")
        yield number, wire, value


def _skip_group(data: memoryview, pos: int, number: int) -> int:
    """The position after the group ``number`` that starts at ``pos`` (groups nest)."""
    open_groups = [number]
    end = len(data)
    while open_groups:
        if pos >= end:
            raise _Damaged("it ends inside a group")
        key, pos = _varint(data, pos)
        inner, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        elif wire == 2:
            size, pos = _varint(data, pos)
            pos += size
        elif wire == 3:
            open_groups.append(inner)
        elif wire == 4:
            if inner != open_groups.pop():
                raise _Damaged("a group ends with another group's number")
        else:
            raise _Damaged(f"field {inner} has wire type {wire}, which protobuf does not have")
        if pos > end:
            raise _Damaged("it ends inside a group")
    return pos


def _int32(value: int) -> int:
    """A varint read as protobuf's int32 (negative numbers are written sign-extended to 64 bits)."""
    value &= 0xFFFF_FFFF
    return value - 2**32 if value >= 2**31 else value


def _text(value: memoryview, what: str) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise _Damaged(f"{what} is not valid UTF-8") from None


class _Field(NamedTuple):
    """A field the reader keeps: its name in the dataclass and its kind ("string", "bytes",
    "bool", "int32", "float", "strings" for a repeated string, "enum" with ``values``)."""

    name: str
    kind: str
    values: frozenset[int] = frozenset()


_PIECE_FIELDS: Final[dict[int, _Field]] = {
    1: _Field("piece", "string"),
    2: _Field("score", "float"),
    3: _Field("type", "enum", frozenset(PIECE_TYPES)),
}
_NORMALIZER_FIELDS: Final[dict[int, _Field]] = {
    1: _Field("name", "string"),
    2: _Field("precompiled_charsmap", "bytes"),
    3: _Field("add_dummy_prefix", "bool"),
    4: _Field("remove_extra_whitespaces", "bool"),
    5: _Field("escape_whitespaces", "bool"),
    6: _Field("normalization_rule_tsv", "string"),
}
_TRAINER_FIELDS: Final[dict[int, _Field]] = {
    3: _Field("model_type", "enum", frozenset(MODEL_TYPES)),
    4: _Field("vocab_size", "int32"),
    10: _Field("character_coverage", "float"),
    20: _Field("max_sentencepiece_length", "int32"),
    21: _Field("split_by_unicode_script", "bool"),
    23: _Field("split_by_number", "bool"),
    22: _Field("split_by_whitespace", "bool"),
    24: _Field("treat_whitespace_as_suffix", "bool"),
    26: _Field("allow_whitespace_only_pieces", "bool"),
    25: _Field("split_digits", "bool"),
    53: _Field("pretokenization_delimiter", "string"),
    30: _Field("control_symbols", "strings"),
    31: _Field("user_defined_symbols", "strings"),
    35: _Field("byte_fallback", "bool"),
    40: _Field("unk_id", "int32"),
    41: _Field("bos_id", "int32"),
    42: _Field("eos_id", "int32"),
    43: _Field("pad_id", "int32"),
    45: _Field("unk_piece", "string"),
    46: _Field("bos_piece", "string"),
    47: _Field("eos_piece", "string"),
    48: _Field("pad_piece", "string"),
    44: _Field("unk_surface", "string"),
}
_WIRE_OF_KIND: Final = {
    "string": 2,
    "bytes": 2,
    "strings": 2,
    "bool": 0,
    "int32": 0,
    "enum": 0,
    "float": 5,
}


def _message(data: memoryview, schema: dict[int, _Field], message: str) -> dict[str, Any]:
    """The fields of ``schema`` found in ``data``, by name (absent ones are left out)."""
    found: dict[str, Any] = {}
    for number, wire, value in _fields(data):
        spec = schema.get(number)
        if spec is None:
            continue
        name, kind = spec.name, spec.kind
        expected = _WIRE_OF_KIND[kind]
        if wire != expected:
            raise _Damaged(
                f"{message}.{name} is stored as {_WIRE_NAMES[wire]}, not as {_WIRE_NAMES[expected]}"
            )
        if kind == "string":
            found[name] = _text(value, f"{message}.{name}")
        elif kind == "strings":
            found.setdefault(name, []).append(_text(value, f"an entry of {message}.{name}"))
        elif kind == "bytes":
            found[name] = bytes(value)
        elif kind == "bool":
            found[name] = value != 0
        elif kind == "int32":
            found[name] = _int32(value)
        elif kind == "float":
            found[name] = struct.unpack("<f", value)[0]
        elif kind == "enum":
            # proto2 keeps an enum value it does not know among the unknown fields, and the field
            # stays at its default.
            number_value = _int32(value)
            if number_value in spec.values:
                found[name] = number_value
    return found


# -- the model ------------------------------------------------------------------------------------


def read_sp_model(path: str | Path) -> SentencePieceModel:
    """The SentencePiece model in the file ``path``; a damaged file raises one sentence naming it."""
    path = Path(path)
    where = f"The SentencePiece model {str(path)!r}"
    limit = min(MAX_MODEL_BYTES, input_limit())
    size = regular_file_size(path)
    if size is not None and size > limit:
        raise InputError(f"{where} has {size:,} bytes, more than the {limit // 2**20:,} MB a model may have.")
    try:
        with open_input(path) as stream:
            blob = stream.read(limit + 1)
    except FileNotFoundError:
        raise InputError(f"{where} does not exist.") from None
    except IsADirectoryError:
        raise InputError(f"{str(path)!r} is a folder, not a SentencePiece model.") from None
    except OSError as error:
        raise InputError(f"{where} cannot be read ({error.strerror}).") from None
    if len(blob) > limit:
        raise InputError(f"{where} is larger than the {limit // 2**20:,} MB a model may have.")
    return parse_sp_model(blob, str(path))


def parse_sp_model(blob: bytes, name: str | None = None) -> SentencePieceModel:
    """The SentencePiece model serialized in ``blob`` (read from the file ``name``, if given);
    damage raises one sentence."""
    where = f"The SentencePiece model {name!r}" if name is not None else "The SentencePiece model"
    if len(blob) > MAX_MODEL_BYTES:
        raise InputError(f"{where} has {len(blob):,} bytes, more than the 1 GiB a model may have.")
    try:
        model = _parse(memoryview(blob))
    except _Damaged as damage:
        raise InputError(f"{where} is damaged or not a SentencePiece model: {damage}.") from None
    problem = _unloadable(model)
    if problem:
        raise InputError(f"{where} cannot be loaded: {problem}.")
    return model


def _parse(data: memoryview) -> SentencePieceModel:
    pieces: list[Piece] = []
    # A message field given more than once is merged: parsing the concatenation does that.
    parts: dict[int, list[bytes]] = {2: [], 3: [], 5: []}
    for number, wire, value in _fields(data):
        if number in (1, 2, 3, 4, 5) and wire != 2:
            names = {
                1: "pieces",
                2: "trainer_spec",
                3: "normalizer_spec",
                4: "self_test_data",
                5: "denormalizer_spec",
            }
            raise _Damaged(f"ModelProto.{names[number]} is stored as {_WIRE_NAMES[wire]}, not as a message")
        if number == 1:
            fields = _message(value, _PIECE_FIELDS, f"piece {len(pieces)}")
            pieces.append(Piece(fields.pop("piece", ""), **fields))
        elif number in parts:
            parts[number].append(bytes(value))
        elif number == 4:
            _message(value, {}, "self_test_data")  # not used, but it must be a well-formed message
    trainer = TrainerSpec(
        **_fix_repeated(_message(memoryview(b"".join(parts[2])), _TRAINER_FIELDS, "trainer_spec"))
    )
    normalizer = NormalizerSpec(
        **_message(memoryview(b"".join(parts[3])), _NORMALIZER_FIELDS, "normalizer_spec")
    )
    denormalizer = (
        NormalizerSpec(**_message(memoryview(b"".join(parts[5])), _NORMALIZER_FIELDS, "denormalizer_spec"))
        if parts[5]
        else None
    )
    return SentencePieceModel(tuple(pieces), trainer, normalizer, denormalizer)


def _fix_repeated(found: dict[str, Any]) -> dict[str, Any]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in found.items()}


def _unloadable(model: SentencePieceModel) -> str:
    """Why SentencePiece would refuse the model's pieces (its ModelInterface::InitializePieces),
    or ``""``; BPE Studio refuses a repeated piece of any type."""
    if not model.pieces:
        return "it has no pieces"
    seen: dict[str, int] = {}
    unknown: list[int] = []
    bytes_found: set[int] = set()
    byte_fallback = model.trainer_spec.byte_fallback
    for index, piece in enumerate(model.pieces):
        if not piece.piece:
            return f"piece {index} is empty"
        if piece.piece in seen:
            return f"the piece {quoted(piece.piece)} is both piece {seen[piece.piece]} and piece {index}"
        seen[piece.piece] = index
        if piece.type == UNKNOWN:
            unknown.append(index)
        elif piece.type == BYTE:
            value = fallback_byte(piece.piece)  # SentencePiece writes them <0x%02X> exactly
            if value is None:
                return (
                    f"piece {index}, {quoted(piece.piece)}, is a byte piece but not one of <0x00> to <0xFF>"
                )
            if not byte_fallback:
                return f"piece {index}, {quoted(piece.piece)}, is a byte piece but byte_fallback is off"
            bytes_found.add(value)
    if len(unknown) != 1:
        return (
            "it has no unknown piece"
            if not unknown
            else f"pieces {unknown[0]} and {unknown[1]} are both unknown pieces"
        )
    if byte_fallback and len(bytes_found) != 256:
        return f"byte_fallback is on but it has {len(bytes_found)} of the 256 byte pieces"
    return ""


# -- merges ----------------------------------------------------------------------------------------


def bpe_merges(model: SentencePieceModel) -> list[tuple[str, str, str]]:
    """The merges ``(left, right, merged)``, lowest rank first, that reproduce the model's BPE
    encoding when the adjacent pair of lowest rank (the leftmost among equals) is merged first.

    SentencePiece (bpe_model.cc) starts from the characters of the normalized text, with each
    user-defined piece matched whole (longest first) as one frozen symbol, and repeatedly merges
    the adjacent pair whose concatenation is a piece of the highest score (the leftmost among
    equal scores); frozen symbols never merge. Hugging Face's converter (``generate_merges``
    behind ``SentencePieceExtractor``) turns that into a ranked list: every split of every piece
    into two pieces, ordered by the merged piece's place in the vocabulary, then by the length of
    the left part. This follows it, ordered by score first (SentencePiece's rule; in a trained BPE
    model scores fall as ids rise, so the two orders are one), then id, then left length, with
    these choices:

    * merged pieces are the NORMAL pieces of two or more characters; control, unknown and byte
      pieces are never in the merge table, and an UNUSED piece is left out (SentencePiece would
      build it and then split it back into the two parts it was made of, which no ranked list
      says);
    * a part is a NORMAL piece or any single character that is not a user-defined piece
      (SentencePiece's symbols start as characters, pieces or not; Hugging Face asks that both
      parts be in the vocabulary, and in a trained model every character of a piece is);
    * user-defined pieces are not made by merges: the caller splits them out of the input first
      (longest match at each place, as SentencePiece's prefix matcher does, or as Hugging Face's
      added tokens), and they stay whole.

    Where the two can still disagree: two different pieces of equal score (SentencePiece takes the
    leftmost pair in the text, a ranked list the lower id; the reader refuses such a model), and
    two splits of one piece competing for a shared symbol, as ``"aa" "a" "aa"`` with pieces
    ``"aa"`` and ``"aaa"`` (SentencePiece merges the leftmost pair, giving ``"aaa" "aa"``; the
    ranked list merges the split with the shorter left part first, giving ``"aa" "aaa"``).
    """
    normal = {
        piece.piece: (index, piece.score) for index, piece in enumerate(model.pieces) if piece.type == NORMAL
    }
    frozen = {piece.piece for piece in model.pieces if piece.type == USER_DEFINED}

    def is_part(text: str) -> bool:
        return text in normal or (len(text) == 1 and text not in frozen)

    ranked: list[tuple[float, int, int, str, str, str]] = []
    for merged, (index, score) in normal.items():
        for cut in range(1, len(merged)):
            left, right = merged[:cut], merged[cut:]
            if is_part(left) and is_part(right):
                ranked.append((-score, index, cut, left, right, merged))
    ranked.sort(key=lambda entry: entry[:3])
    return [(left, right, merged) for _, _, _, left, right, merged in ranked]
