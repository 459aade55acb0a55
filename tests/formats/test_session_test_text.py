"""The Encode test string kept in a session file: an optional top-level string, validated on
load like every other field; files without it open as before."""

import json
from pathlib import Path

import pytest

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.errors import SessionError
from bpe_core.io.session import MAX_TEST_TEXT, load_encoder, read_session, save_session, session_to_dict


def trained() -> Trainer:
    trainer = Trainer(Corpus.from_text("low lower lowest newer newest", PipelineConfig()))
    trainer.run(merges=3)
    return trainer


@pytest.mark.parametrize("text", ["", "the lowest\nnewer ☃ 😀", "x" * MAX_TEST_TEXT])
def test_a_saved_test_text_reads_back_exactly(tmp_path, text):
    path = tmp_path / "s.json"
    save_session(trained(), path, test_text=text)
    assert read_session(path)["test_text"] == text
    assert load_encoder(path).merges  # encoding reads the model as before


def test_a_session_without_a_test_text_keeps_none(tmp_path):
    path = tmp_path / "s.json"
    save_session(trained(), path)
    assert "test_text" not in read_session(path)
    assert "test_text" not in session_to_dict(trained())


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (17, "must be a string"),
        (None, "must be a string"),
        (["a"], "must be a string"),
        ("x" * (MAX_TEST_TEXT + 1), "at most 1,000,000 characters"),
        ("a\ud800b", "lone surrogate"),
        ("\udc00", "lone surrogate"),
    ],
)
def test_a_bad_test_text_is_refused_with_one_sentence(tmp_path, value, problem):
    data = session_to_dict(trained())
    data["test_text"] = value
    path = tmp_path / "bad.json"
    # As a file can spell it: JSON escapes for the surrogates.
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="utf-8")
    with pytest.raises(SessionError) as error:
        read_session(path)
    message = str(error.value)
    assert message.startswith(f"The session file {str(path)!r} is invalid: the Encode test text")
    assert problem in message and "\n" not in message


def test_saving_a_bad_test_text_is_refused_before_writing(tmp_path):
    path = Path(tmp_path / "s.json")
    with pytest.raises(SessionError):
        save_session(trained(), path, test_text="\ud800")
    assert not path.exists()
