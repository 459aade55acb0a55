"""Normalization with a map back to the source: exact, and linear on long runs."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.normalize import normalize, normalize_aligned
from bpe_core.pipeline.unicode_align import _prefix_starts

# Characters whose normalization changes length, composes across characters or depends on context.
TRICKY = [
    "ﬁ",
    "İ",
    "Σ",
    "A",
    "e",
    "\u0301",
    "가",
    "\u1100",
    "\u1161",
    "\u11a8",
    "ß",
    "Å",
    "Ａ",
    "½",
    " ",
    "x",
]
CONFIGS = [
    PipelineConfig(normalization="nfkc"),
    PipelineConfig(normalization="nfc", lowercase=True),
    PipelineConfig(normalization="nfkc", lowercase=True),
    PipelineConfig(lowercase=True),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=40).map("".join), st.sampled_from(CONFIGS))
def test_the_map_equals_the_exact_prefix_map(text, config):
    normalized, starts = normalize_aligned(text, config)
    assert normalized == normalize(text, config)
    if starts is None:
        assert len(normalized) == len(text)
    else:
        assert starts == _prefix_starts(text, 0, len(normalized), lambda part: normalize(part, config))


def test_a_long_run_of_ligatures_maps_every_character():
    # 100,000 ligatures in one word: quadratic before (64k took 103 s), linear now
    # (bench/normalize_encode.py).
    normalized, starts = normalize_aligned("ﬁ" * 100_000 + "é", PipelineConfig(normalization="nfkc"))
    assert normalized == "fi" * 100_000 + "é"
    assert starts[:4] == [0, 0, 1, 1] and starts[-3:] == [99_999, 99_999, 100_000]
