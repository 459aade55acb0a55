"""Corpus files: a UTF-8 text read whole, or ``word<TAB>count`` lines, made into a :class:`Corpus`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bpe_core.errors import ConfigError, InputError
from bpe_core.pipeline.config import INPUT_KINDS, PipelineConfig
from bpe_core.pipeline.corpus import Corpus
from bpe_core.runtime.fileio import read_bounded

Progress = Callable[[int, int], None]


def read_text_file(path: str | Path) -> str:
    """Read a UTF-8 text file, refusing binary and undecodable files with a clear message."""
    path = Path(path)
    data = read_bounded(path)
    if b"\x00" in data:  # anywhere: a NUL byte deep in a file is as binary as one at the start
        raise InputError(f"The file {str(path)!r} looks binary, not like text (it contains NUL bytes).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"The file {str(path)!r} is not valid UTF-8 (byte {error.start} cannot be decoded)."
        ) from None


def load_corpus(
    path: str | Path,
    config: PipelineConfig,
    input_kind: str = "text",
    progress: Progress | None = None,
    workers: int = 1,
) -> Corpus:
    """Read ``path`` as raw text or as ``word<TAB>count`` lines and build the corpus."""
    if input_kind not in INPUT_KINDS:
        raise ConfigError(f"Unknown input kind {input_kind!r}; choose one of: {', '.join(INPUT_KINDS)}.")
    text = read_text_file(path)
    if input_kind == "counts":
        return Corpus.from_counts(text, config)
    return Corpus.from_text(text, config, progress, workers)
