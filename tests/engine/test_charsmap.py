"""SentencePiece's precompiled character map: exactly SentencePiece's normalizer and exactly
Hugging Face's ``Precompiled``, on the maps SentencePiece ships and on maps built here."""

import base64
import struct
import time
from typing import NamedTuple

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers.normalizers import Precompiled

from bpe_core.errors import InputError
from bpe_core.pipeline.charsmap import CharsMap
from tests.conftest import data_text
from tests.protobuf import read_varint, varint

RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
# Characters whose normalization changes, composes, decomposes or depends on its neighbours.
TRICKY = [
    "a",
    "A",
    "e",
    " ",
    "\r",
    "\n",
    "\t",
    "\x00",
    "\x7f",
    "\u00a0",
    "\u00ad",
    "ﬁ",
    "Ａ",
    "１",
    "①",
    "Ⅻ",
    "½",
    "ß",
    "İ",
    "Σ",
    "Å",
    "\u0301",
    "\u0308",
    "\u030a",
    "\u0338",
    "<",
    "=",
    "가",
    "\u1100",
    "\u1161",
    "\u11a8",
    "ｶ",
    "ﾞ",
    "か",
    "\u3099",
    "㍿",
    "…",
    "\u2028",
    "\ufeff",
    "😀",
    "\U0001f1eb",
    "\U0001f1f7",
    "\u200d",
    "\U0001f468",
    "\u0915",
    "\u094d",
    "\u0937",
    "\u0600",
    "\U0001d400",
    "\U0002f800",
]
# Characters every shipped map rewrites, and that never combine with an ASCII letter before them.
REWRITTEN = ["ﬁ", "Ａ", "１", "①", "Ⅻ", "½", "㍿", "…", "\u00a0", "\ufb01\ufb02", "ｶ"]
SAMPLES = [
    "",
    "plain ASCII text stays as it is.",
    "ﬁnance Ａ１ ① Ⅻ ½ ㍿ …",
    "e\u0301 A\u030a\u0301 Ａ\u0301 <\u0338 =\u0338",
    "Hangul: 한국어 \u1100\u1161\u11a8 가\u11a8",
    "line one\r\nline two\rline three\n\ttab\u00a0nbsp\u2028",
    "ｶﾞｷﾞ か\u3099 ﾊﾟ",
    "control \x00\x01\x1f\x7f\u0080\u008f\u009f chars",
    "emoji 😀 👨\u200d👩\u200d👧 🇫🇷 👍🏽",
    "Devanagari क्\u200dष कि \u0600١",
    "İstanbul ΣΑΣ ß ẞ Ǆ ǅ",
]
texts = st.lists(
    st.one_of(st.characters(exclude_categories=("Cs",)), st.sampled_from(TRICKY)), max_size=24
).map("".join)


def spec_field(spec: bytes, wanted: int) -> bytes:
    """A length-delimited field of a serialized NormalizerSpec (the test's own protobuf reading)."""
    pos = 0
    while pos < len(spec):
        key, pos = read_varint(spec, pos)
        if key & 7 == 0:
            _, pos = read_varint(spec, pos)
            continue
        size, pos = read_varint(spec, pos)
        if key >> 3 == wanted:
            return spec[pos : pos + size]
        pos += size
    return b""


def bare_spec(charsmap: bytes) -> bytes:
    """A NormalizerSpec holding ``charsmap`` with the dummy prefix, whitespace removal and
    escaping off: SentencePiece then applies the map alone."""
    fields = [(1, b"custom"), (2, charsmap)]
    body = b"".join(varint(n << 3 | 2) + varint(len(v)) + v for n, v in fields)
    return body + b"".join(varint(n << 3) + b"\0" for n in (3, 4, 5))


_FREE = 0x80000000  # an unused unit: its label (top bit set) never equals a byte


def build_charsmap(rules: dict[bytes, bytes]) -> bytes:
    """A precompiled character map of ``rules`` in Darts-clone's format: each node's children in a
    fresh block of 256 units, the child for byte ``c`` at ``block | c``, its value at ``block``."""
    trie: dict = {}
    for key, value in rules.items():
        node = trie
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = value
    units = [_FREE] * 256
    strings = bytearray()
    offsets: dict[bytes, int] = {}

    def place(node: dict, position: int, label: int) -> None:
        block = len(units)
        units.extend([_FREE] * 256)
        has_leaf = None in node
        units[position] = label | (has_leaf << 8) | ((position ^ block) << 10)
        if has_leaf:
            if node[None] not in offsets:
                offsets[node[None]] = len(strings)
                strings.extend(node[None] + b"\0")
            units[block] = offsets[node[None]] | 0x80000000
        for byte, child in node.items():
            if byte is not None:
                place(child, block | byte, byte)

    place(trie, 0, 0)
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + bytes(strings)


class Shipped(NamedTuple):
    """A map SentencePiece ships, loaded by us, by SentencePiece and by Hugging Face."""

    ours: CharsMap
    sentencepiece: spm.SentencePieceNormalizer
    hf: Precompiled
    blob: bytes
    name: str

    def __repr__(self) -> str:
        return self.name  # hypothesis prints its examples: not 240 kB of base64


def shipped_map(name: str) -> Shipped:
    theirs = spm.SentencePieceNormalizer(
        rule_name=name, add_dummy_prefix=False, escape_whitespaces=False, remove_extra_whitespaces=False
    )
    blob = spec_field(theirs.serialized_normalizer_spec(), 2)
    return Shipped(CharsMap.from_bytes(blob), theirs, Precompiled(blob), blob, name)


@pytest.fixture(scope="module", params=RULES)
def shipped(request):
    return shipped_map(request.param)


@pytest.fixture(scope="module")
def nmt_nfkc():
    """SentencePiece's default map: NFKC, with controls removed and line breaks and tabs as spaces."""
    return shipped_map("nmt_nfkc")


def check_alignment(text: str, out: str, align: list[int]) -> None:
    assert len(align) == len(out)
    assert all(0 <= index < len(text) for index in align)
    assert align == sorted(align)


def test_shipped_maps_match_sentencepiece_and_hugging_face_on_samples(shipped):
    ours, sp_normalizer, hf = shipped.ours, shipped.sentencepiece, shipped.hf
    for text in SAMPLES:
        out, align = ours.normalize_sentencepiece(text)
        expected, offsets = sp_normalizer.normalize(text, with_offsets=True)
        assert (out, align) == (expected, offsets[:-1]), text
        hf_out, hf_align = ours.normalize_hf(text)
        assert hf_out == hf.normalize_str(text), text
        check_alignment(text, hf_out, hf_align)


@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_shipped_maps_match_on_any_text(shipped, text):
    ours, sp_normalizer, hf = shipped.ours, shipped.sentencepiece, shipped.hf
    out, align = ours.normalize_sentencepiece(text)
    expected, offsets = sp_normalizer.normalize(text, with_offsets=True)
    assert (out, align) == (expected, offsets[:-1])
    hf_out, hf_align = ours.normalize_hf(text)
    assert hf_out == hf.normalize_str(text)
    check_alignment(text, hf_out, hf_align)
    # The fast paths agree with the byte-by-byte ones, alignment included.
    assert ours._sentencepiece_bytes(text) == (out, align)
    assert ours._hf_bytes(text) == (hf_out, hf_align)


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet="abcxyz019 .,;-_'\"", max_size=40), extra=st.sampled_from(REWRITTEN))
def test_unchanged_characters_keep_their_index(shipped, text, extra):
    ours = shipped.ours
    for normalize in (ours.normalize_sentencepiece, ours.normalize_hf):
        assert normalize(text) == (text, list(range(len(text))))
        # Around a character the map rewrites, the untouched ones still point at themselves.
        whole = text + extra + text
        out, align = normalize(whole)
        check_alignment(whole, out, align)
        tail = len(whole) - len(text)
        assert out.startswith(text) and out.endswith(text)
        assert align[: len(text)] == list(range(len(text)))
        if text:
            assert align[-len(text) :] == list(range(tail, len(whole)))


def test_where_sentencepiece_and_hugging_face_differ(nmt_nfkc):
    """Hugging Face replaces a whole short grapheme cluster by its shortest matching rule."""
    ours = nmt_nfkc.ours
    assert ours.normalize_sentencepiece("a\r\nb")[0] == "a  b"
    assert ours.normalize_hf("a\r\nb") == ("a b", [0, 1, 3])
    assert ours.normalize_sentencepiece("Ａ\u0301")[0] == "Á"
    assert ours.normalize_hf("Ａ\u0301") == ("A", [0])
    assert ours.normalize_sentencepiece("A\u030a\u0301")[0] == "Ǻ"
    assert ours.normalize_hf("A\u030a\u0301")[0] == "Å"
    # A cluster of 6 bytes or more goes character by character.
    assert ours.normalize_hf("Ａ\u0301\u0301")[0] == "A\u0301\u0301"


def test_alignment_of_expansions_and_deletions(nmt_nfkc):
    ours = nmt_nfkc.ours
    out, align = ours.normalize_sentencepiece("xﬁ①\x01y")
    assert out == "xfi1y"
    assert align == [0, 1, 1, 2, 4]
    assert ours.normalize_hf("xﬁ①\x01y") == (out, align)


def test_long_text_is_fast_and_exact(shipped):
    ours, sp_normalizer, hf = shipped.ours, shipped.sentencepiece, shipped.hf
    sample = data_text("shakespeare_200k.txt")
    text = (sample + " ﬁnance Ａ１ café 日本語のテキスト 한국어 😀\r\n") * 5  # about 1 MB
    for normalize, theirs in (
        (ours.normalize_sentencepiece, sp_normalizer.normalize),
        (ours.normalize_hf, hf.normalize_str),
    ):
        began = time.perf_counter()
        out, align = normalize(text)
        took = time.perf_counter() - began
        assert out == theirs(text)
        assert len(align) == len(out)
        assert took < 2.0, f"{took:.2f} s for {len(text):,} characters"


def test_base64_gives_the_same_map(shipped):
    ours, blob = shipped.ours, shipped.blob
    again = CharsMap.from_base64(base64.b64encode(blob).decode())
    assert again.raw == blob
    assert again.normalize_sentencepiece("ﬁ①") == ours.normalize_sentencepiece("ﬁ①")


@pytest.mark.parametrize(
    "rules",
    [
        {b"ab": b"X", b"a": b"Y", b"b": b""},  # longest against shortest; a rule that deletes
        {"é".encode(): b"e", "e\u0301".encode(): b"E", "\u0301".encode(): "\u2019".encode()},
        {b"\xc3": b"X"},  # a rule that ends inside a character: the byte-by-byte path
        {"é".encode(): b"e", b"e\xcc\x81": b"E", b"\xcc": b"!"},
        {b"\r": b" ", b"\r\n": b"\n", "Ａ".encode(): b"A", "😀".encode(): b":)"},
    ],
)
def test_built_maps_match_both(rules):
    blob = build_charsmap(rules)
    ours = CharsMap.from_bytes(blob)
    sp_normalizer = spm.SentencePieceNormalizer(normalizer_spec=bare_spec(blob))
    hf = Precompiled(blob)
    for text in ["ab", "abab", "aab", "é", "e\u0301", "xé\u0301y", "\u0301", "a\r\nb\r", "ＡＡ😀", "", "zzz"]:
        out, align = ours.normalize_sentencepiece(text)
        expected, offsets = sp_normalizer.normalize(text, with_offsets=True)
        assert (out, align) == (expected, offsets[:-1]), text
        hf_out, hf_align = ours.normalize_hf(text)
        assert hf_out == hf.normalize_str(text), text
        check_alignment(text, hf_out, hf_align)


def test_lone_surrogates():
    """SentencePiece turns each byte of malformed UTF-8 into U+FFFD; Hugging Face cannot take it."""
    ours = CharsMap.from_bytes(build_charsmap({b"a": b"b"}))
    assert ours.normalize_sentencepiece("a\ud800a") == ("b\ufffd\ufffd\ufffdb", [0, 1, 1, 1, 2])
    assert CharsMap.from_bytes(b"").normalize_sentencepiece("\udfff") == ("\ufffd" * 3, [0, 0, 0])
    with pytest.raises(InputError, match="lone surrogate"):
        ours.normalize_hf("a\ud800")


def test_the_empty_map_is_the_identity():
    identity = CharsMap.from_bytes(b"")
    assert identity.is_identity
    assert identity.normalize_sentencepiece("ﬁ\r\n") == ("ﬁ\r\n", [0, 1, 2])
    assert identity.normalize_hf("ﬁ\r\n") == ("ﬁ\r\n", [0, 1, 2])


def test_a_map_without_replacements_is_refused_as_by_sentencepiece():
    blob = build_charsmap({})  # a trie with no rule, and nothing after it
    with pytest.raises(RuntimeError, match="Trie data size exceeds"):
        spm.SentencePieceNormalizer(normalizer_spec=bare_spec(blob)).normalize("a")
    with pytest.raises(InputError, match="no room"):
        CharsMap.from_bytes(blob)


@pytest.mark.parametrize(
    ("blob", "says"),
    [
        (b"\x01", "size field"),
        (b"\0\0\0\0abc", "positive multiple of 4"),
        (b"\x06\0\0\0abcdefgh", "positive multiple of 4"),
        (b"\x08\0\0\0abcd", "no room"),
        (b"\x08\0\0\0abc", "no room"),
    ],
)
def test_damaged_headers(blob, says):
    with pytest.raises(InputError, match=says):
        CharsMap.from_bytes(blob)


def test_bad_base64():
    with pytest.raises(InputError, match="base64"):
        CharsMap.from_base64("not base64!")


def test_damaged_replacements():
    good = build_charsmap({b"a": b"xyz"})
    with pytest.raises(InputError, match="NUL-terminated"):
        CharsMap.from_bytes(good[:-1])  # the last replacement loses its NUL
    with pytest.raises(InputError, match="not UTF-8"):
        CharsMap.from_bytes(build_charsmap({b"a": b"\xff"}))


def test_truncations_of_a_real_map_never_crash(shipped):
    blob = shipped.blob
    cuts = sorted({*range(1, 64), *range(1, len(blob), max(1, len(blob) // 150)), len(blob) - 1})
    for cut in cuts:
        with pytest.raises(InputError):
            CharsMap.from_bytes(blob[:cut])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_corrupted_maps_load_or_refuse_in_one_sentence(data):
    blob = bytearray(
        build_charsmap({b"ab": b"X", "é".encode(): b"e", b"c": b"", "Ａ\u0301".encode(): "Á".encode()})
    )
    for _ in range(data.draw(st.integers(1, 4))):
        blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    try:
        loaded = CharsMap.from_bytes(bytes(blob))
    except InputError as error:
        assert str(error).endswith(".") and "\n" not in str(error)
        return
    for text in ("abcé Ａ\u0301", "\x00\x80\uffff"):
        out, align = loaded.normalize_sentencepiece(text)
        check_alignment(text, out, align)
        out, align = loaded.normalize_hf(text)
        check_alignment(text, out, align)
