"""A Llama-2-style SentencePiece model and the ``tokenizer.json`` converted from it, as the
Hugging Face hub ships both for Llama 2, Mistral and their kin: the model trained here by
``sentencepiece`` with Llama 2's trainer settings, converted the way ``transformers`` converts
it (every split of every piece into two pieces is a merge, ranked by the piece's score;
Prepend and Replace spell the spaces as ``▁``; byte fallback, fused unknowns), and both files
encoded here with the ids of both libraries."""

import json

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from bpe_core.io.formats import read_tokenizer
from bpe_core.io.imported import trainer_from_encoder
from tests.conftest import data_text
from tests.protobuf import train_sentencepiece

LLAMA2_TRAINER = dict(
    normalization_rule_name="identity",
    remove_extra_whitespaces=False,
    byte_fallback=True,
    split_digits=True,
    allow_whitespace_only_pieces=True,
    unk_surface=" \u2047 ",
)
TEXTS = [
    "Hello world",
    "  leading and trailing spaces  ",
    "Numbers 1234567 and 3.14159, dates 2026-11-26.",
    "Ünïcödé façade naïve coöperate résumé",
    "unseen: 中文字符 日本語 한국어 ☃ 🤗🚀",
    "tabs\tand\nnew\r\nlines\n\n",
    "▁ the escape symbol typed ▁▁",
]


def converted(processor: spm.SentencePieceProcessor) -> dict:
    """``tokenizer.json`` data for a SentencePiece BPE model, as ``transformers`` converts Llama's."""
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
    vocab = {piece: i for i, piece in enumerate(pieces)}
    merges = []
    for piece in pieces:
        splits = [(piece[:k], piece[k:]) for k in range(1, len(piece))]
        found = sorted(
            ((a, b) for a, b in splits if a in vocab and b in vocab), key=lambda p: (vocab[p[0]], vocab[p[1]])
        )
        merges.extend((a, b, processor.get_score(vocab[piece])) for a, b in found)
    merges.sort(key=lambda merge: merge[2], reverse=True)  # stable: a piece's splits keep their order
    special = [
        {
            "id": i,
            "content": pieces[i],
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i in range(3)
    ]
    return {
        "version": "1.0",
        "added_tokens": special,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            ],
        },
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [[a, b] for a, b, _ in merges],
        },
    }


@pytest.fixture(scope="module")
def llama2(tmp_path_factory):
    """(sentencepiece's processor, HF's tokenizer, our encoder of the .model, of the .json)."""
    folder = tmp_path_factory.mktemp("llama2")
    lines = [line for line in data_text("kjv_genesis_100k.txt").splitlines() if line.strip()]
    model = folder / "tokenizer.model"
    model.write_bytes(train_sentencepiece(lines, 1500, **LLAMA2_TRAINER))
    processor = spm.SentencePieceProcessor(model_file=str(model))
    data = converted(processor)
    path = folder / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return (
        processor,
        Tokenizer.from_file(str(path)),
        read_tokenizer(model).encoder,
        read_tokenizer(path).encoder,
    )


def real_texts() -> list[str]:
    return [*TEXTS, *data_text("shakespeare_200k.txt").splitlines()[:500]]


def test_the_converted_file_and_the_model_encode_as_both_libraries_do(llama2):
    processor, hf, from_model, from_json = llama2
    texts = real_texts()
    theirs = [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
    assert [from_json.encode_ids(t) for t in texts] == theirs
    assert [from_model.encode_ids(t) for t in texts] == processor.encode(texts)
    assert theirs == processor.encode(texts)  # the conversion is faithful here: the three agree


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(
        st.text(st.sampled_from(list("the and of  \t\n0123456789.,'ÉéüßΣ中文☃🤗▁")), max_size=30),
        min_size=1,
        max_size=4,
    )
)
def test_generated_text_encodes_alike_from_both_files(llama2, texts):
    processor, hf, from_model, from_json = llama2
    theirs = [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
    assert [from_json.encode_ids(t) for t in texts] == theirs
    assert [from_model.encode_ids(t) for t in texts] == processor.encode(texts)


def test_the_conversions_merges_that_never_apply_are_left_out_and_said_so(tmp_path, llama2):
    processor, _, _, from_json = llama2
    data = converted(processor)
    (tmp_path / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (note,) = read_tokenizer(tmp_path / "tokenizer.json").notes
    left_out = len(data["model"]["merges"]) - len(from_json.merges)
    assert left_out > 0 and note.startswith(f"{left_out:,} of its merges use a token only a later merge")


def test_the_converted_file_steps_through_its_merges(llama2):
    _, _, _, from_json = llama2
    trainer = trainer_from_encoder(from_json)
    assert trainer.position == len(from_json.merges)
    trainer.goto(40)
    text = "In the beginning God created the heaven"
    assert trainer.encoder().encode_ids(text) == from_json.encode_ids(text, upto=40)
    assert from_json.decode(from_json.encode_ids("unseen ☃ text")) == "unseen ☃ text"
