"""A ``tokenizer.json`` export decodes and adds tokens as Hugging Face would with the original:
an imported file's decoder and post-processor are written back (the post-processor only while
its tokens are still the vocabulary's), a SentencePiece model gets the decoder Hugging Face's own
conversion writes, and a model trained here with a Metaspace or byte-level pipeline gets its
decoder. Each tokenizer is built here by ``tokenizers`` or ``sentencepiece`` itself; nothing is
downloaded.
"""

import json

import pytest
import sentencepiece as spm
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.encoding.encoder import Encoder
from bpe_core.errors import InputError, SessionError
from bpe_core.io.formats.hf_json import hf_dict, hf_export_notes, read_hf
from bpe_core.io.formats.sentencepiece import for_hugging_face, read_sentencepiece
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import load_session, save_session
from bpe_core.io.session.model import load_encoder
from bpe_core.pipeline.steps import Metaspace
from tests.conftest import data_text
from tests.protobuf import train_sentencepiece

TRAIN_TEXT = "kjv_genesis_100k.txt"
TEST_TEXT = "shakespeare_200k.txt"
TEXTS = [
    "Hello world",
    "  two  spaces, and  one at the end ",
    "a",
    "",
    "naïve café, 東京 and 🙂 too",
    "tabs\tand\nnew lines",
]


def varied_texts(lines: int = 300) -> list[str]:
    return [*TEXTS, *data_text(TEST_TEXT).splitlines()[:lines]]


def exported(encoder: Encoder) -> Tokenizer:
    """Hugging Face's tokenizer of ``encoder`` exported as ``bpe-studio export --format hf`` does."""
    return Tokenizer.from_str(json.dumps(hf_dict(for_hugging_face(encoder))))


def reexported(tokenizer: Tokenizer, tmp_path) -> Tokenizer:
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    encoder, _notes = read_hf(path)
    return exported(encoder)


def trained(pre_tokenizer, decoder, normalizer=None, byte_fallback=False) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(byte_fallback=byte_fallback))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoder
    alphabet = (
        pre_tokenizers.ByteLevel.alphabet() if isinstance(pre_tokenizer, pre_tokenizers.ByteLevel) else []
    )
    trainer = trainers.BpeTrainer(
        vocab_size=700, special_tokens=["<s>", "</s>"], initial_alphabet=alphabet, show_progress=False
    )
    tokenizer.train_from_iterator(data_text(TRAIN_TEXT).splitlines(), trainer)
    return tokenizer


PROCESSED = {
    "Metaspace, a template": lambda: (
        trained(pre_tokenizers.Metaspace(), decoders.Metaspace()),
        processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1", special_tokens=[("<s>", 0), ("</s>", 1)]
        ),
    ),
    "llama-style normalizer, its decoder sequence": lambda: (
        trained(
            None,
            decoders.Sequence(
                [
                    decoders.Replace("▁", " "),
                    decoders.ByteFallback(),
                    decoders.Fuse(),
                    decoders.Strip(" ", 1, 0),
                ]
            ),
            normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
            byte_fallback=True,
        ),
        processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)]),
    ),
    "byte-level, Roberta's processor": lambda: (
        trained(pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel()),
        processors.RobertaProcessing(("</s>", 1), ("<s>", 0), trim_offsets=False),
    ),
}


@pytest.mark.parametrize("name", sorted(PROCESSED))
def test_an_imported_tokenizer_exports_with_its_decoder_and_post_processor(name, tmp_path):
    original, processor = PROCESSED[name]()
    original.post_processor = processor
    export = reexported(original, tmp_path)
    for text in varied_texts():
        with_specials = original.encode(text, add_special_tokens=True).ids
        assert export.encode(text, add_special_tokens=True).ids == with_specials, text
        assert export.encode(text, "a second text").ids == original.encode(text, "a second text").ids
        for skip in (True, False):
            assert export.decode(with_specials, skip_special_tokens=skip) == original.decode(
                with_specials, skip_special_tokens=skip
            ), text


@pytest.mark.parametrize("name", sorted(PROCESSED))
def test_a_session_of_an_imported_tokenizer_keeps_its_decoder_and_post_processor(name, tmp_path):
    original, processor = PROCESSED[name]()
    original.post_processor = processor
    original.save(str(tmp_path / "tokenizer.json"))
    encoder, _notes = read_hf(tmp_path / "tokenizer.json")
    session = tmp_path / "session.json"
    save_session(trainer_from_encoder(encoder), session)
    for reopened in (load_session(session).encoder(), load_encoder(session)):
        export = exported(reopened)
        for text in varied_texts(60):
            with_specials = original.encode(text, add_special_tokens=True).ids
            assert export.encode(text, add_special_tokens=True).ids == with_specials, text
            assert export.decode(with_specials) == original.decode(with_specials), text


def nested(depth: int) -> dict:
    """A decoder Sequence nested ``depth`` levels deep (hostile: real ones are flat)."""
    node: dict = {"type": "Fuse"}
    for _ in range(depth):
        node = {"type": "Sequence", "decoders": [node]}
    return node


def test_a_decoder_nested_hundreds_of_levels_deep_is_refused_in_one_sentence(tmp_path):
    """Kept, it made export fail with a RecursionError where it was copied."""
    original, _processor = PROCESSED["Metaspace, a template"]()
    original.save(str(tmp_path / "tokenizer.json"))
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["decoder"] = nested(300)
    (tmp_path / "deep.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="nested deeper than 32 levels"):
        read_hf(tmp_path / "deep.json")


@pytest.mark.parametrize(
    "parts", [[], {"decoder": "Metaspace"}, {"normalizer": {"type": "NFC"}}, {"decoder": nested(300)}]
)
def test_a_session_whose_kept_parts_are_malformed_is_refused(parts, tmp_path):
    original, _processor = PROCESSED["Metaspace, a template"]()
    original.save(str(tmp_path / "tokenizer.json"))
    encoder, _notes = read_hf(tmp_path / "tokenizer.json")
    path = tmp_path / "session.json"
    save_session(trainer_from_encoder(encoder), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["numbering"]["hf_parts"] = parts
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SessionError, match="numbering is malformed"):
        load_session(path)


def test_a_post_processor_whose_tokens_are_no_longer_there_is_left_out_and_said(tmp_path):
    original, processor = PROCESSED["Metaspace, a template"]()
    original.post_processor = processor
    path = tmp_path / "tokenizer.json"
    original.save(str(path))
    encoder, _notes = read_hf(path)
    assert hf_export_notes(encoder) == []
    moved = dict(encoder.hf_parts or {})
    moved["post_processor"] = json.loads(
        processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 5)]).__getstate__()
    )
    changed = Encoder(encoder.config, encoder.keys, encoder.merges, sorted(encoder.special_ids), None, moved)
    data = hf_dict(changed)
    assert data["post_processor"] is None
    assert data["decoder"] == moved["decoder"]
    assert [note.split(":")[0] for note in hf_export_notes(changed)] == ["The post-processor is left out"]


def test_a_decoder_for_another_pipeline_gives_way_to_this_pipelines(tmp_path):
    original = trained(pre_tokenizers.Metaspace(), decoders.Metaspace())
    path = tmp_path / "tokenizer.json"
    original.save(str(path))
    encoder, _notes = read_hf(path)
    wrong = {
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    }
    changed = Encoder(encoder.config, encoder.keys, encoder.merges, sorted(encoder.special_ids), None, wrong)
    assert hf_dict(changed)["decoder"] == json.loads(original.to_str())["decoder"]
    assert len(hf_export_notes(changed)) == 1


@pytest.mark.parametrize("part", ["decoder", "post_processor"])
@pytest.mark.parametrize("value", [[], "Metaspace", {"replacement": "▁"}])
def test_a_decoder_or_post_processor_that_is_no_typed_object_is_refused(part, value, tmp_path):
    data = json.loads(trained(pre_tokenizers.Metaspace(), None).to_str())
    data[part] = value
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="that is not an object with a type"):
        read_hf(path)


# name -> SentencePieceTrainer options (beside model_type="bpe"): normalizers Hugging Face can hold
SENTENCEPIECE = {
    "byte fallback": dict(byte_fallback=True),
    "no byte fallback": dict(),
    "no dummy prefix": dict(add_dummy_prefix=False, byte_fallback=True),
    "extra whitespace kept": dict(remove_extra_whitespaces=False, byte_fallback=True),
}


@pytest.mark.parametrize("name", sorted(SENTENCEPIECE))
def test_a_sentencepiece_export_decodes_as_sentencepiece(name, tmp_path):
    lines = [line for line in data_text(TRAIN_TEXT).splitlines() if line.strip()]
    blob = train_sentencepiece(lines, 900, normalization_rule_name="identity", **SENTENCEPIECE[name])
    path = tmp_path / "m.model"
    path.write_bytes(blob)
    processor = spm.SentencePieceProcessor(model_file=str(path))
    encoder, _notes = read_sentencepiece(path)
    export = exported(encoder)
    decoded = 0
    for text in varied_texts():
        ids = processor.encode(text)
        if processor.unk_id() in ids:
            continue  # SentencePiece spells it " ⁇ "; Hugging Face leaves a special token out
        assert export.encode(text, add_special_tokens=False).ids == ids, text
        assert export.decode(ids) == processor.decode(ids), text
        decoded += 1
    assert decoded > 100


def trained_here(config: PipelineConfig) -> Encoder:
    trainer = Trainer(Corpus.from_text(data_text(TRAIN_TEXT), config))
    trainer.run(merges=500)
    return trainer.encoder()


@pytest.mark.parametrize("scheme", ["always", "first"])
def test_a_model_trained_with_a_metaspace_pipeline_exports_its_decoder(scheme):
    step = Metaspace(prepend_scheme=scheme)
    config = PipelineConfig(pretokenize="custom", pre_tokenizers=(step,), end_of_word=None)
    export = exported(trained_here(config))
    assert json.loads(export.to_str())["decoder"] == step.to_dict()
    alphabet = set(data_text(TRAIN_TEXT))
    for text in varied_texts():
        # Hugging Face drops a character the vocabulary lacks; Metaspace puts no ``▁`` before a
        # text that starts with a space, yet its decoder takes one space off the start.
        if set(text) <= alphabet and not text.startswith(" "):
            assert export.decode(export.encode(text).ids) == text, text


def test_a_byte_level_model_trained_here_decodes_every_text_back():
    export = exported(trained_here(PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)))
    for text in varied_texts():
        assert export.decode(export.encode(text).ids) == text, text
