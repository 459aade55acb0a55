"""A saved corpus is read straight into columns: exactly what JSON reads, or not at all."""

import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.errors import SessionError
from bpe_core.io.session import corpus_reader as session_corpus
from bpe_core.io.session import load_session, read_session, save_session
from bpe_core.io.session.corpus_reader import START, CorpusColumns, read_corpus
from bpe_core.io.session.stream import SavedMerges
from bpe_core.io.session.write import _dumps
from tests.helpers import snapshot, trainer_for

# Words as text can hold them, with what JSON must escape and what looks like the file's own
# punctuation: a chunk cut inside such a word must make the fast reading give up, not misread.
WORD_TEXT = st.text(
    st.one_of(st.sampled_from('"\\\n\x01][, é🙂\x7f'), st.characters(codec="utf-8")),
    min_size=1,
    max_size=8,
)
ITEMS = st.lists(st.tuples(WORD_TEXT, st.integers(1, 2**62)), min_size=1, max_size=40)


def split_corpus(data: bytes) -> tuple[bytes, CorpusColumns] | None:
    """The corpus line of ``data`` read as a session file's is (a line at a time, the corpus
    streamed), with what follows it; ``None`` if the fast reading gives up."""
    stream = io.BytesIO(data)
    while line := stream.readline(4096):
        if line.startswith(START):
            columns = read_corpus(stream, line)
            return None if columns is None else (stream.read(), columns)
    return None


def file_bytes(items, specials=()) -> bytes:
    """A file laid out as ``save_session`` writes one, around the given corpus."""
    corpus = {"words": [[w, c] for w, c in items], "special_counts": list(specials)}
    return f'{{\n  "position": 0,\n  "corpus": {_dumps(corpus)},\n  "branch": 0\n}}\n'.encode()


@pytest.mark.parametrize("chunk", [8, 64, 1 << 20])
# The same chunk size for every example: the fixture's one patch serves them all.
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=ITEMS, specials=st.lists(st.integers(0, 2**40), max_size=3))
def test_the_fast_reading_equals_json_or_gives_up(monkeypatch, chunk, items, specials):
    monkeypatch.setattr(session_corpus, "_CHUNK", chunk)
    data = file_bytes(items, specials)
    split = split_corpus(data)
    words = [w for w, _ in items]
    plain = len(set(words)) == len(words) and not any('], ["' in json.dumps(w) for w in words)
    if split is None:
        assert not plain, "an ordinary corpus must take the fast way"
        return
    rest, columns = split
    assert list(columns.words) == words and list(columns.counts) == [c for _, c in items]
    assert columns.special_counts == list(specials)
    assert rest == b'  "branch": 0\n}\n'  # the reading stops at the end of the corpus line


@pytest.mark.parametrize(
    "items",
    [
        [("a", 1), ("a", 2)],  # a duplicate: JSON's reading merges it
        [("a", 2**63)],  # beyond 18 digits: read by json, refused there
        [("", 1)],
        [("a", 0)],
        [("a", -1)],
        [("a", 1.5)],
        [("a", True)],
    ],
)
def test_anything_unusual_is_left_to_json(items):
    assert split_corpus(file_bytes(items)) is None


def test_a_file_without_the_corpus_line_or_with_more_on_it_is_left_to_json():
    data = file_bytes([("a", 1)])
    assert split_corpus(data.replace(b'{"words"', b'{ "words"')) is None
    assert split_corpus(data.replace(b"[]},\n", b'[]}, "x": 1,\n')) is None
    assert split_corpus(data.replace(b"\xc3", b"\xff")) is not None  # no non-ASCII here: same bytes
    assert split_corpus(file_bytes([("é", 1)]).replace(b"\xc3", b"\xff")) is None  # not UTF-8


def saved(tmp_path):
    text = "low low low lower lowest newest newest widest " * 3 + 'a"b \\c é'
    trainer = trainer_for(text, special_tokens=("<s>",))
    trainer.run(merges=8)
    path = tmp_path / "s.json"
    save_session(trainer, path)
    return trainer, path


def test_a_saved_session_is_read_the_fast_way_and_opens_as_it_was(tmp_path):
    trainer, path = saved(tmp_path)
    data = read_session(path)
    assert isinstance(data["corpus"]["words"], CorpusColumns) and isinstance(data["merges"], SavedMerges)
    loaded = load_session(path)
    assert snapshot(loaded) == snapshot(trainer)
    assert loaded.corpus.words == trainer.corpus.words and loaded.corpus.counts == trainer.corpus.counts


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('["low", 9]', '["low", -9]', "every corpus word must be"),
        ('["low", 9]', '["low", 0]', "every corpus word must be"),
        ('["low", 9]', '["", 9]', "every corpus word must be"),
        ('["low", 9]', '["low", 9223372036854775808]', "counts are too large"),
        ('["low", 9]', '["low", 9', "not valid JSON"),
        ('["low", 9]', '["lo\\ud800w", 9]', "lone surrogates"),
        ('["low", 9]', '["lo\\x", 9]', "not valid JSON"),
    ],
)
def test_a_damaged_corpus_in_our_layout_is_refused_as_json_refuses_it(tmp_path, old, new, message):
    _, path = saved(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(SessionError, match=message) as ours:
        load_session(path)
    if "JSON" in message:
        return
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    with pytest.raises(SessionError) as plain:
        load_session(path)
    assert str(ours.value) == str(plain.value)
