"""Writing a session file: versioned JSON with one merge a line, written atomically (a crash
never leaves a half-written file)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bpe_core.history.records import MergeRecord
from bpe_core.io.session.validate import FORMAT, VERSION, check_test_text
from bpe_core.pipeline.vocab import joined
from bpe_core.runtime.fileio import write_atomic
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.trainer import Trainer


def session_to_dict(trainer: Trainer, test_text: str | None = None) -> dict[str, Any]:
    """Everything needed to restore ``trainer`` exactly, as plain JSON data; with ``test_text``,
    the window's Encode test string too (an optional field: older files have none)."""
    vocab = trainer.vocab
    specials = vocab.n_special
    strings = list(vocab.keys[: specials + vocab.n_base])
    current = trainer.current_branch
    branches: list[dict[str, Any]] = []
    for branch in trainer.branches():
        entry = {"id": branch.id, "name": branch.name, "parent": branch.parent, "fork": branch.fork}
        if branch.id != current:  # the current line is "merges"; the others store their own part
            entry["merges"] = _merge_dicts(trainer, strings, trainer.branch_history(branch.id))[branch.fork :]
        branches.append(entry)
    corpus = trainer.corpus
    return {
        "format": FORMAT,
        "version": VERSION,
        "pipeline": corpus.config.to_dict(),
        "training": trainer.training.to_dict(),
        "alphabet": strings[specials:],
        "merges": _merge_dicts(trainer, strings, trainer.history),
        "position": trainer.position,
        **({"numbering": trainer.numbering.to_dict()} if trainer.numbering is not None else {}),
        # After the model, so that encoding reads only what is above it (see read_model).
        "corpus": {
            "words": [[w, c] for w, c in zip(corpus.words, corpus.counts, strict=True)],
            "special_counts": list(corpus.special_counts),
        },
        "branch": current,
        "branches": branches,
        "next_branch": trainer.next_branch,
        **({"test_text": check_test_text(test_text)} if test_text is not None else {}),
    }


def _merge_dicts(
    trainer: Trainer, strings: list[str], records: Sequence[MergeRecord]
) -> list[dict[str, Any]]:
    """A line of merges as JSON data, tokens named by key (ids mean different tokens on
    different lines, and beyond the current position)."""
    names: dict[int, str] = dict(enumerate(strings))
    merges = []
    for record in records:
        left, right = _name(trainer, names, record.pair[0]), _name(trainer, names, record.pair[1])
        token = joined(left, right, trainer.vocab.prefix)
        names.setdefault(record.token, token)
        merges.append(
            {
                "pair": [left, right],
                "token": token,
                "count": record.count,
                "top_count": record.top_count,
                "ties": record.ties,
                "candidates": [
                    [_name(trainer, names, a), _name(trainer, names, b)] for a, b in record.candidates
                ],
                "decided_by": record.decided_by,
                "replacements": record.replacements,
                "pass": record.pass_number,
            }
        )
    return merges


def _name(trainer: Trainer, names: dict[int, str], token_id: int) -> str:
    name = names.get(token_id)
    return name if name is not None else trainer.vocab.keys[token_id]


@without_gc  # thousands of merge objects while the trainer's index is live (see runtime.gc_pause)
def save_session(trainer: Trainer, path: str | Path, test_text: str | None = None) -> None:
    """Write the session to ``path`` atomically: a crash never leaves a half-written file."""
    data = session_to_dict(trainer, test_text)
    lines = ["{"]
    keys = list(data)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = data[key]
        if key == "merges":  # one merge per line keeps the file readable and diffable
            body = ",\n".join("    " + _dumps(m) for m in value)
            lines.append(f'  "merges": [\n{body}\n  ]{comma}' if value else f'  "merges": []{comma}')
        else:
            lines.append(f"  {_dumps(key)}: {_dumps(value)}{comma}")
    lines.append("}")
    write_atomic(path, "\n".join(lines) + "\n")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
