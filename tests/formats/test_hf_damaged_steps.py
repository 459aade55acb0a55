"""Damaged normalizer and pre-tokenizer steps in a ``tokenizer.json``: every field of every step
given a value of the wrong kind, or left out, is either read as Hugging Face reads it or refused
with one sentence; nothing else ever escapes."""

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.errors import InputError
from bpe_core.io.formats.hf_json import read_hf

NORMALIZERS = [
    {"type": "NFC"},
    {"type": "NFKD"},
    {"type": "Lowercase"},
    {"type": "StripAccents"},
    {"type": "Strip", "strip_left": True, "strip_right": False},
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
    {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(b"\x00" * 8).decode()},
]
PRE_TOKENIZERS = [
    {"type": "Split", "pattern": {"Regex": "\\p{L}+|\\p{N}"}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": True},
    {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
    {"type": "Digits", "individual_digits": True},
    {"type": "Punctuation", "behavior": "Contiguous"},
    {"type": "Whitespace"},
    {"type": "WhitespaceSplit"},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
]
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["Regex", "String", "x"]), st.text(max_size=4), max_size=2),
)


def tokenizer_file(tmp_path, normalizer, pre_tokenizer) -> str:
    chars = "abc▁ ĠĊ"
    vocab = {char: i for i, char in enumerate(chars)}
    vocab["ab"] = len(vocab)
    data = {
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "model": {"type": "BPE", "vocab": vocab, "merges": ["a b"], "unk_token": None},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False, allow_nan=True), encoding="utf-8")
    return str(path)


def read_or_refuse(path: str) -> None:
    try:
        encoder, _notes = read_hf(path)
    except InputError as error:
        message = str(error)
        assert message.endswith(".") and "\n" not in message and "Traceback" not in message
        return
    encoder.encode_ids("abc  ab\ncab")  # what is read, encodes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_step_with_a_field_of_the_wrong_kind_is_read_or_refused_in_one_sentence(tmp_path, data):
    kind = data.draw(st.sampled_from(["normalizer", "pre_tokenizer"]))
    steps = NORMALIZERS if kind == "normalizer" else PRE_TOKENIZERS
    step = dict(data.draw(st.sampled_from(steps)))
    field = data.draw(st.sampled_from(sorted(step)))
    if data.draw(st.booleans()):
        del step[field]
    else:
        step[field] = data.draw(WRONG)
    chain = {"type": "Sequence", "normalizers" if kind == "normalizer" else "pretokenizers": [step]}
    node = data.draw(st.sampled_from([step, chain]))
    read_or_refuse(
        tokenizer_file(
            tmp_path, node if kind == "normalizer" else None, node if kind != "normalizer" else None
        )
    )


@pytest.mark.parametrize(
    "node",
    [
        {"type": "Sequence"},
        {"type": "Sequence", "normalizers": "NFC"},
        {"type": "Sequence", "normalizers": [None]},
        {"type": "Sequence", "normalizers": [{"type": "Sequence", "normalizers": [{"type": 7}]}]},
        {"type": "Precompiled", "precompiled_charsmap": "not base64 ☃"},
        {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(b"\xff\xff\xff\x7f").decode()},
        {"type": "Replace", "pattern": {"Regex": "(unclosed"}, "content": ""},
        "NFC",
        [],
    ],
)
def test_a_damaged_normalizer_is_refused_in_one_sentence(tmp_path, node):
    with pytest.raises(InputError) as raised:
        read_hf(tokenizer_file(tmp_path, node, None))
    assert str(raised.value).endswith(".") and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "node",
    [
        {"type": "Sequence", "pretokenizers": {"type": "Whitespace"}},
        {"type": "Split", "pattern": {"Regex": "[a-"}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways", "invert": False},
        {"type": "Metaspace", "replacement": "", "prepend_scheme": "first", "split": True},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes", "split": True},
        {"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"}, {"type": "Whitespace"}]},
        {"type": "BertPreTokenizer"},
        17,
    ],
)
def test_a_damaged_pre_tokenizer_is_refused_in_one_sentence(tmp_path, node):
    with pytest.raises(InputError) as raised:
        read_hf(tokenizer_file(tmp_path, None, node))
    assert str(raised.value).endswith(".") and "\n" not in str(raised.value)
