"""Conformance: merge lists identical, in order, to the real trainers on real text.

Each peer is run as published (installed as a test dependency) on the real texts of
``tests/data``, and, in the tests marked ``corpora``, on larger slices of ../shared/corpora.
"""

import io
import json

import pytest

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.pipeline.byte_alphabet import display_to_bytes
from bpe_core.pipeline.pretokenize import GPT2_PATTERN
from tests.conftest import DATA, corpus_path, data_text
from tests.helpers import merge_strings


def read(name: str, chars: int) -> str:
    if (DATA / name).is_file():
        return data_text(name)[:chars]
    return corpus_path(name).read_text(encoding="utf-8")[:chars]


def case(name: str, chars: int, merges: int):
    """A text, how much of it, how many merges; texts outside tests/data are marked ``corpora``."""
    marks = () if (DATA / name).is_file() else (pytest.mark.corpora,)
    return pytest.param(name, chars, merges, marks=marks, id=f"{name}-{merges}")


def train(
    text: str, *, rule: str, min_frequency: int = 2, merges=None, vocab_size=None, **pipeline
) -> Trainer:
    trainer = Trainer(
        Corpus.from_text(text, PipelineConfig(**pipeline)),
        TrainingConfig(min_frequency=min_frequency, tie_break=rule),
    )
    trainer.run(merges=merges, vocab_size=vocab_size)
    return trainer


def hf_merges(text: str, pre_tokenizer, vocab_size: int, **trainer_options) -> list[tuple[str, str]]:
    from tokenizers import Tokenizer, models, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, show_progress=False, **trainer_options
    )
    tokenizer.train_from_iterator([text], trainer)  # one sequence: patterns see the whole text
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in merges]


@pytest.mark.parametrize(
    ("name", "chars", "merges"),
    [
        case("shakespeare_200k.txt", 200_000, 1500),
        case("jargon_file_120k.txt", 132_790, 1000),
        case("tinyshakespeare.txt", 300_000, 2000),
        case("taylorswift.txt", 185_768, 1500),
    ],
)
def test_hf_char_level_whitespace_split_no_suffix(name, chars, merges):
    from tokenizers import pre_tokenizers

    text = read(name, chars)
    ours = Trainer(Corpus.from_text(text, PipelineConfig(end_of_word=None)), TrainingConfig(tie_break="hf"))
    target = ours.vocab_size + merges
    ours.run(vocab_size=target)
    assert merge_strings(ours) == hf_merges(text, pre_tokenizers.WhitespaceSplit(), target)
    assert ours.position >= merges


@pytest.mark.parametrize(
    ("name", "chars", "merges"),
    [
        case("shakespeare_200k.txt", 200_000, 1500),
        case("jargon_file_120k.txt", 132_790, 1000),
        case("tinyshakespeare.txt", 300_000, 2000),
        case("taylorswift.txt", 185_768, 1500),
    ],
)
def test_hf_byte_level(name, chars, merges):
    from tokenizers import pre_tokenizers

    text = read(name, chars)
    ours = train(text, rule="hf", unit="byte", pretokenize="gpt2", end_of_word=None, vocab_size=256 + merges)
    theirs = hf_merges(
        text,
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        256 + merges,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    assert merge_strings(ours) == theirs


@pytest.mark.parametrize(
    ("name", "chars", "merges"),
    [
        case("shakespeare_200k.txt", 200_000, 1500),
        case("kjv_genesis_100k.txt", 100_000, 800),
        case("tinyshakespeare.txt", 300_000, 2000),
        case("english_10mb.txt", 1_500_000, 1000),  # the Bible part starts after Shakespeare
    ],
)
def test_subword_nmt_learn_bpe_attached_marker(name, chars, merges):
    from subword_nmt.learn_bpe import learn_bpe

    text = read(name, chars)
    assert "\t" not in text  # subword-nmt splits on single spaces; this text has no other blanks
    out = io.StringIO()
    learn_bpe(io.StringIO(text), out, merges, min_frequency=2)
    theirs = [tuple(line.split(" ")) for line in out.getvalue().splitlines()[1:]]
    ours = train(text, rule="subword-nmt", attach_marker=True, merges=merges)
    assert merge_strings(ours) == theirs
    assert len(theirs) == merges


@pytest.mark.parametrize(
    ("name", "chars", "merges"),
    [
        case("jargon_file_120k.txt", 40_000, 300),
        case("shakespeare_200k.txt", 30_000, 300),
        case("taylorswift.txt", 40_000, 300),
    ],
)
def test_tiktoken_educational_bpe_train(name, chars, merges):
    from tiktoken._educational import bpe_train

    text = read(name, chars)
    ranks = bpe_train(text, 256 + merges, GPT2_PATTERN, visualise=None)
    ours = train(
        text,
        rule="first-seen",
        unit="byte",
        pretokenize="gpt2",
        end_of_word=None,
        min_frequency=1,
        vocab_size=256 + merges,
    )
    created = [display_to_bytes(token) for token in ours.vocab.tokens[256:]]
    assert created == list(ranks)[256:]


@pytest.mark.parametrize("text", ["ab ab", "Hello" + data_text("shakespeare_200k.txt")[:30_000]])
def test_cli_prefix_space_trains_as_hf_byte_level_add_prefix_space(tmp_path, text):
    """``train --prefix-space`` (the option the pipeline had, and the command line lacked)."""
    from tokenizers import pre_tokenizers

    from tests.cli.test_contract import run

    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    options = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--tie-break", "hf"]
    merges = {}
    for prefix in ([], ["--prefix-space"]):
        code, out, err = run(
            "train", str(tmp_path / "t.txt"), *options, *prefix, "--vocab-size", "556", "--json"
        )
        assert code == 0, err
        merges[bool(prefix)] = [tuple(merge["pair"]) for merge in json.loads(out)["merges"]]
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    theirs = hf_merges(text, pre_tokenizers.ByteLevel(add_prefix_space=True), 556, initial_alphabet=alphabet)
    assert merges[True] == theirs
    if len(text) < 20:  # the first word is half the text: the space changes the merges
        assert merges[False] != theirs
