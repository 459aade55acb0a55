"""Encoding a long text a part at a time (``Encoder.parts``, ``encode --file``): the parts
encode exactly as the whole text does, whatever the pipeline and wherever the text's blocks
end (inside a word, a special token, a character's normalization), and the command line's
output is what encoding the whole text wrote, with memory that does not grow with the text."""

import contextlib
import io
import json
import tracemalloc
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.cli import main
from bpe_core.encoding import text_parts
from bpe_core.encoding.encoder import Encoder
from bpe_core.io.formats import read_tokenizer
from bpe_core.io.session import save_session
from bpe_core.runtime import fileio
from tests.conftest import GPT2_RANKS, data_text

SPECIALS = ("<|end of text|>", "EOS", "<s>")
CONFIGS = {
    "whitespace": PipelineConfig(),
    "bytes, gpt2": PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None),
    "bytes, gpt4, prefix space, specials": PipelineConfig(
        unit="byte", pretokenize="gpt4", end_of_word=None, prefix_space=True, special_tokens=SPECIALS
    ),
    "words, nfkc, lowercase, attached": PipelineConfig(
        pretokenize="words", normalization="nfkc", lowercase=True, attach_marker=True
    ),
    "whitespace, nfc, specials": PipelineConfig(normalization="nfc", special_tokens=SPECIALS),
    "gpt4-minbpe, lowercase, prefix space": PipelineConfig(
        pretokenize="gpt4-minbpe", end_of_word=None, lowercase=True, prefix_space=True
    ),
    "one sequence": PipelineConfig(pretokenize="none", end_of_word=None),
}
TRAINING_TEXT = data_text("shakespeare_200k.txt")[:6_000] + " İstanbul ΣΟΦΊΑ straße café naïve ﬁne 12 345 EOS"


@cache
def encoder(name: str) -> Encoder:
    trainer = Trainer(Corpus.from_text(TRAINING_TEXT, CONFIGS[name]), TrainingConfig())
    trainer.run(merges=150)
    return trainer.encoder()


PIECES = st.one_of(
    st.text(alphabet="aAbzZ İıΣσß é\u0301\u0307 \t\n\r.,!'_-:;0123☃ﬁ", max_size=12),
    st.sampled_from([*SPECIALS, "<|end", "of text|>", "  ", "\n\n", "don't", "word,word", "x.y"]),
)


def split_at(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(CONFIGS)),
    st.lists(PIECES, max_size=40).map("".join),
    st.lists(st.integers(0, 10_000), max_size=8),
    st.integers(1, 12),
    st.booleans(),
)
def test_parts_encode_exactly_as_the_whole_text(name, text, cuts, size, allow_special):
    model = encoder(name)
    parts = list(model.parts(split_at(text, cuts), allow_special=allow_special, size=size))
    assert "".join(parts) == text and all(parts)
    whole = model.encode(text, allow_special=allow_special)
    ids: list[int] = []
    fields: tuple[list, ...] = ([], [], [], [], [])
    offset = 0
    for part in parts:
        ids += model.encode_ids(part, allow_special=allow_special, offset=offset)
        encoding = model.encode(part, allow_special=allow_special, offset=offset)
        values = (encoding.ids, encoding.tokens, encoding.starts, encoding.ends, encoding.unknown)
        for field, more in zip(fields, values, strict=True):
            field.extend(more)
        offset += len(part)
    assert ids == whole.ids
    assert fields == (whole.ids, whole.tokens, whole.starts, whole.ends, whole.unknown)


def test_text_without_whitespace_is_still_cut_into_small_parts():
    text = "FirstCitizen:Beforeweproceedanyfurther,hearmespeak.All:Speak,speak." * 200
    parts = list(encoder("bytes, gpt2").parts([text], size=100))
    assert "".join(parts) == text and len(parts) > 100
    assert max(map(len, parts)) < 140
    lines = "a line of words\n" * 1_000
    assert max(map(len, encoder("whitespace").parts([lines], size=100))) < 120
    # One sequence is one piece: never cut.
    assert list(encoder("one sequence").parts([lines], size=100)) == [lines]


def old_output(model: Encoder, text: str, allow_special: bool, as_json: bool) -> str:
    """What ``encode`` wrote when it encoded the whole text at once."""
    encoding = model.encode(text, allow_special=allow_special)
    if as_json:
        data = {"tokens": encoding.tokens, "ids": encoding.ids, "spans": [list(s) for s in encoding.spans]}
        if any(encoding.unknown):
            data["unknown"] = [i for i, flag in enumerate(encoding.unknown) if flag]
        return json.dumps(data, ensure_ascii=False) + "\n"
    visible = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})
    unknown = sum(encoding.unknown)
    note = f"; {unknown} unknown" if unknown else ""
    return (
        " ".join(t.translate(visible) for t in encoding.tokens)
        + "\n"
        + " ".join(map(str, encoding.ids))
        + "\n"
        + f"{len(encoding):,} tokens for {len(text):,} characters{note}.\n"
    )


def cli(*argv: str) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture
def tiny_parts(monkeypatch):
    """Parts of a few hundred characters read in blocks of 97 bytes: cuts and block ends fall
    everywhere (inside words, characters and special tokens)."""
    monkeypatch.setattr(text_parts, "PART_SIZE", 300)
    monkeypatch.setattr(fileio, "TEXT_BLOCK", 97)


@pytest.mark.parametrize("name", ["gpt2", *CONFIGS])
@pytest.mark.parametrize("as_json", [False, True])
def test_encode_file_writes_what_encoding_the_whole_text_wrote(tmp_path, tiny_parts, name, as_json):
    if name == "gpt2":
        model_path = str(GPT2_RANKS)
    else:
        trainer = Trainer(Corpus.from_text(TRAINING_TEXT, CONFIGS[name]), TrainingConfig())
        trainer.run(merges=150)
        save_session(trainer, tmp_path / "m.json")
        model_path = str(tmp_path / "m.json")
    model = read_tokenizer(model_path).encoder
    text = (
        "\ufeff"
        + data_text("jargon_file_120k.txt")[:3_000]
        + " İSTANBUL, ΣΟΦΊΑΣ. naïve cafe\u0301 ☃☃ don't\r\n<|end of text|>EOS<s>word\t\t\n  \n"
        + "nospacesatall,justpunctuation:andletters;" * 30
    )
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8", newline="")
    json_flag = ["--json"] if as_json else []
    for allow in ([], ["--allow-special"]):
        out = cli("encode", "--model", model_path, "--file", str(path), *json_flag, *allow)
        assert out == old_output(model, text[1:], bool(allow), as_json)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, max_size=60).map("".join), st.booleans())
def test_any_text_encodes_from_a_file_as_it_did_whole(tmp_path, tiny_parts, text, as_json):
    trainer = Trainer(Corpus.from_text(TRAINING_TEXT, CONFIGS["bytes, gpt4, prefix space, specials"]))
    trainer.run(merges=100)
    save_session(trainer, tmp_path / "m.json")
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8", newline="")
    model = read_tokenizer(str(tmp_path / "m.json")).encoder
    flags = ["--json"] if as_json else []
    for allow in ([], ["--allow-special"]):
        out = cli("encode", "--model", str(tmp_path / "m.json"), "--file", str(path), *flags, *allow)
        assert out == old_output(model, text, bool(allow), as_json)


@pytest.mark.parametrize("as_json", [False, True])
def test_memory_does_not_grow_with_the_text(tmp_path, monkeypatch, as_json):
    """Encoding the whole text held about 110 bytes a character (5.5 GB for a 50 MB line):
    now a part of the text at a time, and the ids (and spans) as machine integers."""
    from bpe_core.cli import common as cli_module

    monkeypatch.setattr(text_parts, "PART_SIZE", 50_000)
    monkeypatch.setattr(cli_module, "_OUTPUT_PIECE", 10_000)  # the output as it is made, in both sizes
    trainer = Trainer(Corpus.from_text(TRAINING_TEXT, CONFIGS["bytes, gpt2"]), TrainingConfig())
    trainer.run(merges=200)
    save_session(trainer, tmp_path / "m.json")
    sample = data_text("shakespeare_200k.txt")[:100_000]
    tokens = len(trainer.encoder().encode_ids(sample))

    def peak(copies: int) -> int:
        path = tmp_path / f"in{copies}.txt"
        path.write_text(sample * copies, encoding="utf-8")
        argv = ["encode", "--model", str(tmp_path / "m.json"), "--file", str(path), *["--json"] * as_json]
        with (tmp_path / "out.txt").open("w", encoding="utf-8") as out:
            tracemalloc.start()
            try:
                assert main(argv, stdout=out) == 0
                return tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()

    per_token = (peak(12) - peak(2)) / (10 * tokens)
    # 4 bytes an id (and 8 a span), twice over while an array grows
    assert per_token < (32 if as_json else 12)


@pytest.mark.parametrize(
    ("fault", "said"), [(b"\x00", "NUL"), (b"\xff", "UTF-8"), ("é".encode()[:1], "UTF-8")]
)
def test_a_fault_late_in_a_file_is_refused_before_anything_is_written(tmp_path, tiny_parts, fault, said):
    path = tmp_path / "in.txt"
    path.write_bytes("the lowest newer widest é\n".encode() * 2_000 + fault)
    out, err = io.StringIO(), io.StringIO()
    code = main(["encode", "--model", str(GPT2_RANKS), "--file", str(path)], stdout=out, stderr=err)
    assert code == 1 and out.getvalue() == "" and said in err.getvalue()
    assert err.getvalue().count("\n") == 1 and str(path) in err.getvalue()


def test_a_text_read_from_a_pipe_encodes_as_the_file_does(tmp_path, tiny_parts):
    """A pipe is read once, as it streams in."""
    import os
    import threading

    text = data_text("kjv_genesis_100k.txt")[:20_000]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text, encoding="utf-8"))
    writer.start()
    try:
        piped = cli("encode", "--model", str(GPT2_RANKS), "--file", str(fifo), "--json")
    finally:
        writer.join(timeout=30)
    model = read_tokenizer(str(GPT2_RANKS), None, "gpt2", []).encoder
    assert piped == old_output(model, text, False, True)


def hf_tokenizer(tmp_path, normalizer) -> tuple[object, Encoder]:
    """A BPE tokenizer trained by Hugging Face with ``normalizer``, and ours read from its file."""
    from tokenizers import Tokenizer, models, trainers
    from tokenizers import pre_tokenizers as pt

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the quick brown fox x y z jumps over the lazy dog Z, and a cat. " * 50)
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pt.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=80, special_tokens=["[UNK]"], show_progress=False)
    tokenizer.train([str(corpus)], trainer)
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    return tokenizer, read_tokenizer(path).encoder


@pytest.mark.parametrize(
    "steps, cut",
    [
        (lambda n: n.Prepend("_"), False),  # the text's start only
        (lambda n: n.Sequence([n.Lowercase(), n.Prepend("_")]), False),
        (lambda n: n.Replace("x y", "Z"), False),  # a match across a cut
        (lambda n: n.Sequence([n.Strip(), n.Replace("a", "b")]), False),
        (lambda n: n.Sequence([n.NFKC(), n.Lowercase(), n.StripAccents()]), True),  # a character at a time
    ],
)
def test_imported_normalizers_are_cut_only_where_the_whole_text_gives_the_same_tokens(tmp_path, steps, cut):
    from tokenizers import normalizers

    tokenizer, model = hf_tokenizer(tmp_path, steps(normalizers))
    text = "  The quick brown fox, x y z; jumps over the lazy dog. " * 40
    parts = list(model.parts([text], size=30))
    assert "".join(parts) == text and (len(parts) > 1) == cut
    ids, offset = [], 0
    for part in parts:
        ids += model.encode_ids(part, offset=offset)
        offset += len(part)
    assert ids == tokenizer.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("text", [" ", "\n\n  \n", "", "  hello world  "])
def test_text_a_normalizer_empties_gets_no_prefix_space(tmp_path, text):
    """Stripped to nothing, a text is no tokens, as Hugging Face drops an empty split before
    ``ByteLevel(add_prefix_space=True)`` would put a space before it."""
    from tokenizers import Tokenizer, models, normalizers, trainers
    from tokenizers import pre_tokenizers as pt

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.Strip()
    tokenizer.pre_tokenizer = pt.ByteLevel(add_prefix_space=True)
    alphabet = pt.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet, show_progress=False)
    tokenizer.train_from_iterator(["hello world the quick brown fox"] * 20, trainer)
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    model = read_tokenizer(path).encoder
    assert model.encode_ids(text) == tokenizer.encode(text, add_special_tokens=False).ids
