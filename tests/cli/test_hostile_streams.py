"""More inputs and outputs as data engineers meet them: Parquet strings that are not UTF-8, an
output that loops or whose name is long, standard input redirected from the output, counts
handed over as text, pipes named by a path, files cut short while counted, and a double Ctrl+C.
Each is counted right, or refused with one sentence, exit 1 and nothing written."""

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli.test_contract import run
from tests.cli.test_hostile_inputs import counted, refused

REPO = Path(__file__).resolve().parents[2]


def _not_utf8(column: str, others: dict | None = None) -> pa.Table:
    """A table whose string ``column``'s second row holds a byte that is not UTF-8."""
    strings = pa.array([b"good word", b"bad \xff byte"], pa.binary()).view(pa.string())
    return pa.table({column: strings, **(others or {})})


def test_a_parquet_string_that_is_not_utf8_is_refused_naming_its_row(tmp_path):
    pq.write_table(_not_utf8("text"), tmp_path / "texts.parquet")
    refused(tmp_path, tmp_path / "texts.parquet", says="Row 2 of ")
    pq.write_table(_not_utf8("word", {"count": pa.array([3, 2])}), tmp_path / "counts.parquet")
    code, out, err = run("train", str(tmp_path / "counts.parquet"), "--input", "counts")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "Row 2 of the counts file" in err and "not valid UTF-8" in err


def test_an_output_that_loops_or_whose_name_is_too_long_is_refused_before_the_work(tmp_path):
    (tmp_path / "in.txt").write_text("a b c a b\n", encoding="utf-8")
    os.symlink(tmp_path / "loop_a", tmp_path / "loop_b")
    os.symlink(tmp_path / "loop_b", tmp_path / "loop_a")
    for output in (tmp_path / "loop_a", tmp_path / ("a" * 300 + ".tsv")):
        code, out, err = run("count", str(tmp_path / "in.txt"), "-o", str(output))
        assert (code, out) == (1, "") and err.count("\n") == 1 and "Cannot write" in err, err
        code, out, err = run("train", str(tmp_path / "in.txt"), "--merges", "1", "-o", str(output))
        assert (code, out) == (1, "") and err.count("\n") == 1 and "Cannot write" in err, err


def test_a_long_output_name_is_written_though_its_temporary_name_would_be_longer(tmp_path):
    (tmp_path / "in.txt").write_text("a b c a b\n", encoding="utf-8")
    output = tmp_path / ("é" * 118 + ".tsv")  # 240 bytes: a name the system allows
    code, _out, err = run("count", str(tmp_path / "in.txt"), "-o", str(output))
    assert code == 0 and err == ""
    assert output.read_text(encoding="utf-8").startswith("#bpe-studio counts 1\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.txt", output.name])
    code, _out, err = run("train", str(tmp_path / "in.txt"), "--merges", "1", "-o", str(output))
    assert code == 0 and err == ""


def test_a_folder_given_as_the_counts_output_is_answered_with_a_counts_file_name(tmp_path):
    (tmp_path / "in.txt").write_text("a b\n", encoding="utf-8")
    code, _out, err = run("count", str(tmp_path / "in.txt"), "-o", str(tmp_path))
    assert code == 1 and err.strip().endswith(f"{tmp_path}/counts.tsv.")


@pytest.mark.parametrize("command", [["count", "-", "-o"], ["train", "-", "--merges", "1", "-o"]])
def test_standard_input_redirected_from_the_output_is_refused_and_kept(tmp_path, monkeypatch, command):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the corpus itself\n", encoding="utf-8")
    with corpus.open(encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdin", stream)
        code, out, err = run(*command, str(corpus))
    assert (code, out) == (1, "") and err.count("\n") == 1 and "read on standard input" in err
    assert corpus.read_text(encoding="utf-8") == "the corpus itself\n"


@pytest.mark.parametrize("compress", [bytes, gzip.compress])
def test_word_counts_on_standard_input_given_as_text_are_refused(tmp_path, monkeypatch, compress):
    data = compress(b"#bpe-studio counts 1\nthe\t279\ncorpus\t3\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    err = refused(tmp_path, "-", says="Standard input holds word counts")
    assert "--input counts" in err


def test_word_counts_beyond_the_input_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_STUDIO_MAX_INPUT_MB", "1")
    lines = b"".join(b"w%d\t5\n" % n for n in range(200_000))  # about 1.6 MB
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"#bpe-studio counts 1\n" + lines)))
    code, out, err = run("train", "-", "--input", "counts", "--merges", "1")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "Standard input holds more than 1 MB of word counts" in err


def _pipe(tmp_path: Path, data: bytes) -> Path:
    """A FIFO without a suffix (as ``<(zcat shard.gz)`` names one), fed ``data`` once opened."""
    path = tmp_path / "63"
    os.mkfifo(path)

    def feed() -> None:
        with path.open("wb") as stream:
            stream.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_named_by_a_path_is_read_as_standard_input_is(tmp_path):
    json_lines = _pipe(tmp_path, b'{"text": "a b"}\n{"text": "b"}\n')
    assert counted(tmp_path, json_lines, options=["--field", "text"]) == {"b": 2, "a": 1}
    json_lines.unlink()
    compressed = _pipe(tmp_path, gzip.compress(b"hello world hello\n"))
    assert counted(tmp_path, compressed) == {"hello": 2, "world": 1}


def test_a_file_cut_short_while_it_is_counted_is_refused():
    from bpe_core.errors import InputError
    from bpe_core.io.sources import part_text

    with pytest.raises(InputError, match="changed while it was being read"):
        part_text(str(REPO / "README.md"), 0, (REPO / "README.md").stat().st_size + 10)


def test_parquet_counts_or_a_parquet_file_without_its_suffix_given_as_text_are_refused(tmp_path):
    pq.write_table(pa.table({"word": ["low", "lower"], "count": [5, 2]}), tmp_path / "c.parquet")
    for options in ([], ["--field", "word"]):
        refused(
            tmp_path,
            tmp_path / "c.parquet",
            says="holds word counts (the columns word and count)",
            options=options,
        )
    pq.write_table(pa.table({"text": ["a b"]}), tmp_path / "shard")
    refused(tmp_path, tmp_path / "shard", says="is a Parquet file: give it a name ending in .parquet")


def test_an_empty_field_name_is_a_field_and_a_line_holding_only_a_bom_is_blank(tmp_path):
    (tmp_path / "e.jsonl").write_bytes(b'{"": "x y", "text": "a"}\n\xef\xbb\xbf\n{"": "y"}\n')
    assert counted(tmp_path, tmp_path / "e.jsonl", options=["--field", ""]) == {"y": 2, "x": 1}


def _state(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent (Linux's /proc), or ``None`` once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    state = _state(pid)
    return state is not None and state[0] != "Z"  # a zombie has ended, and waits to be reaped


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _alive(int(entry.name)) and (_state(int(entry.name)) or ("", 0))[1] == pid
    ]


def _counting(tmp_path: Path, text: str) -> tuple[subprocess.Popen, list[int]]:
    """``count`` of ``text`` started on two workers, once one of them is counting, and they."""
    (tmp_path / "big.txt").write_text(text, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "count", str(tmp_path / "big.txt"), "--pretokenize", "gpt2",
         "--workers", "2", "-o", str(tmp_path / "c.tsv")],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = _children(process.pid)
    while not any((_state(pid) or ("",))[0] == "R" for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.02)  # until one counts
    assert workers
    return process, workers


def _gone_within(seconds: float, workers: list[int]) -> None:
    deadline = time.monotonic() + seconds
    while any(map(_alive, workers)):
        assert time.monotonic() < deadline, "a counting process outlived its command"
        time.sleep(0.05)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through Linux's /proc")
def test_a_double_ctrl_c_quits_at_once_and_leaves_no_counting_process_behind(tmp_path):
    # Digits between spaces: no place to cut (see ``safe_chunks``), so a worker counts it whole
    # for seconds, deep in its task when the second Ctrl+C comes.
    process, workers = _counting(tmp_path, "12 34 " * 5_000_000)
    time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)  # while the workers are being stopped
    process.send_signal(signal.SIGINT)
    # The second Ctrl+C quits at once: the count's one task would take seconds more.
    _out, err = process.communicate(timeout=2)
    assert (process.returncode, err.decode()) == (130, "bpe-studio: Interrupted.\n")
    assert not (tmp_path / "c.tsv").exists()
    _gone_within(0.5, workers)  # ended at once, not once their task is done


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="lists processes through Linux's /proc")
def test_counting_processes_end_with_a_killed_command(tmp_path):
    """Killed (the system out of memory, kill -9), the command cannot stop its workers: each
    ends by itself, waiting for a task, deep in one, or sending its totals."""
    process, workers = _counting(tmp_path, "12 34 " * 5_000_000 + "the quick brown fox " * 500_000)
    process.kill()
    process.communicate(timeout=30)
    assert not (tmp_path / "c.tsv").exists()
    _gone_within(5, workers)


def test_export_refuses_an_output_that_is_its_model_or_a_file_of_its_folder(tmp_path):
    """``export tok.json -o tok.json`` replaced the file with its export, changed (a decoder
    added): refused, as import refuses it, the model as it was."""
    corpus, model, folder = tmp_path / "corpus.txt", tmp_path / "m.json", tmp_path / "gpt2"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    byte_level = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none"]
    assert run("train", str(corpus), *byte_level, "-o", str(model))[0] == 0
    assert run("export", str(model), "--format", "hf", "-o", str(tmp_path / "tok.json"))[0] == 0
    assert run("export", str(model), "--format", "gpt2", "-o", str(folder))[0] == 0
    for read, arguments, replaced in (
        (tmp_path / "tok.json", ["--format", "hf", "-o", str(tmp_path / "tok.json")], tmp_path / "tok.json"),
        (model, ["--format", "hf", "-o", str(model)], model),
        (folder, ["--format", "gpt2", "-o", str(folder)], folder / "vocab.json"),
        (folder, ["--format", "hf", "-o", str(folder / "merges.txt")], folder / "merges.txt"),
    ):
        kept = replaced.read_bytes()
        code, out, err = run("export", str(read), *arguments)
        assert (code, out) == (1, "") and "writing it would replace it" in err, err
        assert replaced.read_bytes() == kept


def test_import_refuses_an_output_that_is_its_corpus_or_its_model(tmp_path, monkeypatch):
    corpus, model = tmp_path / "corpus.txt", tmp_path / "m.json"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    assert run("train", str(corpus), "--merges", "2", "-o", str(model))[0] == 0
    kept = model.read_bytes()
    for arguments in (["--corpus", str(corpus), "-o", str(corpus)], ["-o", str(model)]):
        code, out, err = run("import", str(model), *arguments)
        assert (code, out) == (1, "") and "writing it would replace it" in err, err
    with corpus.open(encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdin", stream)
        code, _out, err = run("import", str(model), "--corpus", "-", "-o", str(corpus))
    assert code == 1 and "read on standard input" in err
    assert corpus.read_text(encoding="utf-8") == "low lower lowest\n" and model.read_bytes() == kept


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_the_spark_engine_refuses_a_pipe_as_it_refuses_standard_input(tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    pipe = tmp_path / "63"
    os.mkfifo(pipe)  # never opened: the refusal comes before anything is read
    refused(tmp_path, pipe, says="The Spark engine reads files, not pipes", options=["--engine", "spark"])


def test_a_json_line_longer_than_the_input_limit_is_refused_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_STUDIO_MAX_INPUT_MB", "1")
    long = json.dumps({"text": "word " * 300_000})  # 1.5 MB on one line, after a short one
    (tmp_path / "c.jsonl").write_text('{"text": "short"}\n' + long + "\n", encoding="utf-8")
    err = refused(tmp_path, tmp_path / "c.jsonl", says="Line 2 of")
    assert "longer than 1 MB, the input limit (set BPE_STUDIO_MAX_INPUT_MB to raise it)" in err


def test_a_json_array_saved_on_one_line_is_refused_without_being_parsed(tmp_path, monkeypatch):
    """A dataset saved as one JSON array: refused as not an object, before any parse (which took
    ten times the file in memory)."""
    records = json.dumps([{"text": f"word {n}"} for n in range(100_000)])
    (tmp_path / "train.jsonl").write_text(records, encoding="utf-8")
    monkeypatch.setattr("bpe_core.io.sources._json_record", lambda line: pytest.fail("parsed"))
    err = refused(tmp_path, tmp_path / "train.jsonl", says="Line 1 of")
    assert "is not a JSON object (JSON lines hold one object a line" in err


@pytest.mark.parametrize("value", ["abc", "0.5", "4G", "-1", "0"])
def test_an_input_limit_that_is_no_number_of_megabytes_is_refused(tmp_path, monkeypatch, value):
    monkeypatch.setenv("BPE_STUDIO_MAX_INPUT_MB", value)
    (tmp_path / "c.txt").write_text("some words", encoding="utf-8")
    says = f"BPE_STUDIO_MAX_INPUT_MB is {value!r}; set it to a whole number"
    refused(tmp_path, tmp_path / "c.txt", says=says)


def test_a_file_named_by_two_hard_links_or_redirected_to_standard_input_counts_once(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    os.link(tmp_path / "a.txt", tmp_path / "hard.txt")
    assert counted(tmp_path, tmp_path / "a.txt", tmp_path / "hard.txt") == {"one": 1, "two": 1}
    with open(tmp_path / "a.txt", "rb") as redirected:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(redirected))
        assert counted(tmp_path, tmp_path / "a.txt", "-") == {"one": 1, "two": 1}


def test_a_counts_header_with_more_after_it_is_not_called_another_version(tmp_path):
    (tmp_path / "c.tsv").write_text("#bpe-studio counts 1 \nword\t3\n", encoding="utf-8")
    code, _out, err = run("train", str(tmp_path / "c.tsv"), "--input", "counts")
    assert code == 1 and "not exactly '#bpe-studio counts 1'" in err and "version" not in err


DROPPED_INTERRUPT = """
import signal, sys, weakref
sys.argv = ["bpe-studio", "count", sys.argv[1], "-o", sys.argv[2]]
from app import launcher
from bpe_core.cli import count as count_command

counted = count_command.run_count

def run_count(*args, **kwargs):
    # Ctrl+C lands while a weakref's callback runs: Python prints the KeyboardInterrupt and drops it
    class Held:
        pass
    held = Held()
    keep = weakref.ref(held, lambda _: signal.raise_signal(signal.SIGINT))
    del held
    return counted(*args, **kwargs)

count_command.run_count = run_count
sys.exit(launcher.main())
"""


def test_a_ctrl_c_dropped_inside_a_callback_still_ends_the_command_without_its_output(tmp_path):
    """A SIGINT landing in a weakref or collector callback raised a KeyboardInterrupt that
    Python printed and dropped: the command went on, wrote its file and ended with status 0."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("to be or not to be\n", encoding="utf-8")
    output = tmp_path / "counts.tsv"
    result = subprocess.run(
        [sys.executable, "-c", DROPPED_INTERRUPT, str(corpus), str(output)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert "Exception ignored" in result.stderr  # the interrupt was dropped on its way
    assert result.returncode == 130 and result.stderr.endswith("bpe-studio: Interrupted.\n")
    assert not output.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]
