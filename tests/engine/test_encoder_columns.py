"""An encoder's merges held as columns: ``encoder.merges`` behaves as the list of ``Merge`` it
replaces, an encoder made from a trainer's columns encodes as one made from that list, and it
keeps no Python object per merge (a 26,000-merge session's encoder once took 11 MB in the window)."""

import gc
import tracemalloc
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.encoding.encoder import Encoder, Merge, MergeColumns
from bpe_core.pipeline.vocab import display
from tests.conftest import data_text


@cache
def trained(merges: int = 400, marker: str | None = "</w>") -> Trainer:
    trainer = Trainer(
        Corpus.from_text(data_text("jargon_file_120k.txt"), PipelineConfig(end_of_word=marker)),
        TrainingConfig(),
    )
    trainer.run(merges=merges)
    return trainer


def merge_list() -> list[Merge]:
    return list(trained().encoder().merges)


def test_the_merges_read_as_the_list_they_replace():
    merges = merge_list()
    view = MergeColumns.of(merges)
    assert len(view) == len(merges) == 400
    assert view[0] == merges[0] and view[-1] == merges[-1] and view[-400] == merges[0]
    assert view[57] == merges[57] and view[57].rank == 57
    assert list(view) == merges and list(reversed(view)) == merges[::-1]
    assert view[10:20] == merges[10:20] and isinstance(view[10:20], list)
    assert view[::-3] == merges[::-3] and view[-5:] == merges[-5:] and view[500:] == []
    assert view == merges and merges == view and view == MergeColumns.of(merges)
    assert view != merges[:-1] and view != [*merges[:-1], replace(merges[-1], count=-1)]
    assert merges[3] in view and view.index(merges[3]) == 3 and view.count(merges[3]) == 1
    for outside in (400, -401):
        with pytest.raises(IndexError):
            view[outside]
    with pytest.raises(TypeError):
        hash(view)  # a list is not hashable either


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_index_or_slice_reads_as_the_list_does(data):
    merges = merge_list()[: data.draw(st.integers(0, 40))]
    view = MergeColumns.of(merges)
    part = data.draw(st.slices(len(merges) + 3))
    assert view[part] == merges[part]
    i = data.draw(st.integers(-len(merges) - 3, len(merges) + 3))
    if -len(merges) <= i < len(merges):
        assert view[i] == merges[i]
    else:
        with pytest.raises(IndexError):
            view[i]


def test_columns_from_numpy_and_from_lists_are_the_same_merges():
    merges = merge_list()
    columns = [[getattr(m, name) for m in merges] for name in ("left", "right", "token", "count")]
    from_numpy = MergeColumns(*(np.array(column, dtype=np.int64) for column in columns))
    assert from_numpy == MergeColumns(*columns) == merges
    assert all(type(value) is int for value in (from_numpy[0].left, from_numpy[0].count))
    with pytest.raises(ValueError, match="differ in length"):
        MergeColumns(columns[0], columns[1], columns[2], columns[3][:-1])


def test_an_encoder_keeps_given_columns_and_equals_its_list_form():
    trainer = trained()
    encoder = trainer.encoder()
    again = Encoder(encoder.config, encoder.keys, encoder.merges, sorted(encoder.special_ids))
    assert again.merges is encoder.merges  # shared, not copied
    assert encoder.merges == merge_list()
    assert list(encoder.tokens) == [display(key, "</w>") for key in encoder.keys]


@settings(max_examples=150, deadline=None)
@given(
    corpus=st.lists(st.text("abcabd", min_size=1, max_size=8), min_size=1, max_size=60).map(" ".join),
    texts=st.lists(st.text("abcabé d<s>", max_size=120), min_size=1, max_size=4),
    merges=st.integers(0, 40),
    upto=st.integers(0, 45),
    unit=st.sampled_from(["char", "byte"]),
    marker=st.sampled_from([None, "</w>", "attached"]),
    pretokenize=st.sampled_from(["none", "whitespace"]),
    ignore_merges=st.booleans(),
)
def test_an_encoder_of_columns_encodes_as_one_of_a_merge_list(
    corpus, texts, merges, upto, unit, marker, pretokenize, ignore_merges
):
    config = PipelineConfig(
        unit=unit,
        pretokenize=pretokenize,
        end_of_word=None if marker is None else "</w>",
        attach_marker=marker == "attached",
        special_tokens=("<s>",),
    )
    try:
        trainer = Trainer(Corpus.from_text(corpus, config), TrainingConfig(min_frequency=1))
    except Exception:
        return  # no words
    trainer.run(merges=merges)
    of_columns = trainer.encoder()
    config = replace(of_columns.config, ignore_merges=ignore_merges)
    specials = sorted(of_columns.special_ids)
    columns = Encoder(config, of_columns.keys, of_columns.merges, specials)
    listed = Encoder(config, of_columns.keys, list(of_columns.merges), specials)
    for text in texts:
        for allow in (False, True):
            a = columns.encode(text, upto=upto, allow_special=allow)
            b = listed.encode(text, upto=upto, allow_special=allow)
            assert a == b  # ids, tokens, spans and unknown flags
            assert columns.encode_ids(text, upto=upto, allow_special=allow) == a.ids
            assert columns.decode(a.ids) == listed.decode(b.ids)
        for piece in text.split():
            assert columns.trace(piece, upto=upto) == listed.trace(piece, upto=upto)
    # Renumbered (as an imported tokenizer's ids are): the columns follow the new ids.
    ids = list(reversed(range(len(of_columns.keys))))
    renumbered = columns.renumbered(ids, None)
    by_hand = [Merge(m.rank, ids[m.left], ids[m.right], ids[m.token], m.count) for m in of_columns.merges]
    assert renumbered.merges == by_hand
    expected = Encoder(config, renumbered.keys, by_hand, [ids[i] for i in specials], None)
    for text in texts:
        assert renumbered.encode_ids(text, upto=upto) == expected.encode_ids(text, upto=upto)


def test_a_token_encoded_again_shares_its_display_string():
    """Each display string is made once however many times a text holds its token: a long
    text's tokens would otherwise cost a string each."""
    encoder = trained().encoder()
    tokens = encoder.encode("the lowest the lowest " * 50).tokens
    assert tokens.count(tokens[0]) == 100
    assert len({id(token) for token in tokens}) == len(set(tokens))


@pytest.mark.parametrize("marker", ["</w>", None])
def test_the_encoder_of_a_history_keeps_no_object_per_merge(marker):
    trainer = trained(3000, marker)
    gc.collect()
    made_before = sum(isinstance(thing, Merge) for thing in gc.get_objects())
    tracemalloc.start()
    try:
        encoder = trainer.encoder(full_history=True)
        kept = tracemalloc.get_traced_memory()[0]
        columns = [trainer.history.column(name) for name in ("left", "right", "token", "count")]
        before = tracemalloc.get_traced_memory()[0]
        merges = MergeColumns(*columns)
        stored = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(encoder.merges) == 3000 and merges == encoder.merges
    assert sum(isinstance(thing, Merge) for thing in gc.get_objects()) == made_before
    assert stored / 3000 < 24  # 4 bytes for each of left, right and token, 8 for the count
    # The rest is the tables that make encoding fast (a string and a few dict entries a merge);
    # with a Merge object a merge the encoder took about 460 bytes a merge.
    assert kept / 3000 < 350
