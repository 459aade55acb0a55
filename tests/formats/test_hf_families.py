"""The tokenizer families people use, as Hugging Face writes them: each pipeline built with
``tokenizers`` itself, trained on a small text, read here, and encoded with the same ids.

The pipelines follow the published ``tokenizer.json`` files of each family (their split
patterns, normalizers and model options); the vocabularies are small ones trained here, so
nothing is downloaded.
"""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from bpe_core import Corpus, Trainer, TrainingConfig
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import InputError
from bpe_core.io.formats.hf_json import read_hf, write_hf
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import load_session, save_session
from tests.conftest import data_text
from tests.helpers import merge_strings

TRAIN_TEXT = "kjv_genesis_100k.txt"
TEST_TEXT = "shakespeare_200k.txt"

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
O200K = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
BLOOM = " ?[^(\\s|[.,!?…。，、।۔،])]+"
CLIP = r"'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"
DEEPSEEK_V3 = (
    r"\p{N}{1,3}",
    r"[一-龥぀-ゟ゠-ヿ]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
    r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
)


def split(pattern: str, behavior: str = "isolated", invert: bool = False):
    return pre_tokenizers.Split(Regex(pattern), behavior=behavior, invert=invert)


def byte_level(add_prefix_space=False, use_regex=False):
    return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=use_regex)


def sequence(*steps):
    return pre_tokenizers.Sequence(list(steps))


# name -> (pre-tokenizer, normalizer, byte-level, model options written into the file)
FAMILIES = {
    "llama2 (Prepend and Replace, byte fallback)": lambda: (
        None,
        normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
        False,
        {"byte_fallback": True, "fuse_unk": True},
    ),
    "llama2 (Metaspace first, byte fallback)": lambda: (
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False),
        None,
        False,
        {"byte_fallback": True, "fuse_unk": True},
    ),
    "mistral-like (Metaspace always, split)": lambda: (
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True),
        None,
        False,
        {"byte_fallback": True},
    ),
    "llama3 (ignore_merges)": lambda: (
        sequence(split(LLAMA3), byte_level()),
        None,
        True,
        {"ignore_merges": True},
    ),
    "qwen2 (NFC)": lambda: (sequence(split(QWEN2), byte_level()), normalizers.NFC(), True, {}),
    "gpt-4o (o200k)": lambda: (sequence(split(O200K), byte_level()), None, True, {}),
    "bloom": lambda: (sequence(split(BLOOM), byte_level()), None, True, {}),
    "starcoder (Digits)": lambda: (
        sequence(pre_tokenizers.Digits(individual_digits=True), byte_level(use_regex=True)),
        None,
        True,
        {},
    ),
    "deepseek-v3 (three splits)": lambda: (
        sequence(*(split(p) for p in DEEPSEEK_V3), byte_level()),
        None,
        True,
        {},
    ),
    "clip (inverted split, suffix)": lambda: (
        sequence(split(CLIP, "removed", invert=True), byte_level()),
        normalizers.Sequence(
            [normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()]
        ),
        True,
        {"end_of_word_suffix": "</w>"},
    ),
    "continuing-subword prefix (##), like WordPiece's": lambda: (
        pre_tokenizers.Whitespace(),
        normalizers.Lowercase(),
        False,
        {"continuing_subword_prefix": "##"},
    ),
    "continuing prefix and end-of-word suffix, byte-level": lambda: (
        sequence(split(CLIP, "removed", invert=True), byte_level()),
        None,
        True,
        {"continuing_subword_prefix": "##", "end_of_word_suffix": "</w>"},
    ),
    "continuing prefix and byte fallback": lambda: (
        pre_tokenizers.Whitespace(),
        None,
        False,
        {"continuing_subword_prefix": "@@", "byte_fallback": True},
    ),
    "punctuation and digits, NFD and accents stripped": lambda: (
        sequence(pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation(), pre_tokenizers.Digits()),
        normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Strip()]),
        False,
        {},
    ),
    "byte-level prefix space after a split": lambda: (
        sequence(pre_tokenizers.Whitespace(), byte_level(add_prefix_space=True)),
        normalizers.NFKD(),
        True,
        {},
    ),
}

TEXTS = [
    "Hello world",
    "  leading and trailing spaces  ",
    "Numbers 1234567 and 3.14159, dates 2026-11-26.",
    "Don't you WE'LL they're",
    "Ünïcödé façade naïve coöperate résumé",
    "中文字符 日本語のテキスト 한국어",
    "emoji 🤗🚀 and ﬁ ligatures ＡＢＣ",
    "tabs\tand\nnew\r\nlines\n\n",
    "a <s> b </s> c",
]


def trained(name: str, tmp_path) -> tuple[Tokenizer, str]:
    """A tokenizer of the family trained on a little text, with the family's model options,
    saved as ``tokenizer.json``: (Hugging Face's own, the file's path)."""
    pre_tokenizer, normalizer, bytes_, options = FAMILIES[name]()
    affixes = {k: options[k] for k in ("end_of_word_suffix", "continuing_subword_prefix") if k in options}
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>", **affixes))
    if pre_tokenizer is not None:
        tokenizer.pre_tokenizer = pre_tokenizer
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    extra = {"initial_alphabet": pre_tokenizers.ByteLevel.alphabet()} if bytes_ else {}
    trainer = trainers.BpeTrainer(
        vocab_size=700, show_progress=False, special_tokens=["<unk>", "<s>", "</s>"], **extra, **affixes
    )
    tokenizer.train_from_iterator(data_text(TRAIN_TEXT).splitlines()[:3000], trainer)
    data = json.loads(tokenizer.to_str())
    model = data["model"]
    for option in ("byte_fallback", "fuse_unk", "ignore_merges"):
        model[option] = options.get(option, False)
    if options.get("byte_fallback"):  # the byte tokens SentencePiece models carry
        for byte in range(256):
            model["vocab"][f"<0x{byte:02X}>"] = len(model["vocab"])
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.add_special_tokens(
        [AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")]
    )
    return tokenizer, str(path)


def hf_ids(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def with_decoder(theirs: Tokenizer, decoder, folder: Path) -> tuple[Tokenizer, Encoder]:
    """A family's tokenizer with ``decoder`` (trained without one), and ours read from it saved so."""
    path = str(folder / "with_decoder.json")
    theirs = Tokenizer.from_str(theirs.to_str())
    theirs.decoder = decoder
    theirs.save(path)
    return theirs, read_hf(path)[0]


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    out = {}
    for name in FAMILIES:
        theirs, path = trained(name, tmp_path_factory.mktemp("family"))
        ours, _notes = read_hf(path)
        out[name] = theirs, ours, path
    return out


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_encodes_real_text_as_hugging_face_does(families, name):
    theirs, ours, _ = families[name]
    texts = [*TEXTS, *data_text(TEST_TEXT).splitlines()[:400]]
    assert [ours.encode_ids(t, allow_special=True) for t in texts] == hf_ids(theirs, texts)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_spans_cover_the_text_in_order(families, name):
    _, ours, _ = families[name]
    for text in TEXTS:
        encoding = ours.encode(text, allow_special=True)
        assert encoding.ids == ours.encode_ids(text, allow_special=True)
        assert all(0 <= s <= e <= len(text) for s, e in encoding.spans)
        assert [s for s, _ in encoding.spans] == sorted(s for s, _ in encoding.spans)


UNICODE = st.text(
    st.sampled_from(
        list("abcdefghij ABC \t\n\r 0123456789 .,;!?'\"-_()")
        + list("éüßÉİıΣσς中文日本ﬁＡ①🤗\u0301\u00a0\u2028\u3000")
    ),
    max_size=40,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(UNICODE, min_size=1, max_size=4))
def test_each_family_encodes_generated_unicode_as_hugging_face_does(families, texts):
    for theirs, ours, _ in families.values():
        assert [ours.encode_ids(t, allow_special=True) for t in texts] == hf_ids(theirs, texts)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_exported_again_loads_in_hugging_face_with_the_same_ids(families, name, tmp_path):
    theirs, ours, _ = families[name]
    write_hf(ours, tmp_path / "again.json")
    again = Tokenizer.from_file(str(tmp_path / "again.json"))
    texts = TEXTS + data_text(TEST_TEXT).splitlines()[:100]
    assert hf_ids(again, texts) == hf_ids(theirs, texts)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_opened_as_a_session_saves_and_reopens_with_the_same_ids(families, name, tmp_path):
    theirs, ours, _ = families[name]
    save_session(trainer_from_encoder(ours), tmp_path / "session.json")
    reopened = load_session(tmp_path / "session.json").encoder()
    assert reopened.config == ours.config
    assert [reopened.encode_ids(t, allow_special=True) for t in TEXTS] == hf_ids(theirs, TEXTS)


@pytest.mark.parametrize(
    "name", ["mistral-like (Metaspace always, split)", "qwen2 (NFC)", "deepseek-v3 (three splits)"]
)
def test_a_corpus_attached_to_a_family_counts_its_merges_and_steps_through_them(families, name):
    _, ours, _ = families[name]
    corpus = Corpus.from_text(data_text(TEST_TEXT)[:50_000], ours.config)
    trainer = trainer_from_encoder(ours, corpus)
    assert trainer.position == len(ours.merges) and trainer.word_count > 100
    assert sum(trainer.record(step).count for step in range(1, 30)) > 0
    trainer.goto(10)
    assert trainer.encoder().encode_ids("In the beginning") == ours.encode_ids("In the beginning", upto=10)


def test_an_added_token_matched_in_normalized_text_is_matched_as_the_normalizer_spells_it(tmp_path):
    """Hugging Face normalizes such a token too: with Lowercase and Prepend, ``<M>`` is found
    as ``▁<m>`` and ``the`` as ``▁the`` (not inside ``▁other``)."""
    vocab = {c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz <>▁")}
    theirs = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    theirs.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.Prepend("▁")])
    theirs.add_tokens([AddedToken("<M>", normalized=True), AddedToken("the", normalized=True)])
    theirs.save(str(tmp_path / "tokenizer.json"))
    ours, _ = read_hf(tmp_path / "tokenizer.json")
    texts = ["<M> x <m>", "the cat", "other", "<m>", "THE"]
    assert [ours.encode_ids(t, allow_special=True) for t in texts] == hf_ids(theirs, texts)


def test_byte_level_puts_its_prefix_space_before_each_part_between_tokens_found_in_normalized_text(tmp_path):
    """``ByteLevel(add_prefix_space=True)`` puts a space before each part of the text that the
    added tokens leave, not before the text: none before a token found at the start, one before
    the word after it."""
    theirs = Tokenizer(models.BPE())
    theirs.normalizer = normalizers.Lowercase()  # so that ``qzq`` is found in normalized text
    theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet, show_progress=False)
    theirs.train_from_iterator(["hello world qzq x"] * 20, trainer)
    theirs.add_tokens([AddedToken("qzq", normalized=True), AddedToken("<r>", normalized=False)])
    theirs.save(str(tmp_path / "tokenizer.json"))
    ours, _ = read_hf(tmp_path / "tokenizer.json")
    texts = ["qzq world", "QZQ", "qzqhello", "a qzq", "<r>qzq", "hi<r>qzq b", "x qzqqzq y", "hello"]
    expected = hf_ids(theirs, texts)
    assert [ours.encode_ids(t) for t in texts] == expected
    assert [ours.encode(t, allow_special=True).ids for t in texts] == expected
    for text in texts:  # the words' spans as Hugging Face's offsets (a lone prefix space aside)
        mine, hf = ours.encode(text), theirs.encode(text)
        spans = zip(mine.tokens, mine.starts, mine.ends, strict=True)
        assert [(s, e) for t, s, e in spans if t != "Ġ"] == [
            o for t, o in zip(hf.tokens, hf.offsets, strict=True) if t != "Ġ"
        ]


def test_tokens_found_in_raw_text_are_found_before_those_found_in_normalized_text(tmp_path):
    """Hugging Face finds the added tokens not normalized first, then the normalized ones in
    what is left: so ``<a>`` wins over a longer ``<a><b>`` that starts with it, even where the
    tokenizer has no normalizer."""
    theirs = Tokenizer(models.BPE())
    theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet, show_progress=False)
    theirs.train_from_iterator(["hello world <b> x"] * 20, trainer)
    theirs.add_tokens([AddedToken("<a>", normalized=False), AddedToken("<a><b>", normalized=True)])
    theirs.add_special_tokens([AddedToken("[c]", normalized=False), AddedToken("[c][d]", normalized=True)])
    theirs.save(str(tmp_path / "tokenizer.json"))
    ours, _ = read_hf(tmp_path / "tokenizer.json")
    texts = ["x<a><b>y", "<a><b>", "<b><a><b><a>", "[c][d] [c]", "<a>[c][d]<a><b>"]
    expected = hf_ids(theirs, texts)
    assert [ours.encode_ids(t, allow_special=True) for t in texts] == expected
    assert [ours.encode(t, allow_special=True).ids for t in texts] == expected


LLAMA_DECODER = decoders.Sequence(
    [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
)


@pytest.mark.parametrize(
    "name",
    [
        "llama2 (Prepend and Replace, byte fallback)",
        "llama2 (Metaspace first, byte fallback)",
        "mistral-like (Metaspace always, split)",
    ],
)
def test_sentencepiece_style_families_decode_as_their_decoder_does(families, name, tmp_path):
    """Llama's and Mistral's decoder: ▁ back to spaces, byte-fallback tokens to their character,
    the space put before the text taken off."""
    theirs, ours = with_decoder(families[name][0], LLAMA_DECODER, tmp_path)
    for text in [*TEXTS[:-1], "emoji 🤗 and ünïcödé 中文", "  two spaces first"]:
        ids = ours.encode_ids(text)
        assert ours.decode(ids) == theirs.decode(ids)
        assert text.startswith(" ") or ours.decode(ids) == text  # a leading space is lost as in HF


def test_any_ids_decode_as_the_byte_fallback_decoder_does_broken_byte_runs_included(families, tmp_path):
    """Byte tokens cut from their character (a run that is not UTF-8) decode as Hugging Face's
    ``ByteFallback`` does: a U+FFFD for each of the run's tokens, not one for the run."""
    family = families["llama2 (Prepend and Replace, byte fallback)"][0]
    theirs, ours = with_decoder(family, LLAMA_DECODER, tmp_path)
    broken = [ours.keys.index(f"<0x{b:02X}>") for b in (0xE2, 0x82, 0xAC, 0xC3, 0xA9, 0xFF, 0x41)]
    pool = [*broken, *range(len(ours.keys))]

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.sampled_from(pool), max_size=12))
    def decodes_alike(ids):
        assert ours.decode(ids) == theirs.decode(ids, skip_special_tokens=False)

    decodes_alike()
    assert ours.decode(broken[:2]) == "\ufffd\ufffd" == theirs.decode(broken[:2])


PREFIXED = "continuing-subword prefix (##), like WordPiece's"


@pytest.mark.parametrize("steps", [0, 1, 25, 200])
def test_a_continuing_prefix_tokenizer_steps_through_its_merges_as_hugging_face_with_as_many(
    families, steps, tmp_path
):
    _, ours, path = families[PREFIXED]
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data["model"]["merges"] = data["model"]["merges"][:steps]
    (tmp_path / "part.json").write_text(json.dumps(data), encoding="utf-8")
    theirs = Tokenizer.from_file(str(tmp_path / "part.json"))
    trainer = trainer_from_encoder(ours)
    trainer.goto(steps)
    texts = TEXTS[:5]
    assert [trainer.encoder().encode_ids(t) for t in texts] == hf_ids(theirs, texts)


def test_a_continuing_prefix_is_taken_off_in_decoding_and_tokens_without_it_begin_words(families, tmp_path):
    decoder = decoders.WordPiece(prefix="##", cleanup=False)
    theirs, ours = with_decoder(families[PREFIXED][0], decoder, tmp_path)
    ids = ours.encode_ids("unbelievable understanding")
    assert any(ours.tokens[i].startswith("##") for i in ids)
    assert ours.decode(ids) == theirs.decode(ids) == "unbelievable understanding"


def test_a_corpus_is_not_counted_with_a_continuing_prefix_and_says_so(families):
    _, ours, _ = families[PREFIXED]
    corpus = Corpus.from_text("some words to count", ours.config)
    one_sentence = r"^Counting a corpus with a continuing-subword prefix is not modelled: [^.]*\.$"
    with pytest.raises(InputError, match=one_sentence):
        trainer_from_encoder(ours, corpus)


def test_a_merge_whose_right_part_lacks_the_continuing_prefix_is_refused_in_one_sentence(families, tmp_path):
    _, _, path = families[PREFIXED]
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    vocab["xy"], vocab["x"], vocab["y"] = len(vocab), len(vocab) + 1, len(vocab) + 2
    data["model"]["merges"].append(["x", "y"])  # HF would cut "y" short by the prefix's length
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=r"lacks the continuing-subword prefix '##'"):
        read_hf(tmp_path / "bad.json")


@pytest.mark.parametrize(
    "name", ["llama2 (Prepend and Replace, byte fallback)", "mistral-like (Metaspace always, split)"]
)
def test_a_corpus_attached_to_a_byte_fallback_family_counts_every_token_its_encoding_makes(families, name):
    """Characters the vocabulary lacks become byte tokens that merge with nothing: the corpus is
    cut there rather than losing its words (a SentencePiece-style word is a whole text)."""
    from collections import Counter

    _, ours, _ = families[name]
    text = data_text(TEST_TEXT)[:30_000] + " ☃ 中文 ünïcödé ☃☃"
    trainer = trainer_from_encoder(ours, Corpus.from_text(text, ours.config))
    made = Counter(ours.tokens[i] for i in ours.encode_ids(text) if i not in ours.fallback_ids)
    counted = {
        trainer.vocab.tokens[i]: trainer.token_frequency(i)
        for i in range(len(trainer.vocab))
        if trainer.token_frequency(i)
    }
    assert counted == dict(made)


def test_an_export_to_a_format_without_added_tokens_says_which_tokens_it_cannot_keep(families, tmp_path):
    """GPT-2 files, tiktoken ranks and codes hold no added tokens: exported there, a token the
    model finds in every text is made of smaller ones by their readers; said, not silent."""
    from bpe_core.io.formats import export_notes

    theirs = Tokenizer.from_file(families["qwen2 (NFC)"][2])
    theirs.add_tokens([AddedToken("ROMEO", single_word=True), "hello world"])
    theirs.save(str(tmp_path / "added.json"))
    ours, _ = read_hf(tmp_path / "added.json")
    for format in ("gpt2", "tiktoken"):
        assert any("('ROMEO', 'hello world')" in note for note in export_notes(ours, format)), format
    assert not any("ROMEO" in note for note in export_notes(ours, "hf"))


DECODED_AS_HUGGING_FACE = {
    # name: (family, the decoder written into the file, added tokens (content, normalized))
    "llama2 with added tokens, normalized and not": (
        "llama2 (Prepend and Replace, byte fallback)",
        LLAMA_DECODER,
        [("newword", True), ("Hello World", True), ("<tool>", False)],
    ),
    "lowercased, an added token normalized, WordPiece's decoder": (
        "continuing-subword prefix (##), like WordPiece's",
        decoders.WordPiece(prefix="##", cleanup=False),
        [("HELLO", True), ("WoRLD", False)],
    ),
    "a split of its own with an end-of-word suffix": (
        "split on whitespace runs, suffix",
        decoders.BPEDecoder(suffix="</w>"),
        [],
    ),
    "splits of their own with a continuing prefix": (
        "whitespace and digits, continuing prefix",
        decoders.WordPiece(prefix="##", cleanup=False),
        [],
    ),
    "byte-level, added tokens outside the byte alphabet": (
        "qwen2 (NFC)",
        decoders.ByteLevel(),
        [("naïve", False), ("<tool>", False), ("x日本", False)],
    ),
    "Metaspace in one piece, its decoder": (
        "llama2 (Metaspace first, byte fallback)",
        decoders.Metaspace(replacement="▁", prepend_scheme="first", split=False),
        [("newword", True)],
    ),
    "WordPiece's decoder cleaning up": (
        "continuing-subword prefix (##), like WordPiece's",
        decoders.WordPiece(prefix="##", cleanup=True),
        [("'s", False), (" do not", False)],
    ),
    "a sequence of every other kind": (
        "mistral-like (Metaspace always, split)",
        decoders.Sequence(
            [
                decoders.Replace(Regex("▁+"), " "),
                decoders.ByteFallback(),
                decoders.Strip(" ", 0, 1),  # (after, not before: HF fails on a token it strips whole)
                decoders.Strip(" ", 1, 0),
                decoders.CTC(pad_token="<s>", word_delimiter_token="o", cleanup=True),
                decoders.Fuse(),
            ]
        ),
        [("<tool>", False)],
    ),
}
MORE_FAMILIES = {
    "split on whitespace runs, suffix": lambda: (
        split(r"\s+", "removed"),
        None,
        False,
        {"end_of_word_suffix": "</w>"},
    ),
    "whitespace and digits, continuing prefix": lambda: (
        sequence(pre_tokenizers.Whitespace(), pre_tokenizers.Digits()),
        None,
        False,
        {"continuing_subword_prefix": "##"},
    ),
}


@pytest.mark.parametrize("name", sorted(DECODED_AS_HUGGING_FACE))
def test_any_ids_decode_as_the_files_decoder_does(name, tmp_path, monkeypatch):
    """Added tokens matched in normalized text decode as normalized (``newword`` after Llama's
    ``▁``, ``HELLO`` lowercased), a pipeline of its own with a suffix or a continuing prefix
    puts spaces between words, and a first token's ``##`` stays, as Hugging Face decodes."""
    import random

    family, decoder, added = DECODED_AS_HUGGING_FACE[name]
    for extra, build in MORE_FAMILIES.items():
        monkeypatch.setitem(FAMILIES, extra, build)
    theirs, _ = trained(family, tmp_path)
    theirs.decoder = decoder
    theirs.add_tokens([AddedToken(content, normalized=normalized) for content, normalized in added])
    theirs.save(str(tmp_path / "with_decoder.json"))
    ours, _ = read_hf(str(tmp_path / "with_decoder.json"))
    texts = ["Hello world again", "a newword b HELLO WoRLD", "say Hello World now", "x <tool> 12 ab"]
    assert [ours.encode_ids(t) for t in texts] == hf_ids(theirs, texts)
    for text in texts:
        ids = ours.encode_ids(text)
        assert ours.decode(ids) == theirs.decode(ids, skip_special_tokens=False)
    pick = random.Random(7)
    size = theirs.get_vocab_size()
    for _ in range(300):
        ids = [pick.randrange(0, size) for _ in range(pick.randrange(1, 8))]
        ids += [pick.randrange(size - len(added) - 1, size) for _ in range(pick.randrange(0, 3))]  # added
        pick.shuffle(ids)
        assert ours.decode(ids) == theirs.decode(ids, skip_special_tokens=False), ids


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_file_without_a_decoder_decodes_as_hf_joins_its_tokens_and_writes_none(name, families, tmp_path):
    """Hugging Face decodes by joining the tokens with spaces where the file has no decoder
    (``Ġhello Ġworld``): so does decoding here, from the file and from its session, and the
    file written back has no decoder either."""
    theirs, ours, _ = families[name]
    assert theirs.decoder is None
    ids = ours.encode_ids(TEXTS[0] + " naïve 中文")
    assert ours.decode(ids) == theirs.decode(ids, skip_special_tokens=False)
    assert " " in ours.decode(ids)
    trainer = trainer_from_encoder(ours)
    save_session(trainer, tmp_path / "session.json")
    reopened = load_session(tmp_path / "session.json").encoder()
    assert reopened.decode(ids) == ours.decode(ids)
    write_hf(reopened, tmp_path / "back.json")
    assert json.loads((tmp_path / "back.json").read_text(encoding="utf-8"))["decoder"] is None


def test_a_clip_like_tokenizer_decodes_with_spaces_between_its_words(families, tmp_path):
    """CLIP's file ends words with ``</w>`` and has a byte-level decoder that leaves it in the
    text; transformers' CLIP tokenizer puts spaces there, as does ours."""
    theirs, _, _ = families["clip (inverted split, suffix)"]
    theirs.decoder = decoders.ByteLevel()  # as CLIP's own file has it
    theirs.save(str(tmp_path / "clip.json"))
    ours, _ = read_hf(str(tmp_path / "clip.json"))
    ids = ours.encode_ids("A photo of a cat, and dogs!")
    assert "</w>" in theirs.decode(ids)  # transformers' CLIP tokenizer replaces it, and strips
    assert (
        ours.decode(ids) == theirs.decode(ids).replace("</w>", " ").strip() == "a photo of a cat , and dogs !"
    )


@pytest.mark.parametrize(
    "decoder",
    [
        decoders.ByteLevel(),
        decoders.ByteFallback(),
        decoders.Fuse(),
        decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True),
        decoders.Metaspace(replacement="▁", prepend_scheme="never", split=False),
        decoders.WordPiece(prefix="##", cleanup=True),
        decoders.WordPiece(prefix="@@", cleanup=False),
        decoders.BPEDecoder(suffix="</w>"),
        decoders.CTC(pad_token="<pad>", word_delimiter_token="|", cleanup=True),
        decoders.Replace(Regex(r"[▁\s]+"), "_"),
        decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        ),
    ],
    ids=lambda decoder: json.loads(decoder.__getstate__())["type"],
)
def test_each_decoder_kind_decodes_any_tokens_as_hugging_face_does(decoder):
    """Every decoder kind, given tokens of every sort (byte symbols, byte tokens, markers,
    prefixes, punctuation, characters of no byte symbol), gives Hugging Face's own text."""
    import random

    from bpe_core.encoding.hf_decoding import decoded, decoder_steps

    steps = decoder_steps(json.loads(decoder.__getstate__()))
    assert steps is not None
    parts = ["▁", "Ġ", "Ċ", "<0x41>", "<0xE2>", "<0x82>", "<0xAC>", "##", "@@", "</w>", " ", "x", "日", "ï"]
    parts += ["<pad>", "|", "'s", " .", " n't", "do not", "ab", "\t", "▁▁"]
    pick = random.Random(11)
    for _ in range(400):
        tokens = ["".join(pick.choices(parts, k=pick.randrange(1, 4))) for _ in range(pick.randrange(1, 7))]
        assert decoded(steps, tokens) == decoder.decode(tokens), tokens


@pytest.mark.parametrize(
    "normalizer",
    [
        normalizers.Strip(),
        normalizers.Replace("x", ""),  # deletes the first character
        normalizers.Replace("xa", "a"),  # what replaces a match comes from its last character
        normalizers.Replace("x", "yy"),  # ... which is the first here: the prefix stays
        normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()]),  # a leading accent
    ],
    ids=["strip", "delete", "shorten", "lengthen", "accents"],
)
def test_metaspace_first_prefixes_a_piece_only_where_it_comes_from_the_texts_first_character(
    normalizer, tmp_path
):
    lines = ["  hello world", "xab yab xhello", "\u0301ab hello", "\nworld xab", "hello world"] * 4
    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first", split=True)
    tokenizer.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=60, show_progress=False))
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    encoder, _ = read_hf(path)
    for text in [*set(lines), " ", "x", "xa", "\u0301", "ab xab"]:
        expected = tokenizer.encode(text, add_special_tokens=False).ids
        assert encoder.encode_ids(text) == expected, text
        assert encoder.encode(text).ids == expected, text
    # Training counts the words the same way.
    theirs = [
        tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m)
        for m in json.loads(path.read_text())["model"]["merges"]
    ]
    trainer = Trainer(
        Corpus.from_texts([(line, 1) for line in lines], encoder.config),
        TrainingConfig(min_frequency=1, tie_break="hf"),
    )
    trainer.run(merges=len(theirs))
    assert merge_strings(trainer) == theirs
