"""Inputs as data engineers hand them over, at their edges: damaged archives and Parquet pages,
NUL characters inside records, folders that cannot be listed or that link elsewhere, globs
under folders named like hidden ones, one file named twice, an output that names an input,
standard input closed, and counts files with faults. Each is counted right, or refused with
one sentence naming the file (and the line or row), exit 1 and no output file."""

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from tests.cli.test_contract import run


def refused(tmp_path, *inputs, says, options=()):
    """Count ``inputs``: one sentence saying ``says``, exit 1, no output file."""
    output = tmp_path / "out.tsv"
    code, out, err = run("count", *map(str, inputs), "-o", str(output), *options)
    assert code == 1 and out == "" and err.count("\n") == 1 and says in err, err
    assert not output.exists()
    return err


def counted(tmp_path, *inputs, options=()):
    """The counts file ``count`` writes of ``inputs``, as {word: count}."""
    output = tmp_path / "out.tsv"
    code, _out, err = run("count", *map(str, inputs), "-o", str(output), *options)
    assert code == 0, err
    lines = output.read_text(encoding="utf-8").splitlines()[1:]
    output.unlink()
    return {word: int(count) for word, count in (line.rsplit("\t", 1) for line in lines)}


def test_a_zstd_archive_cut_short_is_refused_and_frames_one_after_another_are_read(tmp_path):
    whole = zstandard.ZstdCompressor().compress(b"alpha beta " * 40_000)
    (tmp_path / "cut.txt.zst").write_bytes(whole[: len(whole) // 2])
    err = refused(tmp_path, tmp_path / "cut.txt.zst", says="damaged or truncated zstd archive")
    assert "cut.txt.zst" in err
    second = zstandard.ZstdCompressor().compress(b" gamma")
    (tmp_path / "frames.txt.zst").write_bytes(whole + second)
    assert counted(tmp_path, tmp_path / "frames.txt.zst") == {"alpha": 40_000, "beta": 40_000, "gamma": 1}


def test_every_stream_of_an_xz_or_bzip2_file_is_read_and_a_damaged_one_is_refused(tmp_path):
    first, second = b"alpha " * 10, b"beta " * 1_000
    # xz allows NUL padding between and after streams (``xz -t`` passes such a file)
    (tmp_path / "padded.txt.xz").write_bytes(
        lzma.compress(first) + b"\0" * 4 + lzma.compress(second) + b"\0" * 8
    )
    (tmp_path / "two.txt.bz2").write_bytes(bz2.compress(first) + bz2.compress(second))
    for name in ("padded.txt.xz", "two.txt.bz2"):
        assert counted(tmp_path, tmp_path / name) == {"alpha": 10, "beta": 1_000}
    for suffix, compress, kind in ((".xz", lzma.compress, "xz"), (".bz2", bz2.compress, "bzip2")):
        damaged = bytearray(compress(second))
        damaged[0] ^= 0xFF  # the second stream's header: once taken for trailing junk, and dropped
        path = tmp_path / f"damaged.txt{suffix}"
        path.write_bytes(compress(first) + bytes(damaged))
        refused(tmp_path, path, says=f"'{path}' is a damaged or truncated {kind} archive")
        path.write_bytes(compress(first) + compress(second)[:-9])  # cut inside the second stream
        refused(tmp_path, path, says=f"damaged or truncated {kind} archive")
    # a first stream longer than a block read: the next stream follows the output held back
    long_first = b"alpha beta " * 200_000
    for suffix, compress in ((".xz", lzma.compress), (".bz2", bz2.compress)):
        (tmp_path / f"long{suffix}").write_bytes(compress(long_first) + compress(b" gamma delta"))
        assert counted(tmp_path, tmp_path / f"long{suffix}") == {
            "alpha": 200_000,
            "beta": 200_000,
            "gamma": 1,
            "delta": 1,
        }
    # padding comes after a stream and four bytes at a time: NUL bytes alone are no xz file
    for data in (b"\0" * 4096, b"\0" * 4 + lzma.compress(first), lzma.compress(first) + b"\0" * 3):
        (tmp_path / "nul.txt.xz").write_bytes(data)
        refused(tmp_path, tmp_path / "nul.txt.xz", says="damaged or truncated xz archive")


def test_an_empty_file_is_empty_text_whatever_its_compression(tmp_path):
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        (tmp_path / f"empty.txt{suffix}").write_bytes(b"")
    (tmp_path / "words.txt").write_text("one two", encoding="utf-8")
    assert counted(tmp_path, tmp_path) == {"one": 1, "two": 1}
    # and a real empty archive of each kind reads as empty text too
    for suffix, compress in ((".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)):
        (tmp_path / f"empty.txt{suffix}").write_bytes(compress(b""))
    assert counted(tmp_path, tmp_path) == {"one": 1, "two": 1}


def test_a_parquet_file_with_a_damaged_page_is_refused_naming_it(tmp_path):
    path = tmp_path / "pages.parquet"
    pq.write_table(pa.table({"text": [f"w{i} x" for i in range(10_000)]}), path, row_group_size=1_000)
    data = bytearray(path.read_bytes())
    for i in range(200, len(data) // 2):  # the pages, not the footer: the file still opens
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    refused(tmp_path, path, says="The Parquet file")
    err = refused(tmp_path, path, says="is damaged")
    assert "pages.parquet" in err


def test_a_nul_character_inside_a_record_is_refused_naming_the_line_or_row(tmp_path):
    jsonl = tmp_path / "nul.jsonl"
    jsonl.write_text(
        json.dumps({"text": "fine"}) + "\n" + json.dumps({"text": "a\x00b"}) + "\n", encoding="utf-8"
    )
    assert "Line 2 of" in refused(tmp_path, jsonl, says="NUL character")
    parquet = tmp_path / "nul.parquet"
    pq.write_table(pa.table({"text": ["fine", "also fine", "a\x00b"]}), parquet)
    assert "Row 3 of" in refused(tmp_path, parquet, says="NUL character")


def test_text_columns_of_every_string_encoding_are_read(tmp_path):
    words = ["red blue", "red", "green red"]
    categories = pa.array(words).dictionary_encode()  # pandas' category
    pq.write_table(pa.table({"text": categories}), tmp_path / "category.parquet")
    pq.write_table(pa.table({"text": pa.array(words, pa.large_string())}), tmp_path / "large.parquet")
    expected = {"red": 3, "blue": 1, "green": 1}
    assert counted(tmp_path, tmp_path / "category.parquet") == expected
    assert counted(tmp_path, tmp_path / "large.parquet") == expected
    if hasattr(pa, "string_view"):  # strings viewed, not copied (pyarrow 16 and later)
        pq.write_table(pa.table({"text": pa.array(words, pa.string_view())}), tmp_path / "view.parquet")
        assert counted(tmp_path, tmp_path / "view.parquet") == expected
    counts = tmp_path / "counts.parquet"
    pq.write_table(pa.table({"word": pa.array(["ab", "abc"], pa.large_string()), "count": [3, 2]}), counts)
    code, out, err = run("train", str(counts), "--input", "counts", "--merges", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["merges"][0]["pair"] == ["a", "b"]


def test_a_glob_under_folders_named_like_hidden_ones_matches_what_is_in_them(tmp_path, monkeypatch):
    for folder in ("_data", ".cache/corpus"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "a.txt").write_text("kept words", encoding="utf-8")
        (tmp_path / folder / ".hidden.txt").write_text("never", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert counted(tmp_path, "_data/*.txt") == {"kept": 1, "words": 1}
    assert counted(tmp_path, ".cache/corpus/*.txt") == {"kept": 1, "words": 1}
    assert counted(tmp_path, str(tmp_path / "_data" / "*.txt")) == {"kept": 1, "words": 1}


@pytest.fixture
def locked_folder(tmp_path, monkeypatch):
    """``corpus/`` holding a file and ``locked/``, a folder that cannot be listed (as one without
    read permission answers: the tests may run as root, whom chmod does not stop)."""
    (tmp_path / "corpus" / "locked").mkdir(parents=True)
    (tmp_path / "corpus" / "a.txt").write_text("words", encoding="utf-8")
    locked = str(tmp_path / "corpus" / "locked")
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return tmp_path / "corpus"


def test_a_folder_that_cannot_be_listed_is_refused_not_skipped(tmp_path, locked_folder):
    err = refused(tmp_path, locked_folder, says="cannot be read (Permission denied)")
    assert "locked" in err


def test_linked_folders_are_followed_once_and_one_file_named_twice_counts_once(tmp_path, monkeypatch):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "shard").mkdir()
    (tmp_path / "corpus" / "base.txt").write_text("base words", encoding="utf-8")
    (tmp_path / "shard" / "more.txt").write_text("linked words", encoding="utf-8")
    (tmp_path / "corpus" / "shard").symlink_to(tmp_path / "shard")
    (tmp_path / "shard" / "back").symlink_to(tmp_path / "corpus")  # a loop: walked once
    expected = {"words": 2, "base": 1, "linked": 1}
    assert counted(tmp_path, tmp_path / "corpus") == expected
    monkeypatch.chdir(tmp_path)
    assert counted(tmp_path, "corpus", "./corpus/base.txt", "shard/more.txt") == expected
    # a recursive glob walks each real folder once too (glob itself followed the loop without end)
    (tmp_path / "shard" / "me").symlink_to(".")
    for pattern in ("corpus/**/*.txt", "corpus/**", str(tmp_path / "corpus" / "**" / "*.txt"), "**/more.txt"):
        assert counted(tmp_path, pattern) == (
            expected if "more" not in pattern else {"linked": 1, "words": 1}
        )


def test_an_output_naming_an_input_is_refused_and_the_input_kept(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world", encoding="utf-8")
    code, _out, err = run("count", str(corpus), "-o", str(corpus))
    assert code == 1 and "is one of the inputs" in err and err.count("\n") == 1
    code, _out, err = run("train", str(tmp_path), "-o", str(corpus))
    assert code == 1 and "is one of the inputs" in err
    assert corpus.read_text(encoding="utf-8") == "hello world"


@pytest.mark.parametrize("command", ["count", "train"])
def test_an_output_into_a_pipe_of_a_shell_is_written_into_it(tmp_path, command):
    """``-o >(gzip > x.gz)`` and ``-o /dev/stdout | head`` name a pipe by a file descriptor, whose
    link names no file ("pipe:[N]"): it was refused as a folder that does not exist."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("to be or not to be", encoding="utf-8")
    read_end, write_end = os.pipe()
    try:
        options = ["--merges", "2"] if command == "train" else []
        code, _out, err = run(command, str(corpus), "-o", f"/dev/fd/{write_end}", *options)
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as stream:
        written = stream.read().decode("utf-8")
    assert code == 0, err
    assert written.startswith("#bpe-studio counts 1\nbe\t2\n" if command == "count" else "{")
    assert not list(tmp_path.glob(".*")) and sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_a_file_url_names_the_file_it_encodes(tmp_path):
    corpus = tmp_path / "a b ü.txt"
    corpus.write_text("low lower low", encoding="utf-8")
    assert counted(tmp_path, corpus.as_uri()) == counted(tmp_path, corpus) == {"low": 2, "lower": 1}
    # RFC 8089's local host, and Hadoop's one slash, name the same file
    for url in (
        corpus.as_uri().replace("file://", "file://localhost"),
        corpus.as_uri().replace("file://", "file:"),
    ):
        assert counted(tmp_path, url) == {"low": 2, "lower": 1}, url
    code, _out, err = run("count", corpus.as_uri(), "-o", str(corpus))
    assert code == 1 and "is one of the inputs" in err
    assert corpus.read_text(encoding="utf-8") == "low lower low"


def test_two_text_columns_two_outputs_on_one_file_and_thousands_of_workers_are_refused(tmp_path):
    twice = pa.Table.from_arrays([pa.array(["a b"]), pa.array(["c"])], names=["text", "text"])
    pq.write_table(twice, tmp_path / "twice.parquet")
    code, _out, err = run("count", str(tmp_path / "twice.parquet"), "-o", str(tmp_path / "c.tsv"))
    assert code == 1 and "2 columns named 'text'" in err and err.count("\n") == 1
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower", encoding="utf-8")
    both = tmp_path / "both.md"
    code, _out, err = run("train", str(corpus), "-o", str(both), "--walkthrough", str(both), "--merges", "1")
    assert code == 1 and "one would replace the other" in err and not both.exists()
    code, _out, err = run("count", str(corpus), "--workers", "100000", "-o", str(tmp_path / "c.tsv"))
    assert code != 0 and "more processes than this machine can use" in err and err.count("\n") == 1
    assert not (tmp_path / "c.tsv").exists()
    # compressed Parquet could be read back neither as Parquet nor as a counts file
    code, _out, err = run("count", str(corpus), "-o", str(tmp_path / "c.parquet.gz"))
    assert code == 1 and "Parquet compresses itself" in err and not (tmp_path / "c.parquet.gz").exists()


def test_standard_input_that_is_not_utf8_is_named_as_standard_input(tmp_path):
    command = f'"{sys.executable}" -m bpe_core.cli count - -o "{tmp_path / "c.tsv"}"'
    done = subprocess.run(["bash", "-c", command], input=b"ab \xff cd\n", capture_output=True, timeout=120)
    assert (
        done.returncode == 1
        and done.stderr.decode() == "bpe-studio: Standard input is not valid UTF-8 (line 1).\n"
    )


def test_standard_input_closed_is_said_in_one_sentence(tmp_path):
    command = f'"{sys.executable}" -m bpe_core.cli count - -o "{tmp_path / "c.tsv"}" <&-'
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Standard input (-) is closed" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "c.tsv").exists()


@pytest.mark.parametrize(
    "name, text, says",
    [
        ("plain.tsv", "ab\t3\nb\t-2\n", "Line 2 of the counts file 'plain.tsv'"),
        ("plain.tsv", "ab 3\n", "Line 1 of the counts file 'plain.tsv' has no TAB"),
        ("huge.tsv", "#bpe-studio counts 1\nab\t99999999999999999999\n", "a count beyond"),
        ("plainhuge.tsv", "ab\t99999999999999999999\n", "a count beyond"),
        (
            "tabs.tsv",
            "#bpe-studio counts 1\nlow\t5\t6\n",
            "Line 2 of the counts file 'tabs.tsv' has more than one TAB",
        ),
        ("v2.tsv", "#bpe-studio counts 2\nlow\t5\n", "starts with '#bpe-studio counts 2', a version"),
        ("bare.tsv", "#bpe-studio counts 1\n", "'bare.tsv' holds no word counts under its header"),
        ("notjson.tsv", "#bpe-studio counts 1\t{pretokenize: gpt2}\nlow\t5\n", "does not state its pipeline"),
        ("list.tsv", "#bpe-studio counts 1\t[1]\nlow\t5\n", "does not state its pipeline"),
        ("deep.tsv", "#bpe-studio counts 1\t" + "[" * 100_000 + "\nlow\t5\n", "does not state its pipeline"),
        ("unit.tsv", '#bpe-studio counts 1\t{"unit": "byte"}\nlow\t5\n', "does not state its pipeline"),
        (
            "kind.tsv",
            '#bpe-studio counts 1\t{"pretokenize": "bert"}\nlow\t5\n',
            "cannot be used here: unknown pre-tokenizer 'bert'",
        ),
        ("type.tsv", '#bpe-studio counts 1\t{"lowercase": "yes"}\nlow\t5\n', "'lowercase' has a value"),
        ("escape.tsv", "#bpe-studio counts 1\nlo\\qw\t5\n", "has '\\q', which is no escape"),
        (
            "nul.tsv",
            "#bpe-studio counts 1\nlo\x00w\t5\n",
            "'nul.tsv' looks binary, not like text (a NUL byte on line 2)",
        ),
    ],
)
def test_faults_of_a_counts_file_name_it(tmp_path, monkeypatch, name, text, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, _out, err = run("train", name, "--input", "counts")
    assert code == 1 and says in err and err.count("\n") == 1, err


def test_a_fault_of_counts_on_standard_input_names_standard_input(monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"#bpe-studio counts 1\nlow\t3\t4\n")))
    code, _out, err = run("train", "-", "--input", "counts")
    assert code == 1 and err == (
        "bpe-studio: Line 2 of the counts file on standard input has more than one TAB "
        "(a TAB in a word is written \\t).\n"
    )


def test_a_counts_file_with_lone_cr_line_ends_and_a_parquet_one_with_a_null(tmp_path):
    (tmp_path / "cr.tsv").write_bytes(b"#bpe-studio counts 1\rab\t3\rabc\t2\r")
    code, out, err = run("train", str(tmp_path / "cr.tsv"), "--input", "counts", "--merges", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["merges"][0]["pair"] == ["a", "b"]
    pq.write_table(pa.table({"word": ["ab", "cd", None], "count": [3, 2, 1]}), tmp_path / "null.parquet")
    code, _out, err = run("train", str(tmp_path / "null.parquet"), "--input", "counts")
    assert code == 1 and "Row 3 of the counts file" in err


def test_counts_written_compressed_are_read_back_compressed_and_from_standard_input(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower newest widest low\n", encoding="utf-8")
    _code, expected, _err = run("train", str(corpus), "--merges", "4", "--json")
    for suffix, opener in ((".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open), (".zst", None)):
        output = tmp_path / f"counts.tsv{suffix}"
        code, _out, err = run("count", str(corpus), "-o", str(output))
        assert code == 0, err
        if opener is not None:
            assert opener(output).read().startswith(b"#bpe-studio counts 1\n")  # compressed, as named
        code, out, err = run("train", str(output), "--input", "counts", "--merges", "4", "--json")
        assert (code, out) == (0, expected), err
    command = f'"{sys.executable}" -m bpe_core.cli train - --input counts --merges 4 --json'
    with open(tmp_path / "counts.tsv.gz", "rb") as packed:
        plain = gzip.decompress(packed.read())
    done = subprocess.run(["bash", "-c", command], input=plain, capture_output=True, timeout=120)
    assert (done.returncode, done.stdout.decode()) == (0, expected), done.stderr
    for command in ("train", "count"):  # without --input counts: its counts are no text
        code, _out, err = run(command, str(tmp_path / "counts.tsv.gz"), "-o", str(tmp_path / "o.tsv"))
        assert code == 1 and "holds word counts (its first line says so)" in err and err.count("\n") == 1
    code, _out, err = run("train", str(corpus), "--merges", "2", "-o", str(tmp_path / "s.bpe.json"))
    code, _out, err = run("count", str(tmp_path / "s.bpe.json"), "-o", str(tmp_path / "o.tsv"))
    assert (
        code == 1 and "is a saved BPE Studio session, not text" in err and not (tmp_path / "o.tsv").exists()
    )
    session = tmp_path / "s.json.gz"  # compressed: the window opens sessions plain
    session.write_bytes(gzip.compress((tmp_path / "s.bpe.json").read_bytes()))
    code, _out, err = run("count", str(session), "-o", str(tmp_path / "o.tsv"))
    assert (
        code == 1 and "is a saved BPE Studio session, not text: decompress it to open it in the window" in err
    )
    pq.write_table(pa.table({"word": ["lo\x00w"], "count": [2]}), tmp_path / "nul.parquet")
    code, _out, err = run("train", str(tmp_path / "nul.parquet"), "--input", "counts")
    assert code == 1 and "Row 1 of the counts file" in err and "NUL" in err


def test_counts_files_of_shards_are_named_by_a_folder_or_a_glob(tmp_path):
    (tmp_path / "shards").mkdir()
    for shard, words in (("0", "ab ab abc"), ("1", "ab abc abc")):
        (tmp_path / f"{shard}.txt").write_text(words, encoding="utf-8")
        assert (
            run("count", str(tmp_path / f"{shard}.txt"), "-o", str(tmp_path / "shards" / f"{shard}.tsv"))[0]
            == 0
        )
    options = ["--merges", "3", "--tie-break", "hf", "--json"]
    _, whole, _ = run("train", str(tmp_path / "0.txt"), str(tmp_path / "1.txt"), *options)
    for named in (tmp_path / "shards", tmp_path / "shards" / "*.tsv"):
        code, out, err = run("train", str(named), "--input", "counts", *options)
        assert code == 0, err
        assert json.loads(out)["merges"] == json.loads(whole)["merges"]


def test_a_shard_of_counts_with_only_its_header_adds_nothing_to_the_others(tmp_path):
    """One shard of a pipeline's input without words (its counts file just the header) made
    training on all the shards fail; alone, or with only such shards, there is nothing to train."""
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "0.tsv").write_text("#bpe-studio counts 1\nab\t3\nabc\t2\n", encoding="utf-8")
    (tmp_path / "shards" / "1.tsv").write_text("#bpe-studio counts 1\n", encoding="utf-8")
    options = ["--merges", "2", "--tie-break", "hf", "--json"]
    _, alone, _ = run("train", str(tmp_path / "shards" / "0.tsv"), "--input", "counts", *options)
    code, out, err = run("train", str(tmp_path / "shards"), "--input", "counts", *options)
    assert code == 0 and json.loads(out)["merges"] == json.loads(alone)["merges"], err
    code, _, err = run("train", str(tmp_path / "shards" / "1.tsv"), "--input", "counts", *options)
    assert code == 1 and "holds no word counts under its header" in err
    (tmp_path / "shards" / "0.tsv").write_text("#bpe-studio counts 1\n", encoding="utf-8")
    code, _, err = run("train", str(tmp_path / "shards"), "--input", "counts", *options)
    assert code == 1 and err == "bpe-studio: The 2 counts files hold no word counts.\n"


def test_a_parquet_shard_of_counts_without_rows_adds_nothing_to_the_others(tmp_path):
    """As a text shard with only the header: a Parquet shard without rows made the whole
    training fail with "the corpus is empty"; alone it holds no word counts, said so."""

    def shard(name, words, counts):
        table = pa.table({"word": pa.array(words, pa.string()), "count": pa.array(counts, pa.int64())})
        pq.write_table(table, tmp_path / "shards" / name)

    (tmp_path / "shards").mkdir()
    shard("0.parquet", ["ab", "abc"], [3, 2])
    shard("1.parquet", [], [])
    options = ["--merges", "2", "--tie-break", "hf", "--json"]
    _, alone, _ = run("train", str(tmp_path / "shards" / "0.parquet"), "--input", "counts", *options)
    code, out, err = run("train", str(tmp_path / "shards"), "--input", "counts", *options)
    assert code == 0 and json.loads(out)["merges"] == json.loads(alone)["merges"], err
    code, _, err = run("train", str(tmp_path / "shards" / "1.parquet"), "--input", "counts", *options)
    assert (
        code == 1
        and err
        == f"bpe-studio: The counts file {str(tmp_path / 'shards' / '1.parquet')!r} holds no word counts.\n"
    )
    shard("0.parquet", [], [])
    code, _, err = run("train", str(tmp_path / "shards"), "--input", "counts", *options)
    assert code == 1 and err == "bpe-studio: The 2 counts files hold no word counts.\n"


def test_a_recursive_glob_over_a_folder_that_cannot_be_listed_is_refused(tmp_path, locked_folder):
    refused(tmp_path, locked_folder / "**" / "*.txt", says="cannot be read (Permission denied)")
    assert counted(tmp_path, locked_folder / "*.txt") == {"words": 1}  # the locked folder is not asked for


@pytest.mark.parametrize("pattern", ["*/*.txt", "[lx]ocked/*.txt", "locked/*.txt", "*"])
def test_a_glob_looking_into_a_folder_that_cannot_be_listed_is_refused(tmp_path, locked_folder, pattern):
    """glob passes over a folder it cannot list without a word: its files were left out."""
    err = refused(tmp_path, locked_folder / pattern, says="cannot be read (Permission denied)")
    assert f"The folder '{locked_folder / 'locked'}'" in err


def test_inputs_without_words_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spaces.txt").write_text("   \n\t\n", encoding="utf-8")
    (tmp_path / "empty.txt.gz").write_bytes(b"")
    code, _out, err = run("train", "spaces.txt")
    assert code == 1 and err == "bpe-studio: The file 'spaces.txt' holds only whitespace.\n"
    code, _out, err = run("train", "empty.txt.gz")
    assert code == 1 and err == "bpe-studio: The file 'empty.txt.gz' is empty.\n"
    code, _out, err = run("train", "spaces.txt", "empty.txt.gz")
    assert code == 1 and "The 2 inputs hold no words" in err
    (tmp_path / "nothing.txt.gz").write_bytes(gzip.compress(b""))  # empty once decompressed: said so too
    code, _out, err = run("train", "nothing.txt.gz")
    assert code == 1 and err == "bpe-studio: The file 'nothing.txt.gz' is empty.\n"
    (tmp_path / "blank.txt.gz").write_bytes(gzip.compress("\u3000 \n\r\n".encode()))  # any script's spaces
    code, _out, err = run("train", "blank.txt.gz")
    assert code == 1 and err == "bpe-studio: The file 'blank.txt.gz' holds only whitespace.\n"
    (tmp_path / "specials.txt").write_text("<s></s>\n", encoding="utf-8")  # text, but no words once cut
    code, _out, err = run("train", "specials.txt", "--special-token", "<s>", "--special-token", "</s>")
    assert code == 1 and err == "bpe-studio: The file 'specials.txt' holds no words after pre-tokenization.\n"


def read_with_peak(path) -> tuple[int, int]:
    """The bytes a file reads as (decompressed), and the most memory Python held meanwhile."""
    import tracemalloc

    from bpe_core.io.sources import byte_blocks, expand

    tracemalloc.start()
    try:
        read = sum(len(block) for block in byte_blocks(expand([str(path)])[0]))
        return read, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_zstd_file_of_one_long_run_is_read_in_bounded_memory(tmp_path):
    path = tmp_path / "run.txt.zst"
    with open(path, "wb") as file, zstandard.ZstdCompressor().stream_writer(file) as writer:
        for _ in range(256):  # 256 MB of one letter: a few kilobytes compressed
            writer.write(b"a" * (1 << 20))
    read, peak = read_with_peak(path)
    assert read == 256 << 20 and peak < 64 << 20  # 32 MB out of a kilobyte at most, and a block


@pytest.mark.parametrize("suffix, compress", [(".xz", lzma.compress), (".bz2", bz2.compress)])
def test_an_xz_or_bzip2_file_of_one_long_run_is_read_a_block_at_a_time(tmp_path, suffix, compress):
    path = tmp_path / f"run.txt{suffix}"
    path.write_bytes(compress(b"a" * (64 << 20)))  # 64 MB of one letter: kilobytes compressed
    read, peak = read_with_peak(path)
    assert read == 64 << 20 and peak < 24 << 20  # xz's own dictionary takes 8 MB


def test_a_recursive_glob_under_a_missing_folder_matches_nothing(tmp_path):
    refused(tmp_path, tmp_path / "nowhere" / "**" / "*.txt", says="No file matches")


def test_an_output_that_is_an_input_under_another_name_is_refused(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world", encoding="utf-8")
    os.link(corpus, tmp_path / "same.txt")  # one file, two names
    code, _out, err = run("count", str(corpus), "-o", str(tmp_path / "same.txt"))
    assert code == 1 and "is one of the inputs" in err
    assert corpus.read_text(encoding="utf-8") == "hello world"


@pytest.mark.parametrize(
    "command",
    [
        ("export", "pair/vocab.json", "--format", "tiktoken", "-o", "pair/merges.txt"),
        ("export", "pair/merges.txt", "--format", "hf", "-o", "pair/vocab.json"),
        ("import", "pair/merges.txt", "-o", "pair/vocab.json"),
        ("import", "pair/vocab.json", "-o", "pair/merges.txt"),
    ],
)
def test_an_output_over_the_other_file_of_gpt2s_pair_is_refused(tmp_path, monkeypatch, command):
    """Naming one of GPT-2's two files reads both: writing over the other one broke the pair
    read a moment before, with exit 0."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.txt").write_text("the lowest newest widest the low\n" * 50, encoding="utf-8")
    options = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--merges", "20"]
    assert run("train", "c.txt", *options, "-o", "m.json")[0] == 0
    assert run("export", "m.json", "--format", "gpt2", "-o", "pair")[0] == 0
    before = {name: (tmp_path / "pair" / name).read_bytes() for name in ("vocab.json", "merges.txt")}
    code, _out, err = run(*command)
    assert code == 1 and "is one of the inputs; writing it would replace it." in err and err.count("\n") == 1
    assert before == {name: (tmp_path / "pair" / name).read_bytes() for name in before}


def test_a_counts_shard_named_with_its_folder_is_added_once(tmp_path):
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "0.tsv").write_text("#bpe-studio counts 1\nab\t3\n", encoding="utf-8")
    options = ["--input", "counts", "--merges", "1", "--json"]
    code, out, err = run("train", str(tmp_path / "shards"), str(tmp_path / "shards" / "0.tsv"), *options)
    assert code == 0, err
    assert json.loads(out)["merges"][0]["count"] == 3


def test_counts_written_to_standard_output_are_the_file_s_bytes(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower\tnewest\nlow", encoding="utf-8")
    code, _out, _err = run("count", str(corpus), "-o", str(tmp_path / "c.tsv"))
    assert code == 0
    code, out, err = run("count", str(corpus), "-o", "-")
    assert code == 0 and out == (tmp_path / "c.tsv").read_text(encoding="utf-8")
    assert "wrote them to standard output" in err and not (tmp_path / "-").exists()


def test_json_lines_python_alone_would_refuse_are_read_but_never_a_number_for_text(tmp_path):
    for line in ('\ufeff{"text": 5}', '{"text": ' + "9" * 5_000 + "}"):
        (tmp_path / "n.jsonl").write_text(line + "\n", encoding="utf-8")
        refused(tmp_path, tmp_path / "n.jsonl", says="Line 1 of")
        refused(tmp_path, tmp_path / "n.jsonl", says="has a 'text' that is not a string")
    # a record naming a model (a chat log's), not a tokenizer: the missing field is said
    (tmp_path / "chat.jsonl").write_text('{"model": {"name": "m"}, "content": "hi"}\n', encoding="utf-8")
    refused(tmp_path, tmp_path / "chat.jsonl", says="has no field 'text' (it has 'model', 'content')")


def test_json_lines_python_alone_would_refuse_are_read_and_too_deep_ones_named(tmp_path):
    # files that each begin with a byte order mark, joined; a whole number of 5,000 digits
    (tmp_path / "joined.jsonl").write_text(
        '\ufeff{"text": "first"}\n\ufeff{"text": "second", "id": ' + "1" * 5_000 + "}\n", encoding="utf-8"
    )
    assert counted(tmp_path, tmp_path / "joined.jsonl") == {"first": 1, "second": 1}
    (tmp_path / "deep.jsonl").write_text('{"text": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    refused(tmp_path, tmp_path / "deep.jsonl", says="Line 1 of")
    refused(tmp_path, tmp_path / "deep.jsonl", says="nests JSON too deeply to be read")


def test_a_pattern_matching_hidden_files_only_says_they_are_skipped(tmp_path):
    (tmp_path / ".hidden.txt").write_text("words", encoding="utf-8")
    refused(tmp_path, tmp_path / "*.txt", says="(names starting with . or _ are skipped)")


@pytest.mark.parametrize(
    "data, options, expected",
    [
        (gzip.compress(b"to be or not to be"), [], {"to": 2, "be": 2, "or": 1, "not": 1}),
        (lzma.compress(b'{"body": "to be", "id": 1}\n{"body": "or not"}\n'), ["--field", "body"], None),
        (
            zstandard.ZstdCompressor().compress(b'{"text": "to be"}\n{"text": "or not"}\n'),
            ["--field", "text"],
            None,
        ),
        (bz2.compress(b"BZh is a word"), [], {"BZh": 1, "is": 1, "a": 1, "word": 1}),
        (b"PAR1 is a word", [], {"PAR1": 1, "is": 1, "a": 1, "word": 1}),
        # as pzstd writes: a skippable frame first
        (
            b"\x50\x2a\x4d\x18\x04\x00\x00\x00abcd" + zstandard.ZstdCompressor().compress(b"to be or not"),
            [],
            None,
        ),
    ],
)
def test_standard_input_is_read_compressed_or_not_and_as_json_lines_given_a_field(
    tmp_path, monkeypatch, data, options, expected
):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert counted(tmp_path, "-", options=options) == (expected or {"to": 1, "be": 1, "or": 1, "not": 1})


@pytest.mark.parametrize(
    "data, says",
    [
        (gzip.compress(b"to be or not to be")[:-6], "Standard input is a damaged or truncated gzip archive."),
        (
            b"PAR1\x15\x04\x15 and the rest",
            "Standard input holds a Parquet file, which is read from a file: give its path.",
        ),
        (b'{"text": "a"}\n{"text": 3}\n', "Line 2 of standard input has a 'text' that is not a string."),
    ],
)
def test_standard_input_that_cannot_be_read_is_named_as_standard_input(tmp_path, monkeypatch, data, says):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    refused(tmp_path, "-", says=says, options=["--field", "text"])
