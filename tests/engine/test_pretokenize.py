"""Pre-tokenization and normalization: exact patterns, fast paths, safe chunking, alignment."""

import string

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import PipelineConfig
from bpe_core.pipeline import pretokenize as pt
from bpe_core.pipeline.normalize import normalize, normalize_aligned

ascii_texts = st.text(alphabet=string.printable + "\x1c\x1f'", max_size=200)
any_texts = st.text(max_size=200)


@settings(max_examples=400, deadline=None)
@given(ascii_texts)
def test_ascii_fast_path_equals_the_unicode_patterns(text):
    for mode in ("gpt2", "gpt4", "words"):
        assert pt._ASCII[mode].findall(text) == pt._UNICODE[mode].findall(text), mode


@settings(max_examples=300, deadline=None)
@given(any_texts)
def test_split_matches_the_reference_definitions(text):
    assert pt.split(text, "whitespace") == text.split()
    assert pt.split(text, "gpt2") == regex.findall(pt.GPT2_PATTERN, text)
    assert pt.split(text, "none") == ([text] if text else [])
    for mode in ("whitespace", "words", "gpt2", "gpt4"):
        assert [text[a:b] for a, b in pt.spans(text, mode)] == pt.split(text, mode)
        assert "".join(pt.split(text, mode)) == text or mode in ("whitespace", "words")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n\t.'1é", max_size=300), st.integers(1, 20))
def test_chunked_counting_equals_whole_text_counting(text, size):
    for mode in ("whitespace", "words", "gpt2", "gpt4"):
        chunked = []
        for chunk in pt.safe_chunks(text, size):
            chunked.extend(pt.split(chunk, mode))
        assert chunked == pt.split(text, mode), mode
    assert "".join(pt.safe_chunks(text, size)) == text


def test_gpt2_pattern_is_exactly_the_specified_one():
    assert (
        pt.GPT2_PATTERN == r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    )
    assert pt.split("Hello world's  \n\n 12", "gpt2") == ["Hello", " world", "'s", "  \n\n", " 12"]
    assert pt.split("a, b!", "words") == ["a", ",", "b", "!"]
    assert pt.split("I've 12345 cats", "gpt4") == ["I", "'ve", " ", "123", "45", " cats"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.sampled_from(["none", "nfc", "nfkc"]), st.booleans())
def test_alignment_maps_every_normalized_character_to_a_source_character(text, form, lower):
    config = PipelineConfig(normalization=form, lowercase=lower)
    normalized, starts = normalize_aligned(text, config)
    assert normalized == normalize(text, config)
    if starts is not None:
        assert len(starts) == len(normalized)
        assert starts == sorted(starts) and all(0 <= s < len(text) for s in starts)


def test_alignment_of_expanding_and_composing_normalization():
    _, starts = normalize_aligned("ﬁne İS", PipelineConfig(normalization="nfkc", lowercase=True))
    assert starts == [0, 0, 1, 2, 3, 4, 4, 5]
    normalized, starts = normalize_aligned("e\u0301t\u00e9", PipelineConfig(normalization="nfc"))
    assert normalized == "été" and starts == [0, 2, 3]
