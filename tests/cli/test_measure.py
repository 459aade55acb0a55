"""``bpe-studio measure``: tokenizers side by side on a text or files, as a table or JSON."""

import json

import tiktoken
import tiktoken_ext.openai_public as openai_public

from bpe_core.io.formats import read_tokenizer
from bpe_core.io.formats.tiktoken_ranks import read_ranks
from tests.cli.test_contract import run
from tests.conftest import GPT2_RANKS, data_text


def cl100k_on_gpt2_ranks() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base definition, given GPT-2's ranks (nothing downloaded)."""
    ranks = read_ranks(GPT2_RANKS)
    real = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
    try:
        return tiktoken.Encoding(**openai_public.cl100k_base())
    finally:
        openai_public.load_tiktoken_bpe = real


def test_files_measured_as_json_give_each_count_per_model_and_file(tmp_path):
    play, genesis = tmp_path / "play.txt", tmp_path / "genesis.txt"
    play.write_text(data_text("shakespeare_200k.txt")[:30_000], encoding="utf-8")
    genesis.write_text(data_text("kjv_genesis_100k.txt")[:20_000] + " naïve 中文", encoding="utf-8")
    session = tmp_path / "session.json"
    code, _, err = run("train", str(play), "--merges", "200", "-o", str(session))
    assert code == 0, err
    code, out, err = run(
        "measure", str(GPT2_RANKS), str(session), "--file", str(play), str(genesis), "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    assert [m["model"] for m in result["models"]] == [str(GPT2_RANKS), str(session)]
    for model in result["models"]:
        assert [f["file"] for f in model["files"]] == [str(play), str(genesis)]
        for entry in model["files"]:
            with open(entry["file"], encoding="utf-8") as stream:
                text = stream.read()
            assert set(entry) == {"file", "characters", "bytes", "words", "tokens", "unknown"}
            assert (entry["characters"], entry["bytes"], entry["words"]) == (
                len(text),
                len(text.encode("utf-8")),
                len(text.split()),
            )
    gpt2 = read_tokenizer(GPT2_RANKS).encoder
    assert result["models"][0]["files"][0]["tokens"] == len(gpt2.encode_ids(play.read_text(encoding="utf-8")))
    assert result["models"][1]["files"][1]["unknown"] > 0 == result["models"][0]["files"][1]["unknown"]


def test_a_text_measured_gives_a_table_and_a_pattern_splits_the_ranks_it_is_given():
    # cl100k's split over GPT-2's ranks: --pattern (--encoding would number cl100k's specials
    # after another vocabulary, which is refused)
    code, out, err = run("measure", "--pattern", "gpt4", str(GPT2_RANKS), "I'm here: 1234567")
    assert code == 0, err
    header, row = out.splitlines()
    assert header.split()[:3] == ["model", "file", "tokens"]
    ids = cl100k_on_gpt2_ranks().encode_ordinary("I'm here: 1234567")
    assert row.split()[1:3] == ["-", str(len(ids))]


def test_what_cannot_be_measured_is_one_sentence():
    for argv, message in [
        (["measure", str(GPT2_RANKS)], "Give the text to measure on after the models"),
        (["measure", str(GPT2_RANKS), "--file", "/nonexistent.txt"], "does not exist"),
        (["measure", "/nonexistent.json", "text"], "Cannot read '/nonexistent.json'"),
    ]:
        code, out, err = run(*argv)
        assert code == 1 and out == "" and message in err and err.count("\n") == 1, err
