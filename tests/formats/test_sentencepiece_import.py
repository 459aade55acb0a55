"""SentencePiece BPE models open in BPE Studio with SentencePiece's own ids: each model trained
here by ``sentencepiece`` itself (one configuration per test case), read from its ``.model``
file, and encoded on real text and on generated Unicode exactly as
``SentencePieceProcessor.encode`` encodes it; opened as a session, saved and reopened; exported
to a ``tokenizer.json`` where Hugging Face can normalize alike. Other models and damaged files
are refused with one sentence. Nothing is downloaded.
"""

import json
import re
from dataclasses import replace

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from bpe_core import Corpus
from bpe_core.errors import ConfigError, InputError
from bpe_core.io.formats import FORMATS, detect, formats_for, read_tokenizer, write_tokenizer
from bpe_core.io.formats.sentencepiece import read_sentencepiece
from bpe_core.io.formats.sp_model import UNUSED, parse_sp_model
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import load_session, save_session
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.steps import SentencePieceNormalizer, Split, normalizer_from_dict
from tests import protobuf as pb
from tests.conftest import data_text
from tests.protobuf import read_varint, train_sentencepiece, varint

TRAIN_TEXT = "kjv_genesis_100k.txt"
TEST_TEXT = "shakespeare_200k.txt"
TEST_LINES = 600  # real lines of the test text per configuration (blank ones included)

# name -> SentencePieceTrainer options (beside model_type="bpe")
CONFIGS = {
    "nmt_nfkc, the defaults": {},
    "byte fallback": dict(byte_fallback=True),
    "identity, no dummy prefix, user-defined and control pieces": dict(
        normalization_rule_name="identity",
        add_dummy_prefix=False,
        user_defined_symbols=["<mask>", "the", "\n"],
        control_symbols=["<ctl>"],
    ),
    "nmt_nfkc_cf, user-defined pieces the map or the spaces would change, byte fallback": dict(
        normalization_rule_name="nmt_nfkc_cf",
        user_defined_symbols=["ＡＢ", "  ", " x", "Lord"],
        byte_fallback=True,
    ),
    "split digits": dict(split_digits=True, split_by_number=False),
    "no dummy prefix": dict(add_dummy_prefix=False),
    "extra whitespace kept, whitespace-only pieces": dict(
        remove_extra_whitespaces=False, allow_whitespace_only_pieces=True
    ),
    "whitespace as a suffix": dict(treat_whitespace_as_suffix=True, pad_id=3),
    "not split by whitespace or script": dict(split_by_whitespace=False, split_by_unicode_script=False),
    "identity, extra whitespace kept, byte fallback": dict(
        normalization_rule_name="identity", remove_extra_whitespaces=False, byte_fallback=True
    ),
}
# Those whose normalization a tokenizer.json can hold: no character map, no dummy space after the
# text, no user-defined piece that Hugging Face's normalizer would rewrite (the dummy prefix would).
HF_EXPORTABLE = [
    "identity, no dummy prefix, user-defined and control pieces",
    "identity, extra whitespace kept, byte fallback",
]

TEXTS = [
    "",
    " ",
    "In the beginning God created the heaven and the earth.",
    "  leading, trailing   and repeated   spaces  ",
    "tabs\tand\nnew\r\nlines\n\n",
    "Numbers 1234567 and 3.14159, dates 2026-11-26.",
    "Ünïcödé façade naïve coöperate résumé, e\u0301 composed",
    "full-width ＡＢＣ１２３ ＡＢ, ligatures ﬁ ﬂ, circled ① ②, Ⅻ, ¨ and ´ alone",
    "unseen: 中文字符 日本語 한국어 ж ξ ☃ 🤗🚀 𝄞",
    "user-defined: <mask> the<mask>the  x Lord LORD",
    "control: <s> </s> <ctl> <unk> <pad> as text",
    "▁ the escape symbol ▁▁ typed ▁",
    "\x01control\x7fcharacters\x00",
    "\u3000ideographic\u00a0spaces\u2028",
]


def train(**options) -> bytes:
    lines = [line for line in data_text(TRAIN_TEXT).splitlines() if line.strip()]
    return train_sentencepiece(lines, options.pop("vocab_size", 1200), **options)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """name -> (SentencePiece's processor, our encoder, the .model file)."""
    folder = tmp_path_factory.mktemp("sentencepiece")
    out = {}
    for number, (name, options) in enumerate(CONFIGS.items()):
        blob = train(**dict(options))
        path = folder / f"model{number}.model"
        path.write_bytes(blob)
        encoder, _notes = read_sentencepiece(path)
        out[name] = spm.SentencePieceProcessor(model_file=str(path)), encoder, path
    return out


def real_texts() -> list[str]:
    return [*TEXTS, *data_text(TEST_TEXT).splitlines()[:TEST_LINES]]


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_real_text_encodes_to_sentencepiece_ids(models, name):
    theirs, ours, _ = models[name]
    texts = real_texts()
    assert [ours.encode_ids(text) for text in texts] == theirs.encode(texts)
    assert [ours.encode(text).ids for text in texts] == theirs.encode(texts)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_spans_cover_the_text_in_order(models, name):
    _, ours, _ = models[name]
    for text in real_texts()[:60]:
        for allow_special in (False, True):
            encoding = ours.encode(text, allow_special=allow_special)
            assert encoding.ids == ours.encode_ids(text, allow_special=allow_special)
            assert all(0 <= start <= end <= len(text) for start, end in encoding.spans)
            starts = [start for start, _ in encoding.spans]
            assert starts == sorted(starts)


UNICODE = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *"abcdefghij ABC \t\n\r 0123456789 .,;!?'\"-_()<>",
                *("<mask>", "the", "  ", " x", "Lord", "ＡＢ", "<s>", "▁", "\x01", "\x00"),
                *"éüßÉİıΣσς中文日本ﬁＡ①🤗\u0301\u00a0\u2028\u3000¨ᄎㅣ",
            ]
        ),
        st.characters(exclude_categories=("Cs",)),  # any character, mostly never seen in training
    ),
    max_size=30,
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(UNICODE, min_size=1, max_size=4))
def test_generated_unicode_encodes_to_sentencepiece_ids(models, texts):
    for theirs, ours, _ in models.values():
        assert [ours.encode_ids(text) for text in texts] == theirs.encode(texts)


def test_unknown_characters_fall_back_to_bytes_or_fuse_into_one_unknown(models):
    text = "a ☃☃ж b"
    theirs, ours, _ = models["byte fallback"]
    pieces = theirs.encode(text, out_type=str)
    assert "<0xE2>" in pieces and ours.encode(text).tokens == pieces
    theirs, ours, _ = models["nmt_nfkc, the defaults"]
    ids = ours.encode_ids(text)
    assert ids.count(theirs.unk_id()) == 1 and ids == theirs.encode(text)


def test_user_defined_pieces_are_found_in_every_text_and_control_pieces_in_none(models):
    theirs, ours, _ = models["identity, no dummy prefix, user-defined and control pieces"]
    mask, control = theirs.piece_to_id("<mask>"), theirs.piece_to_id("<ctl>")
    text = "a<mask>b <ctl> <s>"
    assert mask in ours.encode_ids(text) and control not in ours.encode_ids(text)
    assert ours.encode_ids(text) == theirs.encode(text)
    # Asked to match special tokens, control pieces are found too, at their own ids (as Hugging
    # Face's converted tokenizer.json finds them); SentencePiece never finds them.
    matched = ours.encode_ids(text, allow_special=True)
    assert control in matched and theirs.bos_id() in matched and mask in matched
    # The map would make "ＡＢ" "ab": SentencePiece copies a user-defined piece past it.
    theirs, ours, _ = models[
        "nmt_nfkc_cf, user-defined pieces the map or the spaces would change, byte fallback"
    ]
    ids = ours.encode_ids("xＡＢy")
    assert theirs.piece_to_id("ＡＢ") in ids and ids == theirs.encode("xＡＢy")


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ids_vocabulary_and_pipeline_are_the_models(models, name):
    theirs, ours, _ = models[name]
    assert ours.keys == [theirs.id_to_piece(i) for i in range(theirs.get_piece_size())]
    assert ours.unknown_id == theirs.unk_id()
    controls = {i for i in range(theirs.get_piece_size()) if theirs.is_control(i)}
    assert controls | {theirs.unk_id()} <= ours.special_ids
    config = ours.config
    assert config.normalization == "custom" and isinstance(config.normalizers[0], SentencePieceNormalizer)
    assert config.always_matched == tuple(CONFIGS[name].get("user_defined_symbols", ()))
    # SentencePiece merges over the whole text; where no piece crosses a word start (a word end,
    # with whitespace as a suffix), the text is cut there.
    suffix = CONFIGS[name].get("treat_whitespace_as_suffix", False)
    user_defined = set(CONFIGS[name].get("user_defined_symbols", ()))
    normal = [
        piece
        for i, piece in enumerate(ours.keys)
        if not (theirs.is_control(i) or theirs.is_unknown(i) or theirs.is_byte(i))
        and piece not in user_defined
    ]
    crosses = any("▁" in (piece[:-1] if suffix else piece[1:]) for piece in normal)
    if crosses:
        assert config.pretokenize == "none" and not config.pre_tokenizers
    else:
        (split,) = config.pre_tokenizers
        assert isinstance(split, Split) and split.pattern == "▁"
        assert split.behavior == ("merged_with_previous" if suffix else "merged_with_next")
    if name == "not split by whitespace or script":
        assert crosses
    if name == "nmt_nfkc, the defaults":
        assert not crosses


def test_the_normalizer_is_sentencepieces(models):
    """The normalizer step alone against SentencePiece's, on texts that exercise every option."""
    texts = [*TEXTS, " ¨a", "a ¨ ", "\x01", " \x01 ", "▁", "a▁ ", "  ", "ＡＢ  ＡＢ ", " x  x", "\n \n"]
    for theirs, ours, _ in models.values():
        step = ours.config.normalizers[0]
        for text in texts:
            normalized, starts = step.aligned(text)
            assert normalized == theirs.normalize(text)
            assert starts is None or (len(starts) == len(normalized) and starts == sorted(starts))
            assert starts is None or all(0 <= start < len(text) for start in starts)
        again = normalizer_from_dict(json.loads(json.dumps(step.to_dict())))
        assert again == step


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_model_opens_as_a_session_saves_and_reopens_with_the_same_ids(models, name, tmp_path):
    theirs, ours, _ = models[name]
    trainer = trainer_from_encoder(ours)
    assert trainer.position == len(ours.merges)
    save_session(trainer, tmp_path / "session.json")
    reopened = load_session(tmp_path / "session.json").encoder()
    assert reopened.config == ours.config
    texts = real_texts()[:80]
    assert [reopened.encode_ids(text) for text in texts] == theirs.encode(texts)
    trainer.goto(len(ours.merges) // 2)
    halfway = trainer.encoder()
    assert halfway.encode_ids(TEXTS[2]) == ours.encode_ids(TEXTS[2], upto=len(ours.merges) // 2)


def test_a_corpus_attached_to_a_model_counts_its_merges(models):
    _, ours, _ = models["nmt_nfkc, the defaults"]
    corpus = Corpus.from_text(data_text(TEST_TEXT)[:30_000], ours.config)
    trainer = trainer_from_encoder(ours, corpus)
    assert trainer.position == len(ours.merges) and trainer.word_count > 100
    assert sum(trainer.record(step).count for step in range(1, 30)) > 0


@pytest.mark.parametrize("name", HF_EXPORTABLE)
def test_an_exported_tokenizer_json_encodes_as_sentencepiece_does(models, name, tmp_path):
    theirs, ours, _ = models[name]
    assert formats_for(ours)["hf"] == ""
    (path,) = write_tokenizer(ours, "hf", tmp_path / "tokenizer.json")
    exported = Tokenizer.from_file(str(path))
    texts = real_texts()[:300]
    hf = [encoding.ids for encoding in exported.encode_batch(texts, add_special_tokens=False)]
    # Hugging Face finds control pieces in text, as BPE Studio does when special tokens are matched.
    assert hf == [ours.encode_ids(text, allow_special=True) for text in texts]
    plain = [i for i, text in enumerate(texts) if not re.search("<s>|</s>|<ctl>|<unk>", text)]
    assert [hf[i] for i in plain] == theirs.encode([texts[i] for i in plain])
    again = read_tokenizer(path).encoder
    assert again.keys == ours.keys and again.merges == ours.merges


@pytest.mark.parametrize("name", sorted(set(CONFIGS) - set(HF_EXPORTABLE)))
def test_models_whose_normalization_hugging_face_cannot_reproduce_are_not_exported(models, name, tmp_path):
    _, ours, _ = models[name]
    reason = formats_for(ours)["hf"]
    assert reason.endswith(".") and reason.count(". ") == 0
    assert "longest rule" in reason
    with pytest.raises(InputError, match=re.escape(reason)):
        write_tokenizer(ours, "hf", tmp_path / "tokenizer.json")
    assert not (tmp_path / "tokenizer.json").exists()


def test_user_defined_pieces_hugging_face_would_rewrite_are_not_exported(models, tmp_path):
    """Hugging Face looks for a normalized added token as its normalizer rewrites the token's
    own text: with a dummy prefix, "<mask>" as "▁<mask>", which SentencePiece never looks for."""
    _, _, path = models["identity, no dummy prefix, user-defined and control pieces"]
    prefixed = tmp_path / "prefixed.model"
    prefixed.write_bytes(path.read_bytes() + bytes([0x1A, 2, 0x18, 1]))  # add_dummy_prefix = true
    ours, _ = read_sentencepiece(prefixed)
    theirs = spm.SentencePieceProcessor(model_file=str(prefixed))
    assert [ours.encode_ids(text) for text in TEXTS] == theirs.encode(TEXTS)
    reason = formats_for(ours)["hf"]
    assert reason.endswith(".") and reason.count(". ") == 0
    assert "'<mask>'" in reason and "'▁<mask>'" in reason


# -- reading and refusing ----------------------------------------------------------------------------


def test_the_format_is_found_from_the_content(models, tmp_path):
    _, ours, path = models["byte fallback"]
    assert (
        "sentencepiece" in FORMATS and FORMATS["sentencepiece"].description == "SentencePiece model (.model)"
    )
    assert detect(path) == "sentencepiece"
    imported = read_tokenizer(path)
    assert imported.format == "sentencepiece" and imported.encoder.keys == ours.keys
    assert any("control pieces" in note for note in imported.notes)
    renamed = tmp_path / "tokenizer.bin"
    renamed.write_bytes(path.read_bytes())
    assert detect(renamed) == "sentencepiece"
    minbpe = tmp_path / "other.model"
    minbpe.write_text("minbpe v1\n\n0\n97 98\n", encoding="utf-8")
    assert detect(minbpe) == "minbpe"
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x0a\x05\x01\x02")
    with pytest.raises(InputError, match="not a tokenizer file"):
        detect(garbage)


def one_sentence(error: InputError, path) -> str:
    message = str(error)
    assert message.startswith(f"The SentencePiece model {str(path)!r} ")
    assert message.endswith(".") and message.count(". ") == 0 and "\n" not in message
    return message


@pytest.mark.parametrize("model_type", ["unigram", "char", "word"])
def test_a_model_that_is_not_bpe_is_refused_in_one_sentence(model_type, tmp_path):
    path = tmp_path / f"{model_type}.model"
    path.write_bytes(train(model_type=model_type, vocab_size=400))
    with pytest.raises(InputError) as refused:
        read_tokenizer(path)
    assert f"is a {model_type} model, not BPE" in one_sentence(refused.value, path)


def test_damaged_files_are_refused_in_one_sentence(models, tmp_path):
    blob = models["nmt_nfkc, the defaults"][2].read_bytes()
    for number, damaged in enumerate([blob[:-3], blob[:7], b"\x0a" + bytes(range(1, 40))]):
        path = tmp_path / f"damaged{number}.model"
        path.write_bytes(damaged)
        assert detect(path) == "sentencepiece"
        with pytest.raises(InputError) as refused:
            read_tokenizer(path)
        assert "damaged" in one_sentence(refused.value, path)


def with_piece_type(blob: bytes, index: int, kind: int) -> bytes:
    """The model with piece ``index`` given the type ``kind`` (a field given again wins)."""
    out = bytearray()
    pos = seen = 0
    while pos < len(blob):
        key, body = read_varint(blob, pos)
        size, start = read_varint(blob, body)
        payload = blob[start : start + size]
        if key == 0x0A:
            if seen == index:
                payload += bytes([0x18]) + varint(kind)
            seen += 1
        out += varint(key) + varint(len(payload)) + payload
        pos = start + size
    return bytes(out)


def test_a_restricted_vocabulary_is_refused_in_one_sentence(models, tmp_path):
    theirs, _, path = models["nmt_nfkc, the defaults"]
    index = next(
        i
        for i in range(theirs.get_piece_size())
        if len(theirs.id_to_piece(i)) > 2 and not (theirs.is_control(i) or theirs.is_unknown(i))
    )
    blob = with_piece_type(path.read_bytes(), index, UNUSED)
    assert parse_sp_model(blob).pieces[index].type == UNUSED
    spm.SentencePieceProcessor(model_proto=blob)  # SentencePiece loads it
    restricted = tmp_path / "restricted.model"
    restricted.write_bytes(blob)
    with pytest.raises(InputError) as refused:
        read_tokenizer(restricted)
    assert "unused piece" in one_sentence(refused.value, restricted)


def hand_made(*pieces: tuple[str, float, int]) -> bytes:
    """A BPE model with these pieces, no character map and no dummy prefix."""
    body = b"".join(pb.piece(content, score, kind) for content, score, kind in pieces)
    trainer = pb.message(2, pb.number(3, 2))  # model_type = BPE
    normalizer = pb.message(3, pb.text(1, "identity") + pb.number(3, 0))  # add_dummy_prefix = false
    return body + trainer + normalizer


@pytest.mark.parametrize(
    ("pieces", "text", "says"),
    [
        # "abc" scores above "bc", its only way in: SentencePiece makes "bc", then "abc".
        (
            [("<unk>", 0, 2), ("a", -1, 1), ("b", -2, 1), ("c", -3, 1), ("bc", -10, 1), ("abc", -5, 1)],
            "abc",
            "which no merge of two pieces of higher score makes",
        ),
        # "xy" is made of characters that are no pieces.
        (
            [("<unk>", 0, 2), ("a", -1, 1), ("xy", -5, 1)],
            "xy",
            "made of the character 'x', which is no normal",
        ),
    ],
)
def test_a_piece_a_merge_list_cannot_hold_is_refused_in_one_sentence(pieces, text, says, tmp_path):
    blob = hand_made(*pieces)
    path = tmp_path / "hand.model"
    path.write_bytes(blob)
    assert spm.SentencePieceProcessor(model_proto=blob).encode(text, out_type=str) == [text]
    with pytest.raises(InputError) as refused:
        read_tokenizer(path)
    assert says in one_sentence(refused.value, path)


def test_merged_pieces_of_one_score_are_refused_in_one_sentence(tmp_path):
    """SentencePiece merges the leftmost of two pairs of equal score, where a merge list ranks
    one first everywhere: "abc" was "a" "bc" here (by id), "ab" "c" in SentencePiece."""
    blob = hand_made(("<unk>", 0, 2), ("a", -1, 1), ("b", -2, 1), ("c", -3, 1), ("bc", -5, 1), ("ab", -5, 1))
    assert spm.SentencePieceProcessor(model_proto=blob).encode("abc", out_type=str) == ["ab", "c"]
    path = tmp_path / "tied.model"
    path.write_bytes(blob)
    with pytest.raises(InputError) as refused:
        read_tokenizer(path)
    assert "gives the pieces 'bc' and 'ab' the same score (-5)" in one_sentence(refused.value, path)


def test_a_damaged_character_map_is_refused_in_one_sentence_naming_the_model(tmp_path):
    """The character map's own sentence named no file."""
    pieces = pb.piece("<unk>", 0, 2) + pb.piece("a", -1, 1)
    damaged = b"\xff\xff\xff\x7f" + b"\x00" * 8  # a trie size far beyond the map
    normalizer = pb.message(3, pb.text(1, "nmt_nfkc") + pb.text(2, damaged) + pb.number(3, 0))
    path = tmp_path / "damaged.model"
    path.write_bytes(pieces + pb.message(2, pb.number(3, 2)) + normalizer)
    with pytest.raises(InputError) as refused:
        read_tokenizer(path)
    said = str(refused.value)
    assert said.startswith(f"The SentencePiece model {str(path)!r}: the precompiled character map is damaged")
    assert said.endswith(".") and "\n" not in said


def test_whitespace_left_unescaped_still_encodes_as_sentencepiece_does(models, tmp_path):
    """escape_whitespaces off (no trainer sets it, a model can): spaces stay spaces, unknown to
    the vocabulary, and the text is one sequence."""
    theirs, _, path = models["byte fallback"]
    blob = path.read_bytes() + bytes([0x1A, 2, 0x28, 0])  # normalizer_spec.escape_whitespaces = false
    unescaped = tmp_path / "unescaped.model"
    unescaped.write_bytes(blob)
    ours, _ = read_sentencepiece(unescaped)
    theirs = spm.SentencePieceProcessor(model_proto=blob)
    assert ours.config.pretokenize == "custom" and not ours.config.normalizers[0].escape_whitespaces
    texts = real_texts()[:200]
    assert [ours.encode_ids(text) for text in texts] == theirs.encode(texts)


def test_a_pipeline_with_the_normalizer_saves_and_reads_back():
    normalizer = SentencePieceNormalizer("", treat_whitespace_as_suffix=True, user_defined=("<m>",))
    config = PipelineConfig(
        normalization="custom",
        normalizers=(normalizer,),
        pretokenize="none",
        end_of_word=None,
        special_tokens=("<unk>", "<m>"),
    )
    assert config.always_matched == ("<m>",) and PipelineConfig().always_matched == ()
    assert PipelineConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    with pytest.raises(ConfigError, match="user-defined pieces must be special tokens"):
        replace(config, special_tokens=("<unk>",))
    with pytest.raises(ConfigError, match="damaged"):
        normalizer_from_dict({"type": "SentencePieceNormalizer", "precompiled_charsmap": "AAAA"})


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_ids_decode_to_sentencepieces_text(models, name):
    """▁ back to spaces, the dummy prefix taken off, byte pieces back to their character, an
    unknown piece as SentencePiece's " ⁇ ", and ▁ typed at a text's start dropped as its decoder
    drops every leading space piece."""
    theirs, ours, _ = models[name]
    texts = [*TEXTS, *data_text(TEST_TEXT).splitlines()[:50], "▁▁ starts with its own ▁"]
    decoded = [ours.decode(theirs.encode(text)) for text in texts]
    expected = [theirs.decode(theirs.encode(text)) for text in texts]
    assert sum(a == b for a, b in zip(decoded, expected, strict=True)) == len(texts), [
        (a, b) for a, b in zip(decoded, expected, strict=True) if a != b
    ][:3]
