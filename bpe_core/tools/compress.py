"""The classic compression variant of BPE (after Gage 1994, as Wikipedia tabulates it).

The data is one sequence of characters. Each merge writes its pair as a fresh single symbol that
does not occur in the data (``Z``, then ``Y``, ``X``, … as in the document), and a rule table
records what each symbol stands for; decompression applies the rules in reverse, step by step,
back to the input. Merges are chosen by the trainer, so counts and tie rules are exactly those of
training with ``--pretokenize none --end-of-word none``.

Example (the document's)::

    >>> steps = compress("aaabdaaabac", TrainingConfig(tie_break="hf")).steps
    >>> [(s.rule, s.data) for s in steps]
    [('Z = aa', 'ZabdZabac'), ('Y = ab', 'ZYdZYac'), ('X = ZY', 'XdXac')]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus
from bpe_core.training.config import TrainingConfig
from bpe_core.training.trainer import Trainer

# The document's symbols first: capital letters from the end of the alphabet, then small ones.
_PREFERRED = "ZYXWVUTSRQPONMLKJIHGFEDCBA" + "zyxwvutsrqponmlkjihgfedcba"
SEQUENCE = PipelineConfig(pretokenize="none", end_of_word=None)


@dataclass(frozen=True)
class Step:
    """One merge: ``symbol`` now stands for ``pair`` (two symbols of the data before the step),
    which occurred ``count`` times (replacements made); ``data`` is the data after the step."""

    symbol: str
    pair: tuple[str, str]
    count: int
    data: str

    @property
    def rule(self) -> str:
        return f"{self.symbol} = {self.pair[0]}{self.pair[1]}"


@dataclass(frozen=True)
class Compression:
    """``steps`` in order; ``compressed`` is the data after the last one; ``symbol_of`` maps a
    token id of the trainer to its symbol."""

    original: str
    steps: tuple[Step, ...]
    compressed: str
    symbol_of: dict[int, str]

    def decompression(self) -> Iterator[str]:
        """The data as each rule is undone, last rule first, ending with the input."""
        data = self.compressed
        for step in reversed(self.steps):
            data = data.replace(step.symbol, step.pair[0] + step.pair[1])
            yield data

    def decompress(self) -> str:
        """The rules undone all at once: each symbol of the compressed data written out as what
        it stands for (one pass over the data, where undoing them one by one passes once a rule)."""
        spelled: dict[str, str] = {}
        for step in self.steps:
            left, right = step.pair
            spelled[step.symbol] = spelled.get(left, left) + spelled.get(right, right)
        return "".join([spelled.get(symbol, symbol) for symbol in self.compressed])

    def data_after_steps(self) -> Iterator[str]:
        """The data after each step, in order: a pass over the data per step, so only for
        what asks for the data itself (the views below need far less)."""
        data = self.original
        for step in self.steps:  # str.replace is BPE's own left-to-right, non-overlapping replacement
            data = data.replace(step.pair[0] + step.pair[1], step.symbol)
            yield data

    def edges(self, size: int) -> list[tuple[int, str, str]]:
        """For each step, the length of the data after it and its first and last ``size``
        symbols, worked back from the compressed data without building the data.

        Undoing a step writes its pair for each of its symbols, so the first ``size`` symbols
        before a step come from the first ``size`` after it. That holds while each symbol
        stands for one step; a string merged again by another route keeps its symbol, so the
        edges are then taken from the data itself."""
        if len({step.symbol for step in self.steps}) < len(self.steps):
            return [(len(data), data[:size], data[-size:]) for data in self.data_after_steps()]
        length, head, tail = len(self.compressed), self.compressed[:size], self.compressed[-size:]
        edges = []
        for step in reversed(self.steps):
            edges.append((length, head, tail))
            pair = step.pair[0] + step.pair[1]
            length += step.count
            head = head.replace(step.symbol, pair)[:size]
            tail = tail.replace(step.symbol, pair)[-size:]
        edges.reverse()
        return edges


def fresh_symbols(data: str) -> Iterator[str]:
    """Symbols that never occur in ``data``: the document's letters, then other visible
    characters (no marks, spaces or controls, which would not read as one symbol)."""
    used = set(data)
    for char in _PREFERRED:
        if char not in used:
            yield char
    for code in range(0x100, 0x110000):
        char = chr(code)
        if char not in used and unicodedata.category(char)[0] in "LNS":
            yield char


def compress(
    text: str,
    training: TrainingConfig | None = None,
    merges: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    every_step: bool = True,
) -> Compression:
    """Train on ``text`` as one sequence and write each merge as a fresh symbol (see
    :func:`compression_of` for ``every_step``)."""
    trainer = Trainer(Corpus.from_text(text, SEQUENCE), training or TrainingConfig())
    trainer.run(merges=merges, progress=progress)
    return compression_of(trainer, every_step)


def is_one_sequence(config: PipelineConfig) -> bool:
    """Whether a corpus is the classic variant's data: one sequence of characters, untouched."""
    return (
        config.pretokenize == "none"
        and config.end_of_word is None
        and config.unit == "char"
        and config.normalization == "none"
        and not config.lowercase
        and not config.special_tokens
    )


def compression_of(trainer: Trainer, every_step: bool = True) -> Compression:
    """The trainer's merges up to its position, written as the classic variant writes them.

    The trainer must hold one sequence (:func:`is_one_sequence`); its only word is the data.
    Without ``every_step`` the steps carry no data (each costs a pass over it, and all of them
    together hold the data once a step) and only the data after the last step is built, from
    the trainer's segmentation: :meth:`Compression.edges` and
    :meth:`Compression.data_after_steps` give what a view needs of the others."""
    if not is_one_sequence(trainer.corpus.config) or trainer.word_count != 1:
        raise ValueError("The compression variant needs the data as one sequence of characters.")
    text = trainer.corpus.words[0]
    symbols = fresh_symbols(text)
    # A base token is its own character; a merged token gets the next fresh symbol (a string
    # re-created by another route is the same token, so it keeps its symbol).
    symbol_of = {i: trainer.token_string(i) for i in range(trainer.vocab.n_base)}
    steps = []
    data = text
    for record in trainer.history[: trainer.position]:
        left, right = symbol_of[record.pair[0]], symbol_of[record.pair[1]]
        if record.token not in symbol_of:
            symbol_of[record.token] = next(symbols)
        symbol = symbol_of[record.token]
        if every_step:  # str.replace is BPE's own left-to-right, non-overlapping replacement
            data = data.replace(left + right, symbol)
        steps.append(Step(symbol, (left, right), record.replacements, data if every_step else ""))
    if not every_step:
        data = "".join(map(symbol_of.__getitem__, trainer.segmentation(0)))
    return Compression(text, tuple(steps), data, symbol_of)
