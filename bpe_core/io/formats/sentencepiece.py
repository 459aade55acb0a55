"""SentencePiece BPE models (``.model`` files) as encoders, their ids exactly SentencePiece's.

:mod:`.sp_model` reads the file; this module turns a BPE model into an
:class:`~bpe_core.encoding.encoder.Encoder` that encodes every text to the ids
``SentencePieceProcessor.encode`` gives:

========================================  ================================================
SentencePiece                             BPE Studio
========================================  ================================================
piece ids                                 token ids, kept exactly
normal pieces of several characters       made by merges, highest score first
                                          (:func:`~.sp_model.bpe_merges`)
the unknown piece                         the id unknown characters get (a special token);
                                          without byte fallback a run of them is one token,
                                          as SentencePiece fuses them
control pieces (``<s>``, ``</s>``)        special tokens at their ids, never found in text
                                          unless special tokens are matched (SentencePiece
                                          never finds them; Hugging Face's converted
                                          tokenizer.json does)
user-defined pieces                       special tokens found in every text, in the
                                          normalized text, the longest first at each place,
                                          and copied past the character map (the
                                          normalizer step holds them:
                                          ``PipelineConfig.always_matched``)
byte pieces ``<0x00>``…``<0xFF>``         ``byte_fallback``
the normalizer spec (character map,       one ``SentencePieceNormalizer`` step
dummy prefix, extra whitespace, ``▁``,    (:mod:`bpe_core.pipeline.steps`)
whitespace as a suffix)
========================================  ================================================

SentencePiece's BPE encoder applies the merges to the whole normalized text: the trainer
options ``split_by_whitespace``, ``split_digits``, ``split_by_number`` and
``split_by_unicode_script`` only shaped the pieces it learnt. So the text is one sequence, except
that where no normal piece has ``▁`` inside it (no piece crosses a word start; or a word end,
with ``treat_whitespace_as_suffix``) it is cut before (after) each ``▁``, which changes nothing
and lets words be cached. Refused with one sentence: a model that is not BPE (unigram, word,
char), a restricted vocabulary (unused pieces of several characters, which SentencePiece makes
and then splits again), a normal piece no merge of two pieces of higher score makes, two merged
pieces of one score (SentencePiece merges whichever comes first in the text), and a merge
through a character that is no piece.

A tokenizer.json holds such a model where Hugging Face can normalize as SentencePiece does (no
character map, no dummy space after the text, no user-defined piece that Hugging Face's
normalizer would rewrite before looking for it, as the dummy prefix does): :func:`for_hugging_face`
gives the encoder with its normalizer as Hugging Face's steps, and the decoder Hugging Face's own
conversion of a SentencePiece model writes, or one sentence why it cannot.

Imports the engine's lower stages, :mod:`.sp_model`, :mod:`.checks` and :mod:`.hf_json` (its decoder).
"""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.errors import ConfigError, InputError, quoted
from bpe_core.io.formats.checks import after_colon
from bpe_core.io.formats.hf_json import spaces_decoder
from bpe_core.io.formats.sp_model import (
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    SentencePieceModel,
    bpe_merges,
    read_sp_model,
)
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.specials import SpecialMatch
from bpe_core.pipeline.steps import Normalizer, PreTokenizer, SentencePieceNormalizer, Split


def read_sentencepiece(path: str | Path) -> tuple[Encoder, list[str]]:
    """The encoder of the SentencePiece BPE model in ``path`` and notes on what it holds but
    does not apply; any other model, or a damaged file, raises one sentence naming the file."""
    path = Path(path)
    model = read_sp_model(path)
    try:
        return sentencepiece_encoder(model)
    except _Refused as refusal:
        raise InputError(f"The SentencePiece model {str(path)!r} {refusal}") from None
    except InputError as error:  # its character map's own sentence, which names no file
        said = str(error)
        if not said.startswith("The precompiled character map"):
            raise
        raise InputError(f"The SentencePiece model {str(path)!r}: t{said[1:]}") from None


class _Refused(Exception):
    """What BPE Studio cannot model faithfully in a SentencePiece model (the caller names the file)."""


def sentencepiece_encoder(model: SentencePieceModel) -> tuple[Encoder, list[str]]:
    """The encoder of a parsed model (raises ``_Refused``, the end of a sentence)."""
    if not model.is_bpe:
        raise _Refused(
            f"is a {model.trainer_spec.model_type_name} model, not BPE: BPE Studio reads BPE models only."
        )
    pieces = model.pieces
    for index, piece in enumerate(pieces):
        if piece.type == UNUSED and len(piece.piece) > 1:
            raise _Refused(
                f"has the unused piece {quoted(piece.piece)} (id {index}) of a restricted vocabulary, "
                "which SentencePiece makes and then splits again: BPE Studio does not model that."
            )
    keys = [piece.piece for piece in pieces]
    specials = [i for i, piece in enumerate(pieces) if piece.type in (CONTROL, UNKNOWN, USER_DEFINED)]
    user_defined = tuple(piece.piece for piece in pieces if piece.type == USER_DEFINED)
    unknown_id = next(i for i, piece in enumerate(pieces) if piece.type == UNKNOWN)
    merges = _merges(model)
    config = _pipeline(model, tuple(keys[i] for i in specials), user_defined)
    notes = []
    controls = [piece.piece for piece in pieces if piece.type == CONTROL]
    if controls:
        shown = ", ".join(controls[:3]) + (", …" if len(controls) > 3 else "")
        notes.append(
            f"SentencePiece adds its control pieces ({shown}) only when asked to and never finds them in "
            "text: here they are special tokens, found in text only where special tokens are matched."
        )
    if model.denormalizer_spec is not None and model.denormalizer_spec.precompiled_charsmap:
        notes.append("Its denormalizer (applied when decoding) is not applied.")
    return Encoder(config, keys, merges, specials, unknown_id), notes


def _merges(model: SentencePieceModel) -> list[Merge]:
    """The model's merges by id, highest score first, without those that can never apply: a
    merge whose part only a later merge makes (SentencePiece would make that part only after it
    merged at a higher score). Every normal piece of several characters must be made by one."""
    ids = {piece.piece: i for i, piece in enumerate(model.pieces) if piece.type in (NORMAL, UNUSED)}
    _refuse_tied_scores(model)
    merges: list[Merge] = []
    made: set[int] = set()
    for left, right, merged in bpe_merges(model):
        for part in (left, right):
            if part not in ids:
                raise _Refused(
                    f"has the piece {quoted(merged)}, made of the character {quoted(part)}, which is no "
                    "normal piece: BPE Studio has no id for it."
                )
        parts = ids[left], ids[right]
        if any(len(model.pieces[part].piece) > 1 and part not in made for part in parts):
            continue
        merges.append(Merge(len(merges), *parts, ids[merged], 0))
        made.add(ids[merged])
    for index, piece in enumerate(model.pieces):
        if piece.type == NORMAL and len(piece.piece) > 1 and index not in made:
            raise _Refused(
                f"has the piece {quoted(piece.piece)} (id {index}), which no merge of two pieces of higher "
                "score makes: a merge list cannot hold it."
            )
    return merges


def _refuse_tied_scores(model: SentencePieceModel) -> None:
    """Two merged pieces of one score: SentencePiece merges whichever pair comes first in the
    text, where a merge list ranks one before the other everywhere (ids then differ). A trained
    model scores every piece apart; a model made by hand may not."""
    seen: dict[float, str] = {}
    for piece in model.pieces:
        if piece.type == NORMAL and len(piece.piece) > 1:
            other = seen.setdefault(piece.score, piece.piece)
            if other != piece.piece:
                raise _Refused(
                    f"gives the pieces {quoted(other)} and {quoted(piece.piece)} the same score "
                    f"({piece.score:g}): SentencePiece merges whichever comes first in the text, which "
                    "no merge list can say."
                )


def _pipeline(
    model: SentencePieceModel, specials: tuple[str, ...], user_defined: tuple[str, ...]
) -> PipelineConfig:
    spec, trainer = model.normalizer_spec, model.trainer_spec
    normalizer = SentencePieceNormalizer(
        base64.b64encode(spec.precompiled_charsmap).decode("ascii"),
        add_dummy_prefix=spec.add_dummy_prefix,
        remove_extra_whitespaces=spec.remove_extra_whitespaces,
        escape_whitespaces=spec.escape_whitespaces,
        treat_whitespace_as_suffix=trainer.treat_whitespace_as_suffix,
        user_defined=user_defined,
        unk_surface=trainer.unk_surface,
    )
    split = _word_split(model, normalizer.space)
    try:
        return PipelineConfig(
            normalization="custom",
            normalizers=(normalizer,),
            pretokenize="custom" if split else "none",
            pre_tokenizers=(split,) if split else (),
            unit="char",
            end_of_word=None,
            special_tokens=specials,
            special_matching=tuple(SpecialMatch(symbol, normalized=True) for symbol in user_defined),
            byte_fallback=trainer.byte_fallback,
            fuse_unknown=True,
        )
    except ConfigError as error:
        raise _Refused(f"has pieces BPE Studio cannot use: {after_colon(error)}") from None


def _word_split(model: SentencePieceModel, space: str) -> PreTokenizer | None:
    """The cut before each ``space`` (after it, with whitespace as a suffix) where it changes
    nothing: no normal piece has the space but at its start (end), so no merge crosses one, and
    the space is a piece, so no run of unknown characters (fused into one) crosses one either."""
    suffix = model.trainer_spec.treat_whitespace_as_suffix
    normal = [piece.piece for piece in model.pieces if piece.type == NORMAL]
    if space not in normal and not model.trainer_spec.byte_fallback:
        return None
    inner = (piece[:-1] if suffix else piece[1:] for piece in normal)
    if any(space in text for text in inner):
        return None
    return Split(space, is_regex=False, behavior="merged_with_previous" if suffix else "merged_with_next")


def for_hugging_face(encoder: Encoder) -> Encoder:
    """``encoder`` with each SentencePiece normalizer step as the Hugging Face steps that
    normalize alike, and the decoder that decodes as SentencePiece does (the encoder itself
    where it has no such step); raises InputError (one sentence) where no Hugging Face
    normalizer can."""
    config = encoder.config
    sentencepiece = [step for step in config.normalizers if isinstance(step, SentencePieceNormalizer)]
    if not sentencepiece:
        return encoder
    steps: list[Normalizer] = []
    for step in config.normalizers:
        if isinstance(step, SentencePieceNormalizer):
            try:
                steps.extend(step.hf_equivalent())
            except ConfigError as error:
                raise InputError(str(error)) from None
        else:
            steps.append(step)
    config = replace(config, normalization="custom" if steps else "none", normalizers=tuple(steps))
    # SentencePiece decodes its space character back to a space, byte pieces to their bytes, and
    # drops the dummy prefix's space; hf_equivalent() refused a dummy space after the text.
    first = sentencepiece[0]
    decoder = spaces_decoder(first.space, config.byte_fallback, first.add_dummy_prefix)
    parts = {**(encoder.hf_parts or {}), "decoder": decoder}
    specials = sorted(encoder.special_ids)
    return Encoder(config, encoder.keys, encoder.merges, specials, encoder.unknown_id, parts)
