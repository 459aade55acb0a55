"""Rebuilding a trainer from validated session data: the corpus, every merge checked against it,
the position and every branch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import BpeError, SessionError, quoted
from bpe_core.history.branches import Branch
from bpe_core.history.merge_line import MergeLine
from bpe_core.history.records import USER, MergeRecord
from bpe_core.io.session.corpus_reader import CorpusColumns
from bpe_core.io.session.stream import SavedMerges
from bpe_core.io.session.validate import parents_first, read_session
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus
from bpe_core.pipeline.vocab import display
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.runtime.memory import release_free_memory
from bpe_core.training.line_checks import check_line, pass_numbers
from bpe_core.training.trainer import Trainer

Progress = Callable[[int, int], None]


def load_session(path: str | Path, progress: Progress | None = None) -> Trainer:
    """Rebuild the trainer exactly: corpus, every merge (checked against the corpus), position.

    ``progress(done, total)`` is called after each merge replayed; it may raise to stop.
    """
    return trainer_from_session(read_session(path), path, progress)


def trainer_from_session(data: dict[str, Any], path: str | Path, progress: Progress | None = None) -> Trainer:
    """The trainer of validated session data (from :func:`read_session` or :func:`sniff_session`)."""
    try:
        return _trainer_from(data, progress)
    except SessionError as error:  # what the file claims cannot be, whatever the corpus
        raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None
    except BpeError as error:
        raise SessionError(f"The session file {str(path)!r} does not fit its corpus: {error}") from None


@without_gc  # one pause for the whole replay, not one per merge (see bpe_core.runtime.gc_pause)
def _trainer_from(data: dict[str, Any], progress: Progress | None) -> Trainer:
    pipeline: PipelineConfig = data["pipeline"]
    words = data["corpus"]["words"]  # validated [word, count] lists, or CorpusColumns
    specials = tuple(data["corpus"].get("special_counts") or [0] * len(pipeline.special_tokens))
    numbering: Numbering | None = data.get("numbering")
    if isinstance(words, CorpusColumns):
        corpus = Corpus.checked(words.words, words.counts, pipeline, specials)
    elif words:
        corpus = Corpus.from_word_counts(words, pipeline, specials)
    else:  # an imported tokenizer on its own (bpe_core.io.imported)
        corpus = Corpus.without_words(pipeline, specials)
    # An imported tokenizer's alphabet is its own, whatever the corpus holds.
    alphabet = data["alphabet"] if numbering is not None else ()
    trainer = Trainer.restoring(corpus, data["training"], alphabet)
    base = trainer.vocab.keys[trainer.vocab.n_special :]
    if base != data["alphabet"]:
        if pipeline.unit == "byte" and pipeline.attach_marker:  # before 0.2 only the bytes seen ended words
            raise SessionError(
                "it was saved by BPE Studio 0.1 with byte units and an attached marker, whose alphabet "
                "lacked most marked bytes; train it again."
            )
        raise SessionError("its alphabet differs from the one the corpus gives.")
    merges = data["merges"]
    if isinstance(merges, SavedMerges):
        saved = merges.records
        merges.names = []  # the vocabulary spells these keys again (they are taken from it below)
    else:
        saved = _records(trainer, merges)
    release_free_memory()  # what reading the file and checking the corpus freed
    trainer.restore(saved, data["position"], progress)
    del saved
    if "branches" in data:
        if isinstance(merges, SavedMerges) and len(data["branches"]) > 1:  # compared with it by name
            merges.names = trainer.line_keys()  # ids number the line's tokens as the file's did
        trainer.restore_branches(_branches(trainer, data), data["branch"], data.get("next_branch", 0))
    trainer.numbering = numbering
    return trainer


def _records(trainer: Trainer, merges: list[dict[str, Any]]) -> MergeLine:
    """Merges as JSON objects turned into records to restore (``token`` not yet numbered)."""
    pipeline = trainer.corpus.config
    # Ids as the trainer will number them: a merge's token is new unless its key exists.
    ids = dict(trainer.vocab.ids)
    saved = MergeLine()
    for number, merge in enumerate(merges, start=1):
        try:
            pair = (ids[merge["pair"][0]], ids[merge["pair"][1]])
            candidates = tuple((ids[a], ids[b]) for a, b in merge["candidates"])
        except KeyError as missing:
            shown = display(missing.args[0], pipeline.end_of_word)
            raise SessionError(f"merge {number} uses the unknown token {quoted(shown)}.") from None
        ids.setdefault(merge["token"], len(ids) + trainer.vocab.n_special)
        saved.append(
            MergeRecord.saved(
                number,
                pair,
                merge["decided_by"],
                merge.get("pass", number),  # before passes, each merge was a pass of its own
                count=merge["count"],
                top_count=merge["top_count"],
                ties=merge["ties"],
                candidates=candidates,
            )
        )
    return saved


def _branches(trainer: Trainer, data: dict[str, Any]) -> list[Branch]:
    """The saved branches with their lines. A line reads the steps it shares with the current
    line, or with its parent's, from that line; the rest are read from the file (and checked
    when first redone)."""
    vocab = trainer.vocab
    specials = vocab.n_special
    base = {key: i for i, key in enumerate(vocab.keys[: specials + vocab.n_base]) if i >= specials}
    entries = {entry["id"]: entry for entry in data["branches"]}
    current = trainer.history.line
    lines: dict[int, list[dict[str, Any]]] = {data["branch"]: data["merges"]}
    built: dict[int, MergeLine] = {data["branch"]: current}
    for branch_id in parents_first(entries):  # a parent's line is built before its children's
        if branch_id in built:
            continue
        entry = entries[branch_id]
        parent = entry["parent"]
        merges = lines[branch_id] = ([] if parent is None else lines[parent][: entry["fork"]]) + entry[
            "merges"
        ]
        shared = 0
        while shared < min(len(merges), len(current)) and merges[shared] == data["merges"][shared]:
            shared += 1
        shared = _whole_passes(merges, data["merges"], shared)
        if parent is not None and entry["fork"] > shared:
            records, start = built[parent].fork(entry["fork"]), entry["fork"]
        else:
            records, start = current.fork(shared), shared
        built[branch_id] = _branch_line(trainer, base, entry, merges, records, start)
    return [
        Branch(branch_id, " ".join(entry["name"].split()), built[branch_id], entry["parent"], entry["fork"])
        for branch_id, entry in entries.items()
    ]


def _whole_passes(line: list[dict[str, Any]], other: list[dict[str, Any]], shared: int) -> int:
    """The first ``shared`` merges, equal in both lines, less those of a last pass that either
    line goes on with: the pass then differs, and so does every step of it, another node of
    the history in each line (a row they cannot share: choosing it by hand in one must not
    change the other's)."""
    if not shared or "pass" not in line[shared - 1]:  # without passes, each merge is one
        return shared
    number = line[shared - 1]["pass"]
    if not any(len(merges) > shared and merges[shared].get("pass") == number for merges in (line, other)):
        return shared
    while shared and line[shared - 1].get("pass") == number:
        shared -= 1
    return shared


def _branch_line(
    trainer: Trainer,
    base: dict[str, int],
    entry: dict[str, Any],
    merges: list[dict[str, Any]],
    records: MergeLine,
    start: int,
) -> MergeLine:
    """A branch's line: ``records`` (its first ``start`` steps, read from another line) and its
    merges from ``start`` on, numbered as the vocabulary would number their tokens."""
    specials = trainer.vocab.n_special
    name = quoted(entry["name"])
    ids = dict(base)
    corpus_tokens = trainer.initial_point.corpus_tokens
    saved_passes = np.array([merge.get("pass", 0) for merge in merges], dtype=np.int64)
    deciders = np.array([merge["decided_by"] for merge in merges], dtype=object)
    before = records.pass_number(start - 1) if start else 0
    numbers = pass_numbers(saved_passes, deciders, deciders == USER, start, before)
    passes = dict(enumerate(numbers.tolist(), start=start + 1))
    for number, merge in enumerate(merges, start=1):
        try:
            pair = (ids[merge["pair"][0]], ids[merge["pair"][1]])
            candidates = tuple((ids[a], ids[b]) for a, b in merge["candidates"])
        except KeyError as missing:
            shown = display(missing.args[0], trainer.corpus.config.end_of_word)
            raise SessionError(
                f"merge {number} of branch {name} uses the unknown token {quoted(shown)}."
            ) from None
        new = merge["token"] not in ids
        token = ids.setdefault(merge["token"], specials + len(ids))
        corpus_tokens -= merge["replacements"]
        if corpus_tokens < 0:
            raise SessionError(f"merge {number} of branch {name} replaces more tokens than there are.")
        if number > start:
            record = MergeRecord(
                step=number,
                pair=pair,
                token=token,
                count=merge["count"],
                top_count=merge["top_count"],
                replacements=merge["replacements"],
                ties=merge["ties"],
                candidates=candidates,
                decided_by=merge["decided_by"],
                new_token=new,
                vocab_size=specials + len(ids),
                corpus_tokens=corpus_tokens,
                pass_number=passes[number],
            )
            records.append(record, verified=False)
    check_line(records, records.pass_start(start), f" of branch {name}")
    return records
