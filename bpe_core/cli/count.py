"""``bpe-studio count``: the word counts of corpora of any size, as a file to train on.

    bpe-studio count INPUT... [--field NAME] [pipeline options] [--engine local|spark]
                     [--workers N] [--spark-master URL] -o COUNTS.tsv|COUNTS.parquet

The inputs are files, folders, globs or ``-`` (plain, ``.gz``, ``.bz2``, ``.xz``, ``.zst``; a text
per file, or per JSONL line or Parquet row); the pipeline options are ``train``'s. The local
engine counts on ``--workers`` processes, streaming (``bpe_core.io.counting``); the Spark engine
counts where the data is (``bpe_core.io.spark_counting``). Either writes the same file
(``bpe_core.io.counts_file``), and ``train COUNTS --input counts`` then gives the merges that
``train INPUT...`` gives.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO

from bpe_core.cli.common import CountProgress, amount, write_out
from bpe_core.cli.options import (
    field_of,
    input_options,
    note_field_unread,
    note_lines_unread,
    note_records_on_stdin,
    pipeline_of,
    pipeline_options,
    stdin_kind_of,
)
from bpe_core.errors import InputError
from bpe_core.io.sources import COMPRESSIONS, kind_of, refuse_overwriting_inputs
from bpe_core.runtime.fileio import check_writable

# Suffixes of archives and formats that count does not write
_OTHER_FORMATS = (
    ".zip",
    ".tar",
    ".tgz",
    ".7z",
    ".rar",
    ".lz4",
    ".lzma",
    ".lz",
    ".br",
    ".json",
    ".jsonl",
    ".ndjson",
    ".pq",
    ".arrow",
    ".feather",
    ".ipc",
    ".orc",
    ".avro",
    ".xlsx",
    ".xls",
)


def options_count(parser: argparse.ArgumentParser) -> None:
    input_options(parser)
    pipeline_options(parser)
    parser.add_argument("--engine", choices=("local", "spark"), default="local")
    parser.add_argument(
        "--spark-master",
        metavar="URL",
        help="the Spark master (local[N], spark://HOST:PORT, yarn…); default: Spark's own setting",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="COUNTS",
        help="the counts file: .tsv, or .parquet; - writes TSV to standard output",
    )


def run_count(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from bpe_core.io.counts_file import counts_tsv, write_counts

    started = time.perf_counter()
    to_stdout = args.output == "-"  # the standard stream, as - is among the inputs
    if not to_stdout:
        check_writable(args.output, "counts.tsv")
        refuse_overwriting_inputs([args.output], args.file)
    named = Path(args.output)
    named = named.with_suffix("") if named.suffix.lower() in COMPRESSIONS else named
    if not to_stdout and named.suffix.lower() == ".csv":  # commas would be expected, and tabs found
        raise InputError(
            f"The output {args.output!r} is named .csv, but counts are written word<TAB>count: "
            "name it .tsv (or .parquet)."
        )
    if not to_stdout and named.suffix.lower() in _OTHER_FORMATS:  # it would hold plain TSV under that name
        raise InputError(
            f"The output {args.output!r} is named {named.suffix}, which count does not write: name it "
            ".tsv (or .tsv.gz, .tsv.bz2, .tsv.xz, .tsv.zst) or .parquet."
        )
    kind, compression = kind_of(args.output)
    if kind == "parquet" and compression is not None:  # it could not be read back
        raise InputError(
            f"The output {args.output!r} names a compressed Parquet file; Parquet compresses itself."
        )
    config = pipeline_of(args)
    note_field_unread(args, stderr)
    note_lines_unread(args, stderr)
    if args.spark_master is not None and args.engine != "spark":
        raise InputError("--spark-master goes with --engine spark.")
    if args.engine == "spark":
        from bpe_core.io.spark_counting import spark_counts

        counts, read = spark_counts(args.file, config, field_of(args), args.spark_master, args.lines)
    else:
        from bpe_core.io.counting import count_sources
        from bpe_core.io.sources import expand

        note_records_on_stdin(args, stderr)
        sources = expand(args.file, stdin_kind_of(args))
        progress = CountProgress(stderr)
        counted = count_sources(
            sources, config, field_of(args), args.workers, progress.update, fork=True, lines=args.lines
        )
        progress.close()
        counts, read = counted.counter, len(sources)
    if not counts:
        raise InputError("The inputs hold no words after pre-tokenization.")
    if to_stdout:  # the counts are the output: the summary goes with the progress, to stderr
        write_out(counts_tsv(counts, config), stdout)  # written before they are said to be
    else:
        write_counts(counts, config, args.output)
    seconds = time.perf_counter() - started
    total = sum(counts.values())
    print(
        f"Counted {amount(len(counts), 'word type')} ({amount(total, 'word')}) in {amount(read, 'input')} "
        f"in {seconds:.1f} s; wrote {'them to standard output' if to_stdout else args.output}.",
        file=stderr if to_stdout else stdout,
    )
    return 0
