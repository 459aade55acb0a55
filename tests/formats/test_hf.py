"""Hugging Face tokenizer.json in and out: exact ids against ``tokenizers`` itself."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from bpe_core import Corpus, InputError, PipelineConfig, Trainer, TrainingConfig
from bpe_core.encoding.encoder import Encoder
from bpe_core.io.formats.hf_json import HF_GPT4_PATTERN, PY_WHITESPACE, hf_dict, hf_encoder, read_hf, write_hf
from bpe_core.pipeline.pretokenize import split
from tests.conftest import data_text

TRAIN_TEXT = "kjv_genesis_100k.txt"
TEST_TEXT = "shakespeare_200k.txt"


def lines(name: str, count: int = 1500) -> list[str]:
    return data_text(name).splitlines()[:count]


def hf_ids(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def byte_level(add_prefix_space=False, use_regex=True):
    return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=use_regex)


# Factories: each tokenizer trains a model of its own (a model object trained twice keeps the
# words it encoded before in its cache, and tests sharing this module would see them).
HF_PIPELINES = {
    "gpt2-bytes": lambda: (models.BPE(), byte_level(), None, {}),
    "bytes-prefix-nfkc-lower": lambda: (
        models.BPE(),
        byte_level(add_prefix_space=True),
        normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
        {},
    ),
    "cl100k-split-bytes": lambda: (
        models.BPE(),
        pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(HF_GPT4_PATTERN), behavior="isolated"), byte_level(use_regex=False)]
        ),
        None,
        {},
    ),
    "whitespace-suffix-unk": lambda: (
        models.BPE(end_of_word_suffix="</w>", unk_token="<unk>"),
        pre_tokenizers.Whitespace(),
        normalizers.NFC(),
        {"end_of_word_suffix": "</w>"},
    ),
    "whitespacesplit-chars": lambda: (
        models.BPE(),
        pre_tokenizers.WhitespaceSplit(),
        normalizers.Lowercase(),
        {},
    ),
}


def trained_by_hf(name: str) -> Tokenizer:
    model, pre_tokenizer, normalizer, options = HF_PIPELINES[name]()
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizer
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    if isinstance(pre_tokenizer, pre_tokenizers.ByteLevel) or "bytes" in name:
        options = {**options, "initial_alphabet": pre_tokenizers.ByteLevel.alphabet()}
    trainer = trainers.BpeTrainer(
        vocab_size=900, show_progress=False, special_tokens=["<unk>", "<|endoftext|>"], **options
    )
    tokenizer.train_from_iterator(lines(TRAIN_TEXT, 4000), trainer)
    return tokenizer


@pytest.mark.parametrize("name", sorted(HF_PIPELINES))
def test_a_tokenizer_trained_by_hf_encodes_here_as_in_hf(name, tmp_path):
    theirs = trained_by_hf(name)
    path = tmp_path / "tokenizer.json"
    theirs.save(str(path))
    ours, notes = read_hf(path)
    texts = [*lines(TEST_TEXT), "a <|endoftext|> b", "ﬁne ＡＢＣ Straße ĲssEL", "  two  spaces\tand tab "]
    texts += ["right-hand", "Zoë’s «quoted» 中文"]  # characters HF's vocabulary lacks: dropped or unknown
    assert [ours.encode_ids(t, allow_special=True) for t in texts] == hf_ids(theirs, texts)
    vocab = theirs.get_vocab()
    assert all(vocab[string] == i for i, string in enumerate(hf_dict(ours)["model"]["vocab"]))
    assert ("WhitespaceSplit" in " ".join(notes)) == (name == "whitespacesplit-chars")


@pytest.mark.parametrize("name", sorted(HF_PIPELINES))
def test_import_export_import_keeps_vocabulary_merges_and_specials(name, tmp_path):
    path = tmp_path / "tokenizer.json"
    trained_by_hf(name).save(str(path))
    first, _ = read_hf(path)
    write_hf(first, tmp_path / "again.json")
    second, _ = read_hf(tmp_path / "again.json")
    assert (second.keys, second.merges, second.special_ids, second.config, second.unknown_id) == (
        first.keys,
        first.merges,
        first.special_ids,
        first.config,
        first.unknown_id,
    )


OUR_PIPELINES = {
    "bytes-gpt2": PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
    "bytes-gpt4-specials": PipelineConfig(
        unit="byte", pretokenize="gpt4", end_of_word=None, special_tokens=("<|endoftext|>",)
    ),
    "bytes-none-prefix": PipelineConfig(unit="byte", pretokenize="none", end_of_word=None, prefix_space=True),
    "bytes-words-nfkc": PipelineConfig(
        unit="byte", pretokenize="words", end_of_word=None, normalization="nfkc"
    ),
    "chars-words-attached": PipelineConfig(pretokenize="words", attach_marker=True, lowercase=True),
    "chars-whitespace": PipelineConfig(end_of_word=None),
}


def trained_here(config: PipelineConfig, merges: int = 500) -> Encoder:
    text = data_text(TRAIN_TEXT)[: 30_000 if config.pretokenize == "none" else 100_000]
    trainer = Trainer(Corpus.from_text(text, config), TrainingConfig(tie_break="hf"))
    trainer.run(merges=merges)
    return trainer.encoder()


@pytest.mark.parametrize("name", sorted(OUR_PIPELINES))
def test_a_model_trained_here_and_exported_encodes_identically_in_hf(name, tmp_path):
    ours = trained_here(OUR_PIPELINES[name])
    path = tmp_path / "tokenizer.json"
    write_hf(ours, path)
    theirs = Tokenizer.from_file(str(path))
    texts = lines("kjv_genesis_100k.txt", 800) if ours.config.unit == "char" else lines(TEST_TEXT)
    texts += ["the <|endoftext|> end"] if ours.n_special else []
    assert hf_ids(theirs, texts) == [ours.encode_ids(t, allow_special=True) for t in texts]


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=40))
def test_byte_level_exports_encode_any_unicode_as_hf_does(exported_byte_models, text):
    for ours, theirs in exported_byte_models:  # HF always matches its added tokens
        assert ours.encode_ids(text, allow_special=True) == theirs.encode(text, add_special_tokens=False).ids


@pytest.fixture(scope="module")
def exported_byte_models():
    pairs = []
    for name in ("bytes-gpt2", "bytes-gpt4-specials"):
        ours = trained_here(OUR_PIPELINES[name], merges=200)
        pairs.append((ours, Tokenizer.from_str(json.dumps(hf_dict(ours)))))
    return pairs


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab1234567890 \n\r\t'.,!é中😀ſK"), max_size=40)
    | st.text(st.characters(exclude_categories=("Cn", "Cs")), max_size=30)
)
def test_hfs_spelling_of_cl100k_splits_as_tiktokens(text):
    # Unassigned code points are left out: Oniguruma's Unicode tables are not Python's.
    hf = pre_tokenizers.Split(Regex(HF_GPT4_PATTERN), behavior="isolated")
    assert [piece for piece, _ in hf.pre_tokenize_str(text)] == list(split(text, "gpt4"))


def test_a_separate_end_of_word_marker_is_refused_for_hf():
    with pytest.raises(InputError, match="--attach-marker"):
        hf_dict(trained_here(PipelineConfig(), merges=20))


@pytest.mark.parametrize("mode", ["gpt4", "words", "whitespace"])
def test_a_prefix_space_before_a_split_is_refused_for_hf(mode):
    config = PipelineConfig(unit="byte", pretokenize=mode, end_of_word=None, prefix_space=True)
    with pytest.raises(InputError, match="prefix space once only"):
        hf_dict(trained_here(config, merges=20))


def minimal(**changes) -> dict:
    data = {
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
    }
    for key, value in changes.items():
        if key in ("vocab", "merges", "dropout", "continuing_subword_prefix", "type", "fuse_unk"):
            data["model"][key] = value
        elif key == "model_unk":
            data["model"]["unk_token"] = value
        else:
            data[key] = value
    return data


ADDED_DEFAULTS = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"type": "WordPiece"}, "'WordPiece' model, not BPE"),
        ({"dropout": 0.1}, "dropout"),
        ({"continuing_subword_prefix": "##"}, "lacks the continuing-subword prefix '##'"),
        ({"type": "Unigram"}, "'Unigram' model, not BPE"),
        ({"type": "WordLevel"}, "'WordLevel' model, not BPE"),
        ({"pre_tokenizer": {"type": "UnicodeScripts"}}, "pre-tokenizer 'UnicodeScripts' is not modelled"),
        ({"normalizer": {"type": "BertNormalizer"}}, "normalizer 'BertNormalizer' is not modelled"),
        (
            {
                "normalizer": {
                    "type": "Sequence",
                    "normalizers": [{"type": "Lowercase"}, {"type": "Replace", "pattern": {}, "content": ""}],
                }
            },
            "neither a string nor a regex",
        ),
        ({"vocab": {"a": 0, "b": 2, "ab": 10**9}}, "too sparse"),
        (
            {"added_tokens": [{"id": 2**32, "content": "<x>", "special": True, **ADDED_DEFAULTS}]},
            "the id 4,294,967,296, beyond 32 bits",
        ),
        ({"merges": ["a c"]}, "merge 1 that is not two tokens"),
        (
            {"added_tokens": [{"id": 1, "content": "b", "special": False}]},
            "merges through its added token 'b'",
        ),
        (
            {"merges": ["ab a", "a b"], "vocab": {"a": 0, "b": 1, "ab": 2, "aba": 3}},
            "only a later merge makes",
        ),
        (
            {
                "pre_tokenizer": {
                    "type": "Sequence",
                    "pretokenizers": [{"type": "ByteLevel", "use_regex": False}, {"type": "Digits"}],
                }
            },
            "pre-tokenizer Digits after ByteLevel",
        ),
        ({"model_unk": ["x"]}, "unknown token"),
        # Types Hugging Face refuses: "false" was read as true (a prefix space), 1 as true
        ({"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": "false"}}, "not true or false"),
        ({"pre_tokenizer": {"type": "ByteLevel", "use_regex": 0}}, "not true or false"),
        (
            {
                "pre_tokenizer": {
                    "type": "Split",
                    "pattern": {"String": " "},
                    "behavior": "Removed",
                    "invert": "no",
                }
            },
            "not true or false",
        ),
        ({"fuse_unk": 1}, "not true or false"),
        (
            {"pre_tokenizer": {"type": "Split", "pattern": {"Regex": ["x"]}, "behavior": "Isolated"}},
            "neither a string nor a regex",
        ),
        # Decoders Hugging Face refuses to load: they were decoded as the pipeline decodes, and
        # written back on export into a file Hugging Face could not load
        ({"decoder": {"type": "NoSuchDecoder"}}, "type 'NoSuchDecoder', which Hugging Face"),
        ({"decoder": {"type": "Strip", "content": " ", "start": -1, "stop": 0}}, "settings"),
        ({"decoder": {"type": "WordPiece", "prefix": None}}, "settings"),
        ({"decoder": {"type": "CTC", "pad_token": 5}}, "settings"),
        (
            {"decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Nope"}]}},
            "type 'Nope'",
        ),
    ],
)
def test_what_cannot_be_modelled_is_refused_with_one_sentence_naming_it(tmp_path, changes, message):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(minimal(**changes)), encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_hf(path)
    assert str(caught.value).startswith(f"The Hugging Face tokenizer {str(path)!r} ")
    assert str(caught.value).endswith(".") and "\n" not in str(caught.value)


def test_merges_as_strings_and_as_lists_read_alike():
    strings, _ = hf_encoder(minimal())
    lists, _ = hf_encoder(minimal(merges=[["a", "b"]]))
    assert strings.merges == lists.merges and strings.encode_ids("ab ba") == [2, 1, 0]


@pytest.mark.parametrize("trim", [True, False])
@pytest.mark.parametrize("kind", ["ByteLevel", "RobertaProcessing"])
def test_a_post_processor_that_trims_offsets_is_noted(trim, kind):
    """RoBERTa's post-processor (RobertaProcessing, or a ByteLevel one) moves HF's offsets past
    a token's spaces; ours keep them, and the reading said nothing."""
    from tokenizers import processors

    made = {
        "ByteLevel": lambda: processors.ByteLevel(trim_offsets=trim),
        "RobertaProcessing": lambda: processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=trim),
    }[kind]()
    tokenizer = Tokenizer(models.BPE())
    tokenizer.post_processor = made
    processor = json.loads(tokenizer.to_str())["post_processor"]  # as HF writes it
    _, notes = hf_encoder(minimal(post_processor=processor))
    assert any("trim_offsets" in note for note in notes) == trim


def test_added_tokens_outside_the_vocabulary_are_numbered_after_it_as_hf_does():
    data = minimal(
        added_tokens=[
            {"id": 5000, "content": "<new>", "special": True, **ADDED_DEFAULTS},
            {"id": 7, "content": "<x>", "special": False, **ADDED_DEFAULTS},
        ]
    )
    ours, _ = hf_encoder(data)
    theirs = Tokenizer.from_str(json.dumps({**data, "version": "1.0"}))
    text = "ab<new>a<x>"
    assert (
        ours.encode_ids(text, allow_special=True)
        == theirs.encode(text, add_special_tokens=False).ids
        == [2, 3, 0, 4]
    )


def test_the_whitespace_split_written_for_hf_splits_as_str_split():
    hf = pre_tokenizers.Split(Regex(PY_WHITESPACE), behavior="removed")
    for text in ("a\xa0b\x85c d\u3000e\x1cf\tg", " lead  trail ", "\u2028x\u2029y"):
        assert [piece for piece, _ in hf.pre_tokenize_str(text)] == text.split()


@settings(max_examples=120, deadline=None)
@given(
    corpus=st.text("abw_< />\n", min_size=1, max_size=80),
    texts=st.lists(st.text("abw_< />x", max_size=20), min_size=1, max_size=5),
    suffix=st.sampled_from(["w", "_", "ab", "</w>", "w_"]),
    unit=st.sampled_from(["char", "byte"]),
    merges=st.integers(0, 25),
)
def test_an_export_whose_suffix_the_text_also_spells_reads_back_as_hf_encodes_it(
    corpus, texts, suffix, unit, merges
):
    """Found by an adversarial pass: with the suffix ``w`` the reader took the token ``w`` for
    a suffix alone, and dropped every ``w`` of the text."""
    config = PipelineConfig(unit=unit, end_of_word=suffix, attach_marker=True)
    try:
        trainer = Trainer(Corpus.from_text(corpus, config), TrainingConfig(tie_break="hf"))
    except InputError:
        return  # no words
    trainer.run(merges=merges)
    ours = trainer.encoder()
    try:
        data = hf_dict(ours)
    except InputError:
        return  # two tokens spell one string: Hugging Face cannot hold the model (said so)
    theirs = Tokenizer.from_str(json.dumps(data))
    read, _ = hf_encoder(json.loads(json.dumps(data)))
    expected = hf_ids(theirs, texts)
    assert [read.encode_ids(t) for t in texts] == expected
    for text, ids in zip(texts, expected, strict=True):
        session_ids = ours.encode_ids(text)
        if -1 not in session_ids:  # an unknown unit: HF, without an unknown token, drops it
            assert session_ids == ids


def test_a_merge_listed_twice_is_ranked_at_its_last_place_as_hf_ranks_it(tmp_path):
    # Hugging Face keeps its merges in a map from pair to rank: a later listing overwrites.
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(minimal(vocab=vocab, merges=["a b", "b c", "a b"])), encoding="utf-8")
    theirs = Tokenizer.from_file(str(path))
    ours, _ = read_hf(path)
    for text in ["abc", "ab", "bc", "abcab cabc", "aabbcc"]:
        assert ours.encode_ids(text) == theirs.encode(text, add_special_tokens=False).ids, text
    assert ours.encode_ids("abc") == [0, 4]  # b c outranks the a b listed again after it
    assert [(m.left, m.right) for m in ours.merges] == [(1, 2), (0, 1)]


def test_a_merge_listed_again_after_a_merge_using_its_token_is_refused_naming_its_place(tmp_path):
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(minimal(vocab=vocab, merges=["a b", "ab c", "a b"])), encoding="utf-8")
    with pytest.raises(InputError, match=r"has a merge 2 that uses a token only a later merge makes\.$"):
        read_hf(path)


def test_byte_fallback_tokens_given_to_the_trainer_as_special_tokens_still_stand_for_bytes(tmp_path):
    """Hugging Face's BpeTrainer makes no <0xNN> tokens: they are given as its special tokens,
    so the tokenizer lists them among its added tokens, and falls back to them all the same."""
    tokenizer = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    byte_tokens = [f"<0x{byte:02X}>" for byte in range(256)]
    trainer = trainers.BpeTrainer(vocab_size=300, show_progress=False, special_tokens=["<unk>", *byte_tokens])
    tokenizer.train_from_iterator(["hello world " * 50], trainer)
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    encoder, _notes = read_hf(tmp_path / "tokenizer.json")
    # Without a decoder Hugging Face joins the tokens with spaces; with one that reads bytes,
    # the byte tokens are the text's bytes.
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tokenizer.save(str(tmp_path / "decoded.json"))
    with_decoder, _notes = read_hf(tmp_path / "decoded.json")
    without = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in ["hello 東京", "hello ñ world", "😀"]:
        ids = encoder.encode_ids(text)
        assert ids == tokenizer.encode(text).ids
        assert encoder.decode(ids) == without.decode(ids, skip_special_tokens=False)
        assert with_decoder.decode(ids) == tokenizer.decode(ids, skip_special_tokens=False) == text


def test_a_model_split_at_spaces_alone_exports_to_hf_and_reads_back_so(tmp_path):
    """subword-nmt's split (at spaces and line breaks; a tab, U+3000 or U+2028 kept in a word)
    is an inverted Split for HF, read back as itself."""
    words = ["low", "lower", "lo\tw", "ne\u3000w", "es\xa0t", "a\x0bb", "c\x85d", "e\u2028f", "newest"]
    gaps = [" ", "  ", "\n", "\r\n", "\r", " \n "]
    text = "".join(words[i % len(words)] + gaps[i % len(gaps)] for i in range(3_000))
    config = PipelineConfig(pretokenize="spaces", attach_marker=True)
    trainer = Trainer(Corpus.from_text(text, config), TrainingConfig(tie_break="hf"))
    trainer.run(merges=30)
    ours = trainer.encoder()
    write_hf(ours, tmp_path / "tokenizer.json")
    theirs = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    texts = [text[:400], " lo\tw  ne\u3000w\r\nes\xa0t a\x0bb\x0bc\x85d e\u2028f ", "newest\u2028"]
    assert hf_ids(theirs, texts) == [ours.encode_ids(t) for t in texts]
    again, _notes = read_hf(tmp_path / "tokenizer.json")
    assert again.config.pretokenize == "spaces"
    assert [again.encode_ids(t) for t in texts] == [ours.encode_ids(t) for t in texts]


def test_a_tokenizer_nested_too_deeply_is_said_so_not_called_something_other_than_json(tmp_path):
    """Valid JSON nested five thousand deep was "not JSON"."""
    data = minimal()
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data)[:-1] + ', "deep": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    with pytest.raises(InputError, match=r"is nested too deeply to be a tokenizer\.$"):
        read_hf(path)
