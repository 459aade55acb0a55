"""Corpora as users have them: several files, folders, globs, compressed files, JSONL and
Parquet, counted on several processes, give exactly the counts of their texts counted one by
one; a counts file written from them trains exactly as they do."""

import bz2
import gzip
import io
import json
import lzma
import os
import random
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig, load_corpus
from bpe_core.errors import InputError
from bpe_core.io import counting, counts_file
from bpe_core.io.counting import count_sources, safe_cut
from bpe_core.io.counts_file import (
    COUNTING_SETTINGS,
    HEADER,
    counts_columns,
    counts_corpus,
    counts_tsv,
    escaped,
    parse_counts,
    unescaped,
    write_counts,
)
from bpe_core.io.sources import expand
from bpe_core.pipeline.corpus import count_text_into
from tests.conftest import data_text

PIPELINES = {
    "whitespace, </w>": PipelineConfig(),
    "gpt2 bytes, prefix space, a special token": PipelineConfig(
        unit="byte",
        pretokenize="gpt2",
        end_of_word=None,
        prefix_space=True,
        special_tokens=("<|end of text|>",),
    ),
    "cl100k, NFKC, lowercase": PipelineConfig(normalization="nfkc", lowercase=True, pretokenize="gpt4"),
    "o200k, NFC": PipelineConfig(normalization="nfc", pretokenize="o200k", end_of_word=None),
    "words, attached marker": PipelineConfig(pretokenize="words", attach_marker=True),
    "one sequence": PipelineConfig(pretokenize="none", end_of_word=None),
}
ALPHABET = [*"ab cd  EF\t\n\r\n.,'s 12 345 ÉéİıΣς ﬁ ＡＢ 中文 \u0301 \u00a0 🤗", "<|end of text|>", "'ll"]


def counted_one_by_one(texts: list[str], config: PipelineConfig) -> Corpus:
    """The reference: each text counted whole, in order, the counts added up."""
    counter: Counter[str] = Counter()
    specials = [0] * len(config.special_tokens)
    for text in texts:
        if not counted_words(text, config):  # no word in it (a corpus of it is refused): its special tokens
            alone = [0] * len(specials)
            count_text_into(text, config, Counter(), alone)
            specials = [a + b for a, b in zip(specials, alone, strict=True)]
            continue
        corpus = Corpus.from_text(text, config)
        for word, count in zip(corpus.words, corpus.counts, strict=True):
            counter[word] += count
        specials = [a + b for a, b in zip(specials, corpus.special_counts, strict=True)]
    return Corpus.from_counter(counter, config, tuple(specials))


def write_shapes(folder, texts: list[str], shapes: list[str]) -> list[str]:
    """Each text as a file of the given shape; JSONL and Parquet hold it as one record."""
    names = []
    for number, (text, shape) in enumerate(zip(texts, shapes, strict=True)):
        path = folder / f"{number:03}{shape}"
        data = text.encode("utf-8")
        if shape == ".txt":
            path.write_bytes(data)
        elif shape == ".txt.gz":
            path.write_bytes(gzip.compress(data))
        elif shape == ".txt.bz2":
            path.write_bytes(bz2.compress(data))
        elif shape == ".txt.xz":
            path.write_bytes(lzma.compress(data))
        elif shape == ".txt.zst":
            path.write_bytes(zstandard.ZstdCompressor().compress(data))
        elif shape == ".jsonl":
            path.write_text(json.dumps({"text": text, "other": 1}) + "\n", encoding="utf-8")
        elif shape == ".json.gz":  # JSON lines named as C4's shards are
            path.write_bytes(gzip.compress((json.dumps({"text": text}) + "\n").encode()))
        elif shape == ".parquet":
            pq.write_table(pa.table({"text": [text]}), path)
        names.append(str(path))
    return names


TEXT = "shakespeare_200k.txt"
SHAPES = [".txt", ".txt.gz", ".txt.bz2", ".txt.xz", ".txt.zst", ".jsonl", ".json.gz", ".parquet"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(st.lists(st.sampled_from(ALPHABET), max_size=60).map("".join), min_size=1, max_size=5),
    shapes=st.lists(st.sampled_from(SHAPES), min_size=5, max_size=5),
    name=st.sampled_from(sorted(PIPELINES)),
    chunk=st.integers(1, 40),
)
def test_texts_in_random_files_and_shapes_count_as_each_text_counted_whole(
    tmp_path_factory, monkeypatch, texts, shapes, name, chunk
):
    monkeypatch.setattr(counting, "CHUNK", chunk)  # cut texts into many small parts
    config = PIPELINES[name]
    folder = tmp_path_factory.mktemp("inputs")
    files = write_shapes(folder, texts, shapes[: len(texts)])
    kept = [t for t in texts if t]
    if not any(counted_words(t, config) for t in kept):
        return  # nothing to count: refused, as any empty corpus
    expected = counted_one_by_one(texts, config)
    got = count_sources(expand(files), config).corpus(config)
    assert list(got.words) == list(expected.words)  # first appearance order too
    assert list(got.counts) == list(expected.counts)
    assert got.special_counts == expected.special_counts


@pytest.mark.parametrize("chunk", range(1, 9))
def test_parts_smaller_than_eight_bytes_still_move_on(tmp_path, monkeypatch, chunk):
    # Parts are at least an eighth of the chunk: below eight bytes that was none, and a part
    # of no bytes was cut at its own start again and again.
    monkeypatch.setattr(counting, "CHUNK", chunk)
    path = tmp_path / "tiny.txt"
    path.write_text(" ab cd ef gh", encoding="utf-8")
    config = PipelineConfig()
    got = count_sources(expand([str(path)]), config).corpus(config)
    assert list(got.words) == list(Corpus.from_text(" ab cd ef gh", config).words)


def counted_words(text: str, config: PipelineConfig) -> bool:
    try:
        Corpus.from_text(text, config)
    except InputError:
        return False
    return True


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])  # parts read by offset, or handed over as text
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_large_real_text_cut_in_parts_on_two_processes_counts_as_it_whole(
    name, suffix, monkeypatch, tmp_path
):
    monkeypatch.setattr(counting, "CHUNK", 20_000)
    monkeypatch.setattr(counting, "ONE_WORKER_BELOW", 0)
    config = PIPELINES[name]
    text = data_text("shakespeare_200k.txt") + "<|end of text|>" + data_text("kjv_genesis_100k.txt")
    data = text.encode()
    (tmp_path / f"big{suffix}").write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    expected = Corpus.from_text(text, config)
    got = count_sources(expand([str(tmp_path / f"big{suffix}")]), config, workers=2).corpus(config)
    assert list(got.words) == list(expected.words) and list(got.counts) == list(expected.counts)
    assert got.special_counts == expected.special_counts


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(st.sampled_from([*ALPHABET, " ", "a b", "é ñ", "中 文"]), max_size=40).map("".join),
    after=st.integers(1, 200),  # a part holds at least one character
    window=st.integers(1, 9),
    specials=st.sampled_from([(), ("<|end of text|>",), ("b c", "ñ")]),
)
def test_a_file_is_cut_in_its_bytes_where_its_text_would_be_cut(text, after, window, specials):
    """Parts of an uncompressed file are cut by offset, found in its bytes a window at a time:
    at the very place the text's own cut falls, whatever the windows' size."""
    after = min(after, len(text))
    data = text.encode("utf-8")
    cut = safe_cut(text, after, specials)
    with_window = counting.CUT_WINDOW
    counting.CUT_WINDOW = window
    try:
        found = counting._byte_cut(
            io.BytesIO(data), len(text[:after].encode()), len(data), [token.encode() for token in specials]
        )
    finally:
        counting.CUT_WINDOW = with_window
    assert found == (None if cut is None else len(text[:cut].encode()))


def test_a_fault_is_named_at_its_line_in_the_whole_file_the_first_whichever_process_meets_it(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(counting, "CHUNK", 200)
    monkeypatch.setattr(counting, "ONE_WORKER_BELOW", 0)
    lines = [f"line {n} holds some words" for n in range(1, 400)]
    lines[250] = "a NUL \x00 here"
    data = "\n".join(lines).encode()
    bad = data.index(b"line 31 ")  # an earlier fault, in another part
    (tmp_path / "t.txt").write_bytes(data[:bad] + b"\xff" + data[bad:])
    for workers in (1, 2, 3):
        with pytest.raises(InputError, match=r"not valid UTF-8 \(line 31\)\.$"):
            count_sources(expand([str(tmp_path / "t.txt")]), PipelineConfig(), workers=workers)
    (tmp_path / "t.txt").write_bytes(data)
    with pytest.raises(InputError, match=r"NUL byte on line 251\)\.$"):
        count_sources(expand([str(tmp_path / "t.txt")]), PipelineConfig(), workers=2)


def test_a_cut_is_made_only_before_a_space_between_letters_that_no_special_token_spans():
    assert safe_cut("ab, cd ef", 0) == 6
    assert safe_cut("ab  cd", 0) is None
    assert safe_cut("end of text here", 0, ["end of text"]) == 11
    assert safe_cut("x end of text", 0, ["end of text"]) == 1


@pytest.mark.parametrize("rule", ["hf", "lexicographic", "subword-nmt"])
def test_training_on_the_counts_file_gives_the_merges_of_training_on_the_inputs(tmp_path, rule):
    """A counts file keeps no text order, so rules that look only at counts and pairs agree
    (first-seen reads the counts file's order)."""
    random.seed(3)
    text = data_text("shakespeare_200k.txt")[:60_000]
    parts = [text[i : i + 7_000] for i in range(0, len(text), 7_000)]
    files = write_shapes(tmp_path, parts, [random.choice(SHAPES) for _ in parts])
    for config in (PipelineConfig(), PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)):
        counted = count_sources(expand(files), config)
        write_counts(counted.counter, config, tmp_path / "counts.tsv")
        write_counts(counted.counter, config, tmp_path / "counts.parquet")
        expected = merges_of(load_corpus(files, config, workers=2), rule)
        for counts_path in ("counts.tsv", "counts.parquet"):
            assert merges_of(load_corpus(tmp_path / counts_path, config, "counts"), rule) == expected


def merges_of(corpus: Corpus, rule: str) -> list[tuple[str, str, int]]:
    trainer = Trainer(corpus, TrainingConfig(tie_break=rule))
    trainer.run(merges=150)
    tokens = trainer.vocab.tokens
    return [(tokens[r.pair[0]], tokens[r.pair[1]], r.count) for r in trainer.history]


def test_a_counts_file_is_sorted_and_escapes_what_would_break_a_line(tmp_path):
    counts = {"b": 2, "a": 2, "\n\n": 5, "tab\there": 1, "back\\slash": 1, "cr\r": 3, "é": 2}
    write_counts(counts, PipelineConfig(), tmp_path / "c.tsv")
    lines = (tmp_path / "c.tsv").read_text(encoding="utf-8").split("\n")
    assert lines[0] == HEADER
    assert lines[1:-1] == [
        "\\n\\n\t5",
        "cr\\r\t3",
        "a\t2",
        "b\t2",
        "é\t2",
        "back\\\\slash\t1",
        "tab\\there\t1",
    ]
    assert dict(parse_counts((tmp_path / "c.tsv").read_text(encoding="utf-8"), "c.tsv")) == counts


@given(st.text())
def test_escaping_round_trips_any_word(word):
    assert unescaped(escaped(word), "here") == word
    assert "\n" not in escaped(word) and "\t" not in escaped(word) and "\r" not in escaped(word)


@contextmanager
def patched(module, name, value):
    """``module.name`` set to ``value`` for a block (hypothesis tests cannot take monkeypatch)."""
    saved = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, saved)


@given(st.dictionaries(st.text(min_size=1), st.integers(1, 2**62), min_size=1, max_size=20))
def test_a_counts_file_read_a_column_at_a_time_reads_as_line_by_line(counts):
    text = counts_tsv(counts, PipelineConfig())
    expected = list(parse_counts(text, "c.tsv"))
    for part in (1 << 20, 5):  # the file read whole, or in parts of a few lines each
        with patched(counts_file, "COLUMN_CHARS", part):
            counted = counts_columns(text)
            assert counted is not None and list(counted.items()) == expected
            assert counts_columns(text.replace("\n", "\r\n")) == counted


@pytest.mark.parametrize(
    "body",
    [
        "a\t1\n\nb\t2\n",  # an empty line
        "a\tb\t1\n",  # a TAB in the word
        "a\t+1\n",  # not digits only
        "a\t0\n",  # not positive
        "\t1\n",  # no word
        "a\t\n",  # no count
        "a 1\n",  # no TAB
        "a\\q\t1\n",  # no escape
        f"a\t{2**62 + 1}\n",  # beyond 2^62
        "a\t1\na\t2\n",  # a word twice: read, its counts added
    ],
)
@pytest.mark.parametrize("part", [1 << 20, 3], ids=["read whole", "read in parts"])
def test_a_counts_file_out_of_the_usual_reads_or_is_refused_as_line_by_line(
    tmp_path, body, part, monkeypatch
):
    monkeypatch.setattr(counts_file, "COLUMN_CHARS", part)
    text = f"{HEADER}\n{body}"
    (tmp_path / "c.tsv").write_text(text, encoding="utf-8")
    try:
        expected: object = Counter()
        for word, count in parse_counts(text, str(tmp_path / "c.tsv")):
            expected[word] += count  # type: ignore[index]
    except InputError as error:
        expected = str(error)
    try:
        corpus = load_corpus(tmp_path / "c.tsv", PipelineConfig(end_of_word=None), "counts")
        found: object = Counter(dict(zip(corpus.words, corpus.counts, strict=True)))
    except InputError as error:
        found = str(error)
    assert found == expected


def test_a_counts_file_without_the_header_reads_as_before(tmp_path):
    (tmp_path / "old.tsv").write_text("low lower\t3\nnew\t2\n", encoding="utf-8")
    text = (tmp_path / "old.tsv").read_text(encoding="utf-8")
    assert counts_corpus(text, "old.tsv", PipelineConfig()) is None
    corpus = load_corpus(tmp_path / "old.tsv", PipelineConfig(), "counts")
    assert dict(zip(corpus.words, corpus.counts, strict=True)) == {"low": 3, "lower": 3, "new": 2}


@pytest.mark.parametrize("inside", ["\v", "\f", "\x85", "\u2028"])
def test_a_line_of_a_counts_file_without_the_header_ends_only_at_a_line_end(tmp_path, inside):
    # Such a break is no line end: the word holds it, and its pieces are counted as any text's.
    (tmp_path / "old.tsv").write_text(f"a{inside}b\t3\r\nc\t2\rd\t1\n", encoding="utf-8", newline="")
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    corpus = load_corpus(tmp_path / "old.tsv", config, "counts")
    expected = Counter()
    for word, count in ((f"a{inside}b", 3), ("c", 2), ("d", 1)):
        for piece in Corpus.from_text(word, config).words:
            expected[piece] += count
    assert Counter(dict(zip(corpus.words, corpus.counts, strict=True))) == expected


def read_as(read, *args):
    """What reading gives: the corpus's words and counts, or the sentence refusing it."""
    try:
        corpus = read(*args)
    except InputError as error:
        return str(error)
    return list(zip(corpus.words, corpus.counts, strict=True)), corpus.special_counts


PLAIN_FILE_PIPELINES = {
    **PIPELINES,
    "whitespace, a special token": PipelineConfig(special_tokens=("<s>",)),
    "whitespace, bytes, prefix space": PipelineConfig(unit="byte", end_of_word=None, prefix_space=True),
    "whitespace, attached marker": PipelineConfig(attach_marker=True),
    "whitespace, lowercase": PipelineConfig(lowercase=True),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.tuples(
            st.lists(
                st.sampled_from([*"abAÉé中", " ", "\t", "\u00a0", "\x1f", "\x85", "\r", "<s>"]), max_size=4
            ),
            st.sampled_from(["1", "7", "12", " 3", "0", "x", "", "1\t2"]),
        ),
        max_size=8,
    ),
    ending=st.sampled_from(["\n", "\r\n"]),
    name=st.sampled_from(sorted(PLAIN_FILE_PIPELINES)),
    part=st.sampled_from([1 << 20, 4]),
    clean=st.booleans(),
)
def test_a_counts_file_without_the_header_reads_as_each_word_read_as_text(
    tmp_path_factory, lines, ending, name, part, clean
):
    """A plain word<TAB>count file, read a column at a time where its words are pieces as they
    stand, gives exactly what reading each line's word as text gives, refusals included."""
    config = PLAIN_FILE_PIPELINES[name]
    if clean:  # every line a word of letters and a count: the file is read a column at a time
        lines = [
            ("".join(c for c in word if c.isalpha()) or "a", str(len(count) + 1)) for word, count in lines
        ]
    text = "".join("".join(word) + "\t" + count + ending for word, count in lines)
    path = tmp_path_factory.mktemp("plain") / "c.tsv"
    path.write_bytes(text.encode("utf-8"))
    with patched(counts_file, "COLUMN_CHARS", part):
        quick = read_as(load_corpus, path, config, "counts")
    text = path.read_bytes().decode("utf-8")
    assert quick == read_as(lambda: Corpus.from_counts(text, config, name=str(path)))


@pytest.mark.parametrize("header", [True, False], ids=["written by count", "without the header"])
def test_reading_a_large_counts_file_reports_how_far_it_has_read(tmp_path, header):
    words = {f"w{i}": i % 7 + 1 for i in range(50_000)}
    path = tmp_path / "counts.tsv"
    if header:
        write_counts(Counter(words), PipelineConfig(), path)
    else:
        path.write_text("".join(f"{w}\t{c}\n" for w, c in words.items()), encoding="utf-8")
    reports = []
    corpus = load_corpus(
        path, PipelineConfig(end_of_word=None), "counts", lambda d, t: reports.append((d, t))
    )
    assert dict(zip(corpus.words, corpus.counts, strict=True)) == words
    assert reports and all(0 < done <= total for done, total in reports)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)
    assert reports[-1][1] >= len(words)  # of all the lines, header and last newline included


def test_a_folder_is_read_recursively_without_hidden_or_bookkeeping_files(tmp_path):
    (tmp_path / "sub" / ".git").mkdir(parents=True)
    (tmp_path / "a.txt").write_text("one", encoding="utf-8")
    (tmp_path / "sub" / "b.txt").write_text("two", encoding="utf-8")
    (tmp_path / "sub" / ".git" / "c.txt").write_text("hidden", encoding="utf-8")
    (tmp_path / ".d.txt").write_text("hidden", encoding="utf-8")
    (tmp_path / "_SUCCESS").write_text("", encoding="utf-8")
    names = [source.name for source in expand([str(tmp_path)])]
    assert names == [str(tmp_path / "a.txt"), str(tmp_path / "sub" / "b.txt")]
    assert [s.name for s in expand([str(tmp_path / "**" / "*.txt")])] == names


def test_a_zstd_file_written_with_a_long_window_is_read(tmp_path):
    """``zstd --long=31`` (a gigabyte window, for large corpora) was refused as damaged:
    zstandard decodes windows up to 128 MB unless told otherwise, as ``zstd -d`` is."""
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=30, enable_ldm=True)
    stream = io.BytesIO()
    with zstandard.ZstdCompressor(compression_params=params).stream_writer(stream, closefd=False) as out:
        out.write(b"to be or not to be\n" * 1000)
    assert zstandard.get_frame_parameters(stream.getvalue()).window_size == 1 << 30
    (tmp_path / "long.txt.zst").write_bytes(stream.getvalue())
    counted = count_sources(expand([str(tmp_path / "long.txt.zst")]), PipelineConfig(end_of_word=None))
    assert counted.counter == {"to": 2000, "be": 2000, "or": 1000, "not": 1000}


def test_a_pattern_that_starts_a_name_with_a_dot_or_underscore_reads_those_names(tmp_path):
    """A folder's ``_part0.txt`` is skipped as Hadoop's bookkeeping is; ``'_*.txt'`` asks for it
    (and ``.*`` for dot files, as a shell's does): it was refused as matching nothing."""
    (tmp_path / "_part0.txt").write_text("one", encoding="utf-8")
    (tmp_path / "part1.txt").write_text("two", encoding="utf-8")
    (tmp_path / ".notes.txt").write_text("three", encoding="utf-8")
    (tmp_path / "_logs").mkdir()
    (tmp_path / "_logs" / "_x.txt").write_text("four", encoding="utf-8")
    names = lambda pattern: [Path(s.name).name for s in expand([str(tmp_path / pattern)])]  # noqa: E731
    assert names("*.txt") == ["part1.txt"]
    assert names("_*.txt") == ["_part0.txt"]
    assert names(".*.txt") == [".notes.txt"]
    assert names("_logs/_*") == ["_x.txt"]  # the folder typed, the file's name asked for
    assert names("_*/_*") == ["_x.txt"]
    for pattern in ("_logs/*", "*/*.txt"):  # a name not asked for
        with pytest.raises(InputError, match="skipped"):
            expand([str(tmp_path / pattern)])
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "_y.txt").write_text("five", encoding="utf-8")
    assert names("**/_*.txt") == ["_part0.txt", "_y.txt"]  # under a "**" too (not in _logs: not asked)
    assert "_y.txt" not in names("**/*.txt")
    # A saved session beside the corpus is never asked for by a first letter ("t*": train.bpe.json).
    (tmp_path / "train.json").write_text('{"text": "six"}\n', encoding="utf-8")
    (tmp_path / "train.bpe.json").write_text("{}", encoding="utf-8")
    assert names("t*") == ["train.json"]
    (tmp_path / "empty_folder").mkdir()
    with pytest.raises(InputError) as refused:
        expand([str(tmp_path / "empty_f*")])
    assert "skipped" not in str(refused.value)  # nothing hidden was passed over


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_a_folder_is_not_waited_on_but_one_named_alone_is_read(tmp_path):
    (tmp_path / "a.txt").write_text("one two", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.txt")  # reading it would wait for a writer forever
    assert [s.name for s in expand([str(tmp_path)])] == [str(tmp_path / "a.txt")]
    assert [s.name for s in expand([str(tmp_path / "*.txt")])] == [str(tmp_path / "a.txt")]
    assert [s.name for s in expand([str(tmp_path / "pipe.txt")])] == [str(tmp_path / "pipe.txt")]


@pytest.mark.parametrize(
    "make, says",
    [
        (
            lambda d: (d / "t.txt.gz").write_bytes(gzip.compress(data_text(TEXT).encode())[:2000]),
            "damaged or truncated gzip",
        ),
        (lambda d: (d / "t.txt.bz2").write_bytes(b"BZh9 not really"), "damaged or truncated bzip2"),
        (lambda d: (d / "t.txt.xz").write_bytes(lzma.compress(b"abc")[:-4]), "damaged or truncated xz"),
        (lambda d: (d / "t.txt.zst").write_bytes(b"\x28\xb5\x2f\xfd garbage"), "damaged or truncated zstd"),
        (lambda d: (d / "t.jsonl").write_text('{"text": "a"}\n\n{"text": 3}\n', encoding="utf-8"), "Line 3"),
        (lambda d: (d / "t.jsonl").write_text('{"text": "a"}\n{oops\n', encoding="utf-8"), "Line 2 of"),
        (
            lambda d: (d / "t.jsonl").write_text('{"body": "a"}\n', encoding="utf-8"),
            "no field 'text' (it has 'body')",
        ),
        (  # a tokenizer saved on one line, given for a corpus
            lambda d: (d / "t.json").write_text(
                '{"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}\n', encoding="utf-8"
            ),
            "is a Hugging Face tokenizer, not a corpus of JSON lines",
        ),
        (  # a session whose keys were sorted on one line ("format" no longer first)
            lambda d: (d / "t.json").write_text(
                '{"corpus": {}, "format": "bpe-studio-session", "version": 1}\n', encoding="utf-8"
            ),
            "is a saved BPE Studio session, not a corpus of JSON lines",
        ),
        (  # a JSON document, not JSON lines
            lambda d: (d / "t.json").write_text('[{"text": "a"},\n {"text": "b"}]\n', encoding="utf-8"),
            "Line 1 of",
        ),
        (
            lambda d: (d / "t.json").write_text('{\n  "text": "a"\n}\n', encoding="utf-8"),
            "is not JSON (JSON lines hold one object a line: a JSON document is not read)",
        ),
        (
            lambda d: (d / "t.json").write_text('[{"text": "a"}, {"text": "b"}]\n', encoding="utf-8"),
            "is not a JSON object (JSON lines hold one object a line: a JSON document is not read)",
        ),
        (
            lambda d: (d / "t.jsonl").write_text(
                '{"text": "\\ud83d\\ude00"}\n{"text": "a \\uDC00"}\n', encoding="utf-8"
            ),
            "Line 2 of",
        ),
        (lambda d: pq.write_table(pa.table({"body": ["a"]}), d / "t.parquet"), "no column 'text'"),
        (lambda d: pq.write_table(pa.table({"text": ["a", None]}), d / "t.parquet"), "Row 2"),
        (lambda d: pq.write_table(pa.table({"text": [1, 2]}), d / "t.parquet"), "not strings"),
        (lambda d: (d / "t.parquet").write_bytes(b"PAR1 not parquet"), "not a Parquet file, or it is"),
        (lambda d: (d / "t.txt").write_bytes(b"ok\nok\n\xff\xfe"), "line 3"),
        (lambda d: (d / "t.txt").write_bytes(b"line\nline\x00"), "NUL byte on line 2"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_in_one_sentence_naming_it(tmp_path, make, says):
    (tmp_path / "fine.txt").write_text("fine words", encoding="utf-8")
    make(tmp_path)
    with pytest.raises(InputError) as raised:
        load_corpus([str(tmp_path)], PipelineConfig())
    message = str(raised.value)
    assert says in message and "t." in message and message.endswith(".") and "\n" not in message


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(
        st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=80).map("".join), min_size=1, max_size=4
    ),
    shapes=st.lists(st.sampled_from(SHAPES), min_size=4, max_size=4),
    name=st.sampled_from(sorted(PIPELINES)),
    rule=st.sampled_from(["hf", "lexicographic"]),
)
def test_training_on_written_counts_equals_training_on_random_inputs(
    tmp_path_factory, texts, shapes, name, rule
):
    config = PIPELINES[name]
    folder = tmp_path_factory.mktemp("inputs")
    files = write_shapes(folder, texts, shapes[: len(texts)])
    try:
        corpus = load_corpus(files, config)
    except InputError:
        return  # no word in any text: refused alike either way
    counted = count_sources(expand(files), config)
    write_counts(counted.counter, config, folder / "counts.tsv")
    assert merges_of(load_corpus(folder / "counts.tsv", config, "counts"), rule) == merges_of(corpus, rule)
    # the counts' own pipeline, taken from the header when none is chosen
    defaults = replace(
        config, **{setting: getattr(PipelineConfig(), setting) for setting in COUNTING_SETTINGS}
    )
    assert load_corpus(folder / "counts.tsv", defaults, "counts", chosen=()).config == config
