"""Added tokens a ``tokenizer.json`` does not mark special are ordinary vocabulary to Hugging
Face: found in every text, with their lstrip, rstrip, single_word and normalized options. The
encoder finds them whether or not special tokens are matched; special tokens stay found only
when asked for. Checked against ``tokenizers`` on tokenizers built and trained here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, trainers

from bpe_core.io.formats.hf_json import read_hf
from bpe_core.pipeline.specials import SpecialMatch
from tests.cli.test_contract import run
from tests.conftest import data_text

SPECIAL = ["<s>", "</s>"]
NON_SPECIAL = {
    "byte-level": [
        AddedToken("swiftie", special=False),
        AddedToken("<sep>", lstrip=True, special=False),
        AddedToken("<end>", rstrip=True, special=False),
        AddedToken("wordz", single_word=True, special=False),
        AddedToken("Lrdq", normalized=True, special=False),
    ],
    "lowercased, split at whitespace": [
        AddedToken("Zyx", normalized=True, special=False),
        AddedToken("<M>", normalized=True, lstrip=True, special=False),
        AddedToken("God", normalized=False, single_word=True, rstrip=True, special=False),
        AddedToken("nd ", normalized=False, special=False),
    ],
}
FRAGMENTS = ["swiftie", "<sep>", "<end>", "wordz", "wordzs", "Lrdq", "LRDQ", "Zyx", "zyx", "ZYXs"]
FRAGMENTS += ["<M>", "<m>", "God", "God's", "and ", " ", "  ", "\n", "a", "x", "é", "<s>", "</s>"]


def build(name: str, folder: Path) -> tuple[Tokenizer, Path]:
    if name == "byte-level":
        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        extra = {"initial_alphabet": pre_tokenizers.ByteLevel.alphabet()}
    else:
        tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
        tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        extra = {"special_tokens": ["<unk>"]}
    trainer = trainers.BpeTrainer(vocab_size=600, show_progress=False, **extra)
    tokenizer.train_from_iterator(data_text("kjv_genesis_100k.txt").splitlines()[:2000], trainer)
    tokenizer.add_tokens(NON_SPECIAL[name])
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL])
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return tokenizer, path


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    """name -> (Hugging Face's tokenizer, our encoder, the file)."""
    out = {}
    for name in NON_SPECIAL:
        theirs, path = build(name, tmp_path_factory.mktemp("added"))
        out[name] = theirs, read_hf(path)[0], path
    return out


def hf_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False).ids


def texts() -> list[str]:
    lines = data_text("shakespeare_200k.txt").splitlines()[:150]
    made = [
        "a swiftie fan",
        "x <sep> y  <sep>z",
        "x <end>   y<end>",
        "wordz wordzs swordz wordz.",
        "Zyx Lrdq and LRDQ, azyx ZYX",
        "<M> x  <m>",
        "God God's  God\tGod",
        "and  band nd ",
    ]
    return [
        *made,
        *lines,
        *(f"{line} {token.content} {line[:9]}" for token in NON_SPECIAL["byte-level"] for line in lines[:20]),
    ]


@pytest.mark.parametrize("name", sorted(NON_SPECIAL))
def test_non_special_added_tokens_are_found_without_allow_special_as_hugging_face_finds_them(
    tokenizers, name
):
    theirs, ours, _ = tokenizers[name]
    for text in texts():
        expected = hf_ids(theirs, text)
        assert ours.encode_ids(text) == expected, text
        assert ours.encode(text).ids == expected, text
        assert ours.encode_ids(text, allow_special=True) == expected, text


@pytest.mark.parametrize("name", sorted(NON_SPECIAL))
@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=10))
def test_any_mix_of_added_tokens_and_text_encodes_as_hugging_face_does(tokenizers, name, pieces):
    theirs, ours, _ = tokenizers[name]
    text = "".join(pieces)
    expected = hf_ids(theirs, text)
    assert ours.encode_ids(text, allow_special=True) == expected
    if not any(token in text for token in SPECIAL):
        assert ours.encode_ids(text) == expected
        assert ours.encode(text).ids == expected


@pytest.mark.parametrize("name", sorted(NON_SPECIAL))
def test_special_tokens_are_still_found_only_when_asked_for(tokenizers, name):
    theirs, ours, _ = tokenizers[name]
    text = "x <s> swiftie the </s> y"
    special_ids = {theirs.token_to_id(token) for token in SPECIAL}
    assert not special_ids & set(ours.encode_ids(text))
    assert special_ids <= set(ours.encode_ids(text, allow_special=True))
    assert ours.encode_ids(text, allow_special=True) == hf_ids(theirs, text)


@pytest.mark.parametrize("name", sorted(NON_SPECIAL))
def test_the_command_line_finds_non_special_added_tokens_by_default(tokenizers, name):
    theirs, _, path = tokenizers[name]
    text = "a swiftie fan: wordz, zyx <sep> God <M> x"
    code, out, err = run("encode", "--model", str(path), "--json", "--", text)
    assert code == 0, err
    assert json.loads(out)["ids"] == hf_ids(theirs, text)


def test_the_mark_survives_a_pipeline_written_and_read_back(tokenizers):
    """A session keeps it; a pipeline written before the mark existed reads as special."""
    _, ours, _ = tokenizers["byte-level"]
    data = ours.config.to_dict()
    plain = {match["content"] for match in data["special_matching"] if match.get("special") is False}
    assert plain == {token.content for token in NON_SPECIAL["byte-level"]}
    assert type(ours.config).from_dict(data) == ours.config
    assert SpecialMatch.from_dict({"content": "<x>"}).special
    assert SpecialMatch.from_dict(SpecialMatch("<x>", special=False).to_dict()) == SpecialMatch(
        "<x>", special=False
    )
