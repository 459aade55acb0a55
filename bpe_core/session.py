"""Session (model) files: versioned JSON holding the configuration, the corpus as word counts,
the merge history with counts and tie decisions, and the current position.

Writing is atomic (temporary file, then rename). Loading validates every field and refuses a
bad file with one clear sentence; nothing in a file is ever executed (plain ``json`` only).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bpe_core.branches import Branch
from bpe_core.byte_alphabet import BYTE_TO_CHAR
from bpe_core.config import PipelineConfig, TrainingConfig
from bpe_core.corpus import MAX_TOTAL, Corpus
from bpe_core.encoder import Encoder, Merge
from bpe_core.errors import BpeError, InputError, SessionError, has_lone_surrogate, quoted
from bpe_core.fileio import input_limit, open_input, read_bounded, write_atomic
from bpe_core.gc_pause import without_gc
from bpe_core.history import USER, MergeRecord
from bpe_core.line_checks import check_line, pass_numbers
from bpe_core.memory import release_free_memory
from bpe_core.merge_line import MergeLine
from bpe_core.numbering import Numbering
from bpe_core.session_corpus import CORPUS_KEY, CorpusColumns, never_stop
from bpe_core.session_stream import SavedMerges, read_streamed
from bpe_core.trainer import Trainer
from bpe_core.vocab import MARK, display, key_of, sorted_alphabet

FORMAT = "bpe-studio-session"
# Version 3 keeps every branch of the history (``bpe_core.branches``). Version 2 names tokens by
# key (``bpe_core.vocab``): the end-of-word marker is written "\u0000", so that it can never be
# mistaken for text that spells it. Version 1 wrote display strings.
VERSION = 3
MAX_TEST_TEXT = 1_000_000  # characters of the Encode pane's test string a session may keep
Progress = Callable[[int, int], None]


# -- writing -------------------------------------------------------------------------------


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
        names.setdefault(record.token, left + right)
        merges.append(
            {
                "pair": [left, right],
                "token": left + right,
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


# -- reading -------------------------------------------------------------------------------


def read_session(path: str | Path, checkpoint: Callable[[], object] = never_stop) -> dict[str, Any]:
    """Parse and validate a session file's structure (not yet its consistency with the corpus).
    ``checkpoint()`` is called as the corpus streams in; it may raise to stop."""
    path = Path(path)
    return _checked_session(_parsed(path, checkpoint), path)


def _parsed(path: Path, checkpoint: Callable[[], object] = never_stop) -> Any:
    """The file's JSON data. A file as ``save_session`` writes it is read as it streams in:
    ``"merges"`` is then a :class:`SavedMerges` and ``corpus["words"]`` a :class:`CorpusColumns`
    (``bpe_core.session_stream``); anything else is read whole by ``json``."""
    streamed = read_streamed(path, _check_merge, checkpoint=checkpoint)
    if streamed is not None:
        return streamed
    try:
        data = read_bounded(path, "session file")
    except InputError as error:
        raise SessionError(str(error)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"The session file {str(path)!r} is not UTF-8 text.") from None
    del data
    return _json(text, path)


def parse_session(text: str, path: Path) -> dict[str, Any]:
    """Validate the text of a session file (``path`` names it in messages)."""
    return _checked_session(_json(text, path), path)


def _checked_session(data: Any, path: Path) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionError(f"The file {str(path)!r} is JSON but not a BPE Studio session.")
    try:
        return _validated(data)
    except SessionError as error:
        raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None


def _json(text: str, path: Path) -> Any:
    """Plain JSON data (nothing is executed), every failure one sentence."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SessionError(
            f"The session file {str(path)!r} is not valid JSON (line {error.lineno}, column {error.colno})."
        ) from None
    except RecursionError:
        raise SessionError(f"The session file {str(path)!r} is nested too deeply to be a session.") from None
    except ValueError:  # an integer of thousands of digits
        raise SessionError(f"The session file {str(path)!r} holds a number too long to be a count.") from None


def sniff_session(path: str | Path, checkpoint: Callable[[], object] = never_stop) -> dict[str, Any] | None:
    """A file's validated session data, or ``None`` if it is not a session (a text corpus).

    Sessions are recognised by parsing, whatever their name: a file that parses as a JSON
    object of ours is one. A ``.json`` file is expected to be a session, so one that is not
    raises :class:`SessionError` with one sentence instead of opening as text.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        return read_session(path, checkpoint)
    try:
        with open_input(path) as stream:
            head = stream.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return None  # the corpus reader reports it
    if not head.startswith(b"{"):
        return None
    try:
        data = _parsed(path, checkpoint)
    except SessionError:
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    try:
        return _validated(data)
    except SessionError as error:
        raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None


def _validated(data: dict[str, Any], model_only: bool = False) -> dict[str, Any]:
    """Check every field (with ``model_only``, all but the corpus)."""
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SessionError("its version is missing or malformed.")
    if version > VERSION:
        raise SessionError(f"it was written by a newer BPE Studio (format version {version}).")
    for key in (
        "pipeline",
        "training",
        "alphabet",
        "merges",
        "position",
        *(() if model_only else ("corpus",)),
    ):
        if key not in data:
            raise SessionError(f"the field {key!r} is missing.")
    try:
        pipeline = PipelineConfig.from_dict(data["pipeline"])
        training = TrainingConfig.from_dict(data["training"])
    except BpeError as error:
        raise SessionError(str(error)[0].lower() + str(error)[1:].rstrip(".") + ".") from None
    if "test_text" in data:
        check_test_text(data["test_text"])
    alphabet = data["alphabet"]
    if not _is_list_of(alphabet, str) or "" in alphabet:
        raise SessionError("the alphabet must be a list of non-empty strings.")
    if any(map(has_lone_surrogate, alphabet)):
        raise SessionError("its alphabet holds a lone surrogate (U+D800 to U+DFFF), which text never has.")
    numbering = None
    if "numbering" in data:  # an imported tokenizer's ids (bpe_core.numbering)
        numbering = Numbering.from_dict(data["numbering"], len(pipeline.special_tokens))
    if not model_only:
        _check_corpus(data["corpus"], pipeline, empty_allowed=numbering is not None)
    merges = data["merges"]
    if not isinstance(merges, list | SavedMerges):
        raise SessionError("the merges must be a list.")
    if isinstance(merges, list):  # a SavedMerges was checked merge by merge as it was read
        for number, merge in enumerate(merges, start=1):
            _check_merge(number, merge)
    position = data["position"]
    if not isinstance(position, int) or isinstance(position, bool) or not 0 <= position <= len(merges):
        raise SessionError(f"the position must be a whole number from 0 to {len(merges)}.")
    if version >= 3 and not model_only:
        _check_branches(data)
    if version == 1:
        assert isinstance(merges, list), "a SavedMerges is never of version 1"
        alphabet, merges = _keyed(alphabet, merges, pipeline.end_of_word)
    if len(set(alphabet)) != len(alphabet):
        raise SessionError("the alphabet must not list a symbol twice.")
    if pipeline.unit == "byte" and not set(alphabet) <= _byte_alphabet(pipeline):
        raise SessionError("its unit is bytes, yet its alphabet holds a symbol that is not a byte.")
    return {
        **data,
        "pipeline": pipeline,
        "training": training,
        "alphabet": alphabet,
        "merges": merges,
        "numbering": numbering,
    }


def check_test_text(value: Any) -> str:
    """The Encode test string a session keeps: text of at most ``MAX_TEST_TEXT`` characters,
    without a lone surrogate (JSON can spell one; no UTF-8 text holds it)."""
    if not isinstance(value, str) or len(value) > MAX_TEST_TEXT:
        raise SessionError(f"the Encode test text must be a string of at most {MAX_TEST_TEXT:,} characters.")
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise SessionError("the Encode test text holds a lone surrogate, which is not text.")
    return value


def _check_corpus(corpus: Any, pipeline: PipelineConfig, empty_allowed: bool) -> None:
    """A session of an imported tokenizer may have no corpus words (``empty_allowed``)."""
    if not isinstance(corpus, dict):
        raise SessionError("the corpus must hold a non-empty list of words.")
    words = corpus.get("words")
    if isinstance(words, CorpusColumns):
        words = []  # read and checked item by item already
    elif not isinstance(words, list) or not (words or empty_allowed):
        raise SessionError("the corpus must hold a non-empty list of words.")
    for item in words:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and item[0]
            and _is_count(item[1])
        ):
            raise SessionError("every corpus word must be a [word, positive count] pair.")
    specials = corpus.get("special_counts", [])
    if not (
        _is_list_of(specials, int)
        and len(specials) in (0, len(pipeline.special_tokens))
        and all(n >= 0 for n in specials)
    ):
        raise SessionError("the special-token counts do not match the special tokens.")


def _check_branches(data: dict[str, Any]) -> None:
    """The branches form a tree whose lines can be rebuilt: each parent exists, no cycle, each
    fork within its parent's line, and every branch but the current one lists its own merges."""
    branches, current = data.get("branches"), data.get("branch")
    if not isinstance(branches, list) or not branches or not all(isinstance(b, dict) for b in branches):
        raise SessionError("the branches must be a non-empty list of objects.")
    ids = [b.get("id") for b in branches]
    if (
        not _is_list_of(ids, int)
        or min(ids) < 0
        or len(set(ids)) != len(ids)
        or type(current) is not int
        or current not in ids
    ):
        raise SessionError("the branches need distinct whole-number ids, the current one among them.")
    if "next_branch" in data and not _is_list_of([data["next_branch"]], int):
        raise SessionError("the next branch's number is not a whole number.")
    entries = {b["id"]: b for b in branches}
    for branch in branches:
        name, parent, fork = branch.get("name"), branch.get("parent"), branch.get("fork")
        if not isinstance(name, str) or not name.strip():
            raise SessionError(f"branch {branch['id']} has no name.")
        if has_lone_surrogate(name):
            raise SessionError(
                f"the name of branch {branch['id']} holds a lone surrogate, which text never has."
            )
        if parent is not None and (
            type(parent) is not int or parent not in entries or parent == branch["id"]
        ):
            raise SessionError(f"branch {quoted(name)} forks from a branch that is not there.")
        if not isinstance(fork, int) or isinstance(fork, bool) or fork < 0:
            raise SessionError(f"branch {quoted(name)} has a malformed fork step.")
        own = branch.get("merges")
        if branch["id"] != current:
            if not isinstance(own, list):
                raise SessionError(f"branch {quoted(name)} does not list its merges.")
            for number, merge in enumerate(own, start=fork + 1):
                _check_merge(number, merge)
                replaced = merge.get("replacements")
                if not (_is_count_or_zero(replaced) and replaced <= MAX_TOTAL):
                    raise SessionError(
                        f"merge {number} of branch {quoted(name)} has a malformed replacement count."
                    )
    lengths: dict[int, int] = {}
    for branch_id in _parents_first(entries):
        entry = entries[branch_id]
        parent = entry["parent"]
        before = 0 if parent is None else lengths[parent]
        line = entry["fork"] + len(entry["merges"]) if branch_id != current else len(data["merges"])
        if entry["fork"] > min(before, line):
            raise SessionError(f"branch {quoted(entry['name'])} forks after the end of a line.")
        lengths[branch_id] = line


def _parents_first(entries: dict[int, dict[str, Any]]) -> list[int]:
    """The branches' ids, each after the one it forks from (a file may list them in any order,
    and a chain of thousands is walked without recursion); ``SessionError`` for a circle."""
    order: list[int] = []
    placed: set[int] = set()
    for start in entries:
        chain: list[int] = []
        seen: set[int] = set()
        branch_id: int | None = start
        while branch_id is not None and branch_id not in placed:
            if branch_id in seen:
                raise SessionError("the branches fork from each other in a circle.")
            chain.append(branch_id)
            seen.add(branch_id)
            branch_id = entries[branch_id]["parent"]
        for branch_id in reversed(chain):
            order.append(branch_id)
            placed.add(branch_id)
    return order


def _keyed(alphabet: list[str], merges: list[dict], marker: str | None) -> tuple[list[str], list[dict]]:
    """A version-1 alphabet and merges with their display strings turned into keys.

    Only base symbols are read as marked by their spelling; a merged token's key is its pair's
    keys joined, so a text token that merely ends like the marker stays text. (In version 1 the
    display string was the identity, so each display names one token at any point.)"""
    base = [key_of(symbol, marker) for symbol in alphabet]
    key_by_display = dict(zip(alphabet, base, strict=True))

    def key(string: str) -> str:
        return key_by_display.get(string, string)  # an unknown name is reported by the replay

    keyed = []
    for merge in merges:
        left, right = key(merge["pair"][0]), key(merge["pair"][1])
        candidates = [[key(a), key(b)] for a, b in merge["candidates"]]
        key_by_display[merge["token"]] = left + right
        keyed.append({**merge, "pair": [left, right], "token": left + right, "candidates": candidates})
    return base, keyed


def _byte_alphabet(pipeline: PipelineConfig) -> set[str]:
    """The key of every base symbol byte mode can have: the 256 bytes, and the end-of-word marker."""
    symbols = set(BYTE_TO_CHAR)
    if pipeline.end_of_word is not None and pipeline.attach_marker:
        symbols |= {char + MARK for char in BYTE_TO_CHAR}
    elif pipeline.end_of_word is not None:
        symbols.add(MARK)
    return symbols


def _check_merge(number: int, merge: Any) -> None:
    problem = None
    if not isinstance(merge, dict):
        problem = "is not an object"
    elif not _is_string_pair(merge.get("pair")):
        problem = "has no [left, right] pair"
    elif merge.get("token") != merge["pair"][0] + merge["pair"][1]:
        problem = "has a token that is not its pair joined"
    elif not (_is_count_or_zero(merge.get("count")) and _is_count_or_zero(merge.get("top_count"))):
        problem = "has a missing or negative count"  # 0: an imported merge its corpus never meets
    elif max(merge["count"], merge["top_count"]) > MAX_TOTAL:  # no corpus holds more occurrences
        problem = f"has a count beyond {MAX_TOTAL:,} (2^62)"
    elif not (_is_count_or_zero(merge.get("ties")) and merge["ties"] <= MAX_TOTAL):
        problem = "has a malformed tie count"
    elif not (isinstance(merge.get("candidates"), list) and all(map(_is_string_pair, merge["candidates"]))):
        problem = "has malformed tie candidates"
    elif not isinstance(merge.get("decided_by"), str) or not merge["decided_by"]:
        problem = "does not say who decided it"
    elif "pass" in merge and not (_is_count(merge["pass"]) and merge["pass"] < 2**31):
        problem = "has a malformed pass number"  # a pass holds a merge at least: steps fit 31 bits
    if problem:
        raise SessionError(f"merge {number} {problem}.")


def _is_list_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)


def _is_string_pair(value: Any) -> bool:
    # Called for every pair of every merge: type() is exact (JSON makes no subclasses) and quick.
    return type(value) is list and len(value) == 2 and type(value[0]) is str and type(value[1]) is str


def _is_count_or_zero(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


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


@without_gc  # one pause for the whole replay, not one per merge (see bpe_core.gc_pause)
def _trainer_from(data: dict[str, Any], progress: Progress | None) -> Trainer:
    pipeline: PipelineConfig = data["pipeline"]
    words = data["corpus"]["words"]  # validated [word, count] lists, or CorpusColumns
    specials = tuple(data["corpus"].get("special_counts") or [0] * len(pipeline.special_tokens))
    numbering: Numbering | None = data.get("numbering")
    if isinstance(words, CorpusColumns):
        corpus = Corpus.checked(words.words, words.counts, pipeline, specials)
    elif words:
        corpus = Corpus.from_word_counts(words, pipeline, specials)
    else:  # an imported tokenizer on its own (bpe_core.imported)
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
            MergeRecord(
                number,
                pair,
                0,
                merge["count"],
                merge["top_count"],
                0,
                merge["ties"],
                candidates,
                merge["decided_by"],
                False,
                0,
                0,
                merge.get("pass", number),  # before passes, each merge was a pass of its own
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
    for branch_id in _parents_first(entries):  # a parent's line is built before its children's
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
        if parent is not None and entry["fork"] > shared:
            records, start = built[parent].fork(entry["fork"]), entry["fork"]
        else:
            records, start = current.fork(shared), shared
        built[branch_id] = _branch_line(trainer, base, entry, merges, records, start)
    return [
        Branch(branch_id, " ".join(entry["name"].split()), built[branch_id], entry["parent"], entry["fork"])
        for branch_id, entry in entries.items()
    ]


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
                number,
                pair,
                token,
                merge["count"],
                merge["top_count"],
                merge["replacements"],
                merge["ties"],
                candidates,
                merge["decided_by"],
                new,
                specials + len(ids),
                corpus_tokens,
                passes[number],
            )
            records.append(record, verified=False)
    check_line(records, records.pass_start(start), f" of branch {name}")
    return records


def read_model(path: str | Path) -> dict[str, Any]:
    """A session's validated data without its corpus, which encoding does not need.

    A file as :func:`save_session` writes it is read only up to the corpus, a merge at a time
    (``bpe_core.session_stream``); a file with one key per line (version 1) up to the corpus as
    JSON; any other layout (edited by hand) is read whole.
    """
    path = Path(path)
    streamed = read_streamed(path, _check_merge, model_only=True)
    if streamed is not None and streamed.get("format") == FORMAT and "position" in streamed:
        try:
            return _validated(streamed, model_only=True)
        except SessionError as error:
            raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None
    head = _model_text(path)
    if head is not None:
        try:
            data = json.loads(head)
        except (ValueError, RecursionError):
            data = None
        if (
            isinstance(data, dict)
            and data.get("format") == FORMAT
            and "merges" in data
            and "position" in data
        ):
            try:
                return _validated(data, model_only=True)
            except SessionError as error:
                raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None
    return read_session(path)


def _model_text(path: Path) -> str | None:
    """The file's text before the line that starts the corpus, closed as a JSON object; or
    ``None`` if there is no such line (the caller then reads the whole file)."""
    limit = input_limit()
    lines: list[bytes] = []
    size = 0
    try:
        with open_input(path) as stream:
            # The start of each line first: the corpus line, often most of the file, is not read.
            while line := stream.readline(min(len(CORPUS_KEY), limit + 1 - size)):
                if line.startswith(CORPUS_KEY):
                    text = b"".join(lines).decode("utf-8", errors="strict").rstrip()
                    return text.removesuffix(",") + "\n}"
                if not line.endswith(b"\n"):
                    line += stream.readline(limit + 1 - size - len(line))
                lines.append(line)
                size += len(line)
                if size > limit:
                    return None
    except (OSError, UnicodeDecodeError):
        return None  # read_session reports it
    return None


def load_encoder(path: str | Path) -> Encoder:
    """An encoder with the merges up to the saved position, without reading the corpus."""
    data = read_model(path)
    pipeline: PipelineConfig = data["pipeline"]
    tokens = [*pipeline.special_tokens, *data["alphabet"]]
    if data["alphabet"] != sorted_alphabet(data["alphabet"], pipeline.end_of_word):
        raise SessionError(f"The session file {str(path)!r} is invalid: its alphabet is not sorted.")
    if set(pipeline.special_tokens) & set(data["alphabet"]):
        raise SessionError(
            f"The session file {str(path)!r} is invalid: a special token is also in the alphabet."
        )
    # Special tokens apart: a merge that spells one makes a token of its own (as in training).
    ids = {token: i for i, token in enumerate(tokens) if i >= len(pipeline.special_tokens)}
    merges: list[Merge] = []
    saved = data["merges"]
    for rank in range(data["position"]):  # a merge at a time: SavedMerges makes each on demand
        merge = saved[rank]
        left, right = merge["pair"]
        if left not in ids or right not in ids:
            raise SessionError(
                f"The session file {str(path)!r} is invalid: merge {rank + 1} uses a token not made yet."
            )
        token = ids.get(merge["token"])
        if token is None:
            token = ids[merge["token"]] = len(tokens)
            tokens.append(merge["token"])
        merges.append(Merge(rank, ids[left], ids[right], token, merge["count"]))
    encoder = Encoder(pipeline, tokens, merges, range(len(pipeline.special_tokens)))
    numbering: Numbering | None = data["numbering"]
    if numbering is None:
        return encoder
    return encoder.renumbered(numbering.ids(tokens, encoder.n_special), numbering.unknown)
