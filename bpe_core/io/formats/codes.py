"""Merge lists as text, one ``left right`` pair per line: subword-nmt's ``codes`` files.

``#version: 0.2`` (subword-nmt's own) attaches ``</w>`` to a word's last character; a file
without the header is version 0.1, where ``</w>`` is a symbol of its own. Words are split at
spaces and line breaks, as subword-nmt splits them. The file names no ids: the base symbols are
those the merges start from, numbered as a session numbers them (sorted), then one id per new
token in merge order.
"""

from __future__ import annotations

from pathlib import Path

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.errors import InputError, quoted
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import DEFAULT_MARKER, PipelineConfig
from bpe_core.pipeline.vocab import MARK, display, key_of, sorted_alphabet
from bpe_core.runtime.fileio import read_bounded, write_atomic

HEADER = "#version: 0.2"
_BYTE_CHARS = frozenset(BYTE_TO_CHAR)
_SPELLED_BYTES = frozenset(char for byte, char in enumerate(BYTE_TO_CHAR) if ord(char) != byte)  # Ġ: space


def read_codes(path: str | Path) -> Encoder:
    """The encoder of a codes file; a damaged one raises one sentence naming the line."""
    path = Path(path)
    try:
        text = read_bounded(path, "codes file").decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"The codes file {str(path)!r} is not UTF-8 text.") from None
    if "\x00" in text:  # NUL is the end-of-word marker's identity (bpe_core.pipeline.vocab), never text
        number = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(
            f"The codes file {str(path)!r} holds a NUL character on line {number}, which text never has."
        )
    lines = text.split("\n")
    if is_gpt2_merges(text):
        raise InputError(
            f"The file {str(path)!r} is GPT-2's merges.txt (pairs in GPT-2's byte alphabet, 'Ġ' for a "
            "space), whose vocab.json is missing beside it."
        )
    attached = lines[0].startswith("#version:")
    if attached and lines[0].split()[-1] not in ("0.2", "0.2.0"):
        raise InputError(
            f"The codes file {str(path)!r} has version {quoted(lines[0].split()[-1])}; 0.1 and 0.2 are known."
        )
    # subword-nmt splits words at spaces and line breaks only (a tab stays inside a word)
    config = PipelineConfig(pretokenize="spaces", end_of_word=DEFAULT_MARKER, attach_marker=attached)
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(lines[1:] if attached else lines, start=2 if attached else 1):
        parts = line.strip("\r\n ").split(" ")
        if parts == [""]:
            continue
        if len(parts) != 2 or not all(parts) or parts[0].endswith(DEFAULT_MARKER):
            raise InputError(f"Line {number} of the codes file {str(path)!r} is not two symbols.")
        pairs.append((key_of(parts[0], DEFAULT_MARKER), key_of(parts[1], DEFAULT_MARKER)))
    made: set[str] = set()
    base: set[str] = set() if attached else {MARK}  # a marker of its own ends every word
    for left, right in pairs:
        for part in (left, right):
            if part not in made and part not in base:
                if len(part.removesuffix(MARK)) > 1 or (part == MARK and attached):
                    shown = quoted(display(part, DEFAULT_MARKER))
                    raise InputError(f"The codes file {str(path)!r} uses {shown} before a merge makes it.")
                base.add(part)
        made.add(left + right)
    keys = sorted_alphabet(base, DEFAULT_MARKER)
    ids = {key: i for i, key in enumerate(keys)}
    merges: list[Merge] = []
    for rank, (left, right) in enumerate(pairs):
        token = ids.setdefault(left + right, len(keys))
        if token == len(keys):
            keys.append(left + right)
        merges.append(Merge(rank, ids[left], ids[right], token, 0))
    return Encoder(config, keys, merges)


def is_gpt2_merges(text: str) -> bool:
    """Whether a list of pairs is GPT-2's merges.txt rather than codes: no ``</w>`` anywhere,
    every character one of GPT-2's byte characters, and some of them a byte it spells with
    another character (``Ġ`` for a space, which a codes file does not hold without ``</w>``)."""
    chars = set(text) - {" ", "\n", "\r"}
    return DEFAULT_MARKER not in text and chars <= _BYTE_CHARS and not chars.isdisjoint(_SPELLED_BYTES)


def codes_text(encoder: Encoder) -> str:
    """The codes file of a character-level model with the ``</w>`` marker and no special tokens."""
    config = encoder.config
    if config.unit != "char" or config.end_of_word != DEFAULT_MARKER or encoder.n_special:
        raise InputError(
            "Only a character-level model with the </w> marker and no special tokens makes a codes file."
        )
    if (
        config.pretokenize not in ("whitespace", "spaces")
        or config.normalization != "none"
        or config.lowercase
    ):
        raise InputError(
            "A codes file splits words at whitespace and normalizes nothing; this model does more."
        )
    tokens = encoder.tokens
    lines = [f"{tokens[m.left]} {tokens[m.right]}\n" for m in encoder.merges]
    return (HEADER + "\n" if config.attach_marker else "") + "".join(lines)


def write_codes(encoder: Encoder, path: str | Path) -> None:
    write_atomic(path, codes_text(encoder))
