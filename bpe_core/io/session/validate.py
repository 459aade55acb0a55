"""What a valid session file is, and reading one: parsed as it streams in where the layout
allows, every field checked, every failure one sentence (``SessionError``).

Nothing in a file is ever executed (plain ``json`` only).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import BpeError, InputError, SessionError, has_lone_surrogate, quoted
from bpe_core.io.session.corpus_reader import CorpusColumns, never_stop
from bpe_core.io.session.stream import SavedMerges, read_streamed
from bpe_core.io.sources import SESSION_FORMAT, looks_like_json_lines
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import MAX_TOTAL
from bpe_core.pipeline.vocab import MARK, joined, key_of
from bpe_core.runtime.fileio import open_input, read_bounded
from bpe_core.training.config import TrainingConfig

FORMAT = SESSION_FORMAT
# Version 3 keeps every branch of the history (``bpe_core.history.branches``). Version 2 names tokens by
# key (``bpe_core.pipeline.vocab``): the end-of-word marker is written "\u0000", so that it can never be
# mistaken for text that spells it. Version 1 wrote display strings.
VERSION = 3
MAX_TEST_TEXT = 1_000_000  # characters of the Encode pane's test string a session may keep


def read_session(path: str | Path, checkpoint: Callable[[], object] = never_stop) -> dict[str, Any]:
    """Parse and validate a session file's structure (not yet its consistency with the corpus).
    ``checkpoint()`` is called as the corpus streams in; it may raise to stop."""
    path = Path(path)
    return _checked_session(_parsed(path, checkpoint), path)


def _parsed(path: Path, checkpoint: Callable[[], object] = never_stop) -> Any:
    """The file's JSON data. A file as ``save_session`` writes it is read as it streams in:
    ``"merges"`` is then a :class:`SavedMerges` and ``corpus["words"]`` a :class:`CorpusColumns`
    (``bpe_core.io.session.stream``); anything else is read whole by ``json``."""
    streamed = read_streamed(path, check_merge, checkpoint=checkpoint)
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
        return validated(data)
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
    raises :class:`SessionError` with one sentence instead of opening as text, unless it is
    JSON lines (its first line a whole JSON object, not ours): a corpus, as C4's shards are.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        if looks_like_json_lines(path):
            return None
        _refuse_other_than_an_object(path)
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
        return validated(data)
    except SessionError as error:
        raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None


def validated(data: dict[str, Any], model_only: bool = False) -> dict[str, Any]:
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
    if "numbering" in data:  # an imported tokenizer's ids (bpe_core.encoding.numbering)
        numbering = Numbering.from_dict(data["numbering"], len(pipeline.special_tokens))
    if not model_only:
        _check_corpus(data["corpus"], pipeline, empty_allowed=numbering is not None)
    merges = data["merges"]
    if not isinstance(merges, list | SavedMerges):
        raise SessionError("the merges must be a list.")
    if isinstance(merges, list):  # a SavedMerges was checked merge by merge as it was read
        for number, merge in enumerate(merges, start=1):
            check_merge(number, merge, pipeline.continuing_prefix)
    position = data["position"]
    if not isinstance(position, int) or isinstance(position, bool) or not 0 <= position <= len(merges):
        raise SessionError(f"the position must be a whole number from 0 to {len(merges)}.")
    if version >= 3 and not model_only:
        _check_branches(data, pipeline.continuing_prefix)
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


def _check_branches(data: dict[str, Any], prefix: str | None) -> None:
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
                check_merge(number, merge, prefix)
                replaced = merge.get("replacements")
                if not (_is_count_or_zero(replaced) and replaced <= MAX_TOTAL):
                    raise SessionError(
                        f"merge {number} of branch {quoted(name)} has a malformed replacement count."
                    )
    lengths: dict[int, int] = {}
    for branch_id in parents_first(entries):
        entry = entries[branch_id]
        parent = entry["parent"]
        before = 0 if parent is None else lengths[parent]
        line = entry["fork"] + len(entry["merges"]) if branch_id != current else len(data["merges"])
        if entry["fork"] > min(before, line):
            raise SessionError(f"branch {quoted(entry['name'])} forks after the end of a line.")
        lengths[branch_id] = line


def parents_first(entries: dict[int, dict[str, Any]]) -> list[int]:
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
    """The key of every base symbol byte mode can have: the 256 bytes (each also after the
    continuing-subword prefix), and the end-of-word marker."""
    symbols = set(BYTE_TO_CHAR)
    if pipeline.continuing_prefix is not None:
        symbols |= {pipeline.continuing_prefix + char for char in BYTE_TO_CHAR}
    if pipeline.end_of_word is not None and pipeline.attach_marker:
        symbols |= {char + MARK for char in symbols}
    elif pipeline.end_of_word is not None:
        symbols.add(MARK)
    return symbols


def check_merge(number: int, merge: Any, prefix: str | None = None) -> None:
    """Raise ``SessionError`` when a merge's object is malformed (``prefix``: the pipeline's
    continuing-subword prefix, which a merged token drops from its right part)."""
    problem = None
    if not isinstance(merge, dict):
        problem = "is not an object"
    elif not _is_string_pair(merge.get("pair")):
        problem = "has no [left, right] pair"
    elif merge.get("token") != joined(merge["pair"][0], merge["pair"][1], prefix):
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


def _refuse_other_than_an_object(path: Path) -> None:
    """A ``.json`` file that does not begin with an object (an array, nothing at all) is
    refused before it is read: a dataset's array may take gigabytes to parse."""
    try:
        with open_input(path) as stream:
            head = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return  # reading it as a session says what is wrong
    if not head.startswith(b"{"):
        raise SessionError(
            f"The file {str(path)!r} is neither a BPE Studio session nor JSON lines (one JSON object a line)."
        )
