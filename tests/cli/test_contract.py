"""The headless CLI contract: outputs, defaults, and one-sentence failures for bad input."""

import contextlib
import io
import json
import subprocess
import sys

import pytest

from bpe_core.cli import main

LOW = "low\t5\nlower\t2\nnewest\t6\nwidest\t3\n"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse usage errors
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def counts_file(tmp_path):
    path = tmp_path / "low.tsv"
    path.write_text(LOW)
    return path


@pytest.fixture
def model(tmp_path, counts_file):
    path = tmp_path / "model.json"
    code, _, _ = run("train", str(counts_file), "--input", "counts", "--merges", "10", "-o", str(path))
    assert code == 0
    return path


def test_train_json_contract(counts_file):
    code, out, err = run("train", str(counts_file), "--input", "counts", "--merges", "10", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) >= {"merges", "vocab_size", "stop_reason"}
    assert data["merges"][0] == {"pair": ["e", "s"], "token": "es", "count": 9, "ties": 3}
    assert [m["token"] for m in data["merges"]][-3:] == ["newest</w>", "low</w>", "wi"]
    assert data["vocab_size"] == 11 + 10 and data["stop_reason"] == "merges"


def test_train_defaults_merge_until_min_frequency(tmp_path):
    path = tmp_path / "fred.txt"
    path.write_text("FRED FED TED BREAD AND TED FED FRED BREAD")
    code, out, _ = run("train", str(path), "--end-of-word", "_", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["merges"]) == 10 and data["stop_reason"] == "min_frequency"
    assert data["merges"][0]["pair"] == ["D", "_"] and data["merges"][0]["count"] == 9


def test_train_vocab_size_and_byte_level_display(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("the cat sat on the mat; the hat sat on the bat\n" * 3)
    code, out, _ = run(
        "train",
        str(path),
        "--unit",
        "byte",
        "--pretokenize",
        "gpt2",
        "--end-of-word",
        "none",
        "--vocab-size",
        "260",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["vocab_size"] == 260 and data["stop_reason"] == "vocab_size"
    assert ["Ġ", "t"] in [m["pair"] for m in data["merges"]] or ["a", "t"] in [
        m["pair"] for m in data["merges"]
    ]
    assert all("Ġ" in m["token"] or " " not in m["token"] for m in data["merges"])


def test_train_tie_break_and_attached_marker(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("aaabdaaabac")
    code, out, _ = run(
        "train", str(path), "--pretokenize", "none", "--end-of-word", "none", "--tie-break", "hf", "--json"
    )
    assert code == 0
    assert [m["token"] for m in json.loads(out)["merges"]] == ["aa", "ab", "aaab"]
    path.write_text("low lower")
    _, out, _ = run("train", str(path), "--attach-marker", "--min-frequency", "1", "--merges", "3", "--json")
    assert json.loads(out)["merges"][-1]["token"] == "low"


def test_train_human_summary(counts_file, tmp_path):
    code, out, err = run("train", str(counts_file), "--input", "counts", "-o", str(tmp_path / "m.json"))
    assert code == 0 and err == ""
    assert "Trained 15 merges" in out and "stopped: no pairs are left" in out and "Saved the model" in out


def test_encode_and_decode(model):
    code, out, _ = run("encode", "--model", str(model), "lowest newer", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["tokens"] == ["low", "est</w>", "new", "e", "r", "</w>"]
    assert data["spans"] == [[0, 3], [3, 6], [7, 10], [10, 11], [11, 12], [12, 12]]
    code, out, _ = run("decode", "--model", str(model), *map(str, data["ids"]))
    assert code == 0 and out == "lowest newer\n"
    code, out, _ = run("encode", "--model", str(model), "lowest")
    assert out.splitlines()[0] == "low est</w>" and "2 tokens for 6 characters" in out
    # A unit the vocabulary lacks is printed as -1, which decodes (as U+FFFD) rather than refused.
    code, out, _ = run("encode", "--model", str(model), "lo☃")
    ids = out.splitlines()[1].split()
    assert "-1" in ids
    code, out, _ = run("decode", "--model", str(model), "--", *ids)
    assert code == 0 and out == "lo\ufffd\n"


def test_encode_file(model, tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("widest low\n")
    code, out, _ = run("encode", "--model", str(model), "--file", str(text), "--json")
    assert code == 0 and json.loads(out)["tokens"] == ["wi", "d", "est</w>", "low</w>"]


def test_encode_file_dash_reads_standard_input_and_refuses_bad_text_before_writing(model, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"widest low\n")))
    code, out, _ = run("encode", "--model", str(model), "--file", "-", "--json")
    assert code == 0 and json.loads(out)["tokens"] == ["wi", "d", "est</w>", "low</w>"]
    for data, says in [(b"wide\xff", "is not valid UTF-8"), (b"wide\x00st", "looks binary")]:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        code, out, err = run("encode", "--model", str(model), "--file", "-", "--json")
        assert code == 1 and out == "" and one_sentence(err)
        assert err.startswith(f"bpe-studio: Standard input {says}")


def one_sentence(err: str) -> bool:
    lines = err.strip().splitlines()
    return (
        len(lines) == 1
        and lines[0].startswith("bpe-studio: ")
        and lines[0].endswith(".")
        and "Traceback" not in err
    )


def bad_inputs(tmp_path, model):
    binary = tmp_path / "binary.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("café crème".encode("latin-1"))
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n ")
    bad_counts = tmp_path / "bad.tsv"
    bad_counts.write_text("low\t5\nlower two\n")
    bad_count = tmp_path / "bad2.tsv"
    bad_count.write_text("low\tfive\n")
    bad_model = tmp_path / "bad_model.json"
    bad_model.write_text('{"format": "bpe-studio-session", "version": 1}')
    not_json = tmp_path / "not.json"
    not_json.write_text("merges: []")
    return {
        "missing file": (1, ["train", str(tmp_path / "nope.txt")]),
        "folder": (1, ["train", str(tmp_path)]),
        "empty corpus": (1, ["train", str(empty)]),
        "non-utf8": (1, ["train", str(latin)]),
        "binary": (1, ["train", str(binary)]),
        "malformed counts line": (1, ["train", str(bad_counts), "--input", "counts"]),
        "malformed count": (1, ["train", str(bad_count), "--input", "counts"]),
        "malformed model": (1, ["encode", "--model", str(bad_model), "x"]),
        "model not json": (1, ["decode", "--model", str(not_json), "1"]),
        "missing model": (1, ["encode", "--model", str(tmp_path / "none.json"), "x"]),
        "encode missing file": (1, ["encode", "--model", str(model), "--file", str(tmp_path / "no.txt")]),
        "decode bad id": (1, ["decode", "--model", str(model), "99999"]),
        "decode non-number": (2, ["decode", "--model", str(model), "abc"]),
        "unknown unit": (2, ["train", str(empty), "--unit", "nibble"]),
        "unknown pretokenizer": (2, ["train", str(empty), "--pretokenize", "tabs"]),
        "unknown tie-break": (2, ["train", str(empty), "--tie-break", "coin-flip"]),
        "bad random seed": (2, ["train", str(empty), "--tie-break", "random:x"]),
        "negative merges": (2, ["train", str(empty), "--merges", "-3"]),
        "zero min frequency": (2, ["train", str(empty), "--min-frequency", "0"]),
        "merges and vocab size": (2, ["train", str(empty), "--merges", "3", "--vocab-size", "9"]),
        "unknown command": (2, ["fly"]),
        "unknown option": (2, ["train", str(empty), "--colour"]),
        "empty marker": (1, ["train", str(bad_counts), "--end-of-word", ""]),
        "special equals marker": (
            1,
            ["train", str(bad_counts), "--input", "counts", "--special-token", "</w>"],
        ),
    }


def test_every_bad_input_gives_one_sentence_and_nonzero_exit(tmp_path, model):
    for name, (expected, argv) in bad_inputs(tmp_path, model).items():
        code, out, err = run(*argv)
        assert code == expected, (name, code, err)
        assert one_sentence(err), (name, err)
        assert out == "", name


def test_an_empty_file_name_is_named_as_given(model):
    code, out, err = run("encode", "--model", str(model), "--file", "")
    assert (code, out) == (1, "") and one_sentence(err)
    assert "''" in err and "'.'" not in err


def test_real_entry_point_in_a_subprocess(tmp_path, counts_file):
    model = tmp_path / "m.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "train",
            str(counts_file),
            "--input",
            "counts",
            "-o",
            str(model),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and json.loads(result.stdout)["stop_reason"] == "no_pairs"
    result = subprocess.run(
        [sys.executable, "-m", "app", "train", str(tmp_path / "missing.txt")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and one_sentence(result.stderr)


def test_dash_as_the_output_writes_the_file_to_standard_output(tmp_path, counts_file, model, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a file named "-" would appear
    code, out, err = run("train", str(counts_file), "--input", "counts", "--merges", "10", "-o", "-")
    assert code == 0 and out == model.read_text()
    assert "Wrote the model to standard output." in err
    code, out, err = run("import", str(model), "-o", "-")
    pairs = [merge["pair"] for merge in json.loads(model.read_text())["merges"]]
    assert code == 0 and [merge["pair"] for merge in json.loads(out)["merges"]] == pairs
    assert "standard output" in err
    code, out, err = run("train", str(counts_file), "--input", "counts", "--walkthrough", "-")
    assert code == 0 and out.startswith("# BPE walk-through") and "Trained" in err
    session = tmp_path / "attached.json"
    run("train", str(counts_file), "--input", "counts", "--attach-marker", "-o", str(session))
    for format in ("hf", "codes"):
        code, out, err = run("export", str(session), "--format", format, "-o", "-")
        written = tmp_path / f"written.{format}"
        assert run("export", str(session), "--format", format, "-o", str(written))[0] == 0
        assert code == 0 and out == written.read_text() and "standard output" in err
    # Two files, or two things on one stream, are refused before any work.
    for argv in (
        ("export", str(session), "--format", "gpt2", "-o", "-"),
        ("train", str(counts_file), "--input", "counts", "-o", "-", "--json"),
        ("train", str(counts_file), "--input", "counts", "-o", "-", "--walkthrough", "-"),
    ):
        code, out, err = run(*argv)
        assert (code, out) == (1, "") and one_sentence(err), argv
    assert not (tmp_path / "-").exists()
    # A full standard output: one sentence, not "Wrote … to standard output" first.

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    for argv in (
        ("train", str(counts_file), "--input", "counts", "-o", "-"),
        ("import", str(model), "-o", "-"),
        ("export", str(session), "--format", "hf", "-o", "-"),
    ):
        err = io.StringIO()
        assert main(list(argv), stdout=Full(), stderr=err) == 1, argv
        assert one_sentence(err.getvalue()) and "No space left" in err.getvalue(), argv


def test_a_command_that_fails_after_reading_a_model_with_notes_says_one_sentence(tmp_path):
    """A SentencePiece model's note on its control pieces came before the error of a bad id:
    notes are held until the command succeeds."""
    from tests.protobuf import train_sentencepiece

    path = tmp_path / "sp.model"
    path.write_bytes(train_sentencepiece(["hello world, the quick brown fox"] * 50, 60))
    code, out, err = run("decode", "--model", str(path), "100000")
    assert (code, out) == (1, "") and one_sentence(err) and "note" not in err
    code, out, err = run("decode", "--model", str(path), "20", "21")
    assert code == 0 and out and err.startswith("bpe-studio: note: ") and err.count("\n") == 1
