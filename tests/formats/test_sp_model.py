"""SentencePiece ``.model`` files: read by hand exactly as SentencePiece reads them, refused in one
sentence when damaged, and their BPE merges reproduce SentencePiece's own encoding."""

import os

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.errors import InputError
from bpe_core.io.formats import sp_model
from bpe_core.io.formats.sp_model import (
    BPE,
    BYTE,
    CONTROL,
    NORMAL,
    UNIGRAM,
    UNKNOWN,
    USER_DEFINED,
    Piece,
    bpe_merges,
    parse_sp_model,
    read_sp_model,
)
from tests.protobuf import key, message, number, piece, read_varint, text, train_sentencepiece

# A few kilobytes to train on: English, accented Latin, Greek, CJK, Hangul, emoji, digits, and
# runs of one character (which make pieces like "aa" and "aaa" compete).
TRAINING = """The quick brown fox jumps over the lazy dog while the queen quietly queues.
She sells sea shells by the sea shore; the shells she sells are surely sea shells.
Working, walking, talking, singing: everything ending in -ing is being tested here.
Café naïve résumé façade coöperate déjà vu señor über straße Ångström Øresund.
Les élèves étudient à l'école; où est la bibliothèque? Très bien, merci beaucoup.
Ελληνικά κείμενα για δοκιμή, και λίγο ακόμα κείμενο εδώ.
日本語のテキストです。東京は大きな都市です。中文文本处理很有趣。
한국어 텍스트입니다. 서울은 큰 도시입니다.
Emoji too: 😀 😀 👍 🎉 — and full-width ＡＢＣ１２３, ligatures ﬁ ﬂ, circled ① ② ③, Ⅻ.
Numbers 12345 67890 2024 3.14159 and runs aaaa aaaaa aaaaaa ----- ===== ....
"""
SENTENCES = [line for line in TRAINING.splitlines() if line] * 12
CONFIGS = {
    "bytes-nfkc-user": dict(
        byte_fallback=True, normalization_rule_name="nmt_nfkc", user_defined_symbols=["<mask>", "qu", "ing"]
    ),
    "identity-digits": dict(normalization_rule_name="identity", split_digits=True),
    "nfkc-cf-suffix": dict(
        normalization_rule_name="nmt_nfkc_cf",
        split_by_whitespace=False,
        treat_whitespace_as_suffix=True,
        control_symbols=["<ctl>"],
        pad_id=3,
    ),
    "no-dummy-prefix": dict(
        add_dummy_prefix=False, remove_extra_whitespaces=False, split_by_unicode_script=False
    ),
}
# Texts to encode: seen and unseen words, unknown characters, and what the normalizer rewrites.
TEXTS = [
    "The quick brown fox",
    "queen queues quietly",
    "walking and talking",
    "Café naïve résumé",
    "  extra   spaces  here ",
    "aaaaaaa ---------- ......",
    "東京 서울 😀🎉",
    "ＡＢＣ１２３ ﬁ ① Ⅻ",
    "unseen: ξ ж ק ☃ 𝄞",
    "<mask> and <ctl> in text",
    "digits 1234567890",
    "",
]


def train(**options) -> bytes:
    return train_sentencepiece(SENTENCES, options.pop("vocab_size", 400), **options)


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def trained(request):
    """A model trained here, its bytes, and SentencePiece's processor of it."""
    blob = train(**CONFIGS[request.param])
    return request.param, blob, spm.SentencePieceProcessor(model_proto=blob)


def test_pieces_scores_and_types_are_sentencepieces(trained):
    name, blob, processor = trained
    model = parse_sp_model(blob)
    assert len(model.pieces) == processor.get_piece_size()
    user_defined = set(CONFIGS[name].get("user_defined_symbols", ()))
    for index, entry in enumerate(model.pieces):
        assert entry.piece == processor.id_to_piece(index)
        assert entry.score == processor.get_score(index)
        assert (entry.type == CONTROL) == processor.is_control(index)
        assert (entry.type == UNKNOWN) == processor.is_unknown(index)
        assert (entry.type == BYTE) == processor.is_byte(index)
        assert (entry.type == USER_DEFINED) == (entry.piece in user_defined)
        assert not processor.is_unused(index)


def test_specs_are_what_was_trained(trained):
    name, blob, _ = trained
    options = CONFIGS[name]
    model = parse_sp_model(blob)
    trainer = model.trainer_spec
    assert trainer.model_type == BPE and model.is_bpe and trainer.model_type_name == "bpe"
    assert trainer.vocab_size == len(model.pieces)
    assert trainer.byte_fallback == options.get("byte_fallback", False)
    assert trainer.split_digits == options.get("split_digits", False)
    assert trainer.split_by_whitespace == options.get("split_by_whitespace", True)
    assert trainer.split_by_unicode_script == options.get("split_by_unicode_script", True)
    assert trainer.treat_whitespace_as_suffix == options.get("treat_whitespace_as_suffix", False)
    assert trainer.user_defined_symbols == tuple(options.get("user_defined_symbols", ()))
    assert trainer.control_symbols == tuple(options.get("control_symbols", ()))
    assert (trainer.unk_id, trainer.bos_id, trainer.eos_id) == (0, 1, 2)
    assert trainer.pad_id == options.get("pad_id", -1)
    assert trainer.unk_surface == " \u2047 "
    assert trainer.max_sentencepiece_length == 16
    assert model.pieces[trainer.unk_id].type == UNKNOWN
    spec = model.normalizer_spec
    assert spec.name == options.get("normalization_rule_name", "nmt_nfkc")
    assert spec.add_dummy_prefix == options.get("add_dummy_prefix", True)
    assert spec.remove_extra_whitespaces == options.get("remove_extra_whitespaces", True)
    assert spec.escape_whitespaces
    assert bool(spec.precompiled_charsmap) == (spec.name != "identity")
    assert model.denormalizer_spec is None


def test_the_charsmap_normalizes_as_the_model_does(trained):
    _, blob, _ = trained
    chars_map = parse_sp_model(blob).normalizer_spec.chars_map()
    theirs = spm.SentencePieceNormalizer(
        model_proto=blob, add_dummy_prefix=False, escape_whitespaces=False, remove_extra_whitespaces=False
    )
    for sample in [*TEXTS, TRAINING]:
        out, align = chars_map.normalize_sentencepiece(sample)
        expected, offsets = theirs.normalize(sample, with_offsets=True)
        assert (out, align) == (expected, offsets[:-1])


def test_reading_a_file_equals_parsing_its_bytes(trained, tmp_path):
    _, blob, _ = trained
    path = tmp_path / "m.model"
    path.write_bytes(blob)
    assert read_sp_model(path) == parse_sp_model(blob)
    assert read_sp_model(str(path)) == parse_sp_model(blob, str(path))


def test_a_unigram_model_is_read_and_says_so():
    model = parse_sp_model(train(model_type="unigram", vocab_size=200))
    assert model.trainer_spec.model_type == UNIGRAM and not model.is_bpe
    assert model.trainer_spec.model_type_name == "unigram"


# -- merges -----------------------------------------------------------------------------------------


def ranked_bpe(normalized: str, merges: list[tuple[str, str, str]], user_defined: list[str]) -> list[str]:
    """BPE by rank, as Hugging Face applies a merge list: user-defined pieces split out first
    (longest at each place) and kept whole, then the adjacent pair of lowest rank (the leftmost
    among equals) merged until none is left."""
    rank = {(left, right): index for index, (left, right, _) in enumerate(merges)}
    longest_first = sorted(user_defined, key=len, reverse=True)
    symbols: list[str] = []
    frozen: list[bool] = []
    pos = 0
    while pos < len(normalized):
        whole = next((piece for piece in longest_first if normalized.startswith(piece, pos)), None)
        symbols.append(whole or normalized[pos])
        frozen.append(whole is not None)
        pos += len(symbols[-1])
    while True:
        best = None
        for index in range(len(symbols) - 1):
            if frozen[index] or frozen[index + 1]:
                continue
            found = rank.get((symbols[index], symbols[index + 1]))
            if found is not None and (best is None or found < best[0]):
                best = (found, index)
        if best is None:
            return symbols
        index = best[1]
        symbols[index : index + 2] = [symbols[index] + symbols[index + 1]]
        frozen[index : index + 2] = [False]


def as_sentencepiece_writes(symbols: list[str], processor, byte_fallback: bool) -> list[str]:
    """The pieces ``encode(out_type=str)`` gives for these symbols: an unknown one as its UTF-8
    bytes with byte fallback, else a run of unknown ones as one piece."""
    pieces: list[str] = []
    previous_unknown = False
    unknown_id = processor.unk_id()
    for symbol in symbols:
        unknown = processor.piece_to_id(symbol) == unknown_id
        if unknown and byte_fallback:
            pieces.extend(f"<0x{byte:02X}>" for byte in symbol.encode("utf-8"))
        elif unknown and previous_unknown:
            pieces[-1] += symbol
        else:
            pieces.append(symbol)
        previous_unknown = unknown
    return pieces


def check_merges_reproduce_encoding(blob: bytes, processor, texts) -> None:
    model = parse_sp_model(blob)
    merges = bpe_merges(model)
    user_defined = [piece.piece for piece in model.pieces if piece.type == USER_DEFINED]
    # SentencePieceNormalizer reads the normalizer spec alone: with whitespace as a suffix (a
    # trainer option), the dummy space goes at the end, as the processor puts it.
    suffix = model.trainer_spec.treat_whitespace_as_suffix and model.normalizer_spec.add_dummy_prefix
    normalizer = spm.SentencePieceNormalizer(model_proto=blob, add_dummy_prefix=False if suffix else None)
    for sample in texts:
        normalized = normalizer.normalize(sample)
        if suffix and normalized:
            normalized += "▁"
        symbols = ranked_bpe(normalized, merges, user_defined)
        ours = as_sentencepiece_writes(symbols, processor, model.trainer_spec.byte_fallback)
        assert ours == processor.encode(sample, out_type=str), sample


def test_merges_reproduce_sentencepiece_encoding(trained):
    _, blob, processor = trained
    check_merges_reproduce_encoding(blob, processor, [*TEXTS, *TRAINING.splitlines()])


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.text(alphabet="aeiouqngtrs éèüçñ-.", min_size=1, max_size=12), min_size=1, max_size=6)
)
def test_merges_reproduce_sentencepiece_encoding_on_any_words(trained, words):
    _, blob, processor = trained
    check_merges_reproduce_encoding(blob, processor, [" ".join(words)])


def test_merges_are_normal_pieces_made_of_symbols(trained):
    _, blob, _ = trained
    model = parse_sp_model(blob)
    types = {piece.piece: piece.type for piece in model.pieces}
    merges = bpe_merges(model)
    assert merges and len(set(merges)) == len(merges)
    for left, right, merged in merges:
        assert left + right == merged and types[merged] == NORMAL
        for part in (left, right):
            assert types.get(part) == NORMAL or (len(part) == 1 and types.get(part) != USER_DEFINED)
    # Every normal piece of two or more characters is made by some merge.
    made = {merged for _, _, merged in merges}
    assert made == {piece.piece for piece in model.pieces if piece.type == NORMAL and len(piece.piece) > 1}


def test_merge_order_on_a_hand_made_model():
    pieces = [
        Piece("<unk>", 0, UNKNOWN),
        Piece("<s>", 0, CONTROL),
        Piece("ab", 0, USER_DEFINED),
        Piece("<0x41>", 0, BYTE),
        Piece("a", -10, NORMAL),
        Piece("b", -11, NORMAL),
        Piece("c", -12, NORMAL),
        Piece("bc", -1, NORMAL),
        Piece("abc", -2, NORMAL),  # from "a"+"bc" only: "ab" is user-defined, never a part
        Piece("cc", -3, NORMAL),
        Piece("ccc", -3, NORMAL),  # ties "cc" on score: the lower id ranks first
        Piece("xy", -4, NORMAL),  # "x" and "y" are no pieces, yet characters: a merge
        Piece("<s>c", -5, NORMAL),  # "<s>" is a control piece: never a part
    ]
    model = sp_model.SentencePieceModel(tuple(pieces))
    assert bpe_merges(model) == [
        ("b", "c", "bc"),
        ("a", "bc", "abc"),
        ("c", "c", "cc"),
        ("c", "cc", "ccc"),
        ("cc", "c", "ccc"),
        ("x", "y", "xy"),
    ]


def test_equal_scores_are_where_sentencepiece_and_a_ranked_list_part():
    """Two pieces of one score: SentencePiece merges the leftmost pair, a ranked list the lower id."""
    blob = (
        piece("<unk>", 0, UNKNOWN)
        + b"".join(piece(char, -9) for char in "abc")
        + piece("bc", -1)
        + piece("ab", -1)
        + BPE_SPEC
        + message(3, text(1, "identity") + number(3, 0))
    )
    merges = bpe_merges(parse_sp_model(blob))
    assert merges == [("b", "c", "bc"), ("a", "b", "ab")]
    assert spm.SentencePieceProcessor(model_proto=blob).encode("abc", out_type=str) == ["ab", "c"]
    assert ranked_bpe("abc", merges, []) == ["a", "bc"]


# -- a protobuf writer for hand-made files ------------------------------------------------------------


BASIC = piece("<unk>", 0, UNKNOWN) + piece("a", -1) + piece("b", -2) + piece("ab", -3)
BPE_SPEC = message(2, number(3, BPE))
ALL_WIRE_TYPES = (
    number(900, 7)
    + key(901, 1)
    + b"12345678"
    + key(902, 5)
    + b"1234"
    + text(903, b"\xff\xfe")
    + key(904, 3)
    + number(1, 5)
    + key(905, 3)
    + key(905, 4)
    + key(904, 4)
)


def test_a_hand_made_model_reads_as_sentencepiece_reads_it():
    blob = BASIC + BPE_SPEC
    model = parse_sp_model(blob)
    processor = spm.SentencePieceProcessor(model_proto=blob)
    assert [p.piece for p in model.pieces] == [processor.id_to_piece(i) for i in range(4)]
    assert model.pieces[3] == Piece("ab", -3.0, NORMAL)
    assert model.trainer_spec.model_type == BPE
    assert bpe_merges(model) == [("a", "b", "ab")]
    check_merges_reproduce_encoding(blob, processor, ["ab", "ba ab", "aab bab"])


def test_unknown_fields_of_every_wire_type_are_skipped():
    plain = parse_sp_model(BASIC + BPE_SPEC)
    noisy_piece = message(1, ALL_WIRE_TYPES + text(1, "<unk>") + number(3, UNKNOWN) + ALL_WIRE_TYPES)
    noisy = noisy_piece + ALL_WIRE_TYPES + BASIC[len(piece("<unk>", 0, UNKNOWN)) :]
    noisy += message(2, ALL_WIRE_TYPES + number(3, BPE) + ALL_WIRE_TYPES) + message(3, ALL_WIRE_TYPES)
    assert parse_sp_model(noisy).pieces == plain.pieces
    assert parse_sp_model(noisy).trainer_spec == plain.trainer_spec
    spm.SentencePieceProcessor(model_proto=noisy)  # SentencePiece takes it too


def test_protobuf_rules_for_repeats_defaults_and_enums():
    blob = (
        BASIC
        + message(2, number(3, BPE) + number(4, 100))
        + message(2, number(4, 200) + number(43, -1 & 0xFFFF_FFFF_FFFF_FFFF) + text(31, "x"))
        + message(2, text(31, "y") + number(41, -5))
        + message(3, text(1, "one") + number(3, 0))
        + message(3, text(1, "two"))
        + message(5, b"")
    )
    model = parse_sp_model(blob)
    assert model.trainer_spec.model_type == BPE  # merged, not replaced
    assert model.trainer_spec.vocab_size == 200  # the last value wins
    assert model.trainer_spec.pad_id == -1 and model.trainer_spec.bos_id == -5
    assert model.trainer_spec.user_defined_symbols == ("x", "y")
    assert model.normalizer_spec.name == "two" and not model.normalizer_spec.add_dummy_prefix
    assert model.denormalizer_spec == sp_model.NormalizerSpec()
    # An enum value the schema does not list leaves the field at its default, as in proto2.
    odd = parse_sp_model(piece("<unk>", 0, UNKNOWN) + piece("a", -1, 9) + message(2, number(3, 7)))
    assert odd.pieces[1].type == NORMAL and odd.trainer_spec.model_type == UNIGRAM
    defaults = parse_sp_model(piece("<unk>", 0, UNKNOWN))
    assert (
        defaults.trainer_spec == sp_model.TrainerSpec()
        and defaults.normalizer_spec == sp_model.NormalizerSpec()
    )


# The last column: whether SentencePiece refuses the file too. Protobuf reads a known field of
# the wrong wire type as an unknown one, and does not check that a proto2 string is UTF-8: so
# SentencePiece loads those files, and BPE Studio refuses them as damaged.
@pytest.mark.parametrize(
    ("blob", "says", "sentencepiece_refuses"),
    [
        (b"", "no pieces", False),  # SentencePiece takes an empty file for no model at all
        (BPE_SPEC, "no pieces", True),
        (piece("a") + piece("b"), "no unknown piece", True),
        (piece("<unk>", 0, UNKNOWN) + piece("<u>", 0, UNKNOWN), "both unknown pieces", True),
        (BASIC + piece("a", -9), "both piece 1 and piece 4", True),
        (BASIC + piece(""), "piece 4 is empty", True),
        (BASIC + piece(b"\xc3("), "not valid UTF-8", False),
        (BASIC + piece("<0x41>", 0, BYTE), "byte_fallback is off", True),
        (BASIC + piece("<0xZZ>", 0, BYTE) + message(2, number(35, 1)), "not one of <0x00> to <0xFF>", True),
        (BASIC + piece("<0x41>", 0, BYTE) + message(2, number(35, 1)), "1 of the 256 byte pieces", True),
        (BASIC + text(2, b"\x18\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"), "over 10 bytes", True),
        (BASIC + b"\x00\x01", "numbered 0", True),
        (BASIC + b"\x0e\x01", "wire type 6", True),
        (BASIC + key(904, 3) + key(905, 4), "another group", True),
        (BASIC + key(904, 3), "inside a group", True),
        (BASIC + key(904, 4), "where none began", True),
        (BASIC + b"\x0a\x05ab", "runs past its end", True),
        (BASIC + b"\x0a", "inside a number", True),
        (BASIC + key(7, 1) + b"1234", "inside a fixed-size number", True),
        (BASIC + number(1, 5), "ModelProto.pieces is stored as a varint", False),
        (
            BASIC + message(2, number(3, 2) + text(35, "x")),
            "trainer_spec.byte_fallback is stored as a length",
            False,
        ),
        (BASIC + message(2, text(31, b"\xff")), "an entry of trainer_spec.user_defined_symbols", False),
        (
            BASIC + message(3, number(2, 5)),
            "normalizer_spec.precompiled_charsmap is stored as a varint",
            False,
        ),
        (BASIC + message(1, number(1, 3)), "piece 4.piece is stored as a varint", True),
        (BASIC + message(1, text(1, "z") + number(2, 1)), "piece 4.score is stored as a varint", False),
        (BASIC + message(1, text(1, "z") + key(3, 5) + b"1234"), "piece 4.type is stored as a 32-bit", False),
    ],
)
def test_damaged_or_unloadable_models_are_refused_in_one_sentence(blob, says, sentencepiece_refuses):
    with pytest.raises(InputError, match=says) as refused:
        parse_sp_model(blob, "bad.model")
    message_text = str(refused.value)
    assert message_text.startswith("The SentencePiece model 'bad.model' ")
    assert message_text.endswith(".") and message_text.count(". ") == 0
    if sentencepiece_refuses:
        with pytest.raises((RuntimeError, OSError)):
            spm.SentencePieceProcessor(model_proto=blob)


def top_level_boundaries(blob: bytes) -> set[int]:
    """Where each field of the outer message ends (the test's own walk of the wire format)."""
    ends = {0}
    pos = 0
    while pos < len(blob):
        number_and_wire, pos = read_varint(blob, pos)
        assert number_and_wire & 7 == 2
        size, pos = read_varint(blob, pos)
        pos += size
        ends.add(pos)
    return ends


def test_truncated_real_models_are_refused(trained):
    _, blob, _ = trained
    full = parse_sp_model(blob)
    boundaries = top_level_boundaries(blob)
    step = max(1, len(blob) // 200)
    cuts = {*range(0, min(len(blob), 700)), *range(0, len(blob), step), *(b - 1 for b in boundaries if b)}
    for cut in sorted(cuts - {len(blob)}):
        if cut in boundaries:
            # A cut between two fields leaves a shorter, well-formed message: what it holds must
            # be what the file holds, or SentencePiece's own checks refuse it.
            try:
                shorter = parse_sp_model(blob[:cut])
            except InputError:
                continue
            assert shorter.pieces == full.pieces[: len(shorter.pieces)]
        else:
            with pytest.raises(InputError, match="damaged"):
                parse_sp_model(blob[:cut])


def test_flipped_wire_types_are_refused(trained):
    _, blob, _ = trained
    # The first piece: its outer key (field 1, length-delimited), then its own fields.
    assert blob[0] == 0x0A
    _, body = read_varint(blob, 1)
    assert blob[body] == 0x0A  # its piece text
    inner_size, after_text = read_varint(blob, body + 1)
    score_at = after_text + inner_size
    assert blob[score_at] == 0x15  # its score, a 32-bit float
    for at, wire in [
        (0, 0),
        (0, 1),
        (0, 5),
        (0, 3),
        (body, 0),
        (body, 5),
        (score_at, 0),
        (score_at, 2),
        (score_at, 1),
    ]:
        damaged = bytearray(blob)
        damaged[at] = (damaged[at] & ~7) | wire
        with pytest.raises(InputError, match="damaged"):
            parse_sp_model(bytes(damaged))
    # The trainer spec and the normalizer spec, made varints.
    starts = {blob[at]: at for at in sorted(top_level_boundaries(blob)) if at < len(blob)}
    for field in (0x12, 0x1A):
        damaged = bytearray(blob)
        damaged[starts[field]] = field & ~7
        with pytest.raises(InputError, match="damaged"):
            parse_sp_model(bytes(damaged))


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_any_corruption_is_refused_in_one_sentence_or_read(data):
    blob = bytearray(
        BASIC + message(2, number(3, BPE) + number(40, 0) + text(31, "qu")) + message(3, text(1, "identity"))
    )
    for _ in range(data.draw(st.integers(1, 3))):
        blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(blob)))
    try:
        model = parse_sp_model(bytes(blob[:cut]))
    except InputError as error:
        assert str(error).endswith(".")
        return
    bpe_merges(model)


def test_files_too_large_missing_or_folders(tmp_path, monkeypatch):
    big = tmp_path / "big.model"
    with big.open("wb") as stream:
        stream.truncate(sp_model.MAX_MODEL_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(InputError, match=r"big\.model.*more than the 1,024 MB"):
        read_sp_model(big)
    with pytest.raises(InputError, match="does not exist"):
        read_sp_model(tmp_path / "missing.model")
    with pytest.raises(InputError, match="is a folder"):
        read_sp_model(tmp_path)
    monkeypatch.setattr(sp_model, "MAX_MODEL_BYTES", 10)
    with pytest.raises(InputError, match="more than the 1 GiB"):
        parse_sp_model(BASIC, "x.model")
    os.remove(big)
