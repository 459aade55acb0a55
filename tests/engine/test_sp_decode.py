"""Decoding the ids of an imported SentencePiece model gives ``SentencePieceProcessor.decode``'s
text, for any sequence of ids (as a language model may emit them), checked against the real
library on models trained here with different options."""

from __future__ import annotations

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.encoding.encoder import _sentencepiece_bytes
from bpe_core.io.formats.sentencepiece import read_sentencepiece
from bpe_core.io.formats.sp_model import BYTE, CONTROL, UNKNOWN, USER_DEFINED, parse_sp_model
from bpe_core.io.imported import trainer_from_encoder
from bpe_core.io.session import load_session, save_session
from tests.conftest import data_text
from tests.protobuf import train_sentencepiece

# name -> SentencePieceTrainer options (beside model_type="bpe")
CONFIGS = {
    "defaults": {},
    "byte fallback": dict(byte_fallback=True),
    "no dummy prefix": dict(add_dummy_prefix=False),
    "extra whitespace kept": dict(remove_extra_whitespaces=False, allow_whitespace_only_pieces=True),
    "neither dummy prefix nor extra whitespace removed, byte fallback": dict(
        add_dummy_prefix=False, remove_extra_whitespaces=False, byte_fallback=True
    ),
    "whitespace as a suffix": dict(treat_whitespace_as_suffix=True),
    "its own unknown surface": dict(unk_surface="<?>"),
    "user-defined and control pieces": dict(
        user_defined_symbols=["<mask>", "▁the", "a▁b", "\n"], control_symbols=["<ctl>"], pad_id=3
    ),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """name -> (SentencePiece's processor, our encoder, the ids worth trying most)."""
    folder = tmp_path_factory.mktemp("sp_decode")
    lines = [line for line in data_text("kjv_genesis_100k.txt").splitlines()[:1500] if line.strip()]
    out = {}
    for number, (name, options) in enumerate(CONFIGS.items()):
        path = folder / f"model{number}.model"
        path.write_bytes(train_sentencepiece(lines, 400, **dict(options)))
        theirs = spm.SentencePieceProcessor(model_file=str(path))
        ours, _notes = read_sentencepiece(path)
        pieces = parse_sp_model(path.read_bytes()).pieces
        # The pieces the decoding rules are about: those of another type, and spaces.
        kinds = (CONTROL, UNKNOWN, USER_DEFINED, BYTE)
        marked = [i for i, piece in enumerate(pieces) if piece.type in kinds or "▁" in piece.piece[:1]]
        spaces = [i for i, piece in enumerate(pieces) if piece.piece.strip("▁") == ""]
        out[name] = theirs, ours, [*marked[:200], *spaces]
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_ids_decode_as_sentencepiece_decodes_them(models, name, data):
    theirs, ours, marked = models[name]
    size = theirs.get_piece_size()
    one = st.one_of(st.integers(0, size - 1), st.sampled_from(marked))
    ids = data.draw(st.lists(one, max_size=12))
    assert ours.decode(ids) == theirs.decode(ids)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_real_text_round_trips_as_sentencepiece_decodes_it(models, name):
    theirs, ours, _ = models[name]
    texts = data_text("shakespeare_200k.txt").splitlines()[:200]
    texts += ["  leading and trailing  ", "unseen 中文 🤗 ☃", "▁ typed ▁▁", "<mask> a▁b <ctl> <s>"]
    for text in texts:
        ids = theirs.encode(text)
        assert ours.decode(ids) == theirs.decode(ids), text


def test_the_rules_sentencepiece_decodes_by(models):
    theirs, ours, _ = models["byte fallback"]
    piece = theirs.piece_to_id
    assert ours.decode([theirs.unk_id()]) == " \u2047 "
    assert ours.decode([theirs.bos_id(), piece("▁he"), theirs.eos_id()]) == "he"
    # With extra whitespace removed every leading ▁ goes while nothing is written.
    assert ours.decode([piece("▁"), piece("▁"), piece("▁a")]) == "a"
    # A byte run decodes to one U+FFFD a byte that starts no character (Python's decoder would
    # put one for the two), and then nothing more is stripped.
    assert ours.decode([piece("<0xF2>"), piece("<0x9D>"), piece("▁he")]) == "\ufffd\ufffd he"
    theirs, ours, _ = models["no dummy prefix"]
    assert ours.decode([theirs.piece_to_id("▁"), theirs.piece_to_id("▁a")]) == "a"


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=12) | st.text(max_size=4).map(str.encode))
def test_byte_runs_decode_as_sentencepiece_decodes_them(models, data):
    theirs, _, _ = models["byte fallback"]
    ids = [theirs.piece_to_id(f"<0x{byte:02X}>") for byte in data]
    assert _sentencepiece_bytes(data) == theirs.decode(ids)


def test_a_session_keeps_the_unknown_surface_it_decodes_to(models, tmp_path):
    theirs, ours, _marked = models["its own unknown surface"]
    save_session(trainer_from_encoder(ours), tmp_path / "session.json")
    reopened = load_session(tmp_path / "session.json").encoder()
    ids = [theirs.unk_id(), *theirs.encode("In the beginning"), theirs.unk_id()]
    assert reopened.decode(ids) == theirs.decode(ids) == "<?> In the beginning<?>"
