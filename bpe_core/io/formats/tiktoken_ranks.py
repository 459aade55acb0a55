"""tiktoken's ``.tiktoken`` ranks: one ``base64(token bytes) rank`` line per token.

A rank is the token's id and the priority of the merge that makes it: tiktoken merges, in a
piece, the adjacent pair whose concatenation has the lowest rank. The merge list BPE Studio
encodes with is recovered from the ranks alone: a token of rank r is what byte-level BPE makes
of its own bytes with the ranks below r, and that ends in exactly two parts (its pair). Ids are
kept exactly: the encoder's token i is the token of rank i.

Example: ``encoder_from_ranks(read_ranks("gpt2.tiktoken"), "gpt2").encode(text).ids`` equals
``tiktoken.get_encoding("gpt2").encode_ordinary(text)``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.errors import ConfigError, InputError, quoted
from bpe_core.io.formats.checks import LONE_SURROGATE, has_lone_surrogate, whole_number
from bpe_core.io.formats.recovery import LONGEST, Recovery
from bpe_core.io.formats.tiktoken_encodings import ENCODINGS
from bpe_core.pipeline.byte_alphabet import CHAR_TO_BYTE, bytes_to_display
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.runtime.fileio import read_bounded

# Split patterns by name, as ``bpe_core.pipeline.pretokenize`` names them; an encoding's name
# (``cl100k_base``) gives its special tokens too.
PATTERNS = {
    "gpt2": "gpt2",
    "gpt4": "gpt4",
    "cl100k": "gpt4",
    "o200k": "o200k",
    **{name: encoding.pattern for name, encoding in ENCODINGS.items()},
}


def read_ranks(path: str | Path) -> dict[bytes, int]:
    """The ranks of a ``.tiktoken`` file; a damaged file raises one sentence naming the line."""
    path = Path(path)
    ranks: dict[bytes, int] = {}
    seen: set[int] = set()
    for number, line in enumerate(read_bounded(path, "tiktoken file").splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        rank = whole_number(fields[1]) if len(fields) == 2 else None
        if rank is None:
            raise InputError(f"Line {number} of the tiktoken file {str(path)!r} is not 'base64-token rank'.")
        try:
            token = base64.b64decode(fields[0], validate=True)
        except (binascii.Error, ValueError):
            raise InputError(
                f"Line {number} of the tiktoken file {str(path)!r} has a token that is not base64."
            ) from None
        if not token or token in ranks or rank in seen:
            raise InputError(
                f"Line {number} of the tiktoken file {str(path)!r} repeats a token or a rank, or is empty."
            )
        if len(token) > LONGEST:  # recovering its merge costs about its length
            raise InputError(
                f"Line {number} of the tiktoken file {str(path)!r} has a token of {len(token):,} bytes, "
                f"longer than any real tokenizer's (at most {LONGEST:,} read)."
            )
        ranks[token] = rank
        seen.add(rank)
    if sorted(seen) != list(range(len(seen))):
        raise InputError(f"The ranks of the tiktoken file {str(path)!r} are not 0, 1, 2, … without gaps.")
    return ranks


def merges_of(ranks: dict[bytes, int]) -> tuple[list[str], list[Merge]]:
    """Token keys by id (bytes as ``bpe_core.pipeline.byte_alphabet`` symbols) and the merges in rank
    order (``bpe_core.io.formats.recovery``); raises ``InputError`` if the ranks are not those of a
    byte-level BPE."""
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise InputError(
            f"The tiktoken ranks lack the single byte {missing[0]}: they are not byte-level BPE."
        )
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise InputError("The tiktoken ranks are not 0, 1, 2, … without gaps.")
    recovery = Recovery(ranks)
    merges: list[Merge] = []
    for rank, token in enumerate(recovery.tokens):
        if len(token) == 1:
            continue
        pair = recovery.pair(rank)
        if pair is None:
            shown = quoted(token.decode("utf-8", "backslashreplace"))
            raise InputError(
                f"The token {shown} of rank {rank:,} is never made by merging its bytes in rank order "
                "(tiktoken gives it only to a piece that is the whole token): BPE Studio does not "
                "model such ranks."
            )
        merges.append(Merge(len(merges), pair[0], pair[1], rank, 0))
    return list(map(bytes_to_display, recovery.tokens)), merges


def encoder_from_ranks(
    ranks: dict[bytes, int], pattern: str = "gpt2", specials: Sequence[str] = ()
) -> Encoder:
    """An encoder for the ranks with a named split pattern (``gpt2``, ``gpt4`` or ``cl100k``,
    ``o200k``) or a tiktoken encoding's name (``cl100k_base``: its pattern and its special tokens
    at their ids); ``specials`` take the ids after the ranks, in order (GPT-2's ``<|endoftext|>``
    is 50256), or after an encoding's own special tokens, as a tiktoken encoding extended with
    more of them numbers them."""
    if pattern not in PATTERNS:
        raise InputError(f"Unknown split pattern {pattern!r}; choose one of: {', '.join(PATTERNS)}.")
    if any(map(has_lone_surrogate, specials)):
        raise InputError(f"A special token given holds {LONE_SURROGATE}.")
    keys, merges = merges_of(ranks)
    encoding = ENCODINGS.get(pattern)
    ids: dict[str, int] = {}
    if encoding is not None:
        ids = dict(sorted(encoding.specials.items(), key=lambda item: item[1]))
        if min(ids.values()) < len(keys):
            raise InputError(
                f"The ranks run past the id {min(ids.values()):,} of {encoding.name}'s first special token: "
                f"they are not {encoding.name}'s."
            )
    after = max(ids.values(), default=len(keys) - 1) + 1
    for token in specials:
        if token not in ids:
            ids[token], after = after, after + 1
    try:
        config = PipelineConfig(
            unit="byte", pretokenize=PATTERNS[pattern], end_of_word=None, special_tokens=tuple(ids)
        )
    except ConfigError as error:
        raise InputError(str(error)) from None
    size = max(ids.values(), default=len(keys) - 1) + 1
    all_keys = [*keys, *[""] * (size - len(keys))]  # ids no token has, before a special's own
    for token, token_id in ids.items():
        all_keys[token_id] = token
    return Encoder(config, all_keys, merges, list(ids.values()))


def ranks_of(encoder: Encoder) -> dict[bytes, int]:
    """The ``.tiktoken`` ranks of a byte-level encoder whose ids are ranks: no end-of-word
    marker, the 256 bytes first, then one new token per merge in order, then any special tokens
    (which a ``.tiktoken`` file does not hold: tiktoken is given them apart)."""
    check_plain_byte_level(encoder.config, "tiktoken ranks")
    keys = encoder.keys[: min(encoder.special_ids, default=len(encoder.keys))]
    while keys and not keys[-1]:  # ids no token has now, between the ranks and the specials
        keys = keys[:-1]
    if "" in keys or len(keys) < 256:  # specials first (as trained here) left no ranks: an empty file
        raise InputError("The model's special tokens do not come after its ranks, as tiktoken needs.")
    ranks = {bytes(CHAR_TO_BYTE[ch] for ch in key): i for i, key in enumerate(keys)}
    if len(ranks) != len(keys) or any(len(t) != 1 for t, i in ranks.items() if i < 256):
        raise InputError("The model's ids are not tiktoken ranks (the 256 bytes first, each token once).")
    if any(merge.token != 256 + merge.rank for merge in encoder.merges):
        raise InputError("The model's merges do not each make the next id, as tiktoken ranks need.")
    longest = max(ranks, key=len)
    if len(longest) > LONGEST:  # written, the file could not be read back here
        raise InputError(
            f"The model has a token of {len(longest):,} bytes (rank {ranks[longest]:,}); tiktoken ranks "
            f"are read back here up to {LONGEST:,} bytes a token: export it as a Hugging Face tokenizer.json."
        )
    return ranks


def check_plain_byte_level(config: PipelineConfig, what: str) -> None:
    """Files that hold merges and nothing of the pipeline (tiktoken ranks, GPT-2's files) fit
    only a model whose pipeline a reader can be told by name: bytes split by the GPT-2, cl100k or
    o200k pattern, nothing normalized, no marker, no prefix space."""
    if (
        config.unit != "byte"
        or config.end_of_word is not None
        or config.pretokenize not in ("gpt2", "gpt4", "o200k")
        or config.normalization != "none"
        or config.lowercase
        or config.prefix_space
        or config.continuing_prefix
    ):
        raise InputError(
            f"{what[0].upper()}{what[1:]} hold only byte-level merges split by the GPT-2, cl100k or o200k "
            "pattern, without normalization, a marker, a prefix space or a continuing-subword prefix; "
            "this model has more."
        )


def ranks_text(ranks: dict[bytes, int]) -> str:
    """The ``.tiktoken`` file of the ranks, in rank order."""
    ordered = sorted(ranks.items(), key=lambda item: item[1])
    return "".join(f"{base64.b64encode(token).decode('ascii')} {rank}\n" for token, rank in ordered)
