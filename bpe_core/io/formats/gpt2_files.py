"""GPT-2's own files: ``vocab.json`` (token -> id, tokens in GPT-2's byte-to-character form) and
``merges.txt`` (one ``left right`` pair per line, rank order, an optional ``#version`` header).

The merge list is given, so nothing is recovered; ids are kept exactly. Tokens that no merge
makes and that are not a single byte (GPT-2's ``<|endoftext|>``) are special tokens at their
own ids: text never makes them, and they are matched where special tokens are allowed.
"""

from __future__ import annotations

import json
from pathlib import Path

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.encoding.numbering import sparse_limit
from bpe_core.errors import ConfigError, InputError
from bpe_core.io.formats.checks import LONE_SURROGATE, after_colon, json_has_lone_surrogate
from bpe_core.io.formats.merge_order import early_merge, last_listings
from bpe_core.io.formats.tiktoken_ranks import PATTERNS, check_plain_byte_level
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.runtime.fileio import read_bounded, write_atomic


def read_gpt2(vocab_path: str | Path, merges_path: str | Path, pattern: str = "gpt2") -> Encoder:
    """An encoder from GPT-2 style files; a damaged file raises one sentence naming it."""
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    named = f"The vocabulary file {str(vocab_path)!r}"
    if pattern not in PATTERNS:
        raise InputError(f"Unknown split pattern {pattern!r}; choose one of: {', '.join(PATTERNS)}.")
    raw = read_bounded(vocab_path, "vocabulary file")  # a missing or too large file says so itself
    try:
        vocab = json.loads(raw.decode("utf-8"))
    except RecursionError:  # valid JSON, maybe; a vocabulary is one flat object
        raise InputError(f"{named} is nested too deeply to be a vocabulary.") from None
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"{named} is not JSON.") from None
    if json_has_lone_surrogate(raw, vocab):
        raise InputError(f"{named} holds {LONE_SURROGATE}.")
    if not isinstance(vocab, dict) or not all(
        isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) for k, v in vocab.items()
    ):
        raise InputError(f"{named} is not an object of token: id.")
    by_id = {token_id: key for key, token_id in vocab.items()}
    if (
        len(by_id) != len(vocab)
        or min(by_id, default=0) < 0
        or max(by_id, default=0) >= sparse_limit(len(vocab))
    ):
        raise InputError(
            f"The ids of the vocabulary file {str(vocab_path)!r} repeat, are negative or are too sparse."
        )
    missing = [b for b, char in enumerate(BYTE_TO_CHAR) if char not in vocab]
    if missing:
        raise InputError(
            f"The vocabulary file {str(vocab_path)!r} lacks the byte {missing[0]}: it is not byte-level."
        )
    keys = [by_id.get(i, "") for i in range(max(by_id) + 1)]  # "": an id no token has
    merges: list[Merge] = []
    raw = read_bounded(merges_path, "merges file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"The merges file {str(merges_path)!r} is not UTF-8 text.") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(p in vocab for p in parts) or parts[0] + parts[1] not in vocab:
            where = f"Line {number} of the merges file {str(merges_path)!r}"
            raise InputError(f"{where} is not two tokens whose join is a token.")
        left, right = parts
        merges.append(Merge(len(merges), vocab[left], vocab[right], vocab[left + right], 0))
    merges, places = last_listings(merges)  # a pair listed twice ranks at its last place, as in HF
    early = early_merge(merges)
    if early is not None:
        raise InputError(
            f"Merge {places[early.rank]} of the merges file {str(merges_path)!r} uses a token only a later "
            "merge makes."
        )
    made = {merge.token for merge in merges} | {vocab[char] for char in BYTE_TO_CHAR}
    specials = [i for i, key in enumerate(keys) if key and i not in made]
    try:
        config = PipelineConfig(
            unit="byte",
            pretokenize=PATTERNS[pattern],
            end_of_word=None,
            special_tokens=tuple(keys[i] for i in specials),
        )
    except ConfigError as error:  # its tokens no merge makes are special tokens
        raise InputError(f"{named} has special tokens BPE Studio cannot use: {after_colon(error)}") from None
    return Encoder(config, keys, merges, specials)


def gpt2_texts(encoder: Encoder) -> dict[str, str]:
    """``vocab.json`` and ``merges.txt`` of a byte-level encoder without a marker; special
    tokens are in the vocabulary at their ids."""
    check_plain_byte_level(encoder.config, "GPT-2 files")
    keys = encoder.keys
    vocab = {key: i for i, key in enumerate(keys) if key}  # "": an id no token has now
    if len(vocab) != sum(map(bool, keys)):
        raise InputError(
            "A special token of the model spells a token of its vocabulary; GPT-2 files hold one."
        )
    merges = "".join(f"{keys[m.left]} {keys[m.right]}\n" for m in encoder.merges)
    return {"vocab.json": json.dumps(vocab, ensure_ascii=False), "merges.txt": "#version: 0.2\n" + merges}


def write_gpt2(encoder: Encoder, folder: str | Path) -> tuple[Path, Path]:
    """The files of :func:`gpt2_texts` in ``folder`` (made if missing); returns their paths."""
    texts = gpt2_texts(encoder)
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"Cannot make the folder {str(folder)!r} ({error.strerror or error}).") from None
    vocab_path, merges_path = folder / "vocab.json", folder / "merges.txt"
    write_atomic(vocab_path, texts["vocab.json"])
    write_atomic(merges_path, texts["merges.txt"])
    return vocab_path, merges_path
