"""Writing a session file: versioned JSON with one merge a line, written atomically (a crash
never leaves a half-written file)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any, NamedTuple

from bpe_core.history.records import MergeRecord
from bpe_core.io.session.validate import FORMAT, VERSION, check_test_text
from bpe_core.pipeline.corpus import Corpus
from bpe_core.pipeline.vocab import joined
from bpe_core.runtime.fileio import write_atomic
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.trainer import Trainer


def session_to_dict(trainer: Trainer, test_text: str | None = None) -> dict[str, Any]:
    """Everything needed to restore ``trainer`` exactly, as plain JSON data; with ``test_text``,
    the window's Encode test string too (an optional field: older files have none)."""
    return _session(trainer, test_text, written=False)


class _Encoded(str):
    """A value already written as JSON text."""


def _session(trainer: Trainer, test_text: str | None, written: bool) -> dict[str, Any]:
    """:func:`session_to_dict`; ``written``: its largest parts, the current line's merges (a
    list, each merge's text) and the corpus, already written as JSON text (:class:`_Encoded`).
    Building and encoding a dict a merge and a list a word took most of a save's time."""
    vocab = trainer.vocab
    specials = vocab.n_special
    strings = list(vocab.keys[: specials + vocab.n_base])
    current = trainer.current_branch
    branches: list[dict[str, Any]] = []
    for branch in trainer.branches():
        entry = {"id": branch.id, "name": branch.name, "parent": branch.parent, "fork": branch.fork}
        if branch.id != current:  # the current line is "merges"; the others store their own part
            named = _named(trainer, strings, trainer.branch_history(branch.id))
            entry["merges"] = _merge_dicts(named)[branch.fork :]
        branches.append(entry)
    corpus = trainer.corpus
    return {
        "format": FORMAT,
        "version": VERSION,
        "pipeline": corpus.config.to_dict(),
        "training": trainer.training.to_dict(),
        "alphabet": strings[specials:],
        "merges": (_merge_lines if written else _merge_dicts)(_named(trainer, strings, trainer.history)),
        "position": trainer.position,
        **({"numbering": trainer.numbering.to_dict()} if trainer.numbering is not None else {}),
        # After the model, so that encoding reads only what is above it (see read_model).
        "corpus": _corpus_text(corpus) if written else _corpus_dict(corpus),
        "branch": current,
        "branches": branches,
        "next_branch": trainer.next_branch,
        **({"test_text": check_test_text(test_text)} if test_text is not None else {}),
    }


class _Named(NamedTuple):
    """A merge with its tokens named: pair, token and candidates by key (ids mean different
    tokens on different lines, and beyond the current position)."""

    record: MergeRecord
    left: str
    right: str
    token: str
    candidates: list[tuple[str, str]]


def _named(trainer: Trainer, strings: list[str], records: Iterable[MergeRecord]) -> Iterator[_Named]:
    names: dict[int, str] = dict(enumerate(strings))
    for record in records:
        left, right = _name(trainer, names, record.pair[0]), _name(trainer, names, record.pair[1])
        token = joined(left, right, trainer.vocab.prefix)
        names.setdefault(record.token, token)
        candidates = [(_name(trainer, names, a), _name(trainer, names, b)) for a, b in record.candidates]
        yield _Named(record, left, right, token, candidates)


def _merge_dicts(merges: Iterable[_Named]) -> list[dict[str, Any]]:
    """A line of merges as JSON data."""
    return [
        {
            "pair": [m.left, m.right],
            "token": m.token,
            "count": m.record.count,
            "top_count": m.record.top_count,
            "ties": m.record.ties,
            "candidates": [list(pair) for pair in m.candidates],
            "decided_by": m.record.decided_by,
            "replacements": m.record.replacements,
            "pass": m.record.pass_number,
        }
        for m in merges
    ]


def _merge_lines(merges: Iterable[_Named]) -> list[_Encoded]:
    """Each merge's JSON text, as :func:`_dumps` writes its :func:`_merge_dicts` entry."""
    text = encode_basestring  # a string's JSON, as json.dumps writes it with ensure_ascii=False
    lines = []
    for m in merges:
        r = m.record
        candidates = ", ".join(f"[{text(a)}, {text(b)}]" for a, b in m.candidates)
        lines.append(
            _Encoded(
                f'{{"pair": [{text(m.left)}, {text(m.right)}], "token": {text(m.token)}, '
                f'"count": {r.count}, "top_count": {r.top_count}, "ties": {r.ties}, '
                f'"candidates": [{candidates}], "decided_by": {text(r.decided_by)}, '
                f'"replacements": {r.replacements}, "pass": {r.pass_number}}}'
            )
        )
    return lines


def _corpus_dict(corpus: Corpus) -> dict[str, Any]:
    return {
        "words": [[w, c] for w, c in zip(corpus.words, corpus.counts, strict=True)],
        "special_counts": list(corpus.special_counts),
    }


def _corpus_text(corpus: Corpus) -> _Encoded:
    """:func:`_dumps` of :func:`_corpus_dict`, written directly."""
    text = encode_basestring
    words = ", ".join([f"[{text(w)}, {c}]" for w, c in zip(corpus.words, corpus.counts, strict=True)])
    return _Encoded(f'{{"words": [{words}], "special_counts": {_dumps(list(corpus.special_counts))}}}')


def _name(trainer: Trainer, names: dict[int, str], token_id: int) -> str:
    name = names.get(token_id)
    return name if name is not None else trainer.vocab.keys[token_id]


@without_gc  # thousands of merge objects while the trainer's index is live (see runtime.gc_pause)
def save_session(trainer: Trainer, path: str | Path, test_text: str | None = None) -> None:
    """Write the session to ``path`` atomically: a crash never leaves a half-written file."""
    write_atomic(path, session_text(trainer, test_text))


def session_text(trainer: Trainer, test_text: str | None = None) -> str:
    """The session file's text."""
    data = _session(trainer, test_text, written=True)
    lines = ["{"]
    keys = list(data)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = data[key]
        if key == "merges":  # one merge per line keeps the file readable and diffable
            body = ",\n".join("    " + m for m in value)
            lines.append(f'  "merges": [\n{body}\n  ]{comma}' if value else f'  "merges": []{comma}')
        else:
            lines.append(f"  {_dumps(key)}: {value if isinstance(value, _Encoded) else _dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
