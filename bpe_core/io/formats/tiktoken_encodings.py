"""tiktoken's encodings by name: the split pattern and special tokens a ``.tiktoken`` file lacks.

A ``.tiktoken`` file holds ranks only; tiktoken gives each encoding its pattern and special
tokens in code. Named here (as ``tiktoken_ext.openai_public`` defines them), so that
``--encoding cl100k_base`` completes a ranks file exactly, and a file is recognised by its
content (the SHA-256 tiktoken checks downloads against), as tiktoken's cache names its files
by a hash of their address instead of by encoding.

Imports only the standard library.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TiktokenEncoding:
    """A tiktoken encoding: its ranks file's SHA-256, the pre-tokenizer naming its split
    pattern here, and its special tokens with their ids."""

    name: str
    sha256: str
    pattern: str
    specials: dict[str, int]


_ENDOFTEXT, _ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
_FIM = {"<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260}
ENCODINGS = {
    e.name: e
    for e in (
        TiktokenEncoding(
            "r50k_base",
            "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
            "gpt2",
            {_ENDOFTEXT: 50256},
        ),
        TiktokenEncoding(
            "p50k_base",
            "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
            "gpt2",
            {_ENDOFTEXT: 50256},
        ),
        TiktokenEncoding(
            "cl100k_base",
            "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            "gpt4",
            {_ENDOFTEXT: 100257, **_FIM, _ENDOFPROMPT: 100276},
        ),
        TiktokenEncoding(
            "o200k_base",
            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            "o200k",
            {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        ),
    )
}


def encoding_of_content(data: bytes) -> TiktokenEncoding | None:
    """The encoding whose ranks file ``data`` is, by its SHA-256, or ``None``."""
    digest = hashlib.sha256(data).hexdigest()
    return next((e for e in ENCODINGS.values() if e.sha256 == digest), None)


def encoding_of_file(path: str | Path) -> TiktokenEncoding | None:
    """:func:`encoding_of_content` of a file (``None`` if it cannot be read)."""
    try:
        return encoding_of_content(Path(path).read_bytes())
    except OSError:
        return None
