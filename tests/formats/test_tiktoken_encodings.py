"""tiktoken's encodings by name: the pattern and special tokens each gives a ranks file, exact
against tiktoken itself (its own definitions of r50k_base, p50k_base, cl100k_base and o200k_base,
given GPT-2's ranks instead of downloading theirs)."""

import dataclasses

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.errors import InputError
from bpe_core.io.formats import read_tokenizer
from bpe_core.io.formats import tiktoken_encodings as encodings
from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, read_ranks
from tests.conftest import GPT2_RANKS, data_text

NAMES = ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")


@pytest.fixture(scope="module")
def ranks():
    return read_ranks(GPT2_RANKS)


@pytest.fixture(scope="module")
def pairs(ranks):
    """name -> (tiktoken's encoding as tiktoken defines it, over GPT-2's ranks; ours)."""
    real_loader = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: ranks  # no download: GPT-2's ranks
    try:
        definitions = {name: getattr(openai_public, name)() for name in NAMES}
    finally:
        openai_public.load_tiktoken_bpe = real_loader
    out = {}
    for name, definition in definitions.items():
        definition.pop("explicit_n_vocab", None)
        theirs = tiktoken.Encoding(**definition)
        out[name] = theirs, encoder_from_ranks(ranks, name)
    return out


def test_each_encoding_has_tiktokens_special_tokens_at_their_ids(pairs):
    for name, (theirs, ours) in pairs.items():
        specials = {ours.keys[i]: i for i in ours.special_ids}
        assert specials == theirs._special_tokens == encodings.ENCODINGS[name].specials


@pytest.mark.parametrize("name", NAMES)
def test_each_encoding_encodes_real_text_as_tiktoken_does(pairs, name):
    theirs, ours = pairs[name]
    texts = data_text("shakespeare_200k.txt").splitlines()[:2000]
    texts += ["I'm   here\n\n  <|endoftext|>you're", "3.14159 2026 ,,;;  \t\r\n", "ÉCOLE d'été CamelCase"]
    texts += ["<|endofprompt|> <|fim_prefix|>x<|fim_suffix|>"]
    for text in texts:
        assert ours.encode_ids(text, allow_special=True) == theirs.encode(text, allowed_special="all"), text


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        st.sampled_from([*"aZ éÉß'sdtmlvre 0123456789\n\r\t.,/!?中文ǅ", "\u0301", "\u00a0"]),
        max_size=50,
    )
)
def test_each_encoding_encodes_generated_text_as_tiktoken_does(pairs, text):
    for theirs, ours in pairs.values():
        assert ours.encode_ids(text) == theirs.encode_ordinary(text)


def test_a_ranks_file_is_recognised_by_its_content(monkeypatch):
    assert encodings.encoding_of_file(GPT2_RANKS).name == "r50k_base"
    # GPT-2's ranks are r50k_base: its <|endoftext|> at 50256, as tiktoken gives it.
    gpt2 = read_tokenizer(GPT2_RANKS)
    assert [gpt2.encoder.keys[i] for i in gpt2.encoder.special_ids] == ["<|endoftext|>"]
    assert gpt2.encoder.keys[50256] == "<|endoftext|>" and gpt2.encoder.config.pretokenize == "gpt2"
    # An encoding that splits otherwise is applied when the file is it (cl100k_base's hash, here GPT-2's).
    cl100k = dataclasses.replace(
        encodings.ENCODINGS["cl100k_base"], sha256=encodings.ENCODINGS["r50k_base"].sha256
    )
    monkeypatch.setitem(encodings.ENCODINGS, "r50k_base", cl100k)
    imported = read_tokenizer(GPT2_RANKS)
    assert imported.encoder.config.pretokenize == "gpt4"
    assert {imported.encoder.keys[i] for i in imported.encoder.special_ids} == set(cl100k.specials)
    assert "cl100k_base" in " ".join(imported.notes)
    # Given a pattern or special tokens, the file is read as told.
    assert read_tokenizer(GPT2_RANKS, pattern="gpt2").encoder.config.pretokenize == "gpt2"


def test_special_tokens_given_for_a_known_encoding_say_which_of_its_own_are_left_out():
    extended = read_tokenizer(GPT2_RANKS, specials=["<tag>"])
    assert [extended.encoder.keys[i] for i in extended.encoder.special_ids] == ["<tag>"]
    (note,) = extended.notes
    assert "r50k_base" in note and "<|endoftext|>" in note and "--encoding r50k_base" in note
    # Its own given (the README's way of naming GPT-2's): nothing is left out, nothing said.
    assert read_tokenizer(GPT2_RANKS, specials=["<|endoftext|>"]).notes == ()


def test_ranks_that_reach_an_encodings_special_ids_are_refused(ranks):
    small = {token: rank for token, rank in ranks.items() if rank < 1000}
    assert encoder_from_ranks(small, "r50k_base").keys[50256] == "<|endoftext|>"  # ids in between stay empty
    with pytest.raises(InputError, match="not r50k_base's"):
        encoder_from_ranks({**ranks, b"extra token": 50256}, "r50k_base")
