"""Tokenizer files of other tools, read and written (one module per format, no Qt).

``read_tokenizer`` finds the format of a file or folder by its content (the name only breaks
ties) and gives an :class:`Imported`: the encoder, with every id as the file has it, and notes on
what the file holds that is not applied. ``write_tokenizer`` writes an encoder in a format;
``formats_for`` says which formats can hold it.

============= ============================================ ====== =====
name          files                                        read   write
============= ============================================ ====== =====
session       a BPE Studio session (``.json``)              yes    (sessions are saved, not exported)
hf            Hugging Face ``tokenizer.json``               yes    yes
gpt2          ``vocab.json`` + ``merges.txt`` (a folder)    yes    yes
codes         subword-nmt ``codes``: one pair per line      yes    yes
tiktoken      ``.tiktoken`` ranks                           yes    yes
minbpe        minbpe ``.model``                             yes    no
sentencepiece SentencePiece BPE ``.model``                  yes    no
============= ============================================ ====== =====

Imports the engine's lower stages and :mod:`bpe_core.io.session` (a session is a format too).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from bpe_core.encoding.encoder import UNKNOWN_ID, Encoder
from bpe_core.errors import BpeError, InputError, quoted
from bpe_core.io.formats.codes import codes_text, read_codes
from bpe_core.io.formats.gpt2_files import gpt2_texts, read_gpt2
from bpe_core.io.formats.hf_json import hf_dict, hf_export_notes, read_hf
from bpe_core.io.formats.minbpe_model import read_minbpe
from bpe_core.io.formats.sentencepiece import for_hugging_face, read_sentencepiece
from bpe_core.io.formats.sp_model import read_sp_model
from bpe_core.io.formats.tiktoken_encodings import ENCODINGS, encoding_of_file
from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, ranks_of, ranks_text, read_ranks
from bpe_core.io.session import load_encoder
from bpe_core.io.sources import SESSION_FORMAT, SESSION_SUFFIX, looks_like_json_lines
from bpe_core.runtime.fileio import open_input, regular_file_size, spooled, write_all_atomic


@dataclass(frozen=True)
class Format:
    """A tokenizer format: how to read it and, where it can be written, how to render it.

    ``read(path, pattern, specials)`` gives the encoder and notes on what the file holds that
    is not applied (``pattern`` and ``specials`` matter only to formats that hold neither);
    ``render(encoder)`` gives file name -> text, raising the reason it cannot hold the encoder;
    ``folder`` formats are written as a folder of files.
    """

    name: str
    description: str
    read: Callable[[Path, str | None, Sequence[str]], tuple[Encoder, list[str]]]
    render: Callable[[Encoder], dict[str, str]] | None = None
    folder: bool = False


def _read_session(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    return load_encoder(path), []


def _read_hf(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    return read_hf(path / "tokenizer.json" if path.is_dir() else path)


def _read_gpt2(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    folder = path if path.is_dir() else path.parent
    return read_gpt2(folder / "vocab.json", folder / "merges.txt", pattern or "gpt2"), []


def _read_codes(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    return read_codes(path), [
        "subword-nmt splits words at single spaces only; here they split at any whitespace "
        "(tabs, no-break spaces)."
    ]


def _read_tiktoken(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    notes = []
    named = ENCODINGS.get(pattern or "")
    if named is not None:  # an encoding's special tokens numbered after other ranks: a mixed tokenizer
        found = encoding_of_file(path)
        if found is not None and found.sha256 != named.sha256:
            raise InputError(
                f"{str(path)!r} holds tiktoken's {found.name} ranks, not {named.name}'s: its special "
                f"tokens would take ids of another vocabulary (give --pattern to split the ranks "
                "another way)."
            )
    if pattern is None:  # not given: the encoding the ranks are, else GPT-2's pattern
        encoding = encoding_of_file(path)
        pattern = "gpt2"
        if encoding is not None and not specials:
            pattern = encoding.name
            if encoding.pattern != "gpt2":  # said where the split differs from what a user expects
                notes.append(
                    f"These are tiktoken's {encoding.name} ranks: its split pattern and special tokens apply."
                )
        elif encoding is not None and (left_out := [t for t in encoding.specials if t not in specials]):
            notes.append(
                f"These are tiktoken's {encoding.name} ranks: the special tokens given take the ids after "
                f"them, and its own ({', '.join(left_out)}) are left out; give --encoding {encoding.name} "
                "to keep them and number yours after them."
            )
    return encoder_from_ranks(read_ranks(path), pattern, specials), notes


def _read_minbpe(path: Path, pattern: str | None, specials: Sequence[str]) -> tuple[Encoder, list[str]]:
    return read_minbpe(path), []


def _read_sentencepiece(
    path: Path, pattern: str | None, specials: Sequence[str]
) -> tuple[Encoder, list[str]]:
    return read_sentencepiece(path)


def _render_hf(encoder: Encoder) -> dict[str, str]:
    # A SentencePiece normalizer is written as the Hugging Face steps that do the same, or refused.
    data = hf_dict(for_hugging_face(encoder))
    return {"tokenizer.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}


# Every format, one line each: the order is the one lists and messages give.
FORMATS = {
    f.name: f
    for f in (
        Format("session", "BPE Studio session", _read_session),
        Format("hf", "Hugging Face tokenizer.json", _read_hf, _render_hf),
        Format("gpt2", "GPT-2 vocab.json + merges.txt", _read_gpt2, gpt2_texts, folder=True),
        Format("codes", "subword-nmt codes", _read_codes, lambda encoder: {"codes": codes_text(encoder)}),
        Format(
            "tiktoken",
            "tiktoken ranks",
            _read_tiktoken,
            lambda encoder: {"ranks.tiktoken": ranks_text(ranks_of(encoder))},
        ),
        Format("minbpe", "minbpe model", _read_minbpe),
        Format("sentencepiece", "SentencePiece model (.model)", _read_sentencepiece),
    )
}
READABLE = tuple(FORMATS)
WRITABLE = tuple(name for name, f in FORMATS.items() if f.render is not None)
DESCRIPTIONS = {name: f.description for name, f in FORMATS.items()}
_HEAD = 4096  # bytes looked at to tell the formats apart


@dataclass(frozen=True)
class Imported:
    encoder: Encoder
    format: str
    notes: tuple[str, ...] = ()


def files_read(path: str | Path) -> list[str]:
    """The files that reading the tokenizer at ``path`` reads: both of GPT-2's vocab.json and
    merges.txt when one of them is named (a folder is read whole), else ``path``. An output
    must not replace any of them: naming vocab.json, ``-o merges.txt`` broke the pair."""
    path = Path(path)
    if path.is_file():
        try:
            if detect(path) == "gpt2":
                return [str(path.parent / "vocab.json"), str(path.parent / "merges.txt")]
        except InputError:
            pass  # the reading says what is wrong with it
    return [str(path)]


def detect(path: str | Path) -> str:
    """The format of a tokenizer file or folder, from its content; one sentence if none fits."""
    path = Path(path)
    if path.is_dir():
        if (path / "tokenizer.json").is_file():
            return "hf"
        if (path / "vocab.json").is_file() and (path / "merges.txt").is_file():
            return "gpt2"
        if (path / "merges.txt").is_file():
            raise InputError(
                f"The folder {str(path)!r} holds GPT-2's merges.txt, but its vocab.json is missing beside it."
            )
        raise InputError(
            f"The folder {str(path)!r} holds neither tokenizer.json nor vocab.json + merges.txt."
        )
    try:
        with open_input(path) as stream:
            head = stream.read(_HEAD)
    except OSError as error:
        raise InputError(f"Cannot read {str(path)!r}: {error.strerror or error}.") from None
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("minbpe v"):
        return "minbpe"
    if _is_sentencepiece(path, head):
        return "sentencepiece"
    if text.startswith("{"):
        # A file named as the window names sessions is one, damaged or not: its errors say so.
        if f'"{SESSION_FORMAT}"' in text or path.name.lower().endswith(SESSION_SUFFIX):
            return "session"
        # (a record of JSON lines may name a model or a version too: a corpus, not a tokenizer)
        if ('"model"' in text or '"added_tokens"' in text or '"version"' in text[:100]) and (
            not looks_like_json_lines(path)
        ):
            return "hf"
        if (path.parent / "merges.txt").is_file():
            return "gpt2"
        raise InputError(f"The JSON file {str(path)!r} is not a session, a tokenizer.json or a vocab.json.")
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    whole = lines[:-1] or lines  # the last line may be cut short by the head's end
    if lines and _mostly_ranks(path, whole):
        return "tiktoken"
    if lines and (lines[0].startswith("#version") or all(len(line.split(" ")) == 2 for line in whole)):
        return "gpt2" if path.name == "merges.txt" and (path.parent / "vocab.json").is_file() else "codes"
    raise InputError(
        f"The file {str(path)!r} is not a tokenizer file BPE Studio reads ({', '.join(READABLE)})."
    )


_RANK_LINE = re.compile(r"[A-Za-z0-9+/]+=* [0-9]+\s*")
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f]")  # in no text file; in every ModelProto's first piece
_SNIFFED_MODEL_BYTES = 64 * 2**20  # a file not named .model is parsed whole to tell, up to this size


def _is_sentencepiece(path: Path, head: bytes) -> bool:
    """A serialized ModelProto: binary bytes that start with its first piece (field 1). A
    ``.model`` file is taken for one on that alone (reading it says what is damaged); a file
    otherwise named must parse whole."""
    if head[:1] != b"\x0a" or _CONTROL_BYTES.search(head) is None:
        return False
    if path.suffix.lower() == ".model":
        return True
    size = regular_file_size(path)
    if size is None or size > _SNIFFED_MODEL_BYTES:
        return False
    try:
        read_sp_model(path)
    except InputError:
        return False
    return True


def tokenizer_format(path: str | Path) -> str | None:
    """The format of ``path`` if it is surely a tokenizer of another tool, else ``None`` (a
    session, or text: a corpus of two words a line is not taken for a codes file)."""
    path = Path(path)
    try:
        found = detect(path)
    except InputError:
        return None
    if found == "session":
        return None
    if found == "codes" and path.suffix.lower() not in (".codes", ".bpe"):
        with open_input(path) as stream:
            return found if stream.read(9) == b"#version:" else None
    if found == "tiktoken":
        with open_input(path) as stream:
            first = stream.readline().split()
        try:
            base64.b64decode(first[0], validate=True)
        except (binascii.Error, ValueError, IndexError):
            return None
    return found


def _is_rank_line(line: str) -> bool:
    return _RANK_LINE.fullmatch(line) is not None


def _mostly_ranks(path: Path, lines: list[str]) -> bool:
    """Whether the first lines are a tiktoken file's: all of them or, with a damaged line or
    two, three in four (the first among them, unless the file is named ``.tiktoken``) with their
    ranks rising as tiktoken writes them (a list of words and their counts falls), so that
    reading it names the line at fault instead of calling it no tokenizer at all."""
    ranked = [line for line in lines if _is_rank_line(line)]
    if len(ranked) == len(lines):
        return True
    rising = all(a < b for a, b in pairwise(int(line.split()[1]) for line in ranked))
    named = path.suffix.lower() == ".tiktoken"
    mostly = len(lines) >= 4 and 4 * len(ranked) >= 3 * len(lines)
    return mostly and rising and (named or _is_rank_line(lines[0]))


def read_tokenizer(
    path: str | Path, format: str | None = None, pattern: str | None = None, specials: Sequence[str] = ()
) -> Imported:
    """Read a tokenizer; ``pattern`` and ``specials`` are for tiktoken ranks, which hold neither
    (``pattern``: a split pattern's or a tiktoken encoding's name; by default the encoding the
    ranks are, recognised by content, else GPT-2's pattern).
    A pipe is read once (``fileio.spooled``): the format is told from its head before it is read."""
    path = Path(path)
    with spooled(path, "tokenizer file"):
        return _read_tokenizer(path, format, pattern, specials)


def _read_tokenizer(path: Path, format: str | None, pattern: str | None, specials: Sequence[str]) -> Imported:
    format = format or detect(path)
    if format not in READABLE:
        raise InputError(f"Unknown format {format!r}; choose one of: {', '.join(READABLE)}.")
    if specials and format != "tiktoken":
        raise InputError(
            "Special tokens are given on import only for tiktoken ranks; the other formats hold theirs."
        )
    if pattern is not None and format not in ("tiktoken", "gpt2"):  # it was ignored
        raise InputError(
            "A split pattern or tiktoken encoding is given only for tiktoken ranks and GPT-2's files; "
            f"a {DESCRIPTIONS[format]} holds its own."
        )
    try:
        encoder, notes = FORMATS[format].read(path, pattern, specials)
    except IsADirectoryError:
        raise InputError(f"{str(path)!r} is a folder; a {DESCRIPTIONS[format]} is a file.") from None
    return Imported(encoder, format, tuple(notes))


def export_notes(encoder: Encoder, format: str) -> list[str]:
    """What a reader of the exported file will do otherwise than the encoder, or must be told."""
    notes = []
    marks_unknown = encoder.config.unit == "char" and encoder.unknown_id == UNKNOWN_ID
    if format == "hf" and marks_unknown:
        notes.append(
            "Hugging Face drops the characters a vocabulary lacks (and merges across them), where this "
            "model marks them unknown: add text with every character to the corpus, or train on bytes."
        )
    if format == "hf":
        notes += hf_export_notes(encoder)  # a kept decoder or post-processor that no longer fits
    if format == "tiktoken":
        pattern = {"gpt4": "gpt4", "o200k": "o200k"}.get(encoder.config.pretokenize, "gpt2")
        notes.append(f"Give tiktoken the {pattern} split pattern with these ranks.")
        if encoder.n_special:
            specials = ", ".join(f"{encoder.keys[i]} = {i}" for i in sorted(encoder.special_ids))
            notes.append(f"A .tiktoken file holds no special tokens; give them to tiktoken: {specials}.")
    if format == "gpt2" and encoder.config.pretokenize in ("gpt4", "o200k"):
        name = encoder.config.pretokenize
        shown_name = "cl100k" if name == "gpt4" else name
        notes.append(
            f"GPT-2 files cannot say how the text is split: read them with the {shown_name} pattern "
            f"(here: import or encode with --pattern {name}), not GPT-2's."
        )
    if format == "codes":
        notes.append("A codes file holds the merges only: no ids, and no character that no merge uses.")
    always = [m.content for m in encoder.config.special_matching if not m.special]
    always += [t for t in encoder.config.always_matched if t not in always]
    holders = {"gpt2": "GPT-2 files", "tiktoken": "tiktoken ranks", "codes": "codes"}
    if format in holders and always:
        more = f" and {len(always) - 3:,} more" if len(always) > 3 else ""
        notes.append(
            f"The tokens this model finds in every text ({', '.join(map(quoted, always[:3]))}{more}) are "
            f"not written as such: {holders[format]} hold no added tokens, so their readers make "
            "them of smaller tokens."
        )
    return notes


def formats_for(encoder: Encoder) -> dict[str, str]:
    """Each writable format with why it cannot hold ``encoder`` ("" when it can)."""
    reasons = {}
    for name in WRITABLE:
        try:
            _render(encoder, name)
            reasons[name] = ""
        except BpeError as error:
            reasons[name] = str(error)
    return reasons


def tokenizer_texts(encoder: Encoder, format: str) -> dict[str, str]:
    """File name -> text of ``encoder`` written as ``format``."""
    if format not in WRITABLE:
        raise InputError(f"Cannot export as {format!r}; choose one of: {', '.join(WRITABLE)}.")
    return _render(encoder, format)


def write_tokenizer(encoder: Encoder, format: str, path: str | Path) -> list[Path]:
    """Write ``encoder`` as ``format`` at ``path`` (a folder for ``gpt2``); returns the files."""
    files = tokenizer_texts(encoder, format)
    path = Path(path)
    if FORMATS[format].folder:
        if path.exists() and not path.is_dir():
            # GPT-2's is the one folder format.
            raise InputError(f"GPT-2 files go in a folder, and {str(path)!r} is a file.")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"Cannot make the folder {str(path)!r} ({error.strerror or error}).") from None
        targets = [path / name for name in files]
    else:
        if path.is_dir():
            raise InputError(f"{str(path)!r} is a folder; a {DESCRIPTIONS[format]} is a file.")
        targets = [path]
    write_all_atomic(list(zip(targets, files.values(), strict=True)))  # GPT-2's two files: both or neither
    return targets


def _render(encoder: Encoder, format: str) -> dict[str, str]:
    """File name -> text of ``encoder`` in ``format`` (raises the reason it cannot be)."""
    render = FORMATS[format].render
    assert render is not None, "only writable formats are rendered"
    return render(encoder)
