"""Corpus files: texts (files, folders, globs, compressed, JSONL, Parquet) counted, or counts files
read, made into a :class:`Corpus`."""

from __future__ import annotations

import glob
import os
from collections.abc import Collection, Sequence
from pathlib import Path

from bpe_core.errors import ConfigError, InputError
from bpe_core.io.counting import count_sources
from bpe_core.io.counts_file import (
    counted_pipeline,
    counting_in,
    counts_corpus,
    differences,
    is_header,
    parquet_counts_corpus,
    plain_counts,
    read_counts_text,
)
from bpe_core.io.sources import DEFAULT_FIELD, STDIN, Source, expand, named, one_name_per_file
from bpe_core.io.sources import text_blocks as source_text_blocks
from bpe_core.pipeline.config import INPUT_KINDS, PipelineConfig
from bpe_core.pipeline.corpus import Corpus, Progress
from bpe_core.runtime.fileio import text_blocks


def read_text_file(path: str | Path) -> str:
    """Read a UTF-8 text file, refusing binary and undecodable files with a clear message (a
    block at a time: the file's bytes are never held beside its text)."""
    return "".join(text_blocks(path))


def load_corpus(
    inputs: str | Path | Sequence[str | Path],
    config: PipelineConfig,
    input_kind: str = "text",
    progress: Progress | None = None,
    workers: int = 1,
    field: str = DEFAULT_FIELD,
    fork: bool = False,
    stdin_kind: str = "text",
    chosen: Collection[str] | None = None,
    adopt: bool = True,
    lines: bool = False,
) -> Corpus:
    """The corpus of ``inputs``: files, folders, globs or ``-`` (``bpe_core.io.sources``), each
    text counted as :meth:`Corpus.from_text` counts it, on ``workers`` processes (forked only
    with ``fork``, see ``counting.count_sources``); or, with ``input_kind="counts"``, counts
    files (``bpe_core.io.counts_file``) added up, under the pipeline that counted them where
    they state it: its counting settings are taken (``config`` kept without ``adopt``), and
    those named in ``chosen`` must agree with ``config``'s (``None``: nothing is checked, and
    ``config`` is taken as it is). Standard input is ``stdin_kind`` (``text`` or ``jsonl``).
    With ``lines`` each line of a text input is a text of its own (``bpe_core.io.counting``)."""
    if input_kind not in INPUT_KINDS:
        raise ConfigError(f"Unknown input kind {input_kind!r}; choose one of: {', '.join(INPUT_KINDS)}.")
    specs = [str(inputs)] if isinstance(inputs, str | Path) else [str(p) for p in inputs]
    if input_kind == "counts":
        names = counts_files(specs)
        shards = len(names) > 1  # an empty shard among others adds nothing, as its text would
        read = [(name, _counts(name, config, progress, shards, chosen, adopt)) for name in names]
        corpora = [(name, corpus) for name, corpus in read if corpus is not None]
        if not corpora:
            raise InputError(f"The {len(names):,} counts files hold no word counts.")
        (first, corpus), *others = corpora
        if not others:
            return corpus
        for other, shard in others:
            if shard.config != corpus.config:
                raise InputError(
                    f"The counts files {first!r} and {other!r} were counted differently, "
                    f"{differences(corpus.config, shard.config)}: their words are pieces of different kinds."
                )
        items = (pair for _, shard in corpora for pair in zip(shard.words, shard.counts, strict=True))
        return Corpus.from_word_counts(items, corpus.config)
    sources = expand(specs, stdin_kind)
    counted = count_sources(sources, config, field, workers, progress, fork=fork, lines=lines)
    if not counted.counter:  # said of the inputs, which the user named
        if len(sources) > 1:
            raise InputError(f"The {len(sources):,} inputs hold no words after pre-tokenization.")
        # said plainly where it can be: "pre-tokenization" is a word a new user may not know
        blank = "is empty" if sources[0].size == 0 else _blank_text(sources[0])
        if blank is not None:
            raise InputError(f"{named(sources[0].name)} {blank}.")
        raise InputError(f"{named(sources[0].name)} holds no words after pre-tokenization.")
    return counted.corpus(config)


def _blank_text(source: Source) -> str | None:
    """How a text file that gave no words is blank: "is empty" (a compressed one too, once
    decompressed), "holds only whitespace", or None when it holds text. It is read again from
    its start: standard input, read once, is not."""
    if source.kind != "text" or source.size is None or source.name == STDIN:
        return None
    read = False
    for block in source_text_blocks(source):
        if block and not block.isspace():
            return None
        read = read or bool(block)
    return "holds only whitespace" if read else "is empty"


def counts_files(specs: list[str]) -> list[str]:
    """The counts files ``specs`` name: a folder's files and a glob's matches (as for texts:
    the counts of shards, one file each), other names as they are (their reading refuses them)."""
    names: list[str] = []
    for spec in specs:
        if spec != STDIN and (os.path.isdir(spec) or (glob.has_magic(spec) and not os.path.lexists(spec))):
            names.extend(source.name for source in expand([spec]))
        else:
            names.append(spec)
    return one_name_per_file(names)


def _counts(
    path: str,
    config: PipelineConfig,
    progress: Progress | None,
    shard: bool = False,
    chosen: Collection[str] | None = None,
    adopt: bool = True,
) -> Corpus | None:
    """The corpus of one counts file; ``None`` for a shard (one of several) that holds only the
    header, or nothing: a part of the input without words, which ``count`` refuses to write alone."""
    if shard and path != STDIN and os.path.isfile(path) and os.path.getsize(path) == 0:
        return None
    if path.lower().endswith(".parquet"):
        return parquet_counts_corpus(path, config, shard, chosen, adopt)
    text = read_counts_text(path)
    alone = text.lstrip("\ufeff").rstrip("\r\n")
    if shard and (not alone or ("\n" not in alone and "\r" not in alone and is_header(alone))):
        counted_pipeline(counting_in(alone, path), config, chosen, path)  # what it states is checked
        return None
    corpus = counts_corpus(text, path, config, progress, chosen, adopt)
    if corpus is not None:
        return corpus
    # without the header: word<TAB>count lines, each word text
    counted = plain_counts(text, config, progress)
    if counted is None:  # each word read as text, line by line
        return Corpus.from_counts(text, config, progress, name=path)
    return Corpus.from_counter(counted, config, ())
