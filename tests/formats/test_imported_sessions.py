"""Tokenizers opened as sessions: their merges as history, ids kept, a corpus attached."""

import json

import pytest
import tiktoken
from tokenizers import Tokenizer

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.encoding.encoder import Encoder
from bpe_core.io.formats import read_tokenizer, write_tokenizer
from bpe_core.io.imported import IMPORTED, attach_corpus, trainer_from_encoder
from bpe_core.io.session import load_encoder, load_session, save_session
from tests.cli.test_contract import run
from tests.conftest import GPT2_RANKS, data_text
from tests.formats.test_hf import trained_by_hf

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
END = "<|endoftext|>"


@pytest.fixture(scope="module")
def gpt2():
    imported = read_tokenizer(GPT2_RANKS, specials=[END])
    ranks = {}
    for line in (GPT2_RANKS).read_text(encoding="ascii").splitlines():
        import base64

        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    theirs = tiktoken.Encoding(
        "gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={END: 50256}
    )
    return imported.encoder, theirs


@pytest.fixture(scope="module")
def genesis_corpus(gpt2):
    return Corpus.from_text(data_text("kjv_genesis_100k.txt"), gpt2[0].config)


def test_gpt2_opens_as_a_session_of_its_50000_merges_without_a_corpus(gpt2):
    encoder, theirs = gpt2
    trainer = trainer_from_encoder(encoder)
    assert (trainer.position, trainer.vocab_size, trainer.word_count) == (50_000, 50_257, 0)
    assert trainer.record(1).decided_by == IMPORTED and trainer.token_string(trainer.record(1).token) == "Ġt"
    text = data_text("shakespeare_200k.txt")[:50_000] + END
    assert trainer.encoder().encode_ids(text, allow_special=True) == theirs.encode(
        text, allowed_special="all"
    )
    trainer.goto(0)
    assert trainer.encoder().encode_ids("hi") == [71, 72]  # bytes, with GPT-2's ids
    trainer.goto(1)
    assert trainer.encoder().encode_ids(" t") == [256]
    trainer.redo()
    trainer.undo()
    trainer.goto(50_000)
    assert trainer.encoder().encode_ids(" gazed") == [50255]


def test_an_imported_session_saves_and_reopens_with_its_ids(gpt2, tmp_path):
    encoder, theirs = gpt2
    trainer = trainer_from_encoder(encoder)
    trainer.goto(20_000)
    path = tmp_path / "gpt2.json"
    save_session(trainer, path)
    again = load_session(path)
    assert (
        again.position == 20_000 and again.history_length == 50_000 and again.numbering == trainer.numbering
    )
    text = "The quick brown fox jumps over the lazy dog." + END
    expected = trainer.encoder().encode_ids(text, allow_special=True)
    assert again.encoder().encode_ids(text, allow_special=True) == expected
    assert load_encoder(path).encode_ids(text, allow_special=True) == expected
    again.goto(50_000)
    assert again.encoder().encode_ids(text, allow_special=True) == theirs.encode(text, allowed_special="all")


def test_attaching_a_corpus_fills_in_each_merges_count_and_training_goes_on(gpt2, genesis_corpus):
    encoder, _ = gpt2
    bare = trainer_from_encoder(encoder)
    bare.goto(3000)
    trainer = attach_corpus(bare, genesis_corpus)
    assert trainer.position == 3000 and trainer.history_length == 50_000 and trainer.word_count > 1000
    for step in (1, 2, 50, 2999, 3000):
        record = trainer.record(step)
        trainer.goto(step - 1)
        assert trainer.pair_count(record.pair) == record.count == record.top_count
    trainer.goto(50_000)
    assert trainer.record(50_000).count == 0  # "Ġgazed" never occurs in Genesis
    same = trainer_from_encoder(encoder, genesis_corpus)  # the corpus given at once: the same counts
    assert [r.count for r in same.history] == [r.count for r in trainer.history]
    top = trainer.top_count()
    record = trainer.step()
    assert record.step == 50_001 and record.count == top > 0
    assert trainer.encoder().encode_ids(END, allow_special=True) == [50256]
    assert record.token == trainer.vocab_size - 1
    assert trainer.encoder().keys[50257] == trainer.token_string(record.token)


def test_import_export_import_keeps_gpt2_exactly(gpt2, tmp_path):
    encoder, _ = gpt2
    trainer = trainer_from_encoder(encoder)
    exported = trainer.encoder()
    write_tokenizer(exported, "tiktoken", tmp_path / "again.tiktoken")
    assert (tmp_path / "again.tiktoken").read_bytes() == (GPT2_RANKS).read_bytes()
    write_tokenizer(exported, "gpt2", tmp_path / "files")
    vocab = json.loads((tmp_path / "files" / "vocab.json").read_text(encoding="utf-8"))
    assert vocab[END] == 50256 and vocab["Ġgazed"] == 50255


@pytest.mark.parametrize("name", ["gpt2-bytes", "whitespace-suffix-unk", "bytes-prefix-nfkc-lower"])
def test_a_tokenizer_trained_by_hf_round_trips_through_a_session(name, tmp_path):
    theirs = trained_by_hf(name)
    path = tmp_path / "tokenizer.json"
    theirs.save(str(path))
    trainer = trainer_from_encoder(read_tokenizer(path).encoder)
    session = tmp_path / "session.json"
    save_session(trainer, session)
    write_tokenizer(load_session(session).encoder(), "hf", tmp_path / "again.json")
    before, after = (
        json.loads(path.read_text(encoding="utf-8")),
        json.loads((tmp_path / "again.json").read_text(encoding="utf-8")),
    )
    assert after["model"]["vocab"] == before["model"]["vocab"]
    assert after["model"]["merges"] == before["model"]["merges"]
    assert [(t["id"], t["content"]) for t in after["added_tokens"]] == [
        (t["id"], t["content"]) for t in before["added_tokens"]
    ]
    lines = data_text("shakespeare_200k.txt").splitlines()[:500]
    again = Tokenizer.from_file(str(tmp_path / "again.json"))
    assert [e.ids for e in again.encode_batch(lines, add_special_tokens=False)] == [
        e.ids for e in theirs.encode_batch(lines, add_special_tokens=False)
    ]


def test_a_minbpe_model_keeps_bytes_numbered_by_value_in_a_session(tmp_path):
    path = tmp_path / "toy.model"
    path.write_text("minbpe v1\n\n1\n<|end|> 258\n104 105\n256 33\n", encoding="utf-8")  # "hi", "hi!"
    trainer = trainer_from_encoder(read_tokenizer(path).encoder)
    encoder = trainer.encoder()
    assert encoder.encode_ids("hi! a<|end|>", allow_special=True) == [257, 32, 97, 258]


def test_the_cli_imports_gpt2_with_a_corpus_and_the_session_encodes_as_tiktoken(gpt2, tmp_path):
    _, theirs = gpt2
    corpus = tmp_path / "genesis.txt"
    corpus.write_text(data_text("kjv_genesis_100k.txt")[:30_000], encoding="utf-8")
    session = tmp_path / "gpt2.json"
    code, out, err = run(
        "import",
        str(GPT2_RANKS),
        "--special-token",
        END,
        "--corpus",
        str(corpus),
        "-o",
        str(session),
    )
    assert code == 0, err
    assert "(tiktoken ranks): 50,257 tokens, 50,000 merges, with the counts of" in out
    code, out, _ = run(
        "encode", "--model", str(session), "--json", "--allow-special", "In the beginning" + END
    )
    assert json.loads(out)["ids"] == theirs.encode("In the beginning" + END, allowed_special="all")
    trainer = load_session(session)
    assert trainer.word_count > 100 and trainer.record(1).count > 0


def test_a_token_no_session_can_hold_is_refused_with_one_sentence(tmp_path):
    path = tmp_path / "tokenizer.json"
    data = {
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "xyz": 3}, "merges": ["a b"]},
        "pre_tokenizer": {"type": "Whitespace"},
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("import", str(path), "-o", str(tmp_path / "s.json"))
    assert (
        code == 1
        and "'xyz' is neither one unit nor made by a merge" in err
        and not (tmp_path / "s.json").exists()
    )


def test_a_session_of_our_own_is_not_renumbered():
    trainer = Trainer(Corpus.from_text("low lower lowest", PipelineConfig()))
    trainer.run(merges=3)
    assert trainer.numbering is None


def test_gpt2_exported_part_way_keeps_its_ids_and_loads_in_the_real_libraries(gpt2, tmp_path):
    encoder, _ = gpt2
    trainer = trainer_from_encoder(encoder)
    trainer.goto(100)  # ids 0-355, then none up to <|endoftext|>'s 50256
    partial = trainer.encoder()
    text = "The end of the text" + END
    ids = partial.encode_ids(text, allow_special=True)
    assert ids[-1] == 50256 and max(ids[:-1]) < 356
    write_tokenizer(partial, "hf", tmp_path / "tokenizer.json")
    assert (
        Tokenizer.from_file(str(tmp_path / "tokenizer.json")).encode(text, add_special_tokens=False).ids
        == ids
    )
    write_tokenizer(partial, "tiktoken", tmp_path / "part.tiktoken")
    ranks = read_tokenizer(tmp_path / "part.tiktoken", specials=[]).encoder
    theirs = tiktoken.Encoding(
        "part",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=_ranks(tmp_path / "part.tiktoken"),
        special_tokens={END: 50256},
    )
    assert theirs.encode(text, allowed_special="all") == ids and len(ranks.keys) == 356
    write_tokenizer(partial, "gpt2", tmp_path / "files")
    again = read_tokenizer(tmp_path / "files").encoder
    assert again.encode_ids(text, allow_special=True) == ids
    for format, path in (("hf", tmp_path / "tokenizer.json"), ("gpt2", tmp_path / "files")):
        session = trainer_from_encoder(read_tokenizer(path, format).encoder)
        assert session.position == 100 and session.encoder().encode_ids(text, allow_special=True) == ids


def _ranks(path):
    import base64

    return {base64.b64decode(t): int(r) for t, r in (line.split() for line in path.read_text().splitlines())}


def test_attaching_a_corpus_never_changes_what_a_character_level_tokenizer_makes(tmp_path):
    theirs = trained_by_hf("whitespace-suffix-unk")
    path = tmp_path / "tokenizer.json"
    theirs.save(str(path))
    encoder = read_tokenizer(path).encoder
    corpus = Corpus.from_text("Zoë’s naïve café — 中文 and plain words " * 3, encoder.config)
    trainer = trainer_from_encoder(encoder, corpus)
    assert 0 < trainer.word_count < len(corpus.words)  # the words with unknown characters are left out
    assert trainer.vocab_size == trainer_from_encoder(encoder).vocab_size  # its alphabet is its own
    text = "Zoë’s naïve café — 中文 [UNK] plain"
    assert trainer.encoder().encode_ids(text) == theirs.encode(text, add_special_tokens=False).ids
    attached = attach_corpus(trainer_from_encoder(encoder), corpus)
    assert attached.word_count == trainer.word_count


def test_a_damaged_numbering_is_refused_with_one_sentence(gpt2, tmp_path):
    trainer = trainer_from_encoder(gpt2[0])
    trainer.goto(10)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["numbering"]["specials"] = [10**13]
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("encode", "--model", str(path), "x")
    assert code == 1 and "numbering runs to ids far beyond its tokens" in err and err.count("\n") == 1


def test_codes_whose_marked_units_lack_their_plain_twins_open_and_take_a_corpus(tmp_path):
    # Found by the first-minute test: "w</w>" is in the alphabet but "w" is not. Opening replays
    # the merges over arrays of ids (bpe_core.training.initial_symbols), which must not need the twin.
    path = tmp_path / "model.codes"
    path.write_text("#version: 0.2\nl o\nlo w</w>\n", encoding="utf-8")
    encoder = read_tokenizer(path).encoder
    trainer = trainer_from_encoder(encoder)
    assert trainer.history_length == 2 and trainer.token_string(trainer.vocab_size - 1) == "low</w>"
    attached = attach_corpus(trainer, Corpus.from_text("low low lo", encoder.config))
    assert [attached.token_string(t) for t in attached.segmentation(0)] == ["low</w>"]
    assert attached.history[-1].count == 2


# -- attaching a corpus leaves the tokenizer's alphabet, ids and encodings its own -------------

LACKING = ["e.g. 0.5", "ab. x.y", "naïve café — 中文 😀", "ends with a dot.", ". ..", "\x85\u2028 tab\tend"]
CORPUS = " ".join(LACKING) * 3 + " and some plain words the tokenizer knows: the cat sat. e.g. 2.5"


def byte_model(merges: int = 300) -> Encoder:
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:60_000], config))
    trainer.run(merges=merges)
    return trainer.encoder()


def minbpe_model(path) -> None:
    """A minbpe .model of a byte-level model trained here (minbpe numbers bytes by value)."""
    from bpe_core.pipeline.byte_alphabet import display_to_bytes

    encoder = byte_model()
    value = {i: display_to_bytes(key)[0] for i, key in enumerate(encoder.keys[:256])}
    value.update({m.token: 256 + m.rank for m in encoder.merges})
    pattern = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    merges = "".join(f"{value[m.left]} {value[m.right]}\n" for m in encoder.merges)
    end = 256 + len(encoder.merges)
    path.write_text(f"minbpe v1\n{pattern}\n1\n<|end|> {end}\n{merges}", encoding="utf-8")


def hf_char_file(path) -> None:
    """A character-level tokenizer.json whose vocabulary has '.</w>' but not '.', and no digits."""
    vocab = {s: i for i, s in enumerate(["a", "b", "e", "g", "x", "y", "a</w>", "b</w>", ".</w>", "e</w>"])}
    vocab.update({"ab": 10, "ab</w>": 11, "e.</w>": 12})
    data = {
        "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "model": {
            "type": "BPE",
            "end_of_word_suffix": "</w>",
            "vocab": vocab,
            "merges": ["a b", "a b</w>", "e .</w>"],
        },
    }
    path.write_text(json.dumps(data), encoding="utf-8")


def hf_byte_file(path) -> None:
    """A byte-level tokenizer.json without most bytes: Hugging Face drops what it lacks."""
    vocab = {s: i for i, s in enumerate(["a", "b", "c", ".", "Ġ", "ab", "Ġab"])}
    data = {
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
        "model": {"type": "BPE", "vocab": vocab, "merges": ["a b", "Ġ ab"]},
    }
    path.write_text(json.dumps(data), encoding="utf-8")


def codes_learned(path) -> None:
    import io

    from subword_nmt.learn_bpe import learn_bpe

    codes = io.StringIO()
    learn_bpe(io.StringIO(data_text("kjv_genesis_100k.txt")), codes, 400, min_frequency=2)
    path.write_text(codes.getvalue(), encoding="utf-8")


TOKENIZERS = {
    "hf characters": ("tokenizer.json", hf_char_file),
    "hf bytes": ("tokenizer.json", hf_byte_file),
    "gpt2 files": ("gpt2", lambda path: write_tokenizer(byte_model(), "gpt2", path)),
    "codes": ("model.codes", codes_learned),
    "codes 0.1": ("old.codes", lambda path: path.write_text("a b\nab c\n", encoding="utf-8")),
    "tiktoken": ("model.tiktoken", lambda path: write_tokenizer(byte_model(), "tiktoken", path)),
    "minbpe": ("model.model", minbpe_model),
}


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_attaching_a_corpus_with_characters_a_tokenizer_lacks_keeps_its_encodings(name, tmp_path):
    file_name, make = TOKENIZERS[name]
    path = tmp_path / file_name
    make(path)
    encoder = read_tokenizer(path).encoder
    expected = [encoder.encode_ids(text) for text in LACKING]
    corpus = Corpus.from_text(CORPUS, encoder.config)
    bare = trainer_from_encoder(encoder)
    sessions = {
        "opened": bare,
        "attached": attach_corpus(bare, corpus),
        "imported with it": trainer_from_encoder(encoder, corpus),
    }
    save_session(sessions["attached"], tmp_path / "attached.json")
    sessions["saved and reopened"] = load_session(tmp_path / "attached.json")
    for how, session in sessions.items():
        ours = session.encoder()
        assert [ours.encode_ids(text) for text in LACKING] == expected, how
        assert session.vocab_size == bare.vocab_size, how  # its alphabet is its own
    assert sessions["attached"].word_count > 0
