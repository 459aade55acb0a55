"""GPT-2 style vocab.json + merges.txt in and out: exact ids against HF tokenizers."""

import json

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from bpe_core import Corpus, InputError, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.formats import read_tokenizer
from bpe_core.io.formats.gpt2_files import read_gpt2, write_gpt2
from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, read_ranks
from tests.cli.test_contract import run
from tests.conftest import GPT2_RANKS, data_text

TEXTS = ("shakespeare_200k.txt", "kjv_genesis_100k.txt", "jargon_file_120k.txt")


def hf_from(vocab_path, merges_path) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE.from_file(str(vocab_path), str(merges_path)))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    return tokenizer


@pytest.fixture(scope="module")
def gpt2_files(tmp_path_factory):
    """GPT-2's vocab.json and merges.txt, written from its ranks."""
    return write_gpt2(encoder_from_ranks(read_ranks(GPT2_RANKS)), tmp_path_factory.mktemp("gpt2"))


@pytest.mark.parametrize("name", TEXTS)
def test_gpt2_files_read_here_encode_as_hf_reads_them(gpt2_files, name):
    ours = read_gpt2(*gpt2_files)
    theirs = hf_from(*gpt2_files)
    for line in data_text(name).splitlines()[:3000]:
        assert ours.encode_ids(line) == theirs.encode(line, add_special_tokens=False).ids, line


def test_ids_are_kept_and_a_round_trip_is_identical(gpt2_files, tmp_path):
    vocab_path, merges_path = gpt2_files
    ours = read_gpt2(vocab_path, merges_path)
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    assert ours.keys == sorted(vocab, key=vocab.__getitem__) and vocab["Ġgazed"] == 50255
    again = write_gpt2(ours, tmp_path / "again")
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in gpt2_files]
    assert merges_path.read_text(encoding="utf-8").splitlines()[:2] == ["#version: 0.2", "Ġ t"]


def test_a_model_trained_here_written_as_gpt2_files_encodes_identically_in_hf(tmp_path):
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(
        Corpus.from_text(data_text("kjv_genesis_100k.txt"), config), TrainingConfig(tie_break="hf")
    )
    trainer.run(merges=600)
    ours = trainer.encoder()
    files = write_gpt2(ours, tmp_path / "model")
    theirs = hf_from(*files)
    for line in data_text("shakespeare_200k.txt").splitlines()[:2000]:
        assert theirs.encode(line, add_special_tokens=False).ids == ours.encode_ids(line)
    assert read_gpt2(*files).encode_ids("In the beginning") == ours.encode_ids("In the beginning")


def test_gpt2s_end_of_text_keeps_its_id_and_is_never_made_from_text(gpt2_files, tmp_path):
    vocab_path, merges_path = gpt2_files
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    vocab["<|endoftext|>"] = 50256
    with_special = tmp_path / "vocab.json"
    with_special.write_text(json.dumps(vocab), encoding="utf-8")
    ours = read_gpt2(with_special, merges_path)
    assert ours.keys[50256] == "<|endoftext|>" and 50256 not in ours.encode_ids("a <|endoftext|> b")


@pytest.mark.parametrize(
    ("vocab", "merges", "message"),
    [
        ("[1, 2]", "", "not an object of token: id"),
        ("{not json", "", "is not JSON"),
        ('{"a": 0}', "", "lacks the byte 0"),
        (None, "#version: 0.2\nĠ t\nzz qq\n", "Line 3 of the merges file"),
    ],
)
def test_damaged_files_are_refused_with_one_sentence(gpt2_files, tmp_path, vocab, merges, message):
    vocab_path = tmp_path / "vocab.json"
    vocab_path.write_text(
        vocab if vocab is not None else gpt2_files[0].read_text(encoding="utf-8"), encoding="utf-8"
    )
    merges_path = tmp_path / "merges.txt"
    merges_path.write_text(merges, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_gpt2(vocab_path, merges_path)


def test_merges_that_use_a_token_no_merge_makes_are_refused_on_import(tmp_path):
    """Found by an adversarial pass: a merges.txt missing ``Ġ s`` while later merges use ``Ġs``
    (a token then taken as special) crashed the import with a KeyError."""
    from bpe_core.io.imported import trainer_from_encoder

    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:50_000], config))
    trainer.run(merges=150)
    vocab, merges = write_gpt2(trainer.encoder(), tmp_path / "model")
    lines = merges.read_text(encoding="utf-8").splitlines(keepends=True)
    made = {line.rstrip("\n").replace(" ", "") for line in lines[1:]}
    used = [line for line in lines[1:] if any(part in made for part in line.split())]
    dropped = next(line for line in lines[1:] if line.rstrip("\n").replace(" ", "") in used[0].split())
    merges.write_text("".join(line for line in lines if line != dropped), encoding="utf-8")
    with pytest.raises(InputError, match=r"^Merge \d+ uses the token '.+', which is neither one unit nor"):
        trainer_from_encoder(read_gpt2(vocab, merges))


def test_a_failed_export_leaves_the_old_pair_of_files_whole(tmp_path, monkeypatch):
    """Found by an adversarial pass: with the disk full at merges.txt, the folder held the new
    vocab.json beside the old merges.txt, a pair that no longer loads."""
    from bpe_core.errors import SessionError
    from bpe_core.io.formats import write_tokenizer
    from bpe_core.runtime import fileio

    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:20_000], config))
    trainer.run(merges=50)
    folder = tmp_path / "model"
    write_tokenizer(trainer.encoder(), "gpt2", folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    trainer.run(merges=50)
    real = fileio._written_beside

    def full_disk_at_merges(path, target, data):
        if target.name == "merges.txt":
            raise SessionError(f"Cannot write {str(path)!r} (No space left on device).")
        return real(path, target, data)

    monkeypatch.setattr(fileio, "_written_beside", full_disk_at_merges)
    with pytest.raises(SessionError, match="No space left"):
        write_tokenizer(trainer.encoder(), "gpt2", folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # and no temporary file


def test_a_cl100k_split_model_exported_as_gpt2_files_says_which_pattern_reads_it(tmp_path):
    """The files cannot hold the split: read with GPT-2's pattern they gave other ids, and the
    export said nothing (the tiktoken export names the pattern)."""
    from tests.cli.test_contract import run

    (tmp_path / "t.txt").write_text(data_text("kjv_genesis_100k.txt")[:20_000], encoding="utf-8")
    options = ["--unit", "byte", "--pretokenize", "gpt4", "--end-of-word", "none", "--merges", "300"]
    assert run("train", str(tmp_path / "t.txt"), *options, "-o", str(tmp_path / "m.json"))[0] == 0
    code, _, err = run("export", str(tmp_path / "m.json"), "--format", "gpt2", "-o", str(tmp_path / "g"))
    assert code == 0 and "--pattern gpt4" in err, err
    (tmp_path / "e.txt").write_text(data_text("shakespeare_200k.txt")[:5_000], encoding="utf-8")
    encoded = [
        run("encode", "--model", str(model), *pattern, "--file", str(tmp_path / "e.txt"))[1]
        for model, pattern in (
            (tmp_path / "m.json", []),
            (tmp_path / "g", ["--pattern", "gpt4"]),
            (tmp_path / "g", []),
        )
    ]
    assert encoded[0] == encoded[1] != encoded[2]


def test_a_merge_listed_twice_is_ranked_at_its_last_place_as_hf_ranks_it(tmp_path):
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(
        Corpus.from_text(data_text("kjv_genesis_100k.txt"), config), TrainingConfig(tie_break="hf")
    )
    trainer.run(merges=300)
    once = trainer.encoder()
    vocab_path, merges_path = write_gpt2(once, tmp_path / "model")
    lines = merges_path.read_text(encoding="utf-8").splitlines(keepends=True)
    used = {part for line in lines[1:] for part in line.split()}
    texts = data_text("shakespeare_200k.txt").splitlines()[:2000]
    # A merge no later merge builds on, listed again at the end where HF ranks it: one whose
    # place changes an encoding.
    for again in (line for line in lines[1:] if line.rstrip("\n").replace(" ", "") not in used):
        merges_path.write_text("".join(lines) + again, encoding="utf-8")
        ours = read_gpt2(vocab_path, merges_path)
        if any(ours.encode_ids(line) != once.encode_ids(line) for line in texts):
            break
    else:
        raise AssertionError("no merge's place changes an encoding")
    assert len(ours.merges) == 300 and ours.keys[ours.merges[-1].token] == again.rstrip("\n").replace(" ", "")
    theirs = hf_from(vocab_path, merges_path)
    for line in texts:
        assert ours.encode_ids(line) == theirs.encode(line, add_special_tokens=False).ids, line


@pytest.mark.parametrize("header", [True, False])
def test_gpt2s_merges_without_its_vocabulary_are_refused_not_read_as_codes(gpt2_files, tmp_path, header):
    lines = gpt2_files[1].read_text(encoding="utf-8").splitlines(keepends=True)[: 2000 if header else None]
    alone = tmp_path / "merges.txt"
    alone.write_text("".join(lines if header else lines[1:]), encoding="utf-8")
    missing = r"GPT-2's merges\.txt.*vocab\.json is missing beside it"
    for path, format in [(alone, None), (tmp_path, None), (alone, "codes")]:
        with pytest.raises(InputError, match=missing):
            read_tokenizer(path, format)
    renamed = tmp_path / "gpt2.codes"  # the content tells, not the name
    alone.rename(renamed)
    with pytest.raises(InputError, match=missing):
        read_tokenizer(renamed)
    code, _, err = run("encode", "--model", str(renamed), "hello")
    assert code == 1 and "vocab.json is missing" in err and err.count("\n") == 1


def test_codes_of_a_text_whose_letters_gpt2_uses_for_bytes_still_read_as_codes(tmp_path):
    path = tmp_path / "maltese.codes"  # Ġ and ġ are Maltese letters; GPT-2 spells bytes with them
    path.write_text("#version: 0.2\nĠ a\nġ a</w>\nĠa ġa</w>\n", encoding="utf-8")
    encoder = read_tokenizer(path).encoder
    assert encoder.encode("Ġaġa").tokens == ["Ġaġa</w>"]


@pytest.mark.parametrize("more", [["<|fim|>"], ["<|fim|>", "<|x|>"]])
def test_special_tokens_given_with_an_encoding_come_after_its_own_as_tiktoken_numbers_them(more):
    """--special-token with --encoding replaced the encoding's own special tokens (<|fim|> took
    <|endoftext|>'s 50256, which text then spelled out); they are added after them, as a
    tiktoken Encoding extended with more special tokens is (one named twice keeps its id)."""
    import tiktoken
    from tiktoken_ext.openai_public import r50k_pat_str

    ranks = read_ranks(GPT2_RANKS)
    ours = encoder_from_ranks(ranks, "r50k_base", [*more, "<|endoftext|>"])
    theirs = tiktoken.Encoding(
        "extended",
        pat_str=r50k_pat_str,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 50256, **{token: 50257 + i for i, token in enumerate(more)}},
    )
    text = "say <|endoftext|> then " + " and ".join(more)
    assert ours.encode_ids(text, allow_special=True) == theirs.encode(text, allowed_special="all")
    assert ours.encode_ids(text, allow_special=True)[2] == 50256
