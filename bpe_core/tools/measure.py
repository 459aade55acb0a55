"""How tokenizers compare on the same text: tokens, characters and bytes per token, fertility.

``measure(encoders, texts)`` encodes each text with each tokenizer (the fast ids-only path, a
long text a part at a time so memory stays flat) and counts, per tokenizer and text: characters
(code points), bytes (UTF-8), words (``str.split()``), tokens, and unknown tokens (the unknown
token's id, or a unit no token covers). The ratios users compare follow from those counts:
characters and bytes per token (compression), tokens per word (fertility), and the share of
unknown tokens. Byte-fallback tokens (``<0xE2>``) are counted apart: they are known tokens, but
a word spelled in bytes is one the vocabulary did not learn.

Example::

    >>> from bpe_core import Corpus, PipelineConfig, Trainer
    >>> trainer = Trainer(Corpus.from_text("low low lower", PipelineConfig()))
    >>> before = trainer.encoder()
    >>> _ = trainer.run()
    >>> counts = measure({"before": before, "after": trainer.encoder()}, {"text": "low lower"})
    >>> counts["before"]["text"].tokens, counts["after"]["text"].tokens, counts["after"]["text"].words
    (10, 5, 2)

Imports the engine's encoder only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass

from bpe_core.encoding.encoder import UNKNOWN_ID, Encoder


@dataclass(frozen=True)
class Counts:
    """What one tokenizer made of one text."""

    characters: int  # code points
    bytes: int  # UTF-8 bytes
    words: int  # whitespace-separated, as str.split() makes them
    tokens: int
    unknown: int  # the unknown token, or units no token covers
    byte_fallback: int = 0  # tokens that spell a character as one of its UTF-8 bytes

    @property
    def characters_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        """Fertility: how many tokens a word takes on average."""
        return self.tokens / self.words if self.words else 0.0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class TextSize:
    """A text's own size, the same for every tokenizer."""

    characters: int
    bytes: int
    words: int


def text_size(blocks: Iterable[str]) -> TextSize:
    """The size of the text ``blocks`` spell together (counted as it streams by)."""
    characters = size = words = 0
    ends_in_word = False  # a word cut between two blocks is one word
    for block in blocks:
        if not block:
            continue
        characters += len(block)
        size += len(block.encode("utf-8"))
        words += len(block.split())
        if ends_in_word and not block[0].isspace():
            words -= 1
        ends_in_word = not block[-1].isspace()
    return TextSize(characters, size, words)


def count_tokens(
    encoder: Encoder,
    blocks: Iterable[str],
    allow_special: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[int, int, int]:
    """(tokens, unknown tokens, byte-fallback tokens) the encoder makes of the text ``blocks``
    spell together, encoded a part at a time (exactly as the whole text)."""
    unknown_ids = {UNKNOWN_ID} | ({encoder.unknown_id} if encoder.unknown_id is not None else set())
    byte_ids = encoder.fallback_ids
    tokens = unknown = fallback = 0
    offset = 0
    for part in encoder.parts(blocks, allow_special=allow_special):
        if cancelled is not None and cancelled():
            break
        ids = encoder.encode_ids(part, allow_special=allow_special, offset=offset)
        offset += len(part)
        tokens += len(ids)
        if byte_ids:  # one count of every id (in C), rather than a pass per byte token
            counted = Counter(ids)
            unknown += sum(counted[i] for i in unknown_ids)
            fallback += sum(counted[i] for i in byte_ids)
        else:
            unknown += sum(ids.count(i) for i in unknown_ids)
        encoder.trim_caches()
    return tokens, unknown, fallback


def measure(
    encoders: Mapping[str, Encoder],
    texts: Mapping[str, str | Callable[[], Iterable[str]]],
    allow_special: bool = False,
) -> dict[str, dict[str, Counts]]:
    """tokenizer name -> text name -> :class:`Counts`. A text is a string, or a function giving
    its blocks anew each time it is called (a file read in blocks, once per tokenizer)."""

    def blocks(text: str | Callable[[], Iterable[str]]) -> Iterable[str]:
        return [text] if isinstance(text, str) else text()

    sizes = {name: text_size(blocks(text)) for name, text in texts.items()}
    out: dict[str, dict[str, Counts]] = {}
    for model, encoder in encoders.items():
        out[model] = {}
        for name, text in texts.items():
            tokens, unknown, fallback = count_tokens(encoder, blocks(text), allow_special)
            size = sizes[name]
            out[model][name] = Counts(size.characters, size.bytes, size.words, tokens, unknown, fallback)
    return out


def counts_of(encoding_ids: list[int], unknown_flags: list[bool], encoder: Encoder, text: str) -> Counts:
    """The :class:`Counts` of one encoding already made (the window encodes to paint anyway)."""
    size = text_size([text])
    byte_ids = encoder.fallback_ids
    fallback = sum(1 for i in encoding_ids if i in byte_ids) if byte_ids else 0
    return Counts(size.characters, size.bytes, size.words, len(encoding_ids), sum(unknown_flags), fallback)


def differing_boundaries(spans_of: list[list[tuple[int, int]]]) -> set[int]:
    """The character offsets where some tokenizers end a token and others do not: where their
    segmentations part (``spans_of``: each tokenizer's token spans over the same text)."""
    if len(spans_of) < 2:
        return set()
    ends = [{end for _, end in spans} for spans in spans_of]
    return ends[0].union(*ends[1:]) - ends[0].intersection(*ends[1:])
