"""The classic compression variant (source document 002): goldens, the CLI, and losslessness."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.cli import main
from bpe_core.compress import compress, fresh_symbols
from bpe_core.config import TrainingConfig


def test_the_documents_table_and_its_decompression():
    result = compress("aaabdaaabac", TrainingConfig(tie_break="hf"))
    assert [(s.rule, s.data, s.count) for s in result.steps] == [
        ("Z = aa", "ZabdZabac", 2),
        ("Y = ab", "ZYdZYac", 2),
        ("X = ZY", "XdXac", 2),
    ]
    assert list(result.decompression()) == ["ZYdZYac", "ZabdZabac", "aaabdaaabac"]


def test_the_cli_prints_the_steps_as_json(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("aaabdaaabac", encoding="utf-8")
    assert main(["compress", str(tmp_path / "a.txt"), "--tie-break", "hf", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "steps": [
            {"data": "ZabdZabac", "symbol": "Z", "pair": ["a", "a"], "rule": "Z = aa", "count": 2},
            {"data": "ZYdZYac", "symbol": "Y", "pair": ["a", "b"], "rule": "Y = ab", "count": 2},
            {"data": "XdXac", "symbol": "X", "pair": ["Z", "Y"], "rule": "X = ZY", "count": 2},
        ],
        "decompressed": "aaabdaaabac",
        "lossless": True,
    }


def test_the_cli_summary_and_bad_input(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("aaabdaaabac", encoding="utf-8")
    assert main(["compress", str(tmp_path / "a.txt"), "--tie-break", "hf"]) == 0
    out = capsys.readouterr().out
    assert "X = ZY  (2x)  ->  XdXac" in out and out.endswith("decompressed back to the input: lossless.\n")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert main(["compress", str(tmp_path / "empty.txt")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_replacement_symbols_skip_what_the_data_holds():
    result = compress("ZZ YY ZZ YY XY", TrainingConfig(tie_break="hf"))
    assert result.steps and all(s.symbol not in "ZZ YY ZZ YY XY" for s in result.steps)
    assert result.steps[0].symbol == "W"
    assert next(fresh_symbols("".join(chr(c) for c in range(0x20, 0x7F)))) not in "ZYXzyx"


RULES = ["first-seen", "hf", "subword-nmt", "lexicographic", "random:5"]


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=80), st.sampled_from(RULES), st.integers(1, 40), st.integers(1, 3))
def test_any_text_decompresses_to_itself(text, rule, merges, min_frequency):
    result = compress(text, TrainingConfig(min_frequency=min_frequency, tie_break=rule), merges)
    assert result.decompress() == text
    symbols = [s.symbol for s in result.steps]
    assert not set(symbols) & set(text)
    for step in result.steps:  # each new symbol stands for two symbols of the data before it
        assert len(step.symbol) == 1 and len(step.pair) == 2
