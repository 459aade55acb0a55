"""Tokenizer files that load mean what they say: what cannot be held exactly is refused on load
with one sentence, never a traceback later at encode, decode or save."""

import base64
import json

import pytest
from tokenizers import Tokenizer, models

from bpe_core import InputError
from bpe_core.encoding.encoder import Encoder
from bpe_core.io.formats import read_tokenizer, tokenizer_format, write_tokenizer
from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import save_session
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from tests.cli.test_contract import run


def hf_file(**changes) -> dict:
    data = {
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
    }
    for key, value in changes.items():
        if key in data:
            data[key] = value
        else:
            data["model"][key] = value
    return data


def every_use(encoder: Encoder, tmp_path) -> None:
    """What an imported tokenizer is for: encode, decode, export, open and save as a session."""
    encoder.encode("ab x abab")
    encoder.decode([i for i, key in enumerate(encoder.keys) if key])
    write_tokenizer(encoder, "hf", tmp_path / "out.json")
    save_session(trainer_from_encoder(encoder), tmp_path / "s.json")


SURROGATE_PLACES = {
    "vocabulary": hf_file(vocab={"a": 0, "b": 1, "ab": 2, "\ud800": 3}),
    "a token's end": hf_file(vocab={"a": 0, "b": 1, "ab": 2, "b\udfff": 3}),
    "added token": hf_file(added_tokens=[{"id": 3, "content": "<\ud800>", "special": True}]),
    "unknown token": hf_file(vocab={"a": 0, "b": 1, "ab": 2, "\udc00": 3}, unk_token="\udc00"),
    "end-of-word suffix": hf_file(end_of_word_suffix="\udc00"),
}


@pytest.mark.parametrize("place", sorted(SURROGATE_PLACES))
def test_a_lone_surrogate_in_a_tokenizer_json_is_refused_on_load(place, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(SURROGATE_PLACES[place]), encoding="utf-8")
    with pytest.raises(InputError, match=r"holds a lone surrogate \(U\+D800 to U\+DFFF") as caught:
        read_tokenizer(path)
    assert str(caught.value).startswith(f"The Hugging Face tokenizer {str(path)!r} ")
    with pytest.raises(Exception, match=r"surrogate|hex escape"):  # Hugging Face refuses the file too
        Tokenizer.from_file(str(path))


def test_a_surrogate_pair_spelled_in_json_is_one_character_and_loads(tmp_path):
    path = tmp_path / "tokenizer.json"
    vocab = {"a": 0, "b": 1, "ab": 2, "\U0001f600": 3}
    path.write_text(json.dumps(hf_file(vocab=vocab)), encoding="ascii")  # written "\ud83d\ude00"
    encoder = read_tokenizer(path).encoder
    assert encoder.encode_ids("ab \U0001f600") == [2, 3]
    every_use(encoder, tmp_path)


def test_a_lone_surrogate_in_gpt2s_vocabulary_is_refused_on_load(tmp_path):
    vocab = {char: i for i, char in enumerate(BYTE_TO_CHAR)} | {"<|\ud800|>": 256}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^The vocabulary file .* holds a lone surrogate"):
        read_tokenizer(tmp_path)
    with pytest.raises(Exception, match=r"surrogate|hex escape"):  # Hugging Face refuses it too
        models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))


def test_a_lone_surrogate_in_special_tokens_given_with_tiktoken_ranks_is_refused():
    ranks = {bytes([b]): b for b in range(256)}
    with pytest.raises(InputError, match="lone surrogate"):
        encoder_from_ranks(ranks, "gpt2", ["<|\ud800|>"])


def test_the_cli_says_one_sentence_for_a_lone_surrogate(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(SURROGATE_PLACES["vocabulary"]), encoding="utf-8")
    code, _, err = run("import", str(path), "-o", str(tmp_path / "s.json"))
    assert code == 1 and "lone surrogate" in err and err.count("\n") == 1
    assert not (tmp_path / "s.json").exists()


def test_a_nul_where_the_pipeline_cannot_hold_one_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(hf_file(end_of_word_suffix="\x00")), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"^The Hugging Face tokenizer .* cannot use: the end-of-word marker"
    ):
        read_tokenizer(path)
    vocab = {char: i for i, char in enumerate(BYTE_TO_CHAR)} | {"<\x00>": 256}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^The vocabulary file .* cannot use: a special token must"):
        read_tokenizer(tmp_path / "vocab.json")
    # A NUL in a token beside an end-of-word suffix: the suffix is held as that character.
    vocab = {"a": 0, "\x00": 1, "</w>": 2, "a</w>": 3}
    path.write_text(json.dumps(hf_file(vocab=vocab, merges=[], end_of_word_suffix="</w>")), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"^The Hugging Face tokenizer .* U\+0000 beside an end-of-word suffix"
    ):
        read_tokenizer(path)


BYTE_RANKS = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256))
NUMBERS = {
    "thousands of digits": "7" * 5000,
    "a superscript digit": "2²",  # str.isdigit() says yes, int() refuses it
    "an Arabic-Indic digit": "٣",  # int() reads it; no tokenizer library writes it
    "a fullwidth digit": "３",
}


@pytest.mark.parametrize("number", sorted(NUMBERS))
def test_a_tiktoken_rank_that_is_not_plain_ascii_digits_is_refused_with_one_sentence(tmp_path, number):
    path = tmp_path / "ranks.tiktoken"
    path.write_text(BYTE_RANKS + f"YWI= {NUMBERS[number]}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^Line 257 of the tiktoken file .* is not 'base64-token rank'\.$"):
        read_tokenizer(path, "tiktoken")
    code, _, err = run("encode", "--model", str(path), "--format", "tiktoken", "ab")
    assert code == 1 and "Line 257" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["ranks.tiktoken", "ranks.txt"])
@pytest.mark.parametrize("line", [1, 3, 17])
def test_a_tiktoken_file_with_one_damaged_line_early_on_is_refused_naming_that_line(tmp_path, name, line):
    lines = BYTE_RANKS.splitlines()
    lines[line - 1] = "this line is damaged"
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run("encode", "--model", str(path), "ab")
    if line == 1 and name == "ranks.txt":  # nothing says it was meant for ranks
        assert code == 1 and "not a tokenizer file" in err
    else:
        assert code == 1 and f"Line {line} of the tiktoken file" in err and err.count("\n") == 1


def test_words_and_falling_counts_with_one_odd_line_are_no_tiktoken_file(tmp_path):
    """Four lines in five look like "token rank", but counts fall where ranks rise: a text to
    open as a corpus, not a tokenizer to import."""
    path = tmp_path / "counts.txt"
    path.write_text("that 120\nwith 80\nthey 40\ndon't 30\nhave 20\n", encoding="utf-8")
    assert tokenizer_format(path) is None


def test_a_text_of_two_words_a_line_is_still_no_tiktoken_file(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("the cat\nsat on\nthe mat\nand 12\n", encoding="utf-8")
    code, _, err = run("encode", "--model", str(path), "ab")
    assert code == 1 and "tiktoken" not in err.split("(")[0]


@pytest.mark.parametrize("number", sorted(NUMBERS))
@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("minbpe v1\n\n{n}\n", "does not give its number of special tokens on line 3"),
        ("minbpe v1\n\n1\n<s> {n}\n", "Line 4 .* is not 'special-token id'"),
        ("minbpe v1\n\n0\n97 {n}\n", "Line 4 .* is not two ids of tokens made before it"),
        ("minbpe v1\n\n0\n{n} 97\n", "Line 4 .* is not two ids of tokens made before it"),
    ],
)
def test_minbpe_ids_that_are_not_plain_ascii_digits_are_refused_with_one_sentence(
    tmp_path, number, template, message
):
    path = tmp_path / "odd.model"
    path.write_text(template.format(n=NUMBERS[number]), encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_tokenizer(path)
    assert str(caught.value).count(".") >= 1 and "\n" not in str(caught.value)
    code, _, err = run("encode", "--model", str(path), "ab")
    assert code == 1 and "Unexpected" not in err and err.count("\n") == 1


LONG = "x" * 1_000_000
LONG_TOKEN_FILES = {
    "hf model type": ("tokenizer.json", hf_file(type=LONG)),
    "hf model option": ("tokenizer.json", hf_file(continuing_subword_prefix=LONG)),
    "hf unknown token": ("tokenizer.json", hf_file(unk_token=LONG)),
    "hf added token": ("tokenizer.json", hf_file(added_tokens=[{"id": 3, "content": LONG, "lstrip": "yes"}])),
    "hf normalizer": ("tokenizer.json", hf_file(normalizer={"type": LONG})),
    "hf pre-tokenizer": ("tokenizer.json", hf_file(pre_tokenizer={"type": LONG})),
    "hf split pattern": (
        "tokenizer.json",
        hf_file(pre_tokenizer={"type": "Split", "pattern": {"Regex": LONG}, "behavior": LONG}),
    ),
    "hf token no merge makes": ("tokenizer.json", hf_file(vocab={"a": 0, "b": 1, "ab": 2, LONG: 3})),
    "codes symbol": ("model.codes", f"#version: 0.2\na b\n{LONG} c</w>\n"),
    "codes version": ("model.codes", f"#version: {LONG}\na b\n"),
    "minbpe pattern": ("model.model", f"minbpe v1\n{LONG}\n0\n"),
}


@pytest.mark.parametrize("name", sorted(LONG_TOKEN_FILES))
def test_a_message_quotes_a_short_excerpt_of_a_long_token_from_the_file(tmp_path, name):
    file_name, content = LONG_TOKEN_FILES[name]
    path = tmp_path / file_name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        trainer_from_encoder(read_tokenizer(path).encoder)  # a session cannot hold some
    message = str(caught.value)
    assert len(message) < 400 and "(1,000,000 characters)" in message and "\n" not in message, message[:300]
