"""A text a line (``--lines``): each line of a text input, its line break kept, counted as a text
of its own, as Hugging Face's ``train(files)`` reads files. Its merges equal HF's from a file;
the counts are the same whatever the parts, workers or engine."""

import gzip
import json
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from bpe_core import Corpus, PipelineConfig
from bpe_core.io import counting
from bpe_core.io.counting import count_sources, lines_of
from bpe_core.io.sources import expand
from tests.conftest import data_text

BYTES = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
PREFIXED = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, prefix_space=True)


def per_line(text: str, config: PipelineConfig) -> Counter:
    """Each line counted as a text of its own, by the engine's one-text count."""
    total: Counter = Counter()
    for line in lines_of(text):
        corpus = Corpus.from_text(line, config)
        total.update(dict(zip(corpus.words, corpus.counts, strict=True)))
    return total


def test_lines_keep_their_breaks_as_rusts_lines_with_ending():
    assert lines_of("a\r\nb\n\nc") == ["a\r\n", "b\n", "\n", "c"]
    assert lines_of("a\n") == ["a\n"] and lines_of("") == [] and lines_of("\r") == ["\r"]
    assert lines_of("x\u2028y\x85z\n") == ["x\u2028y\x85z\n"]  # only \n ends a line


TEXT = st.lists(
    st.sampled_from(["a", "b", " ", "  ", "\n", "\r\n", "\t", "é", "x1", "'s", "\u2028"]), max_size=30
).map("".join)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=3), prefix=st.booleans(), chunk=st.integers(1, 40))
def test_line_counts_are_each_lines_counts_summed_whatever_the_parts(tmp_path_factory, texts, prefix, chunk):
    folder = tmp_path_factory.mktemp("lines")
    config = PREFIXED if prefix else BYTES
    for i, text in enumerate(texts):
        (folder / f"{i}.txt").write_bytes(text.encode("utf-8"))
    (folder / "3.txt.gz").write_bytes(gzip.compress(texts[0].encode("utf-8")))  # read as a stream
    expected: Counter = Counter()
    for text in [*texts, texts[0]]:
        expected.update(per_line(text, config))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counting, "CHUNK", chunk)
        counted = count_sources(expand([str(folder)]), config, lines=True)
    assert counted.counter == expected


def test_workers_count_lines_as_one_process_does(tmp_path, monkeypatch):
    monkeypatch.setattr(counting, "CHUNK", 500)
    monkeypatch.setattr(counting, "ONE_WORKER_BELOW", 0)
    (tmp_path / "a.txt").write_text(data_text("shakespeare_200k.txt")[:30_000], encoding="utf-8")
    alone = count_sources(expand([str(tmp_path)]), PREFIXED, workers=1, lines=True)
    together = count_sources(expand([str(tmp_path)]), PREFIXED, workers=2, fork=True, lines=True)
    assert list(together.counter.items()) == list(alone.counter.items())
    whole = count_sources(expand([str(tmp_path)]), PREFIXED, workers=1)
    assert alone.counter != whole.counter  # a prefix space begins every line, not only the text


def hf_merges(path, merges: int, prefix: bool) -> list[list[str]]:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + merges, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train([str(path)], trainer)
    listed = json.loads(tokenizer.to_str())["model"]["merges"]
    return [m.split(" ") if isinstance(m, str) else m for m in listed]


def our_merges(path, merges: int, prefix: bool, *more: str) -> list[list[str]]:
    options = ["--unit", "byte", "--pretokenize", "gpt2", "--end-of-word", "none", "--tie-break", "hf"]
    options += ["--min-frequency", "1", "--vocab-size", str(256 + merges), "--json", "--lines", *more]
    options += ["--prefix-space"] if prefix else []
    command = [sys.executable, "-m", "app", "train", str(path), *options]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return [m["pair"] for m in json.loads(done.stdout)["merges"]]


@pytest.mark.parametrize("prefix", [False, True])
def test_training_a_line_at_a_time_gives_hfs_merges_from_a_file(tmp_path, prefix):
    """Windows line breaks, spaces before a break, blank and indented lines: HF's train(files)
    sees each line alone, so ``\\r\\n`` is one piece and a prefix space begins every line."""
    lines = data_text("jargon_file_120k.txt")[:40_000].splitlines()
    text = "\r\n".join(lines[:300]) + "\n" + "  \n".join(lines[300:600]) + "\n\n   indented\nend"
    path = tmp_path / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    theirs = hf_merges(path, 300, prefix)
    assert our_merges(path, 300, prefix) == theirs
    assert our_merges(path, 300, prefix, "--workers", "1") == theirs
    assert ["č", "Ċ"] in theirs  # a Windows line break, one piece to HF: not so in the whole text
