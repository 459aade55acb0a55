"""The tokenizers already on this machine: Hugging Face's hub cache and tiktoken's cache, offline.

Nothing is downloaded and no file is parsed: a listing looks at folder names, symlinks and, for
tiktoken's cache (whose files are named by a hash of their address), the first line of each file
and the SHA-256 of the ranks files, which tells tiktoken's encodings apart
(:func:`~bpe_core.io.formats.tiktoken_encodings.encoding_of_file`). What cannot be read (a broken
symlink, a folder without permission, a name no model has) is passed over, never raised.

Where the caches are, as their libraries decide it:

- Hugging Face (huggingface_hub's ``constants``): ``HF_HUB_CACHE``, else the older
  ``HUGGINGFACE_HUB_CACHE``, else ``HF_HOME/hub``, else ``XDG_CACHE_HOME/huggingface/hub``, else
  ``~/.cache/huggingface/hub``. A model ``ORG/NAME`` is the folder ``models--ORG--NAME``, whose
  ``snapshots/<revision>/`` hold its files (symlinks into ``blobs/``) and whose ``refs/main`` names
  the revision the ``main`` branch points to.
- tiktoken (``tiktoken.load.read_file_cached``): ``TIKTOKEN_CACHE_DIR``, else
  ``DATA_GYM_CACHE_DIR``, else ``<temporary folder>/data-gym-cache``; an empty
  ``TIKTOKEN_CACHE_DIR`` turns the cache off.

Example: ``resolve_hf("hf:openai-community/gpt2")`` is the ``tokenizer.json`` of that model's
``main`` snapshot, for :func:`bpe_core.io.formats.read_tokenizer`.

Imports only the standard library, :mod:`bpe_core.errors` and
:mod:`bpe_core.io.formats.tiktoken_encodings`.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from bpe_core.errors import InputError
from bpe_core.io.formats.tiktoken_encodings import encoding_of_file

HF_PREFIX = "hf:"
HF_CACHE, TIKTOKEN_CACHE = "hf-cache", "tiktoken-cache"
# A snapshot's tokenizer, in the order one is preferred: the kind (a format name of
# ``read_tokenizer``, or "sentencepiece") and the files it needs.
HF_FILES = (
    ("hf", ("tokenizer.json",)),
    ("gpt2", ("vocab.json", "merges.txt")),
    ("sentencepiece", ("tokenizer.model",)),
)
# Where in a snapshot a tokenizer may be: its top, else the "tokenizer" folder that diffusion
# pipelines (a CLIP tokenizer beside their other parts) keep it in.
HF_PLACES = ("", "tokenizer")
KINDS = {
    "hf": "Hugging Face tokenizer.json",
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "sentencepiece": "SentencePiece model",
    "tiktoken": "tiktoken ranks",
}
UNKNOWN_ENCODING = "tiktoken ranks (unknown encoding)"
HASHED_UP_TO = 8 * 1024 * 1024  # bytes: tiktoken's largest known ranks file (o200k_base) is 3.6 MB
HASHED_IN_ALL = 64 * 1024 * 1024  # bytes hashed in one listing at most; the rest listed by their head
_HEAD = 1024  # bytes read to see whether a file starts as tiktoken ranks
_NAME_PART = re.compile(r"\w(?:[\w.-]*\w)?")  # huggingface_hub's rule for an owner's or a model's name
_RANK_LINE = re.compile(rb"([A-Za-z0-9+/]+=*) [0-9]+\r?")
# What each hashed tiktoken file is, by its path, size and modification time: a listing made
# again (the dialog opened twice) hashes only what changed.
_hashed: dict[tuple[str, int, int], str | None] = {}


@dataclass(frozen=True)
class LocalTokenizer:
    """A tokenizer found on this machine.

    ``name``: ``ORG/NAME`` (or ``NAME``) for a Hugging Face model, the encoding's name for
    tiktoken ranks it recognises, else the file's name; ``path``: the file or folder to give
    ``read_tokenizer``; ``kind``: "hf", "gpt2", "sentencepiece" or "tiktoken"; ``source``:
    "hf-cache" or "tiktoken-cache"; ``encoding``: the tiktoken encoding the ranks are (their
    pattern and special tokens apply), else ``None``; ``revision``: the Hugging Face snapshot's.
    """

    name: str
    path: Path
    kind: str
    source: str
    encoding: str | None = None
    revision: str | None = None

    @property
    def description(self) -> str:
        """The kind in words: "Hugging Face tokenizer.json", "tiktoken ranks (unknown encoding)"…"""
        if self.kind == "tiktoken" and self.encoding is None:
            return UNKNOWN_ENCODING
        return KINDS[self.kind]


def hf_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Hugging Face's hub cache, as huggingface_hub finds it (``~`` and ``$VARS`` expanded)."""
    named = environ.get("HF_HUB_CACHE") or environ.get("HUGGINGFACE_HUB_CACHE")
    if named:
        return _expanded(named, environ)
    home = environ.get("HF_HOME")
    if home:
        return _expanded(home, environ) / "hub"
    xdg = environ.get("XDG_CACHE_HOME")
    base = _expanded(xdg, environ) if xdg else _home(environ) / ".cache"
    return base / "huggingface" / "hub"


def tiktoken_cache_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """tiktoken's cache, as tiktoken finds it; ``None`` when ``TIKTOKEN_CACHE_DIR`` is empty
    (tiktoken then caches nothing)."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in environ:
            return Path(environ[variable]) if environ[variable] else None
    temporary = next((environ[v] for v in ("TMPDIR", "TEMP", "TMP") if environ.get(v)), None)
    return Path(temporary or tempfile.gettempdir()) / "data-gym-cache"


def searched_folders(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The folders :func:`find_local_tokenizers` looks in."""
    folders = [hf_cache_dir(environ)]
    tiktoken = tiktoken_cache_dir(environ)
    return folders if tiktoken is None else [*folders, tiktoken]


def find_local_tokenizers(environ: Mapping[str, str] = os.environ) -> list[LocalTokenizer]:
    """Every tokenizer in Hugging Face's and tiktoken's caches, sorted by name.

    A Hugging Face model is listed once, from its ``main`` snapshot if that holds a tokenizer,
    else from its newest snapshot that does; the files of tiktoken's cache that are tiktoken
    ranks are listed by the encoding they are, or as of an unknown encoding."""
    found = list(_hf_models(hf_cache_dir(environ)))
    tiktoken = tiktoken_cache_dir(environ)
    if tiktoken is not None:
        found += _tiktoken_files(tiktoken)
    return sorted(found, key=lambda t: (t.name.casefold(), t.name, str(t.path)))


def is_hf_name(text: str) -> bool:
    """Whether ``text`` names a Hugging Face model: ``hf:ORG/NAME`` or ``hf:NAME``."""
    return text.startswith(HF_PREFIX)


def model_path(text: str, environ: Mapping[str, str] = os.environ) -> str | Path:
    """A model named on the command line as a path to read: ``hf:ORG/NAME`` resolved in Hugging
    Face's cache (:func:`resolve_hf`), unless a file of that very name is there; else ``text``."""
    if is_hf_name(text) and not os.path.lexists(text):
        return resolve_hf(text, environ)
    return text


def resolve_hf(name: str, environ: Mapping[str, str] = os.environ) -> Path:
    """The tokenizer file (or GPT-2 files' folder) of the model ``hf:ORG/NAME`` in Hugging
    Face's cache, from its ``main`` snapshot, else its newest one that holds a tokenizer;
    :class:`InputError` saying where it looked if the cache has none. Nothing is downloaded."""
    repo = name.removeprefix(HF_PREFIX)
    shown = HF_PREFIX + repo
    parts = repo.split("/")
    if not 1 <= len(parts) <= 2 or not all(_is_name_part(part) for part in parts):
        raise InputError(f"{shown!r} is not a Hugging Face model's name: write hf:ORG/NAME or hf:NAME.")
    cache = hf_cache_dir(environ)
    folder = cache / "--".join(["models", *parts])
    found = _hf_model(folder, repo)
    if found is not None:
        return found.path
    if _is_dir(folder):
        raise InputError(
            f"{shown} is in the Hugging Face cache at {cache}, but none of its snapshots holds "
            "tokenizer.json, vocab.json + merges.txt or tokenizer.model (nothing is downloaded)."
        )
    other = next((m for m in _hf_models(cache) if m.name.casefold() == repo.casefold()), None)
    hint = (
        f"the cache holds {HF_PREFIX}{other.name}"
        if other is not None
        else f"fetch it with `hf download {repo} tokenizer.json`, or name another cache with HF_HUB_CACHE"
    )
    raise InputError(f"{shown} is not in the Hugging Face cache at {cache} (nothing is downloaded); {hint}.")


# -- Hugging Face ----------------------------------------------------------------------------


def _hf_models(cache: Path) -> Iterator[LocalTokenizer]:
    for entry in _entries(cache):
        if entry.name.startswith("models--"):
            parts = entry.name.removeprefix("models--").split("--")
            if 1 <= len(parts) <= 2 and all(_is_name_part(part) for part in parts):
                found = _hf_model(cache / entry.name, "/".join(parts))
                if found is not None:
                    yield found


def _hf_model(folder: Path, name: str) -> LocalTokenizer | None:
    """The tokenizer of the model in ``folder``: its ``main`` snapshot's, else its newest
    snapshot's that has one."""
    snapshots = folder / "snapshots"
    main = _read_ref(folder / "refs" / "main")
    if main is not None:
        found = _in_snapshot(snapshots / main, name, main)
        if found is not None:
            return found
    dated = []
    for entry in _entries(snapshots):
        try:
            if entry.name != main and entry.is_dir():
                dated.append((entry.stat().st_mtime_ns, entry.name))
        except OSError:
            continue
    for _, revision in sorted(dated, reverse=True):
        found = _in_snapshot(snapshots / revision, name, revision)
        if found is not None:
            return found
    return None


def _in_snapshot(snapshot: Path, name: str, revision: str) -> LocalTokenizer | None:
    for place in HF_PLACES:
        folder = snapshot / place if place else snapshot
        for kind, files in HF_FILES:
            if all(_is_file(folder / file) for file in files):
                path = folder if len(files) > 1 else folder / files[0]
                return LocalTokenizer(name, path, kind, HF_CACHE, revision=revision)
    return None


def _read_ref(path: Path) -> str | None:
    """The revision a ref file names, if it names one that can be a folder's name."""
    try:
        with open(path, "rb") as stream:
            text = stream.read(256).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _is_name_part(text) and ".." not in text else None


def _is_name_part(text: str) -> bool:
    return _NAME_PART.fullmatch(text) is not None and ".." not in text and len(text) <= 96


# -- tiktoken --------------------------------------------------------------------------------


def _tiktoken_files(cache: Path) -> list[LocalTokenizer]:
    found = []
    budget = HASHED_IN_ALL
    for entry in sorted(_entries(cache), key=lambda e: e.name):
        if entry.name.endswith(".tmp") or entry.name.startswith("."):
            continue  # one tiktoken is writing
        path = cache / entry.name
        try:
            info = path.stat()
        except OSError:
            continue  # a broken symlink
        if not stat.S_ISREG(info.st_mode) or not _starts_as_ranks(path):
            continue
        key = (str(path), info.st_size, info.st_mtime_ns)
        encoding: str | None = None
        if key in _hashed:
            encoding = _hashed[key]
        elif info.st_size <= min(HASHED_UP_TO, budget):
            budget -= info.st_size
            known = encoding_of_file(path)
            encoding = _hashed[key] = known.name if known is not None else None
        found.append(LocalTokenizer(encoding or entry.name, path, "tiktoken", TIKTOKEN_CACHE, encoding))
    return found


def _starts_as_ranks(path: Path) -> bool:
    """Whether the file's first line is ``base64 rank``, as a ``.tiktoken`` file's is."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(_HEAD)
    except OSError:
        return False
    match = _RANK_LINE.fullmatch(head.split(b"\n", 1)[0])
    if match is None or b"\n" not in head:
        return False
    try:
        base64.b64decode(match.group(1), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# -- files -----------------------------------------------------------------------------------


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of ``folder``; none if it is missing or cannot be read."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (OSError, ValueError):
        return []


def _is_file(path: Path) -> bool:
    """A file, or a symlink to one (a broken one is not)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def _home(environ: Mapping[str, str]) -> Path:
    home = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(home) if home else Path.home()


_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})")


def _expanded(text: str, environ: Mapping[str, str]) -> Path:
    """``text`` with ``~`` and ``$NAME`` / ``${NAME}`` expanded from ``environ`` (unknown
    variables left as written), as huggingface_hub expands its variables."""

    def variable(match: re.Match[str]) -> str:
        key = match.group(1).strip("{}")
        return environ.get(key, match.group(0))

    if text == "~" or text.startswith("~/"):
        text = str(_home(environ)) + text[1:]
    return Path(_VARIABLE.sub(variable, text))
