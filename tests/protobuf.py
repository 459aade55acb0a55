"""Protobuf by hand for the SentencePiece tests: reading and writing the wire format's pieces
(varints, keys, length-delimited fields), and training a small model with ``sentencepiece``."""

import io
import struct
from collections.abc import Iterable

import sentencepiece as spm


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def varint(value: int) -> bytes:
    value &= 0xFFFF_FFFF_FFFF_FFFF  # negative numbers as protobuf writes them: 10 bytes
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def message(number: int, payload: bytes) -> bytes:
    return key(number, 2) + varint(len(payload)) + payload


def text(number: int, value: str | bytes) -> bytes:
    return message(number, value.encode() if isinstance(value, str) else value)


def number(field: int, value: int) -> bytes:
    return key(field, 0) + varint(value)


def piece(value: str | bytes, score: float = 0.0, kind: int | None = None) -> bytes:
    """A ModelProto's ``pieces`` entry."""
    body = text(1, value) + key(2, 5) + struct.pack("<f", score)
    return message(1, body + (number(3, kind) if kind is not None else b""))


def train_sentencepiece(lines: Iterable[str], vocab_size: int, **options) -> bytes:
    """A model trained by SentencePiece on ``lines`` (BPE unless ``model_type`` says otherwise)."""
    writer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=writer,
        model_type=options.pop("model_type", "bpe"),
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        minloglevel=2,
        **options,
    )
    return writer.getvalue()
