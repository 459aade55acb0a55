"""The CLI with other tools' tokenizer files: encode, decode and export any format."""

import json

import pytest
import tiktoken
from tokenizers import Tokenizer

from bpe_core.io.formats import detect
from tests.cli.test_contract import run
from tests.conftest import GPT2_RANKS, data_text

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEXT = "Hello world, it's 2026!\n  Tokenizers are fun."


@pytest.fixture(scope="module")
def gpt2_ranks():
    return GPT2_RANKS


@pytest.fixture(scope="module")
def gpt2_tiktoken(gpt2_ranks):
    ranks = {}
    import base64

    for line in gpt2_ranks.read_text(encoding="ascii").splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        "gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256}
    )


def encode_ids(*argv) -> list[int]:
    code, out, err = run("encode", *argv, "--json")
    assert code == 0, err
    return json.loads(out)["ids"]


def test_encode_with_tiktoken_ranks_found_by_content_gives_tiktokens_ids(gpt2_ranks, gpt2_tiktoken):
    ids = encode_ids("--model", str(gpt2_ranks), TEXT)
    assert ids == gpt2_tiktoken.encode_ordinary(TEXT)
    special = encode_ids(
        "--model", str(gpt2_ranks), "--special-token", "<|endoftext|>", "--allow-special", "a<|endoftext|>"
    )
    assert special == gpt2_tiktoken.encode("a<|endoftext|>", allowed_special="all") and special[-1] == 50256
    code, out, _ = run("decode", "--model", str(gpt2_ranks), *map(str, ids))
    assert code == 0 and out == TEXT + "\n"


@pytest.mark.parametrize("format", ["hf", "gpt2", "tiktoken"])
def test_export_gpt2_then_encode_with_the_export_and_with_the_real_library(
    gpt2_ranks, gpt2_tiktoken, tmp_path, format
):
    target = tmp_path / ("gpt2-files" if format == "gpt2" else "out")
    code, out, err = run("export", str(gpt2_ranks), "--format", format, "-o", str(target))
    assert code == 0, err
    assert "50,257 tokens, 50,000 merges" in out
    assert detect(target) == format
    text = data_text("shakespeare_200k.txt")[:20_000]
    expected = gpt2_tiktoken.encode_ordinary(text)
    assert encode_ids("--model", str(target), text) == expected
    if format == "hf":
        assert Tokenizer.from_file(str(target)).encode(text, add_special_tokens=False).ids == expected


def test_a_trained_session_exports_to_codes_and_hf_and_encodes_the_same(tmp_path):
    corpus = tmp_path / "genesis.txt"
    corpus.write_text(data_text("kjv_genesis_100k.txt")[:50_000], encoding="utf-8")
    session = tmp_path / "s.json"
    assert run("train", str(corpus), "--attach-marker", "--merges", "300", "-o", str(session))[0] == 0
    text = "In the beginning God created the heaven and the earth."
    words = encode_ids("--model", str(session), text)
    for format, name in (("hf", "tokenizer.json"), ("codes", "model.codes")):
        code, _, err = run("export", str(session), "--format", format, "-o", str(tmp_path / name))
        assert code == 0, err
        assert encode_ids("--model", str(tmp_path / name), text) == words or format == "codes"
    theirs = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert theirs.encode(text, add_special_tokens=False).ids == words


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "{model}", "--format", "codes", "-o", "{tmp}/c"], "Only a character-level model"),
        (["export", "{model}", "--format", "tiktoken", "-o", "{tmp}"], "is a folder"),
        (["encode", "--model", "{junk}", "x"], "is not a tokenizer file BPE Studio reads"),
        (["encode", "--model", "{tmp}", "x"], "holds neither tokenizer.json nor vocab.json"),
        (["encode", "--model", "{model}", "--format", "minbpe", "x"], "does not start with 'minbpe v1'"),
        (
            ["encode", "--model", "{model}", "--format", "codes", "--special-token", "<s>", "x"],
            "only for tiktoken",
        ),
        (["export", "{model}", "--format", "gpt2", "-o", "/proc/gpt2-files"], "Cannot make the folder"),
        (["encode", "--model", "{tmp}/missing.json", "--format", "hf", "x"], "does not exist"),
        # A pattern or an encoding that would be ignored, or would mix two vocabularies
        (["encode", "--model", "{hf}", "--pattern", "gpt4", "x"], "tokenizer.json holds its own"),
        (["encode", "--model", "{model}", "--encoding", "cl100k_base", "x"], "r50k_base ranks, not cl100k"),
    ],
)
def test_bad_formats_and_targets_get_one_sentence(gpt2_ranks, tmp_path, argv, message):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01\x02 not a tokenizer at all \xff")
    hf = tmp_path / "tokenizer.json"
    if "{hf}" in argv:
        assert run("export", str(gpt2_ranks), "--format", "hf", "-o", str(hf))[0] == 0
    argv = [a.format(model=gpt2_ranks, tmp=tmp_path, junk=junk, hf=hf) for a in argv]
    code, out, err = run(*argv)
    assert code == 1 and not out
    assert message in err and err.count("\n") == 1 and err.startswith("bpe-studio: ")


def test_export_says_what_the_file_cannot_hold(gpt2_ranks, tmp_path):
    argv = ["export", str(gpt2_ranks), "--special-token", "<|endoftext|>", "--format", "tiktoken"]
    code, _, err = run(*argv, "-o", str(tmp_path / "t"))
    assert code == 0 and "give them to tiktoken: <|endoftext|> = 50256" in err and "gpt2 split pattern" in err


@pytest.mark.parametrize("format", ["gpt2", "tiktoken"])
def test_a_continuing_subword_prefix_is_refused_by_files_that_cannot_hold_it(tmp_path, format):
    """GPT-2 files were written with "Ġ ##a" merged into "Ġ##a", a token neither their vocabulary
    nor any reader knows."""
    from tokenizers import models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(continuing_subword_prefix="##"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        continuing_subword_prefix="##",
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator([data_text("shakespeare_200k.txt")[:20_000]], trainer)
    source, target = tmp_path / "tokenizer.json", tmp_path / "out"
    tokenizer.save(str(source))
    code, out, err = run("export", str(source), "--format", format, "-o", str(target))
    assert code == 1 and not out and not target.exists()
    assert "continuing-subword prefix" in err and err.count("\n") == 1


def test_a_tokenizer_json_that_mentions_format_is_not_taken_for_a_session(tmp_path):
    path = tmp_path / "tokenizer.json"
    added = [{"id": 3, "content": "format", "format": 1}]
    data = {
        "version": "1.0",
        "added_tokens": added,
        "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    assert detect(path) == "hf"


def test_files_that_start_with_a_byte_order_mark_read_as_without_it(tmp_path):
    """Found by an adversarial pass: a session, tokenizer.json, tiktoken ranks or codes file
    saved by an editor that writes a BOM was refused ("not valid JSON (line 1, column 1)")."""
    corpus = tmp_path / "genesis.txt"
    corpus.write_text(data_text("kjv_genesis_100k.txt")[:20_000], encoding="utf-8")
    text = "In the beginning God created the heaven and the earth."
    models = []
    for options, exports in (
        (["--attach-marker"], ["hf", "codes"]),
        (["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none"], ["tiktoken"]),
    ):
        session = tmp_path / f"s{len(models)}.json"
        assert run("train", str(corpus), *options, "--merges", "200", "-o", str(session))[0] == 0
        models.append(session)
        for format in exports:
            target = tmp_path / f"{session.stem}.{format}"
            assert run("export", str(session), "--format", format, "-o", str(target))[0] == 0
            models.append(target)
    for model in models:
        expected = encode_ids("--model", str(model), text)
        marked = model.with_name("bom-" + model.name)
        marked.write_bytes(b"\xef\xbb\xbf" + model.read_bytes())
        assert encode_ids("--model", str(marked), text) == expected, model.name


def test_tiktoken_ranks_have_their_merges_recovered_once_per_import_and_never_from_a_session(
    gpt2_ranks, tmp_path, monkeypatch
):
    from bpe_core.io.formats import tiktoken_ranks

    recoveries = []
    recover = tiktoken_ranks.merges_of
    monkeypatch.setattr(tiktoken_ranks, "merges_of", lambda ranks: recoveries.append(1) or recover(ranks))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT * 20, encoding="utf-8")
    session = tmp_path / "gpt2.json"
    commands = [
        (["import", str(gpt2_ranks), "--corpus", str(corpus), "-o", str(session)], 1),
        (["encode", "--model", str(session), "hello"], 0),
        (["decode", "--model", str(session), "31373"], 0),
        (["export", str(session), "--format", "hf", "-o", str(tmp_path / "t.json")], 0),
        (["encode", "--model", str(gpt2_ranks), "hello"], 1),
    ]
    for argv, expected in commands:
        recoveries.clear()
        code, _, err = run(*argv)
        assert code == 0, err
        assert len(recoveries) == expected, argv
