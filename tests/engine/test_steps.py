"""Chains of normalizer and pre-tokenizer steps, each exact against Hugging Face ``tokenizers``,
their maps back to the source text, and their JSON as Hugging Face writes it."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers

from bpe_core.errors import ConfigError
from bpe_core.pipeline.byte_alphabet import bytes_to_display
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.specials import SpecialFinder, SpecialMatch
from bpe_core.pipeline.steps import (
    ByteLevel,
    Digits,
    Lowercase,
    Metaspace,
    Prepend,
    Punctuation,
    Replace,
    Split,
    Strip,
    StripAccents,
    UnicodeForm,
    Whitespace,
    WhitespaceSplit,
    normalize_with,
    normalize_with_aligned,
    normalizer_from_dict,
    piece_strings,
    pre_tokenizer_from_dict,
)

TEXT = st.text(
    st.sampled_from(
        [*"aAbB zZ0129 .,;'!?-_()\t\n\réÉİıßΣﬁＡ①中🤗ǅⅫ½", *"\u00a0\u2028\u3000\u0085\u001c\u0301\u0327"]
    ),
    max_size=30,
)

# (ours, Hugging Face's)
NORMALIZERS = {
    "nfd": (UnicodeForm("NFD"), normalizers.NFD()),
    "nfkd": (UnicodeForm("NFKD"), normalizers.NFKD()),
    "nfc": (UnicodeForm("NFC"), normalizers.NFC()),
    "nfkc": (UnicodeForm("NFKC"), normalizers.NFKC()),
    "lowercase": (Lowercase(), normalizers.Lowercase()),
    "strip accents": (StripAccents(), normalizers.StripAccents()),
    "strip": (Strip(), normalizers.Strip()),
    "strip right": (Strip(left=False), normalizers.Strip(left=False, right=True)),
    "prepend": (Prepend("▁"), normalizers.Prepend("▁")),
    "replace string": (Replace(" ", "▁"), normalizers.Replace(" ", "▁")),
    "replace regex": (Replace(r"\s+", " ", is_regex=True), normalizers.Replace(Regex(r"\s+"), " ")),
    "replace regex deletes": (Replace(r"\p{M}", "", is_regex=True), normalizers.Replace(Regex(r"\p{M}"), "")),
}


@settings(max_examples=200, deadline=None)
@given(TEXT, st.lists(st.sampled_from(sorted(NORMALIZERS)), min_size=1, max_size=4))
def test_a_chain_of_normalizers_normalizes_as_hugging_face_and_maps_back(text, names):
    ours = [NORMALIZERS[name][0] for name in names]
    theirs = normalizers.Sequence([NORMALIZERS[name][1] for name in names])
    normalized, starts = normalize_with_aligned(text, ours)
    assert normalized == normalize_with(text, ours) == theirs.normalize_str(text)
    if starts is not None:
        assert len(starts) == len(normalized)
        assert all(0 <= s < max(1, len(text)) for s in starts)


PRE_TOKENIZERS = {
    "metaspace": (Metaspace(), pre_tokenizers.Metaspace()),
    "metaspace first": (Metaspace(prepend_scheme="first"), pre_tokenizers.Metaspace(prepend_scheme="first")),
    "metaspace never, whole": (
        Metaspace(prepend_scheme="never", split=False),
        pre_tokenizers.Metaspace(prepend_scheme="never", split=False),
    ),
    "digits": (Digits(), pre_tokenizers.Digits()),
    "digits alone": (Digits(individual=True), pre_tokenizers.Digits(individual_digits=True)),
    "punctuation": (Punctuation(), pre_tokenizers.Punctuation()),
    "punctuation with next": (
        Punctuation("merged_with_next"),
        pre_tokenizers.Punctuation(behavior="merged_with_next"),
    ),
    "whitespace": (Whitespace(), pre_tokenizers.Whitespace()),
    "whitespace split": (WhitespaceSplit(), pre_tokenizers.WhitespaceSplit()),
    "split letters": (Split(r"\p{L}+", True, "isolated"), pre_tokenizers.Split(Regex(r"\p{L}+"), "isolated")),
    "split space, previous": (
        Split(" ", False, "merged_with_previous"),
        pre_tokenizers.Split(" ", "merged_with_previous"),
    ),
    "split inverted, removed": (
        Split(r"\w+", True, "removed", invert=True),
        pre_tokenizers.Split(Regex(r"\w+"), "removed", invert=True),
    ),
    "split contiguous": (Split(r"\d", True, "contiguous"), pre_tokenizers.Split(Regex(r"\d"), "contiguous")),
}
BYTE_LEVEL = {
    "byte level": (ByteLevel(), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "byte level, prefix": (ByteLevel(add_prefix_space=True), pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "byte level, no split": (
        ByteLevel(use_regex=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ),
    "byte level, prefix, no split": (
        ByteLevel(add_prefix_space=True, use_regex=False),
        pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=False),
    ),
}


@settings(max_examples=300, deadline=None)
@given(
    TEXT,
    st.lists(st.sampled_from(sorted(PRE_TOKENIZERS)), min_size=1, max_size=3),
    st.sampled_from([None, *sorted(BYTE_LEVEL)]),
)
def test_a_chain_of_pre_tokenizers_cuts_as_hugging_face(text, names, last):
    steps = [PRE_TOKENIZERS[name] for name in names] + ([BYTE_LEVEL[last]] if last else [])
    ours = piece_strings(text, [ours for ours, _ in steps])
    theirs = [piece for piece, _ in pre_tokenizers.Sequence([t for _, t in steps]).pre_tokenize_str(text)]
    if last:  # Hugging Face shows the pieces in the byte alphabet
        ours = [bytes_to_display(piece.encode("utf-8")) for piece in ours]
    assert ours == theirs


@pytest.mark.parametrize("step", [*(o for o, _ in NORMALIZERS.values())])
def test_each_normalizer_reads_back_from_its_json(step):
    assert normalizer_from_dict(step.to_dict()) == step


@pytest.mark.parametrize(
    "step", [*(o for o, _ in PRE_TOKENIZERS.values()), *(o for o, _ in BYTE_LEVEL.values())]
)
def test_each_pre_tokenizer_reads_back_from_its_json(step):
    assert pre_tokenizer_from_dict(step.to_dict()) == step


def test_a_pipeline_of_steps_round_trips_through_its_dict():
    config = PipelineConfig(
        normalization="custom",
        normalizers=(Prepend("▁"), Replace(" ", "▁")),
        pretokenize="custom",
        pre_tokenizers=(Split(r"\d+", True, "isolated"), ByteLevel(use_regex=False)),
        unit="byte",
        end_of_word=None,
        ignore_merges=True,
        special_tokens=("<s>",),
        special_matching=(SpecialMatch("<s>", lstrip=True),),
    )
    assert PipelineConfig.from_dict(config.to_dict()) == config
    plain = PipelineConfig().to_dict()
    assert not {"normalizers", "pre_tokenizers", "byte_fallback", "special_matching"} & set(plain)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"normalization": "custom"}, "needs them"),
        ({"normalizers": (Lowercase(),)}, "go with the normalization 'custom'"),
        ({"pretokenize": "custom", "pre_tokenizers": (ByteLevel(),)}, "comes last, with the unit 'byte'"),
        (
            {"pretokenize": "custom", "pre_tokenizers": (ByteLevel(), Digits()), "unit": "byte"},
            "comes last",
        ),
        ({"byte_fallback": True, "unit": "byte"}, "character units"),
        ({"special_matching": (SpecialMatch("<x>"),)}, "not a special token"),
    ],
)
def test_steps_that_do_not_fit_the_pipeline_are_refused_in_one_sentence(changes, message):
    with pytest.raises(ConfigError, match=message):
        PipelineConfig(**{"end_of_word": None, **changes})


def test_an_unknown_step_is_refused_naming_it():
    with pytest.raises(ConfigError, match=r"normalizer 'Bert.*' is not modelled"):
        normalizer_from_dict({"type": "BertNormalizer"})
    with pytest.raises(ConfigError, match="pre-tokenizer 'UnicodeScripts' is not modelled"):
        pre_tokenizer_from_dict({"type": "UnicodeScripts"})
    with pytest.raises(ConfigError, match="prepend scheme 'sometimes'"):
        pre_tokenizer_from_dict({"type": "Metaspace", "prepend_scheme": "sometimes"})


# -- special tokens with Hugging Face's added-token options -----------------------------------

ADDED = [
    SpecialMatch("XY", lstrip=True),
    SpecialMatch("ZW", rstrip=True),
    SpecialMatch("abc", single_word=True),
    SpecialMatch("<m>", lstrip=True, rstrip=True),
    SpecialMatch("ab"),
]


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from([*"abcXYZW<m> _-1é\t\n", "\u00a0", "\u0301"]), max_size=25))
def test_special_tokens_are_found_as_hugging_face_finds_added_tokens(text):
    vocab = {c: i for i, c in enumerate(sorted(set("abcXYZW<m> _-1é\t\n\u00a0\u0301")))}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tokenizer.add_tokens(
        [
            AddedToken(
                m.content, lstrip=m.lstrip, rstrip=m.rstrip, single_word=m.single_word, normalized=False
            )
            for m in ADDED
        ]
    )
    encoding = tokenizer.encode(text, add_special_tokens=False)
    added = {m.content for m in ADDED}
    theirs = [
        (s, e, t) for t, (s, e) in zip(encoding.tokens, encoding.offsets, strict=True) if t.strip() in added
    ]
    ours = SpecialFinder([m.content for m in ADDED], ADDED).find(text)
    assert [(s, e) for s, e, _ in ours] == [(s, e) for s, e, _ in theirs]


def test_a_precompiled_step_normalizes_as_hugging_faces_within_a_chain():
    """SentencePiece's nmt_nfkc map as Hugging Face's Llama-era files carry it (base64), read as
    a step from its JSON and chained with a Replace, against HF's own chain."""
    import base64

    from tests.engine.test_charsmap import shipped_map

    blob = shipped_map("nmt_nfkc").blob
    node = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode("ascii")}
    ours = [normalizer_from_dict(node), Replace(" ", "▁")]
    theirs = normalizers.Sequence([normalizers.Precompiled(blob), normalizers.Replace(" ", "▁")])
    for text in ["ﬁne ＡＢＣ ①②", "tab\there\r\nline", "Ａ\u0301 é\u0301", "plain ascii text"]:
        normalized, starts = normalize_with_aligned(text, ours)
        assert normalized == theirs.normalize_str(text)
        assert starts is None or (len(starts) == len(normalized) and starts == sorted(starts))
    assert normalizer_from_dict(ours[0].to_dict()) == ours[0]
