"""Hugging Face ``tokenizer.json`` with a BPE model: read and written, ids kept exactly.

The pipeline maps one to one (anything else is refused with one sentence naming it, never
approximated):

========================================  =============================================
Hugging Face                              BPE Studio pipeline
========================================  =============================================
normalizer NFC, NFKC, Lowercase,          normalization nfc / nfkc, then lowercase
Sequence [NFC or NFKC, Lowercase]
ByteLevel (use_regex true)                unit byte, pre-tokenizer gpt2
ByteLevel (use_regex false)               unit byte, with the split before it (or none)
ByteLevel ``add_prefix_space``            ``prefix_space``
Split(GPT-2 or cl100k pattern, Isolated)  pre-tokenizer gpt2 / gpt4 (gpt4-minbpe: minbpe's
                                          and Llama 3's spelling of cl100k)
Whitespace                                pre-tokenizer words (``\\w+|[^\\w\\s]+``)
WhitespaceSplit; Split(whitespace,        pre-tokenizer whitespace (``str.split()``); written
Removed)                                  as the Split, which spells Python's whitespace
Split(a word's pattern, Removed,          pre-tokenizer spaces (subword-nmt's words: split at
invert)                                   spaces and line breaks only)
no pre-tokenizer                          pre-tokenizer none
model ``end_of_word_suffix``              end-of-word marker attached to the last unit
model ``continuing_subword_prefix``       the prefix of every unit but a piece's first
model ``unk_token``                       the id unknown units get
added tokens                              special tokens, at their own ids
========================================  =============================================

WhitespaceSplit splits at Rust's whitespace, which lacks the four separators U+001C-U+001F
that ``str.split()`` splits at; importing it says so. The post-processor only adds tokens
around a sequence when asked to (``add_special_tokens``); it is not applied here, and reported.
The decoder and the post-processor are kept as data (never run) and written back on export, the
post-processor only while the tokens it adds are still the vocabulary's at their ids. Without
an unknown token Hugging Face drops the units its vocabulary lacks (and merges across them); an
imported tokenizer does the same here, while a model trained here marks them unknown (id -1),
so its export encodes such text differently.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from bpe_core.encoding.encoder import UNKNOWN_ID, Encoder, Merge
from bpe_core.encoding.hf_decoding import decoder_fault
from bpe_core.encoding.numbering import PART_DEPTH_MOST, joins_tokens, nested_within, sparse_limit
from bpe_core.errors import BpeError, ConfigError, InputError, quoted, shown
from bpe_core.io.formats.checks import LONE_SURROGATE, after_colon, json_has_lone_surrogate
from bpe_core.io.formats.merge_order import early_merge, last_listings, redundant_early_merges
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.pretokenize import (
    GPT2_PATTERN,
    GPT4_PATTERN,
    MINBPE_GPT4_PATTERN,
    O200K_PATTERN,
    SPACES_PATTERN,
)
from bpe_core.pipeline.specials import SpecialMatch
from bpe_core.pipeline.steps import (
    ByteLevel,
    Metaspace,
    Normalizer,
    PreTokenizer,
    normalizer_from_dict,
    pre_tokenizer_from_dict,
    space_escape,
    steps_to_dicts,
)
from bpe_core.pipeline.vocab import display, joined, key_of
from bpe_core.runtime.fileio import read_bounded, write_atomic

# Python's whitespace (``str.isspace``), which ``str.split()`` splits at, as a regex class.
# (Oniguruma reads ``\\xHH`` above 7F as a raw byte: U+0085 and U+00A0 are written as themselves.)
PY_WHITESPACE = "[\\t-\\r\\x1c-\\x20\u0085\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+"
# cl100k for Oniguruma, the regex engine of Hugging Face ``tokenizers``: it reads tiktoken's
# possessive ``\p{N}{1,3}+`` as "runs of up to three digits, repeated", so that one quantifier is
# written plainly (the same splits: nothing after it could make the engine backtrack into it).
HF_GPT4_PATTERN = GPT4_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
# Llama 3's spelling of cl100k splits as minbpe's does (a text's final whitespace after a line
# break differs from tiktoken's).
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
PATTERN_OF_MODE = {
    "gpt2": GPT2_PATTERN,
    "gpt4": HF_GPT4_PATTERN,
    "gpt4-minbpe": MINBPE_GPT4_PATTERN,
    "o200k": O200K_PATTERN,  # tiktoken's spelling has no possessive quantifier: Oniguruma reads it alike
}
SPLIT_PATTERNS = {**{p: mode for mode, p in PATTERN_OF_MODE.items()}, LLAMA3_PATTERN: "gpt4-minbpe"}
_NORMAL_FORMS = {"NFC": "nfc", "NFKC": "nfkc"}


class _Refused(BpeError):
    """A part of the file that BPE Studio cannot model faithfully (the message names it)."""


def read_hf(path: str | Path) -> tuple[Encoder, list[str]]:
    """The encoder of a ``tokenizer.json`` and notes on what it holds but does not apply."""
    path = Path(path)
    raw = read_bounded(path, "tokenizer file")  # a missing or too large file says so itself
    try:
        data = json.loads(raw.decode("utf-8"))
    except RecursionError:  # valid JSON, maybe; too deep for any tokenizer
        raise InputError(
            f"The Hugging Face tokenizer file {str(path)!r} is nested too deeply to be a tokenizer."
        ) from None
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"The Hugging Face tokenizer file {str(path)!r} is not JSON.") from None
    if json_has_lone_surrogate(raw, data):
        raise InputError(f"The Hugging Face tokenizer {str(path)!r} holds {LONE_SURROGATE}.")
    try:
        return hf_encoder(data)
    except _Refused as error:
        raise InputError(f"The Hugging Face tokenizer {str(path)!r} {error}") from None


def hf_encoder(data: Any) -> tuple[Encoder, list[str]]:
    """The encoder of parsed ``tokenizer.json`` data (raises ``_Refused``)."""
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise _Refused("has no model.")
    model = data["model"]
    if model.get("type", "BPE") != "BPE":
        raise _Refused(f"has a {shown(model.get('type'))} model, not BPE.")
    if model.get("dropout") not in (None, 0, 0.0):
        raise _Refused(
            f"uses the model option dropout = {shown(model['dropout'])}, which BPE Studio does not model."
        )
    options = {}
    for option, name in (
        ("byte_fallback", "byte_fallback"),
        ("ignore_merges", "ignore_merges"),
        ("fuse_unk", "fuse_unknown"),
    ):
        value = model.get(option)
        if value is not None and not isinstance(value, bool):  # 1 == True, yet HF refuses it
            raise _Refused(f"has the model option {option} = {shown(value)}, which is not true or false.")
        options[name] = bool(value)
    suffix = model.get("end_of_word_suffix") or None
    prefix = model.get("continuing_subword_prefix") or None
    for name, value in (("end-of-word suffix", suffix), ("continuing-subword prefix", prefix)):
        if value is not None and not isinstance(value, str):
            raise _Refused(f"has a {name} that is not a string.")
    notes: list[str] = []
    unit, pretokenize, prefix_space, pre_tokenizers = _pre_tokenizer_or_steps(
        data.get("pre_tokenizer"), notes
    )
    normalization, lowercase, normalizers = _normalizer_or_steps(data.get("normalizer"))
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not all(
        isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in vocab.items()
    ):
        raise _Refused("has a vocabulary that is not an object of token: id.")
    if suffix is not None and any("\x00" in token for token in vocab):
        # The end-of-word suffix is held as that character inside the studio.
        raise _Refused(
            "has a token holding the character U+0000 beside an end-of-word suffix, which is not modelled."
        )
    specials, matching = _added_tokens(data.get("added_tokens") or [], vocab)
    in_normalized = sum(m.normalized for m in matching)
    if normalization == "none" and not lowercase and in_normalized == len(specials):
        # The normalized text is the text: found in it. Not beside tokens found in the raw
        # text, which Hugging Face finds first, then these in what is left.
        matching = [replace(m, normalized=False) for m in matching if not replace(m, normalized=False).plain]
    by_id: dict[int, str] = {}
    for string, token_id in vocab.items():
        if by_id.setdefault(token_id, string) != string:
            raise _Refused(f"gives the id {token_id} to two tokens.")
    for token_id, content in specials.items():
        if by_id.setdefault(token_id, content) != content:
            raise _Refused(f"gives the added token {quoted(content)} an id another token has.")
    if by_id and max(by_id) >= sparse_limit(len(by_id)):
        raise _Refused(f"numbers {len(by_id):,} tokens up to id {max(by_id):,}: too sparse to hold.")
    try:
        config = PipelineConfig(
            normalization=normalization,
            lowercase=lowercase,
            pretokenize=pretokenize,
            unit=unit,
            end_of_word=suffix,
            attach_marker=suffix is not None,
            special_tokens=tuple(specials[i] for i in sorted(specials)),
            prefix_space=prefix_space,
            normalizers=normalizers,
            pre_tokenizers=pre_tokenizers,
            special_matching=tuple(matching),
            continuing_prefix=prefix,
            **options,
        )
    except ConfigError as error:
        raise _Refused(f"has settings BPE Studio cannot use: {after_colon(error)}") from None
    # An id no token has (a tokenizer exported part way through its merges) stays empty.
    size = max(by_id, default=-1) + 1
    keys = [by_id[i] if i in specials else _key(by_id.get(i, ""), suffix) for i in range(size)]
    merges = _merges(model.get("merges"), vocab, specials, prefix, notes)
    unknown = model.get("unk_token")
    unknown_id: int | None
    if unknown is not None:
        if not isinstance(unknown, str) or unknown not in vocab:
            raise _Refused(f"names the unknown token {shown(unknown)}, which is not in its vocabulary.")
        unknown_id = vocab[unknown]
    else:
        unknown_id = None  # Hugging Face drops what its vocabulary lacks, and merges across it
    parts = _kept_parts(data)
    processor = parts.get("post_processor")
    if processor is not None:
        kind = processor.get("type")
        if kind != "ByteLevel":  # ByteLevel's adds no token
            notes.append(
                f"Its post-processor ({shown(kind)}) adds tokens only when asked to: encodings here are "
                "Hugging Face's with add_special_tokens=False."
            )
        if processor.get("trim_offsets"):  # ByteLevel, RobertaProcessing
            notes.append(
                "Its post-processor trims spaces from Hugging Face's offsets (trim_offsets); the spans "
                "here keep them (a token 'Ġworld' spans its space). The ids are the same."
            )
    for setting in ("truncation", "padding"):
        if data.get(setting) is not None:
            notes.append(
                f"Its {setting} settings are not applied (encodings here are whole), nor written "
                "back on export."
            )
    return Encoder(config, keys, merges, sorted(specials), unknown_id, parts or None), notes


def _kept_parts(data: dict[str, Any]) -> dict[str, dict[str, Any] | None]:
    """The file's decoder and post-processor, kept to be written back on export. A decoder
    that is null is kept as ``None``: Hugging Face then joins the tokens with spaces, and so
    do decoding here and the file written back."""
    parts: dict[str, dict[str, Any] | None] = {"decoder": None}
    for name in ("decoder", "post_processor"):
        node = data.get(name)
        if node is None:
            continue
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            raise _Refused(f"has a {name.replace('_', '-')} that is not an object with a type.")
        if not nested_within(node):
            raise _Refused(f"has a {name.replace('_', '-')} nested deeper than {PART_DEPTH_MOST} levels.")
        fault = decoder_fault(node) if name == "decoder" else None
        if fault is not None:  # Hugging Face refuses the file: it is not decoded another way here
            raise _Refused(f"has {fault}.")
        parts[name] = node
    return parts


def _key(string: str, suffix: str | None) -> str:
    """A token's key: the suffix is attached to a unit, so a token that is only the suffix's
    text (``w`` when the suffix is ``w``) is text."""
    return key_of(string, suffix) if suffix is None or len(string) > len(suffix) else string


def _merges(
    merges: Any, vocab: dict[str, int], specials: dict[int, str], prefix: str | None, notes: list[str]
) -> list[Merge]:
    if not isinstance(merges, list):
        raise _Refused("has no list of merges.")
    out: list[Merge] = []
    for number, merge in enumerate(merges, start=1):
        pair = merge.split(" ") if isinstance(merge, str) else merge
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(p, str) and p in vocab for p in pair)
            and joined(pair[0], pair[1], prefix) in vocab
        ):
            raise _Refused(f"has a merge {number} that is not two tokens whose join is a token.")
        if prefix is not None and not pair[1].startswith(prefix):  # HF would cut its text short
            raise _Refused(
                f"has a merge {number} whose second token {quoted(pair[1])} lacks the continuing-subword "
                f"prefix {quoted(prefix)}, which BPE Studio does not model."
            )
        token = vocab[joined(pair[0], pair[1], prefix)]
        out.append(Merge(len(out), vocab[pair[0]], vocab[pair[1]], token, 0))
    out, places = last_listings(out)  # a pair listed twice ranks at its last place, as in Hugging Face
    for merge in out:
        for part in (merge.left, merge.right, merge.token):
            if part in specials:
                raise _Refused(
                    f"merges through its added token {quoted(specials[part])}, which BPE Studio does not "
                    "model."
                )
    kept, left_out = redundant_early_merges(out)
    early = early_merge(kept)
    if early is not None:
        place = places[next(m.rank for m in out if (m.left, m.right) == (early.left, early.right))]
        raise _Refused(f"has a merge {place} that uses a token only a later merge makes.")
    if left_out:
        notes.append(
            f"{left_out:,} of its merges use a token only a later merge makes, and make a token another "
            "merge makes in order (as files converted from SentencePiece list them); they are left "
            "out: they never change an encoding there."
        )
    return kept


U32_MAX = 2**32 - 1


def _added_tokens(added: Any, vocab: dict[str, int]) -> tuple[dict[int, str], list[SpecialMatch]]:
    """id -> content of the added tokens, which split the text before anything else, and how
    those found otherwise than by default are found. One in the model's vocabulary has its id
    there; Hugging Face numbers the others after the vocabulary, in order, whatever id the
    file gives them."""
    if not isinstance(added, list):
        raise _Refused("has added tokens that are not a list.")
    specials: dict[int, str] = {}
    matching: list[SpecialMatch] = []
    next_id = len(vocab)
    for token in added:
        if not (
            isinstance(token, dict)
            and isinstance(token.get("id"), int)
            and not isinstance(token["id"], bool)
            and token["id"] >= 0
            and token.get("content")
        ):
            raise _Refused("has an added token without an id or content.")
        content, token_id = token["content"], token["id"]
        if token_id > U32_MAX:  # Hugging Face reads ids as 32-bit and refuses the file
            raise _Refused(f"gives the added token {quoted(content)} the id {token_id:,}, beyond 32 bits.")
        if not isinstance(content, str) or "\x00" in content:
            raise _Refused("has an added token whose content is not text.")
        options = [token.get(name, False) for name in ("lstrip", "rstrip", "single_word", "normalized")]
        special = token.get("special", True)  # Hugging Face matches one not special in every text
        if not all(isinstance(value, bool) for value in (*options, special)):
            raise _Refused(f"has the added token {quoted(content)} with an option that is not true or false.")
        lstrip, rstrip, single_word, normalized = options
        match = SpecialMatch(content, lstrip, rstrip, single_word, normalized, special=special)
        if not match.plain:
            matching.append(match)
        if content in vocab:
            token_id = vocab[content]
        else:
            token_id, next_id = next_id, next_id + 1
        if token_id in specials or (content not in vocab and token_id in vocab.values()):
            raise _Refused(f"gives the added token {quoted(content)} an id another token has.")
        specials[token_id] = content
    return specials, matching


def _normalizer_or_steps(node: Any) -> tuple[str, bool, tuple[Normalizer, ...]]:
    """(normalization, lowercase, steps): a named normalization where one is the same, else the
    file's chain of steps (``normalization="custom"``)."""
    try:
        return (*_normalizer(node), ())
    except _Refused:
        pass
    try:
        steps = tuple(normalizer_from_dict(step) for step in _sequence(node, "normalizers"))
    except ConfigError as error:
        raise _Refused(f"has a normalizer BPE Studio cannot use: {after_colon(error)}") from None
    return "custom", False, steps


def _pre_tokenizer_or_steps(node: Any, notes: list[str]) -> tuple[str, str, bool, tuple[PreTokenizer, ...]]:
    """(unit, pre-tokenizer, prefix space, steps): a named pre-tokenizer where one splits the
    same, else the file's chain of steps (``pretokenize="custom"``)."""
    try:  # read as steps first, which checks every option's type ("false" is not false)
        steps = tuple(pre_tokenizer_from_dict(step) for step in _sequence(node, "pretokenizers"))
    except ConfigError as error:
        raise _Refused(f"has a pre-tokenizer BPE Studio cannot use: {after_colon(error)}") from None
    named_notes: list[str] = []
    try:
        named = _pre_tokenizer(node, named_notes)
    except _Refused:
        pass
    else:
        notes.extend(named_notes)  # only a named pre-tokenizer has notes on how it reads the file
        return (*named, ())
    for step in steps[:-1]:
        if isinstance(step, ByteLevel):
            later = steps[steps.index(step) + 1].kind
            raise _Refused(f"has the pre-tokenizer {later} after ByteLevel, which BPE Studio does not model.")
    unit = "byte" if steps and isinstance(steps[-1], ByteLevel) else "char"
    return unit, "custom", False, steps


def _normalizer(node: Any) -> tuple[str, bool]:
    """(normalization, lowercase)."""
    steps = _sequence(node, "normalizers")
    kinds = [str(step.get("type")) for step in steps]
    normalization = _NORMAL_FORMS.get(kinds[0], "none") if kinds else "none"
    rest = kinds[1:] if normalization != "none" else kinds
    if rest not in ([], ["Lowercase"]):
        raise _Refused(f"has the normalizer {quoted('+'.join(kinds))}, which BPE Studio does not model.")
    return normalization, rest == ["Lowercase"]


def _pre_tokenizer(node: Any, notes: list[str]) -> tuple[str, str, bool]:
    """(unit, pre-tokenizer, prefix space): at most one split, and ByteLevel last."""
    unit, split, prefix_space = "char", None, False
    for step in _sequence(node, "pretokenizers"):
        kind = step.get("type")
        if unit == "byte":
            raise _Refused(
                f"has the pre-tokenizer {shown(kind)} after ByteLevel, which BPE Studio does not model."
            )
        if kind == "ByteLevel":
            unit, prefix_space = "byte", bool(step.get("add_prefix_space"))
            found = "gpt2" if step.get("use_regex", True) else None
            if prefix_space and split is not None:  # HF then puts a space before every piece
                raise _Refused(
                    "adds a prefix space to each piece of an earlier split, which BPE Studio does not model."
                )
        elif kind == "Whitespace":
            found = "words"
        elif kind == "WhitespaceSplit":
            found = "whitespace"
            notes.append(
                "Its WhitespaceSplit is read as str.split(), which also splits at U+001C-U+001F "
                "(Rust's whitespace does not)."
            )
        elif kind == "Split":
            found = _split(step)
        else:
            raise _Refused(f"has the pre-tokenizer {shown(kind)}, which BPE Studio does not model.")
        if found is not None and split is not None:
            raise _Refused("splits text twice in its pre-tokenizer, which BPE Studio does not model.")
        split = split or found
    return unit, split or "none", prefix_space


def _split(step: dict[str, Any]) -> str:
    pattern = step.get("pattern")
    regex = pattern.get("Regex") if isinstance(pattern, dict) else None
    regex = regex if isinstance(regex, str) else None
    behavior, invert = step.get("behavior"), step.get("invert")
    if behavior == "Isolated" and regex in SPLIT_PATTERNS and not invert:
        return SPLIT_PATTERNS[regex]
    if behavior == "Removed" and regex == PY_WHITESPACE and not invert:
        return "whitespace"
    if behavior == "Removed" and regex == SPACES_PATTERN and invert is True:
        return "spaces"
    raise _Refused(
        f"splits with the pattern {shown(regex or pattern)} ({shown(behavior)}), which BPE Studio does not "
        "model."
    )


def _sequence(node: Any, field: str) -> list[dict[str, Any]]:
    """A component as the list of its steps (a Sequence's, or itself)."""
    if node is None:
        return []
    if not isinstance(node, dict):
        raise _Refused("has a component that is not an object.")
    if node.get("type") == "Sequence":
        steps = node.get(field)
        if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
            raise _Refused(f"has a Sequence without its {field}.")
        return [s for step in steps for s in _sequence(step, field)]
    return [node]


# -- writing -------------------------------------------------------------------------------


def hf_dict(encoder: Encoder) -> dict[str, Any]:
    """``tokenizer.json`` data that Hugging Face ``tokenizers`` encodes with exactly as ``encoder``."""
    config = encoder.config
    if config.end_of_word is not None and not config.attach_marker:
        raise InputError(
            "A separate end-of-word marker has no Hugging Face equivalent (it attaches the suffix to "
            "the last unit): train with --attach-marker."
        )
    suffix = config.end_of_word
    strings = [
        key if i in encoder.special_ids else display(key, suffix) for i, key in enumerate(encoder.keys)
    ]
    vocab: dict[str, int] = {}
    for token_id, string in enumerate(strings):
        if not string:
            continue  # an id no token has now (bpe_core.encoding.encoder.Encoder.renumbered)
        if vocab.setdefault(string, token_id) != token_id:
            raise InputError(
                f"The token {quoted(string)} has two ids ({vocab[string]} and {token_id}); Hugging Face "
                "allows one."
            )
    merges = []
    for merge in encoder.merges:
        left, right = strings[merge.left], strings[merge.right]
        if vocab.get(joined(left, right, config.continuing_prefix)) != merge.token:
            raise InputError(
                f"Merge {merge.rank + 1} ({quoted(left)}, {quoted(right)}) does not spell its token in "
                "Hugging Face's terms."
            )
        merges.append([left, right])
    matching = {match.content: match for match in config.special_matching}
    added = [
        {
            "id": i,
            "special": True,  # unless the token's matching says it is not
            **matching.get(encoder.keys[i], SpecialMatch(encoder.keys[i])).to_dict(),
        }
        for i in sorted(encoder.special_ids)
    ]
    unknown = encoder.unknown_id if encoder.unknown_id not in (UNKNOWN_ID, None) else None
    processor, decoder = _written_parts(encoder, vocab)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _normalizer_node(config),
        "pre_tokenizer": _pre_tokenizer_node(config),
        "post_processor": processor,
        "decoder": decoder,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None if unknown is None else strings[unknown],
            "continuing_subword_prefix": config.continuing_prefix,
            "end_of_word_suffix": suffix,
            "fuse_unk": config.fuse_unknown,
            "byte_fallback": config.byte_fallback,
            "ignore_merges": config.ignore_merges,
            "vocab": vocab,
            "merges": merges,
        },
    }


def hf_export_notes(encoder: Encoder) -> list[str]:
    """What an export to ``tokenizer.json`` leaves out of the encoder's kept parts, and why."""
    return _checked_parts(encoder, _vocab_of(encoder))[2]


def _vocab_of(encoder: Encoder) -> dict[str, int]:
    """Each token's string as Hugging Face spells it -> its id (the first id, for a repeated one)."""
    suffix = encoder.config.end_of_word
    vocab: dict[str, int] = {}
    for i, key in enumerate(encoder.keys):
        if key:
            vocab.setdefault(key if i in encoder.special_ids else display(key, suffix), i)
    return vocab


def _written_parts(encoder: Encoder, vocab: dict[str, int]) -> tuple[Any, Any]:
    """The post-processor and decoder to write: the kept ones where they still fit, else none
    and the decoder the pipeline implies."""
    processor, decoder, _ = _checked_parts(encoder, vocab)
    if decoder is None and not joins_tokens(encoder.hf_parts):
        decoder = _decoder_node(encoder.config)
    return processor, decoder


def _checked_parts(encoder: Encoder, vocab: dict[str, int]) -> tuple[Any, Any, list[str]]:
    """(post-processor, decoder, notes on those dropped): copies, so the file's data is never
    changed through what is written."""
    parts = encoder.hf_parts or {}
    processor, decoder = parts.get("post_processor"), parts.get("decoder")
    notes = []
    if processor is not None and not _processor_fits(processor, vocab):
        processor = None
        notes.append(
            "The post-processor is left out: a token it adds is no longer in the vocabulary at its id."
        )
    if decoder is not None and not _decoder_fits(decoder, encoder.config):
        decoder = None
        notes.append(
            "The decoder is left out (one for this pipeline is written): it no longer fits the pipeline."
        )
    return copy.deepcopy(processor), copy.deepcopy(decoder), notes


def _processor_fits(node: Any, vocab: dict[str, int]) -> bool:
    """Whether every token the post-processor adds is the vocabulary's at the id it gives."""
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind == "Sequence":
        steps = node.get("processors")
        return isinstance(steps, list) and all(_processor_fits(step, vocab) for step in steps)
    if kind == "ByteLevel":
        return True
    if kind in ("BertProcessing", "RobertaProcessing"):
        pairs = [node.get("sep"), node.get("cls")]
        return all(isinstance(p, list) and len(p) == 2 and _is_token(p[0], p[1], vocab) for p in pairs)
    if kind == "TemplateProcessing":
        tokens = node.get("special_tokens")
        return isinstance(tokens, dict) and all(
            isinstance(t, dict)
            and isinstance(t.get("tokens"), list)
            and isinstance(t.get("ids"), list)
            and len(t["tokens"]) == len(t["ids"])
            and all(_is_token(token, i, vocab) for token, i in zip(t["tokens"], t["ids"], strict=True))
            for t in tokens.values()
        )
    return False  # a kind Hugging Face does not have


def _is_token(token: Any, token_id: Any, vocab: dict[str, int]) -> bool:
    return isinstance(token, str) and vocab.get(token, -1) == token_id and not isinstance(token_id, bool)


def _decoder_fits(node: Any, config: PipelineConfig) -> bool:
    """Whether the decoder reads tokens as the pipeline spells them: its byte alphabet, marker,
    prefix or space character where it has one (the others need nothing of the pipeline)."""
    try:
        steps = _sequence(node, "decoders")
    except _Refused:  # a step that is no object: Hugging Face could not read it either
        return False
    space, _ = space_escape(config.normalizers, config.pre_tokenizers)
    for step in steps:
        kind = step.get("type")
        if kind == "ByteLevel" and config.unit != "byte":
            return False
        if kind == "BPEDecoder" and step.get("suffix", "</w>") != config.end_of_word:
            return False
        if kind == "WordPiece" and step.get("prefix", "##") != config.continuing_prefix:
            return False
        if kind == "Metaspace" and step.get("replacement", "▁") != space:
            return False
    return True


def write_hf(encoder: Encoder, path: str | Path) -> None:
    write_atomic(path, json.dumps(hf_dict(encoder), ensure_ascii=False, indent=1) + "\n")


def _normalizer_node(config: PipelineConfig) -> dict[str, Any] | None:
    if config.normalization == "custom":
        return _chain("normalizers", steps_to_dicts(config.normalizers))
    steps = [{"type": form} for form, name in _NORMAL_FORMS.items() if name == config.normalization]
    if config.lowercase:
        steps.append({"type": "Lowercase"})
    if len(steps) > 1:
        return {"type": "Sequence", "normalizers": steps}
    return steps[0] if steps else None


def _chain(field: str, steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    if len(steps) > 1:
        return {"type": "Sequence", field: steps}
    return steps[0] if steps else None


def _pre_tokenizer_node(config: PipelineConfig) -> dict[str, Any] | None:
    if config.pretokenize == "custom":
        return _chain("pretokenizers", steps_to_dicts(config.pre_tokenizers))
    byte_level = config.unit == "byte"
    mode = config.pretokenize
    if byte_level and mode == "gpt2":
        return _byte_level(config, use_regex=True)
    steps: list[dict[str, Any]] = []
    if mode in PATTERN_OF_MODE:
        steps.append(_split_node(PATTERN_OF_MODE[mode], "Isolated"))
    elif mode == "words":
        steps.append({"type": "Whitespace"})
    elif mode == "whitespace":
        steps.append(_split_node(PY_WHITESPACE, "Removed"))
    elif mode == "spaces":  # the words are the pattern's matches: the rest is removed
        steps.append({**_split_node(SPACES_PATTERN, "Removed"), "invert": True})
    if config.prefix_space and (not byte_level or steps):  # HF would put one before every piece
        raise InputError(
            "Hugging Face adds a prefix space once only to byte-level text split by the GPT-2 pattern "
            "or not at all; this model's pipeline has it elsewhere."
        )
    if byte_level:
        steps.append(_byte_level(config, use_regex=False))
    if len(steps) > 1:
        return {"type": "Sequence", "pretokenizers": steps}
    return steps[0] if steps else None


def _byte_level(config: PipelineConfig, use_regex: bool) -> dict[str, Any]:
    return {
        "type": "ByteLevel",
        "add_prefix_space": config.prefix_space,
        "trim_offsets": True,
        "use_regex": use_regex,
    }


def _split_node(pattern: str, behavior: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _decoder_node(config: PipelineConfig) -> dict[str, Any] | None:
    if config.unit == "byte":
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    if config.end_of_word is not None:
        return {"type": "BPEDecoder", "suffix": config.end_of_word}
    if config.continuing_prefix is not None:  # takes the prefix off, and a space before other tokens
        return {"type": "WordPiece", "prefix": config.continuing_prefix, "cleanup": False}
    # Without a decoder Hugging Face joins tokens with spaces: one that spells spaces as a
    # character gets the decoder that turns it back (and takes off the space put before the text).
    fallback = [{"type": "ByteFallback"}] if config.byte_fallback else []
    metaspace = next((s for s in config.pre_tokenizers if isinstance(s, Metaspace)), None)
    if metaspace is not None:
        return _chain("decoders", [*fallback, metaspace.to_dict()])
    space, prepended = space_escape(config.normalizers, config.pre_tokenizers)
    if space is not None:  # a normalizer's Replace, as Hugging Face's SentencePiece conversions write
        return spaces_decoder(space, config.byte_fallback, prepended)
    return None


def spaces_decoder(space: str, byte_fallback: bool, prepended: bool) -> dict[str, Any]:
    """The decoder Hugging Face's SentencePiece conversion writes: ``space`` back to a space,
    byte tokens to their bytes, the tokens joined, and the one space put before the text taken off."""
    steps: list[dict[str, Any]] = []
    if space != " ":
        steps.append({"type": "Replace", "pattern": {"String": space}, "content": " "})
    if byte_fallback:
        steps.append({"type": "ByteFallback"})
    steps.append({"type": "Fuse"})
    if prepended:
        steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    return {"type": "Sequence", "decoders": steps}
