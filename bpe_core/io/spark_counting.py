"""Counting word types on Spark, where the data is: the same readers and the same pipeline
function as the local engine (``bpe_core.io.counting``) run on the executors, the reduce
happens in Spark, and the driver writes the counts, byte for byte what the local engine writes.

Spark's own readers read the inputs, so ``hdfs://`` and ``s3a://`` paths work on a cluster:
Parquet through ``spark.read.parquet`` (its column, row by row); text and JSONL files, plain or
compressed, through the ``binaryFile`` source, each file whole on one executor and decoded there
by :mod:`bpe_core.io.sources` (a file is one text; split corpora into files of at most a few
hundred MB, as sharded datasets are). Paths on this machine are expanded as the local engine
expands them (folders, globs, hidden files skipped); other URLs are Spark's to list, recursively.

The executors need Python with ``numpy`` and ``regex``; ``bpe_core`` itself is shipped to them as
a zip. Needs ``pyspark`` (``pip install "bpe-studio[spark]"``) and Java 17 or newer.
"""

from __future__ import annotations

import contextlib
import logging
import operator
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import bpe_core
from bpe_core.errors import InputError
from bpe_core.io.counting import Task, count_task, refuse_other_than_text, tasks
from bpe_core.io.sources import (
    STDIN,
    Source,
    expand,
    file_url_path,
    is_remote,
    kind_of,
    parquet_batches,
    parquet_text_column,
    suffix_of,
)
from bpe_core.pipeline.config import PipelineConfig

_OUR_ERROR = re.compile(r"bpe_core\.errors\.InputError: (.*)")
_FAILED_FILE = re.compile(r"[Ee]ncountered error while reading file (\S+?)\.?(?=\s|$)")


def spark_counts(
    specs: Sequence[str], config: PipelineConfig, field: str, master: str | None = None, lines: bool = False
) -> tuple[Counter[str], int]:
    """The counts of the inputs, and how many inputs (files) Spark read; with ``lines`` each
    line of a text file is a text (``bpe_core.io.counting``)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError('The Spark engine needs pyspark: pip install "bpe-studio[spark]".') from None
    if STDIN in specs:
        raise InputError("The Spark engine reads files, not standard input.")
    remote = [spec for spec in specs if is_remote(spec)]
    local = expand([spec for spec in specs if spec not in remote])  # file:// URLs too
    for source in local:  # refused as the local engine refuses them: the counts are the same
        if source.sniffed:  # a pipe, which Spark's executors cannot open
            raise InputError(f"The Spark engine reads files, not pipes: {source.name!r} is one.")
        refuse_other_than_text(source)
        _refuse_what_hadoop_skips(source.name)
        if source.compression is not None and kind_of(source.name)[1] is None:  # told by its first bytes
            raise InputError(
                f"The Spark engine tells a file's compression by its suffix: {source.name!r} is "
                f"{source.compression}-compressed, so give it the suffix {suffix_of(source.compression)}."
            )
    empty = [s for s in local if s.kind == "parquet" and s.size == 0]  # no rows, and no Parquet to Spark
    local = [s for s in local if s not in empty]
    for source in local:  # checked as the local engine checks them, naming the file
        if source.kind == "parquet":
            parquet_text_column(source, field)
    parquet = [_spark_path(s.name) for s in local if s.kind == "parquet"]
    files = [_spark_path(s.name) for s in local if s.kind != "parquet"]
    for url in remote:
        (parquet if kind_of(url)[0] == "parquet" else files).append(url)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors run this Python
    builder = SparkSession.builder.appName("bpe-studio count")
    if master is not None:
        builder = builder.master(master)
    memory = _local_driver_memory(master)
    if memory is not None:
        builder = builder.config("spark.driver.memory", memory)
    builder = builder.config("spark.sql.caseSensitive", "true")  # a column "TEXT" is not "text"
    try:
        with _quiet_stderr():  # the JVM's start-up notes are not ours to print
            spark = builder.config("spark.ui.showConsoleProgress", "false").getOrCreate()
    except Exception as error:  # no Java, or a master that does not answer
        why = _first_line(error)
        if master is not None and _has_java():  # the master is the likelier cause
            raise InputError(f"Spark did not start with the master {master!r} ({why}).") from None
        raise InputError(f"Spark did not start ({why}); it needs Java 17 or newer.") from None
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as folder, _logging_off():
        spark.sparkContext.addPyFile(_package_zip(Path(folder)))
        try:
            counts = _count(spark, files, parquet, config.to_dict(), field, lines)
        except Exception as error:
            raise _in_a_row(_our_error(error), field) from None
        finally:
            _stop(spark)
    return Counter(dict(counts)), len(files) + len(parquet) + len(empty)


def _has_java() -> bool:
    """Whether Spark finds a Java to start: ``$JAVA_HOME``'s where it is set (Spark's launcher
    then looks nowhere else), else one on the path."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return any(os.path.isfile(os.path.join(home, "bin", name)) for name in ("java", "java.exe"))
    return shutil.which("java") is not None


def _local_driver_memory(master: str | None) -> str | None:
    """The heap for a Spark that runs in this process' own JVM (a ``local`` master, or none
    named): a quarter of this machine's memory, at least 2 GB. Spark's default of 1 GB cannot
    hold a file of 50 MB read whole with room to hand it to Python. ``None`` (Spark's choice)
    for a cluster's master, or when the user has chosen with ``SPARK_DRIVER_MEMORY``."""
    if master is not None and not master.startswith("local"):
        return None
    if "SPARK_DRIVER_MEMORY" in os.environ or "driver-memory" in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        return None
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): Spark's usual laptop figure
        return "4g"
    return f"{max(2, physical // 4 // 2**30)}g"


def _stop(spark: Any) -> None:
    """Stop the session, so that the next count may name another master; a JVM that has died
    (the error being reported says why) cannot be stopped and is left as it is."""
    with contextlib.suppress(Exception):  # Py4J raises plain socket errors once the JVM is gone
        spark.stop()


def _count(spark: Any, files: list[str], parquet: list[str], config: dict, field: str, lines: bool) -> list:
    from pyspark.sql.functions import input_file_name

    parts = []
    if files:
        frame = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(files)
        parts.append(
            frame.select("path", "content").rdd.flatMap(lambda row: _file_counts(row, config, field, lines))
        )
    if parquet:
        frame = spark.read.option("recursiveFileLookup", "true").parquet(*parquet)
        if field not in frame.columns:
            shown = ", ".join(frame.columns)
            raise InputError(f"The Parquet inputs have no column {field!r} (they have: {shown}).")
        if dict(frame.dtypes)[field] != "string":
            raise InputError(
                f"The column {field!r} of the Parquet inputs holds {dict(frame.dtypes)[field]}, not strings."
            )
        null = frame.filter(frame[field].isNull()).select(input_file_name()).limit(1).collect()
        if null:
            raise InputError(f"A row of the Parquet file {_local(null[0][0])!r} has no {field!r} (null).")
        # As bytes: Spark would decode a string that is not UTF-8 with replacement characters.
        rows = frame.select(frame[field].cast("binary"), input_file_name()).rdd.map(tuple)
        parts.append(rows.mapPartitions(lambda rows: _texts_counts(rows, config, field)))
    counts = parts[0] if len(parts) == 1 else spark.sparkContext.union(parts)
    return counts.reduceByKey(operator.add).collect()


def _file_counts(row: Any, config: dict, field: str, lines: bool) -> Iterator[tuple[str, int]]:
    """On an executor: a whole text or JSONL file's counts, read by the local engine's readers."""
    name = _local(row.path)  # as the user named it (Spark gives it %-escaped)
    kind, compression = kind_of(name)
    source = Source(name, kind, compression, len(row.content), bytes(row.content))
    pipeline = PipelineConfig.from_dict(config)
    counter: Counter[str] = Counter()
    for task in tasks([source], pipeline, field, lambda n: None, lines=lines):
        count_task(task, pipeline, field, counter)
    return iter(counter.items())


def _texts_counts(rows: Iterator[tuple[bytes, str]], config: dict, field: str) -> Iterator[tuple[str, int]]:
    """On an executor: the counts of Parquet rows (each a text's UTF-8, with its file's URL);
    one that is not UTF-8 or holds a NUL is refused naming its file, as the local engine
    refuses it."""
    pipeline = PipelineConfig.from_dict(config)
    texts = []
    for raw, url in rows:
        try:
            text = bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"A row of {_local(url)!r} has a {field!r} that is not valid UTF-8.") from None
        if "\x00" in text:
            raise InputError(
                f"A row of {_local(url)!r} has a {field!r} holding a NUL character, which is not text."
            )
        texts.append(text)
    counts, _ = count_task(Task("texts", "parquet", texts), pipeline, field)
    return iter(counts.items())


@contextmanager
def _logging_off() -> Iterator[None]:
    """No log records meanwhile: Py4J logs a call that Ctrl+C broke as errors with their
    tracebacks (some 50 lines before "Interrupted."), and every failure it logs is raised too,
    where it is said in one sentence."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 sent to nothing meanwhile (the JVM Spark starts writes there itself)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as nothing:
            os.dup2(nothing.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _package_zip(folder: Path) -> str:
    """``bpe_core`` as a zip the executors import it from."""
    root = Path(bpe_core.__file__).parent
    path = folder / "bpe_core.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(root.rglob("*.py")):
            archive.write(file, file.relative_to(root.parent).as_posix())
    return str(path)


_ROW_FAULT = re.compile(r"A row of (?:the Parquet file )?'(.+?)' ")


def _in_a_row(error: Exception, field: str) -> Exception:
    """A fault Spark met in a row of a Parquet file on this machine, said as the local engine
    says it (naming the row: Spark names only the file), read again here."""
    found = _ROW_FAULT.match(str(error))
    if found is None or not os.path.isfile(found.group(1)):
        return error
    try:
        for _ in parquet_batches(Source(found.group(1), "parquet", None, None), field):
            pass
    except InputError as said:
        return said
    return error


def _our_error(error: Exception) -> Exception:
    """Our one-sentence refusal raised on an executor, as it was raised; else Spark's first line."""
    if isinstance(error, InputError):
        return error
    found = _OUR_ERROR.search(str(error))
    if found is not None:
        return InputError(found.group(1).strip())
    file = _FAILED_FILE.search(str(error))  # Spark names the file it failed to read (a damaged page)
    if file is not None:
        return InputError(f"Spark could not read the file {_local(file.group(1))!r}: it is damaged.")
    return InputError(f"Spark could not count the inputs ({_first_line(error)}).")


def _refuse_what_hadoop_skips(name: str) -> None:
    """Refuse a local file Spark's readers would not read, or would pass over without a word
    (leaving its counts out): Hadoop's paths hold no colon, its file lists leave out names
    starting with ``_`` or ``.`` even when named, and Java takes a name only in UTF-8."""
    path = Path(name).resolve().as_posix()
    why = None
    if ":" in path:
        why = "Hadoop's paths hold no colon"
    elif Path(path).name.startswith(("_", ".")) or path.endswith("._COPYING_"):
        why = "Spark passes over files whose names start with _ or ."
    elif any("\udc80" <= c <= "\udcff" for c in path):  # bytes that are not UTF-8, kept as surrogates
        why = "its name is not UTF-8"
    if why is not None:
        raise InputError(f"Spark cannot read {name!r}: {why}; rename it, or count with the local engine.")


def _spark_path(name: str) -> str:
    """A local file as Spark (Hadoop) reads a path: not %-escaped (Hadoop takes the path as it
    is, so a file URI's ``%20`` named no file), and with the characters of its glob patterns
    escaped (``[ ] { } * ?``), since every path given to Spark is a pattern."""
    return "file://" + _HADOOP_GLOB.sub(r"\\\g<0>", Path(name).resolve().as_posix())


_HADOOP_GLOB = re.compile(r"[\\\[\]{}*?]")


def _local(url: str) -> str:
    """A file's URL as Spark gives it, as a path where it is a local file."""
    return file_url_path(url) or url


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0].rstrip(".")[:300] if text else type(error).__name__
