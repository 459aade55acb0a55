"""A tokenizer read from a file, opened as a session: its merges in rank order are the history.

Without a corpus every merge counts 0 and the session is for stepping, jumping, searching the
vocabulary and encoding. Attaching a corpus replays the same merges on it and fills in each
merge's count there, so the pair, corpus and plot views have numbers, and training can go on
from the last merge. Ids stay the tokenizer's (``bpe_core.encoding.numbering``).

Example: ``trainer_from_encoder(read_tokenizer("gpt2.tiktoken").encoder)`` is GPT-2's 50,000
merges as a session, at its last step.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from bpe_core.encoding.encoder import Encoder
from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import InputError, quoted
from bpe_core.history.records import IMPORTED, MergeRecord
from bpe_core.pipeline.byte_alphabet import CHAR_TO_BYTE, fallback_byte
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus, base_symbols
from bpe_core.pipeline.vocab import MARK, display, joined
from bpe_core.training.config import TrainingConfig
from bpe_core.training.trainer import Trainer

Progress = Callable[[int, int], None]


def fit_corpus(corpus: Corpus, alphabet: Iterable[str], cut_at_fallback: bool = False) -> Corpus:
    """``corpus`` without the word types that hold a unit the tokenizer's ``alphabet`` lacks:
    a tokenizer's alphabet is its own, and such words are not what it would make of them (the
    caller says how many were left out: the difference in word types).

    With ``cut_at_fallback`` (byte fallback, whose byte tokens no merge uses) such a word is
    cut at those characters instead: they become byte tokens that merge with nothing, so the
    parts between them meet every merge the whole word does. A SentencePiece-style pipeline,
    whose word is a whole text, then keeps its counts.
    """
    config = corpus.config
    if config.continuing_prefix is not None:
        return corpus  # the trainer refuses it, saying why
    known = set(alphabet)
    if config.end_of_word is not None:
        known.add(MARK)  # a marker of its own is always a base symbol
    kept: dict[str, int] = {}
    fitted = True
    for word, count in zip(corpus.words, corpus.counts, strict=True):
        if known.issuperset(base_symbols(word, config)):
            kept[word] = kept.get(word, 0) + count
            continue
        fitted = False
        if cut_at_fallback:  # character units, no marker (byte fallback's pipeline)
            for part in re.split("|".join(map(re.escape, set(word) - known)), word):
                if part:
                    kept[part] = kept.get(part, 0) + count
    if fitted:
        return corpus
    if not kept:
        raise InputError("Every word of the corpus holds a character the tokenizer's alphabet lacks.")
    return Corpus.from_word_counts(list(kept.items()), config, corpus.special_counts)


def cuts_at_fallback(config: PipelineConfig, merged: Iterable[str]) -> bool:
    """Whether a corpus may be cut at the characters byte fallback spells (:func:`fit_corpus`):
    the pipeline falls back to bytes and no merge uses a byte token (``merged``: every token
    merges use)."""
    return config.byte_fallback and all(fallback_byte(key) is None for key in merged)


def empty_corpus(encoder: Encoder) -> Corpus:
    config = encoder.config
    return Corpus.without_words(config, (0,) * len(config.special_tokens))


def trainer_from_encoder(
    encoder: Encoder,
    corpus: Corpus | None = None,
    training: TrainingConfig | None = None,
    progress: Progress | None = None,
) -> Trainer:
    """The encoder's merges as a session on ``corpus`` (by default none), standing after the last."""
    config = encoder.config
    corpus = corpus if corpus is not None else empty_corpus(encoder)
    if corpus.config != config:
        raise InputError("The corpus was read with another pipeline than the tokenizer's.")
    made = {merge.token for merge in encoder.merges}
    specials = {encoder.keys[i]: i for i in encoder.special_ids}
    base = [
        key for i, key in enumerate(encoder.keys) if key and i not in made and i not in encoder.special_ids
    ]
    for key in base:
        unit = key.removeprefix(config.continuing_prefix or "")  # ``##a`` is the unit ``a``, continuing
        if not _is_unit(unit, config.unit, config.end_of_word is not None) and not (
            config.byte_fallback and fallback_byte(key) is not None  # a base token of its own
        ):
            shown = quoted(display(key, config.end_of_word))
            raise InputError(
                f"The token {shown} is neither one unit nor made by a merge: a session cannot hold it."
            )
    merged = {encoder.keys[i] for merge in encoder.merges for i in (merge.left, merge.right)}
    fitted = fit_corpus(corpus, base, cuts_at_fallback(config, merged))
    trainer = Trainer.restoring(fitted, training, alphabet=base)
    n_special = trainer.vocab.n_special
    ids = dict(trainer.vocab.ids)  # key -> the session's id, as restoring will number them
    saved = []
    for step, merge in enumerate(encoder.merges, start=1):
        left, right = encoder.keys[merge.left], encoder.keys[merge.right]
        for key in (left, right):
            if key not in ids:  # a special token, or a token only a later merge makes
                raise InputError(
                    f"Merge {step} uses the token {quoted(display(key, config.end_of_word))}, which is "
                    "neither one unit nor made by an earlier merge: a session cannot hold it."
                )
        ids.setdefault(joined(left, right, config.continuing_prefix), len(ids) + n_special)
        saved.append(MergeRecord.saved(step, (ids[left], ids[right]), IMPORTED, step))
    trainer.restore(saved, len(saved), progress, fill=True)
    trainer.numbering = Numbering(
        tuple(specials[token] for token in config.special_tokens),
        {key: i for i, key in enumerate(encoder.keys) if key and i not in encoder.special_ids},
        encoder.unknown_id,
        encoder.hf_parts,
    )
    return trainer


def attach_corpus(trainer: Trainer, corpus: Corpus, progress: Progress | None = None) -> Trainer:
    """The trainer's current line replayed on ``corpus``, counts filled in, at the same step.

    Merges the corpus never meets count 0. For an imported tokenizer, the corpus' words that
    hold a unit its alphabet lacks are left out (:func:`fit_corpus`). Other branches are left
    behind: their merges were decided on the old counts.
    """
    if corpus.config != trainer.corpus.config:
        raise InputError("The corpus was read with another pipeline than the session's.")
    alphabet = trainer.vocab.keys[trainer.vocab.n_special : trainer.vocab.n_special + trainer.vocab.n_base]
    if trainer.numbering is not None:  # an imported tokenizer: its alphabet stays its own
        line = trainer.line_keys()
        merged = {line[i] for record in trainer.history for i in record.pair}
        corpus = fit_corpus(corpus, alphabet, cuts_at_fallback(corpus.config, merged))
    attached = Trainer.restoring(corpus, trainer.training, alphabet=alphabet)
    old_keys = trainer.line_keys()
    n_special = attached.vocab.n_special
    ids = dict(attached.vocab.ids)
    saved = []
    for record in trainer.history:
        left, right = old_keys[record.pair[0]], old_keys[record.pair[1]]
        pair = (ids[left], ids[right])
        ids.setdefault(joined(left, right, corpus.config.continuing_prefix), len(ids) + n_special)
        saved.append(MergeRecord.saved(record.step, pair, record.decided_by, record.pass_number))
    attached.restore(saved, trainer.position, progress, fill=True)
    attached.numbering = trainer.numbering
    return attached


def _is_unit(key: str, unit: str, marked: bool) -> bool:
    """Whether ``key`` is one base unit (a character, or a byte's character), maybe marked."""
    core = key.removesuffix(MARK) if marked else key
    if marked and key == MARK:
        return True
    return core in CHAR_TO_BYTE if unit == "byte" else len(core) == 1
