"""The pair index's first count, taken a slice at a time so that a window loading millions of
words in the background keeps turning: slices of any size give what one call over all would."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.training import initial_count, initial_symbols
from bpe_core.training.initial_count import cast, running_total
from tests.conftest import data_text


@given(st.lists(st.booleans(), max_size=60), st.integers(1, 7))
def test_a_running_total_and_a_cast_in_slices_equal_numpys_in_one_call(flags, size):
    values = np.array(flags, dtype=bool)
    saved = initial_count.SLICE
    initial_count.SLICE = size
    try:
        assert running_total(values).tolist() == np.cumsum(values, dtype=np.int32).tolist()
        wide = np.arange(len(flags), dtype=np.uint32) * 7
        assert cast(wide, np.int64).dtype == np.int64 and cast(wide, np.int64).tolist() == wide.tolist()
    finally:
        initial_count.SLICE = saved


@pytest.mark.parametrize("config", [PipelineConfig(), PipelineConfig(unit="byte", end_of_word=None)])
def test_an_index_counted_in_small_slices_trains_as_one_counted_whole(monkeypatch, config):
    corpus = Corpus.from_text(data_text("shakespeare_200k.txt")[:20_000], config)
    whole = Trainer(corpus)
    whole.run(merges=60)
    monkeypatch.setattr(initial_count, "SLICE", 5)
    monkeypatch.setattr(initial_symbols, "TRANSLATED_CHARS", 3)
    sliced = Trainer(corpus)
    sliced.run(merges=60)
    assert sliced.history == whole.history and sliced.ranked_pairs() == whole.ranked_pairs()
