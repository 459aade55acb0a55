"""Measuring tokenizers on the same text: each count as the encoding itself gives it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.encoding.encoder import UNKNOWN_ID, Encoder, Merge
from bpe_core.io.formats import read_tokenizer
from bpe_core.tools.measure import Counts, counts_of, differing_boundaries, measure, text_size
from tests.conftest import GPT2_RANKS, data_text


def trained(config: PipelineConfig, merges: int = 200) -> Encoder:
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:30_000], config))
    trainer.run(merges=merges)
    return trainer.encoder()


def test_counts_are_what_the_encodings_and_the_text_say():
    text = data_text("shakespeare_200k.txt")[:20_000] + " Zoë’s «naïve» 中文 "
    encoders = {
        "chars": trained(PipelineConfig()),
        "bytes": trained(PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)),
        "gpt2": read_tokenizer(GPT2_RANKS).encoder,
    }
    counts = measure(encoders, {"play": text})
    for name, encoder in encoders.items():
        ids = encoder.encode_ids(text)
        assert counts[name]["play"] == Counts(
            characters=len(text),
            bytes=len(text.encode("utf-8")),
            words=len(text.split()),
            tokens=len(ids),
            unknown=ids.count(UNKNOWN_ID),
        )
    assert counts["chars"]["play"].unknown > 0 == counts["bytes"]["play"].unknown  # 中 was never seen
    assert counts["gpt2"]["play"].tokens < counts["bytes"]["play"].tokens  # 50,000 merges against 200


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.sampled_from([*"ab c\n\t é中"]), max_size=12), max_size=6))
def test_a_text_read_in_blocks_counts_as_the_whole(blocks):
    whole = "".join(blocks)
    assert text_size(blocks) == text_size([whole])
    assert text_size([whole]).words == len(whole.split())
    encoder = trained(PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None), merges=50)
    assert measure({"m": encoder}, {"t": lambda: iter(blocks)}) == measure({"m": encoder}, {"t": whole})


def test_byte_fallback_tokens_are_counted_apart_and_ratios_follow():
    keys = ["a", "b", "ab", *(f"<0x{b:02X}>" for b in range(256)), "<unk>"]
    config = PipelineConfig(pretokenize="none", end_of_word=None, byte_fallback=True)
    encoder = Encoder(config, keys, [Merge(0, 0, 1, 2, 0)], unknown_id=len(keys) - 1)
    counts = measure({"m": encoder}, {"t": "abé ab"})["m"]["t"]
    assert encoder.encode("abé ab").tokens == ["ab", "<0xC3>", "<0xA9>", "<0x20>", "ab"]
    assert (counts.tokens, counts.byte_fallback, counts.unknown) == (5, 3, 0)
    assert counts.characters_per_token == 6 / 5 and counts.bytes_per_token == 7 / 5
    assert counts.tokens_per_word == 5 / 2


def test_the_boundaries_where_segmentations_part_are_found():
    gpt2 = read_tokenizer(GPT2_RANKS).encoder
    small = trained(PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None), merges=20)
    text = "the tokenizers compare"
    spans = [encoder.encode(text).spans for encoder in (gpt2, small)]
    parted = differing_boundaries(spans)
    assert parted and all(0 < at < len(text) for at in parted)
    assert differing_boundaries([spans[0], spans[0]]) == set() == differing_boundaries(spans[:1])
    counts = counts_of(gpt2.encode(text).ids, gpt2.encode(text).unknown, gpt2, text)
    assert counts == measure({"gpt2": gpt2}, {"t": text})["gpt2"]["t"]
