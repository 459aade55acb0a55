"""The end-of-word marker is a symbol no text can produce: text that spells it round-trips.

Reproductions of what once went wrong first, then properties over markers drawn from the text's own alphabet.
"""

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.session import load_encoder, load_session, save_session


def trained(text: str, merges: int = 50, **pipeline) -> Trainer:
    trainer = Trainer(Corpus.from_text(text, PipelineConfig(**pipeline)), TrainingConfig(min_frequency=1))
    trainer.run(merges=merges)
    return trainer


def test_text_spelling_the_default_marker_in_byte_mode_still_encodes_any_text():
    trainer = trained("</w> </w> </w>\n", unit="byte")
    encoder = trainer.encoder()
    encoding = encoder.encode("é </w>")
    assert not any(encoding.unknown)
    assert encoder.decode(encoding.ids) == "é </w>"


def test_an_underscore_marker_keeps_snake_case_words_whole():
    trainer = trained("snake_case my_var snake_case my_var my_var", end_of_word="_")
    encoder = trainer.encoder()
    assert encoder.decode(encoder.encode("my_var snake_case").ids) == "my_var snake_case"
    assert trainer.token_string(trainer.segmentation(0)[-1]) == "snake_case_"  # marker shown as set


def test_byte_mode_with_an_attached_marker_has_no_unknown_ids():
    encoder = trained("aa bb aa bb\n", unit="byte", attach_marker=True).encoder()
    encoding = encoder.encode("abc")
    assert not any(encoding.unknown) and encoder.decode(encoding.ids) == "abc"


# Markers made of the text's own letters, so that merges spell them all the time.
ALPHABET = "ab_</w>é "
texts = st.text(alphabet=ALPHABET, min_size=1, max_size=60).filter(lambda t: t.split())
markers = st.sampled_from(["</w>", "_", "a", "ab", "w>", "é"])


@st.composite
def pipelines(draw) -> PipelineConfig:
    unit = draw(st.sampled_from(["char", "byte"]))
    return PipelineConfig(
        unit=unit,
        end_of_word=draw(markers),
        attach_marker=draw(st.booleans()),
        # byte mode with a lossless pre-tokenizer restores any text; whitespace joins words by " "
        pretokenize=draw(st.sampled_from(["gpt2", "none"] if unit == "byte" else ["whitespace"])),
    )


def expected(text: str, config: PipelineConfig) -> str:
    return text if config.keeps_whitespace else " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(texts, pipelines(), st.integers(0, 40), texts)
def test_text_that_spells_the_marker_round_trips_exactly(training_text, config, merges, other):
    trainer = trained(training_text, merges, **config.__dict__)
    encoder = trainer.encoder()
    for text in (training_text, other):
        encoding = encoder.encode(text)
        if config.unit == "byte" or not any(encoding.unknown):
            assert encoder.decode(encoding.ids) == expected(text, config)


@settings(max_examples=100, deadline=None)
@given(texts, pipelines(), st.integers(0, 40), texts)
def test_save_then_load_encodes_the_same(training_text, config, merges, other):
    trainer = trained(training_text, merges, **config.__dict__)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.json"
        save_session(trainer, path)
        loaded, from_file = load_session(path), load_encoder(path)
    assert loaded.history == trainer.history and loaded.vocab.keys == trainer.vocab.keys
    before = trainer.encoder()
    for encoder in (loaded.encoder(), from_file):
        for text in (training_text, other):
            assert encoder.encode(text).ids == before.encode(text).ids


def test_a_merge_that_spells_a_special_token_makes_a_token_of_its_own():
    # Review finding: byte units, special token "Ã©" (the display of é's two bytes); merging
    # those bytes reused the special token's id, so "é" encoded as the special token.
    trainer = Trainer(
        Corpus.from_text("éx " * 20, PipelineConfig(unit="byte", special_tokens=("Ã©",), end_of_word=None)),
        TrainingConfig(),
    )
    record = trainer.step()
    assert trainer.token_string(record.token) == "Ã©" and record.token != 0 and record.new_token
    encoder = trainer.encoder()
    assert encoder.encode("é").ids == [record.token] and encoder.decode([record.token]) == "é"
    with tempfile.TemporaryDirectory() as folder:
        save_session(trainer, Path(folder) / "s.json")
        assert load_encoder(Path(folder) / "s.json").encode("é").ids == [record.token]
