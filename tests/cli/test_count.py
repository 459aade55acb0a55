"""``bpe-studio count``: a folder mixing plain and compressed text, JSONL and Parquet counted into a
file that trains as the folder does; the Spark engine (``local[2]``) writes the same bytes as
the local engine; bad inputs end with one sentence, exit 1 and no output file."""

import bz2
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli.test_contract import run
from tests.conftest import data_text

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(tmp_path):
    """A corpus as people ship one: plain, gzip and bzip2 text, JSONL, Parquet and JSON lines
    named ``.json.gz`` (as C4's shards are), a subfolder, and a hidden file that is left out."""
    text = data_text("shakespeare_200k.txt")
    data = tmp_path / "corpus"
    (data / "more").mkdir(parents=True)
    (data / "a.txt").write_text(text[:40_000], encoding="utf-8")
    (data / "b.txt.gz").write_bytes(gzip.compress(text[40_000:80_000].encode()))
    (data / "more" / "c.txt.bz2").write_bytes(
        bz2.compress(data_text("kjv_genesis_100k.txt")[:30_000].encode())
    )
    records = [{"text": paragraph, "id": i} for i, paragraph in enumerate(text[80_000:120_000].split("\n\n"))]
    (data / "d.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    pq.write_table(pa.table({"text": text[120_000:150_000].split("\n\n")}), data / "more" / "e.parquet")
    shard = [{"text": line, "url": "x"} for line in text[150_000:170_000].split("\n") if line]
    (data / "more" / "f.json.gz").write_bytes(
        gzip.compress("".join(json.dumps(r) + "\n" for r in shard).encode())
    )
    (data / ".notes.txt").write_text("hidden words never counted", encoding="utf-8")
    return data


def test_count_writes_sorted_counts_that_train_as_the_folder_does(folder, tmp_path):
    code, out, err = run("count", str(folder), "-o", str(tmp_path / "counts.tsv"), "--workers", "2")
    assert code == 0 and err == "" and "in 6 inputs" in out
    lines = (tmp_path / "counts.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#bpe-studio counts 1"
    counts = [int(line.rsplit("\t", 1)[1]) for line in lines[1:]]
    assert counts == sorted(counts, reverse=True) and "hidden" not in {line.split("\t")[0] for line in lines}
    options = ["--merges", "120", "--tie-break", "hf", "--json"]
    _, from_folder, _ = run("train", str(folder), *options)
    _, from_counts, _ = run("train", str(tmp_path / "counts.tsv"), "--input", "counts", *options)
    assert json.loads(from_counts)["merges"] == json.loads(from_folder)["merges"]


@pytest.mark.parametrize("output", ["counts.tsv", "counts.parquet"])
@pytest.mark.parametrize(
    "counting, shape",
    [
        (["--pretokenize", "gpt2", "--prefix-space"], ["--unit", "byte", "--end-of-word", "none"]),
        (["--normalize", "nfkc", "--lowercase", "--pretokenize", "words", "--special-token", "<|x|>"], []),
    ],
    ids=["gpt2 bytes", "NFKC lowercase words"],
)
def test_counts_say_how_they_were_counted_and_train_as_counted(folder, tmp_path, output, counting, shape):
    """A counts file's words are the pieces of the pipeline that counted it: its header says
    which, training takes it (the merges and the model are those of training on the text), and
    an option saying otherwise is refused, not saved into a model that would encode otherwise."""
    counts, from_text, from_counts = tmp_path / output, tmp_path / "text.json", tmp_path / "counts.json"
    assert run("count", str(folder), "-o", str(counts), *counting)[0] == 0
    if output.endswith(".tsv"):
        header = counts.read_text(encoding="utf-8").split("\n", 1)[0]
        assert header.startswith("#bpe-studio counts 1\t{") and f'"{counting[1]}"' in header
    training = ["--merges", "80", "--tie-break", "hf", "--json", *shape]
    _, merges, _ = run("train", str(folder), *counting, *training, "-o", str(from_text))
    code, counted_merges, err = run(
        "train", str(counts), "--input", "counts", *training, "-o", str(from_counts)
    )
    assert code == 0 and err == "" and json.loads(counted_merges)["merges"] == json.loads(merges)["merges"]
    pipeline = json.loads(from_text.read_text(encoding="utf-8"))["pipeline"]
    assert json.loads(from_counts.read_text(encoding="utf-8"))["pipeline"] == pipeline
    said = "Ünïcode ﬁne, THE end <|x|>"
    assert run("encode", "--model", str(from_counts), said) == run("encode", "--model", str(from_text), said)
    # the same options given again are taken; one given otherwise is refused, and nothing written
    assert run("train", str(counts), "--input", "counts", *counting, *training)[0] == 0
    from_counts.unlink()
    for other in (["--pretokenize", "whitespace"], ["--special-token", "<|y|>"]):
        code, out, err = run(
            "train", str(counts), "--input", "counts", *other, *training, "-o", str(from_counts)
        )
        assert code == 1 and out == "" and err.count("\n") == 1 and "was counted with" in err
        assert not from_counts.exists()


def test_compressed_files_without_a_suffix_are_read_as_their_first_bytes_say(tmp_path):
    """Shards are often named without a suffix (``part-00001``): read as standard input is, their
    compression told by their first bytes (a text file without a suffix stays text)."""
    import lzma

    import zstandard

    text = b"to be or not to be\n"
    compress = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}
    compress["zstd"] = zstandard.ZstdCompressor().compress
    for number, pack in enumerate(compress.values()):
        (tmp_path / f"part-{number:05}").write_bytes(pack(text))
    (tmp_path / "data.00009").write_bytes(gzip.compress(text))  # a suffix that names no kind
    (tmp_path / "LICENSE").write_bytes(text)
    code, _out, err = run("count", str(tmp_path), "-o", str(tmp_path / "c.tsv"))
    assert code == 0, err
    assert (tmp_path / "c.tsv").read_text(encoding="utf-8").split("\n")[1:3] == ["be\t12", "to\t12"]
    code, _out, err = run("count", str(tmp_path / "part-00000"), "-o", "-", "--engine", "spark")
    assert code == 1 and "part-00000' is gzip-compressed, so give it the suffix .gz" in err


def test_an_empty_parquet_file_is_no_rows_and_json_lines_ended_by_cr_alone_are_said_so(tmp_path):
    (tmp_path / "a.txt").write_text("low lower", encoding="utf-8")
    (tmp_path / "empty.parquet").write_bytes(b"")
    code, out, _err = run("count", str(tmp_path / "a.txt"), str(tmp_path / "empty.parquet"), "-o", "-")
    assert code == 0 and out == "#bpe-studio counts 1\nlow\t1\nlower\t1\n"
    (tmp_path / "mac.jsonl").write_bytes(b'{"text": "low"}\r{"text": "lower"}\r')
    code, _out, err = run("count", str(tmp_path / "mac.jsonl"), "-o", "-")
    assert code == 1 and "end with a carriage return alone" in err and err.count("\n") == 1


def test_a_field_no_input_has_is_said_to_read_nothing(folder, tmp_path):
    (tmp_path / "a.txt").write_text("low lower", encoding="utf-8")
    code, out, err = run("count", str(tmp_path / "a.txt"), "--field", "body", "-o", "-")
    assert code == 0 and out.startswith("#bpe-studio counts 1\nlow\t1\n")
    assert err.startswith("bpe-studio: note: --field body names a field of JSON lines or Parquet records")
    code, _out, err = run("train", str(tmp_path / "a.txt"), "--field", "body", "--merges", "1")
    assert code == 0 and "note: --field body" in err
    code, _out, err = run("count", str(folder), "--field", "text", "-o", "-")  # JSON lines there: read
    assert code == 0 and "note" not in err


def test_lines_where_no_input_is_read_a_line_at_a_time_are_said_to_do_nothing(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"text": "low lower"}\n', encoding="utf-8")
    code, out, err = run("count", str(tmp_path / "a.jsonl"), "--lines", "-o", "-")
    assert code == 0 and out.startswith("#bpe-studio counts 1\n")
    assert err.startswith("bpe-studio: note: --lines reads text files a line at a time, and no input is one")
    assert run("count", str(tmp_path / "a.jsonl"), "-o", str(tmp_path / "c.tsv"))[0] == 0
    code, _out, err = run("train", str(tmp_path / "c.tsv"), "--input", "counts", "--lines", "--merges", "1")
    assert code == 0 and "note: --lines reads text a line at a time; counts files are counted already." in err
    (tmp_path / "b.txt").write_text("low\nlower", encoding="utf-8")
    code, _out, err = run("count", str(tmp_path / "a.jsonl"), str(tmp_path / "b.txt"), "--lines", "-o", "-")
    assert code == 0 and "note" not in err


def test_counts_of_different_pipelines_are_not_added_up_and_empty_shards_add_nothing(folder, tmp_path):
    shards = tmp_path / "shards"
    shards.mkdir()
    run("count", str(folder), "-o", str(shards / "a.tsv"), "--lowercase")
    run("count", str(folder), "-o", str(shards / "b.parquet"), "--pretokenize", "words")
    code, _out, err = run("train", str(shards), "--input", "counts")
    assert code == 1 and err.count("\n") == 1
    assert "counted differently, with lowercasing and with pre-tokenizer whitespace, and without" in err
    (shards / "b.parquet").unlink()
    (shards / "c.tsv").write_bytes(b"")  # a shard with nothing in it, as one with only the header
    (shards / "d.parquet").write_bytes(b"")
    options = ["--input", "counts", "--merges", "20", "--tie-break", "hf", "--json"]
    code, out, err = run("train", str(shards), *options)
    assert code == 0, err
    assert json.loads(out) == json.loads(run("train", str(shards / "a.tsv"), *options)[1])
    (shards / "e.tsv").write_text('#bpe-studio counts 1\t{"pretokenize": "bert"}\n', encoding="utf-8")
    code, _out, err = run("train", str(shards), *options)  # a shard of no words is read all the same
    assert code == 1 and "e.tsv' states a pipeline that cannot be used here: unknown pre-tokenizer" in err


def test_counts_whose_header_states_no_pipeline_take_the_options_given(folder, tmp_path):
    """Files written before the header said how they were counted have the bare header: the
    options given are taken, as they were then (the README's own commands go on working)."""
    counting = ["--pretokenize", "gpt2", "--unit", "byte", "--end-of-word", "none"]
    counts = tmp_path / "old.tsv"
    assert run("count", str(folder), "-o", str(counts), *counting)[0] == 0
    rest = counts.read_text(encoding="utf-8").split("\n", 1)[1]
    counts.write_text("#bpe-studio counts 1\n" + rest, encoding="utf-8")
    training = ["--merges", "40", "--tie-break", "hf", "--json"]
    code, out, err = run("train", str(counts), "--input", "counts", *counting, *training)
    assert code == 0 and err == (
        f"bpe-studio: note: {str(counts)!r} does not say how it was counted, so its words are taken as "
        "pieces of the options given (--pretokenize): they must be those it was counted with.\n"
    )
    assert (
        json.loads(out)["merges"] == json.loads(run("train", str(folder), *counting, *training)[1])["merges"]
    )
    # special tokens given in another order than counted make the same pieces
    counts = tmp_path / "specials.tsv"
    run("count", str(folder), "-o", str(counts), "--special-token", "<a>", "--special-token", "<b>")
    code, _out, err = run(
        "train", str(counts), "--input", "counts", "--special-token", "<b>", "--special-token", "<a>"
    )
    assert code == 0, err


def test_import_refuses_counts_made_otherwise_than_the_tokenizers_pipeline(folder, tmp_path):
    session, tokenizer = tmp_path / "s.json", tmp_path / "tokenizer.json"
    assert run("train", str(folder), "--merges", "50", "--attach-marker", "-o", str(session))[0] == 0
    assert run("export", str(session), "--format", "hf", "-o", str(tokenizer))[0] == 0
    counts = tmp_path / "gpt2.tsv"
    run("count", str(folder), "-o", str(counts), "--pretokenize", "gpt2")
    output = tmp_path / "imported.json"
    code, _out, err = run(
        "import", str(tokenizer), "--corpus", str(counts), "--input", "counts", "-o", str(output)
    )
    assert code == 1 and "was counted with pre-tokenizer gpt2, not with pre-tokenizer whitespace" in err
    assert not output.exists()
    run("count", str(folder), "-o", str(counts))  # counted as the tokenizer splits: attached
    code, out, err = run(
        "import", str(tokenizer), "--corpus", str(counts), "--input", "counts", "-o", str(output)
    )
    assert code == 0 and "with the counts of" in out, err


def test_training_counts_by_a_rule_of_text_order_says_the_counts_keep_none(folder, tmp_path):
    """first-seen goes by where a pair is first met in the text, which word counts do not keep:
    its merges may differ from training on the text, and a note says so (hf's do not: none)."""
    counts = str(tmp_path / "counts.tsv")
    run("count", str(folder), "-o", counts)
    code, _out, err = run("train", counts, "--input", "counts", "--merges", "5")
    assert code == 0 and err.count("\n") == 1 and "note: word counts keep no text order" in err
    code, _out, err = run("train", counts, "--input", "counts", "--merges", "5", "--tie-break", "hf")
    assert code == 0 and err == ""
    rules = ["--tie-break", "hf", "--tie-break", "first-seen"]
    code, _out, err = run("compare", counts, "--input", "counts", "--merges", "5", *rules)
    assert code == 0 and "first-seen breaks ties in the counts' order" in err
    code, _out, err = run("train", str(folder), "--merges", "5")  # the text: its order is known
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: (d / "x.txt.gz").write_bytes(gzip.compress(b"words " * 50_000)[:300]), "truncated gzip"),
        (lambda d: (d / "x.jsonl").write_text('{"text": "ok"}\n{"text": \n', encoding="utf-8"), "Line 2"),
        (lambda d: pq.write_table(pa.table({"body": ["a"]}), d / "x.parquet"), "no column 'text'"),
        (lambda d: (d / "x.txt").write_bytes(b"\x89PNG\x00\x00"), "not valid UTF-8 (line 1)"),
        (
            lambda d: (d / "x.jsonl").write_text('{"text": "a \\ud800 b"}\n', encoding="utf-8"),
            "lone surrogate",
        ),
    ],
)
def test_a_bad_input_among_many_ends_in_one_sentence_and_no_output(folder, tmp_path, make, says):
    make(folder)
    output = tmp_path / "counts.tsv"
    code, out, err = run("count", str(folder), "-o", str(output))
    assert code == 1 and out == "" and err.count("\n") == 1 and says in err and "x." in err
    assert not output.exists()


def test_an_empty_folder_and_a_glob_matching_nothing_say_so(tmp_path):
    (tmp_path / "empty").mkdir()
    for argument, says in (
        (tmp_path / "empty", "holds no files"),
        (tmp_path / "*.nothing", "No file matches"),
    ):
        code, _out, err = run("count", str(argument), "-o", str(tmp_path / "c.tsv"))
        assert code == 1 and says in err and err.count("\n") == 1


def test_a_folder_of_hidden_files_only_says_they_are_skipped(tmp_path):
    (tmp_path / "hidden" / ".git").mkdir(parents=True)
    (tmp_path / "hidden" / ".git" / "notes.txt").write_text("low lower", encoding="utf-8")
    (tmp_path / "hidden" / ".draft.txt").write_text("newest", encoding="utf-8")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    code, _out, err = run("count", str(tmp_path / "hidden"), "-o", str(tmp_path / "c.tsv"))
    assert code == 1 and err.count("\n") == 1 and "names starting with . or _ are skipped" in err
    code, _out, err = run("count", str(tmp_path / "empty"), "-o", str(tmp_path / "c.tsv"))
    assert code == 1 and err.endswith("holds no files.\n")  # nothing hidden to mention


def test_counts_from_standard_input_and_as_parquet(tmp_path, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"to be or not to be")))
    code, _out, err = run("count", "-", "-o", str(tmp_path / "c.parquet"))
    assert code == 0, err
    table = pq.read_table(tmp_path / "c.parquet")
    assert table.column_names == ["word", "count"] and str(table.schema.field("count").type) == "int64"
    assert table.to_pydict() == {"word": ["be", "to", "not", "or"], "count": [2, 2, 1, 1]}


def _java() -> str | None:
    return shutil.which("java")


@pytest.mark.skipif(_java() is None, reason="the Spark engine needs Java, which this machine lacks")
def test_a_spark_master_spark_cannot_start_with_is_named_not_java(tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower", encoding="utf-8")
    output = tmp_path / "c.tsv"
    code, _out, err = run(
        "count", str(corpus), "--engine", "spark", "--spark-master", "bogus://x", "-o", str(output)
    )
    assert code == 1 and err.count("\n") == 1 and not output.exists()
    assert "Spark did not start with the master 'bogus://x'" in err and "Java" not in err.split("(")[0]


@pytest.mark.skipif(_java() is None, reason="the Spark engine needs Java, which this machine lacks")
def test_the_spark_engine_writes_the_local_engines_bytes(folder, tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    local, spark = tmp_path / "local.tsv", tmp_path / "spark.tsv"
    options = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none"]
    # names Spark takes for patterns or %-escapes: read as they are
    odd = folder / "more" / "a b ü"
    odd.mkdir()
    (odd / "br[1]{x,y}*?%41 #.txt").write_text("odd names counted", encoding="utf-8")
    pq.write_table(pa.table({"text": ["a parquet of its own"]}), odd / "ü e.parquet")
    (odd / "empty.parquet").write_bytes(b"")  # no rows, as an empty text file is no text
    assert run("count", str(folder), "-o", str(local), *options)[0] == 0
    code, out, err = run(
        "count", str(folder), "-o", str(spark), "--engine", "spark", "--spark-master", "local[2]", *options
    )
    assert code == 0, err
    assert spark.read_bytes() == local.read_bytes()
    assert "word types" in out
    lines = [*options, "--prefix-space", "--lines"]  # a text a line, on the executors too
    assert run("count", str(folder), "-o", str(local), *lines)[0] == 0
    code, _out, err = run(
        "count", str(folder), "-o", str(spark), "--engine", "spark", "--spark-master", "local[2]", *lines
    )
    assert code == 0, err
    assert spark.read_bytes() == local.read_bytes()
    assert run("count", str(folder), "-o", str(tmp_path / "whole.tsv"), *options, "--prefix-space")[0] == 0
    assert (tmp_path / "whole.tsv").read_bytes() != local.read_bytes()

    (folder / "broken.jsonl").write_text('{"text": "fine"}\nnot json\n', encoding="utf-8")
    code, _out, err = run(
        "count", str(folder), "-o", str(tmp_path / "x.tsv"), "--engine", "spark", "--spark-master", "local[2]"
    )
    assert code == 1 and err.strip().endswith("broken.jsonl' is not JSON.") and "Line 2" in err
    assert not (tmp_path / "x.tsv").exists()

    (folder / "broken.jsonl").unlink()  # a Parquet page damaged: Spark's reader fails, and says where
    pq.write_table(pa.table({"text": [f"w{i} x" for i in range(5_000)]}), folder / "pages.parquet")
    data = bytearray((folder / "pages.parquet").read_bytes())
    data[200 : len(data) // 2] = bytes(b ^ 0x55 for b in data[200 : len(data) // 2])
    (folder / "pages.parquet").write_bytes(bytes(data))
    code, _out, err = run(
        "count", str(folder), "-o", str(tmp_path / "x.tsv"), "--engine", "spark", "--spark-master", "local[2]"
    )
    assert code == 1 and "pages.parquet" in err and "damaged" in err and err.count("\n") == 1
    assert not (tmp_path / "x.tsv").exists()

    (folder / "pages.parquet").unlink()  # a name Hadoop cannot take: refused, named
    (folder / "co:lon.txt").write_text("colon", encoding="utf-8")
    code, _out, err = run(
        "count", str(folder), "-o", str(tmp_path / "x.tsv"), "--engine", "spark", "--spark-master", "local[2]"
    )
    assert code == 1 and "co:lon.txt" in err and "no colon" in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["_under.txt", ".dotted.txt", "not-utf8-\udcff.txt"])
def test_spark_refuses_a_named_file_hadoop_would_pass_over(tmp_path, name):
    """Hadoop's listings leave out names starting with _ or . even when named (the counts were
    short and the command said nothing), and Java cannot take a name that is not UTF-8."""
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    path = Path(os.fsencode(tmp_path / name).decode("utf-8", "surrogateescape"))
    path.write_text("word word\n", encoding="utf-8")
    (tmp_path / "fine.txt").write_text("fine\n", encoding="utf-8")
    out = tmp_path / "x.tsv"
    code, _out, err = run("count", str(tmp_path / "fine.txt"), str(path), "-o", str(out), "--engine", "spark")
    assert code == 1 and err.count("\n") == 1 and "rename it, or count with the local engine" in err, err
    assert not out.exists()
    # The local engine reads it.
    assert run("count", str(tmp_path / "fine.txt"), str(path), "-o", str(out))[0] == 0


@pytest.mark.skipif(_java() is None, reason="the Spark engine needs Java, which this machine lacks")
def test_spark_reads_parquet_columns_by_their_exact_name_and_names_faults_as_the_local_engine(tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    spark = ["--engine", "spark", "--spark-master", "local[2]"]
    two = pa.Table.from_arrays([pa.array(["x y"]), pa.array(["Z"])], names=["text", "TEXT"])
    pq.write_table(two, tmp_path / "two.parquet")
    local, counted = tmp_path / "local.tsv", tmp_path / "spark.tsv"
    assert run("count", str(tmp_path / "two.parquet"), "-o", str(local))[0] == 0
    code, _out, err = run("count", str(tmp_path / "two.parquet"), "-o", str(counted), *spark)
    assert code == 0 and counted.read_bytes() == local.read_bytes(), err
    pq.write_table(pa.table({"body": ["a b"]}), tmp_path / "body.parquet")  # refused before Spark starts
    pq.write_table(pa.table({"text": ["a b", None]}), tmp_path / "null.parquet")  # met by Spark
    for name in ("body.parquet", "null.parquet"):
        said = [
            run("count", str(tmp_path / name), "-o", str(tmp_path / "x.tsv"), *engine)[2]
            for engine in ([], spark)
        ]
        assert said[0] == said[1] and name in said[0] and said[0].count("\n") == 1, said
    assert "Row 2 of" in said[0] and not (tmp_path / "x.tsv").exists()


@pytest.mark.skipif(_java() is None, reason="the Spark engine needs Java, which this machine lacks")
def test_ctrl_c_during_a_spark_count_says_interrupted_only(folder, tmp_path):
    """Py4J logs a call that Ctrl+C broke, with its tracebacks: none of it is shown."""
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    output = tmp_path / "counts.tsv"
    argv = ["count", str(folder), "-o", str(output), "--engine", "spark", "--spark-master", "local[2]"]
    process = subprocess.Popen(
        [sys.executable, "-m", "app", *argv], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(7)  # Spark has started, and is counting or about to
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=120)
    if process.returncode == 0:  # it had finished
        return
    assert (process.returncode, err.decode()) == (130, "bpe-studio: Interrupted.\n")
    assert not output.exists()


def test_a_local_spark_is_given_a_heap_that_holds_large_files_unless_the_user_chose_one(monkeypatch):
    from bpe_core.io.spark_counting import _local_driver_memory

    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    for master in ("local[2]", "local[*]", None):
        given = _local_driver_memory(master)
        assert given is not None and given.endswith("g") and int(given[:-1]) >= 2
    assert _local_driver_memory("spark://head:7077") is None  # a cluster's executors are its own
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "3g")
    assert _local_driver_memory("local[2]") is None


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
@pytest.mark.skipif(_java() is None, reason="a Spark cluster needs Java, which this machine lacks")
def test_the_cluster_recipe_counts_on_a_standalone_spark_cluster(folder, tmp_path):
    """The README's recipe: a standalone master and worker (as a cluster runs them), the
    command in client mode with --spark-master spark://…, the counts written where it runs."""
    import os
    import subprocess
    import time
    from pathlib import Path

    pyspark = pytest.importorskip("pyspark", reason="the Spark engine needs pyspark")
    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(tmp_path / "work")}
    logs = tmp_path / "master.log"
    started = []
    try:
        with open(logs, "w") as log:
            started.append(
                subprocess.Popen(
                    [
                        str(spark_class),
                        "org.apache.spark.deploy.master.Master",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--webui-port",
                        str(_free_port()),
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
            started.append(
                subprocess.Popen(
                    [
                        str(spark_class),
                        "org.apache.spark.deploy.worker.Worker",
                        master_url,
                        "--cores",
                        "2",
                        "--memory",
                        "1g",
                        "--webui-port",
                        str(_free_port()),
                    ],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
        deadline = time.monotonic() + 120
        while "Registering worker" not in logs.read_text(errors="replace"):
            assert time.monotonic() < deadline, logs.read_text(errors="replace")[-2000:]
            time.sleep(0.5)
        local, cluster = tmp_path / "local.tsv", tmp_path / "cluster.tsv"
        assert run("count", str(folder), "-o", str(local))[0] == 0
        code, _out, err = run(
            "count", str(folder), "-o", str(cluster), "--engine", "spark", "--spark-master", master_url
        )
        assert code == 0, err
        assert cluster.read_bytes() == local.read_bytes()
        assert "Registering app bpe-studio count" in logs.read_text(errors="replace")  # it ran there
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.parametrize(
    "piped, noted",
    [
        (b'{"text": "to be", "id": 1}\n{"text": "or not"}\n', True),
        (b"plain text {with braces}\n", False),
        (b'{"text": "to be"}\n', False),  # with --field text: read as the records they are
    ],
)
def test_json_lines_piped_in_as_text_are_counted_with_a_note(piped, noted):
    """``zcat shard.jsonl.gz | bpe-studio count -`` counted the records' keys and braces as
    words without a word: standard input is JSON lines only with --field."""
    field = [] if noted or b"braces" in piped else ["--field", "text"]
    done = subprocess.run(
        [sys.executable, "-m", "app", "count", "-", *field, "-o", "-"],
        input=piped,
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0
    assert ("standard input looks like JSON lines" in done.stderr.decode()) is noted
    if not field and noted:
        assert b'{"text":' in done.stdout  # counted as text, as asked: the note says how else


@pytest.mark.parametrize(
    "name", ["counts.tsv.zip", "counts.json", "counts.jsonl.gz", "counts.TAR", "counts.pq", "counts.feather"]
)
def test_an_output_named_as_a_format_count_does_not_write_is_refused(tmp_path, name):
    (tmp_path / "a.txt").write_text("low lower", encoding="utf-8")
    code, out, err = run("count", str(tmp_path / "a.txt"), "-o", str(tmp_path / name))
    assert code == 1 and out == "" and "which count does not write" in err and err.count("\n") == 1
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("name", ["counts.csv", "counts.CSV.gz"])
def test_an_output_named_csv_is_refused_as_it_would_hold_tabs(tmp_path, name):
    (tmp_path / "a.txt").write_text("to be or not to be", encoding="utf-8")
    code, _out, err = run("count", str(tmp_path / "a.txt"), "-o", str(tmp_path / name))
    assert code == 1 and "name it .tsv (or .parquet)" in err and err.count("\n") == 1
    assert not (tmp_path / name).exists()
