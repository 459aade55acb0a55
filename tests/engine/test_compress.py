"""The classic compression variant: goldens, the CLI, and losslessness."""

import contextlib
import io
import json
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core.cli import main
from bpe_core.tools.compress import Compression, Step, compress, fresh_symbols
from bpe_core.training.config import TrainingConfig
from tests.conftest import data_text


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
        "compressed": "XdXac",
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


def data_edges(result: Compression, size: int) -> list[tuple[int, str, str]]:
    return [(len(data), data[:size], data[-size:]) for data in result.data_after_steps()]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcd \n", min_size=1, max_size=300), st.sampled_from(RULES), st.integers(1, 8))
def test_the_edges_worked_back_are_those_of_the_data_after_each_step(text, rule, size):
    result = compress(text, TrainingConfig(tie_break=rule), every_step=True)
    assert [s.data for s in result.steps] == list(result.data_after_steps())
    assert result.edges(size) == data_edges(result, size)
    assert compress(text, TrainingConfig(tie_break=rule), every_step=False).edges(size) == data_edges(
        result, size
    )


def test_a_symbol_standing_for_two_steps_takes_its_edges_from_the_data():
    """A string merged again by another route keeps its symbol; undoing one step would then
    also undo the other's occurrences, so the edges come from the data itself."""
    steps = (Step("Z", ("a", "b"), 2, ""), Step("Y", ("Z", "c"), 1, ""), Step("Z", ("a", "b"), 0, ""))
    result = Compression("abcab", steps, "YZ", {})
    assert result.edges(1) == data_edges(result, 1) == [(3, "Z", "Z"), (2, "Y", "Z"), (2, "Y", "Z")]


def old_summary(text: str, rule: str) -> str:
    """The ``compress`` report as it was written from the data after every step."""

    def shown(data: str, width: int = 72) -> str:
        data = data.translate(VISIBLE)
        return data if len(data) <= width else data[: width // 2 - 1] + " … " + data[-(width // 2 - 2) :]

    result = compress(text, TrainingConfig(tie_break=rule), every_step=True)
    lines = [f"{shown(text)}  (the input, {len(text):,} symbols)"]
    for step in result.steps:
        rule_text = f"{step.symbol} = {(step.pair[0] + step.pair[1]).translate(VISIBLE)}"
        lines.append(f"{rule_text}  ({step.count:,}x)  ->  {shown(step.data)}")
    lines.append(
        f"{len(text):,} -> {len(result.compressed):,} symbols with {len(result.steps):,} rules; "
        "decompressed back to the input: lossless."
    )
    return "\n".join(lines) + "\n"


VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})


def cli(*argv: str) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(list(argv)) == 0
    return out.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet="ab c\nd\t", min_size=1, max_size=400), st.sampled_from(RULES))
def test_the_report_is_the_one_written_from_every_steps_data(tmp_path, text, rule):
    """The report no longer builds the data after each step; it reads the same."""
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8", newline="")
    assert cli("compress", str(path), "--tie-break", rule) == old_summary(text, rule)


def test_json_gives_the_data_after_every_kth_step_or_for_short_inputs(tmp_path):
    text = data_text("shakespeare_200k.txt")[:3_000]
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8", newline="")
    result = compress(text, TrainingConfig(), every_step=True)
    expected_steps = [
        {"symbol": s.symbol, "pair": list(s.pair), "rule": s.rule, "count": s.count} for s in result.steps
    ]
    ending = {"compressed": result.compressed, "decompressed": text, "lossless": True}
    # A long input: no data by default, as each step's would be another copy of it.
    expected = {"steps": expected_steps, **ending}
    assert cli("compress", str(path), "--json") == json.dumps(expected, ensure_ascii=False) + "\n"
    assert (
        cli("compress", str(path), "--json", "--data-every", "0")
        == json.dumps(expected, ensure_ascii=False) + "\n"
    )
    every = [
        {"data": s.data, **e} if number % 50 == 0 else e
        for number, (s, e) in enumerate(zip(result.steps, expected_steps, strict=True), 1)
    ]
    expected = {"steps": every, **ending}
    assert (
        cli("compress", str(path), "--json", "--data-every", "50")
        == json.dumps(expected, ensure_ascii=False) + "\n"
    )
    # A short one: the data after every step, as the classic table shows it.
    short = tmp_path / "short.txt"
    short.write_text(text[:900], encoding="utf-8", newline="")
    steps = json.loads(cli("compress", str(short), "--json"))["steps"]
    assert steps and all("data" in step for step in steps)


def test_compressing_holds_no_more_memory_than_training(tmp_path):
    """Every step's data was built and kept (and printed whole as JSON): 2x training's peak
    memory on 20 kB, 4x with --json, and 1.45 GB on 250 kB."""
    path = tmp_path / "in.txt"
    path.write_text(data_text("shakespeare_200k.txt")[:20_000], encoding="utf-8", newline="")

    def peak(*argv: str) -> int:
        tracemalloc.start()
        try:
            cli(*argv)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    train = peak("train", str(path), "--pretokenize", "none", "--end-of-word", "none", "--json")
    assert peak("compress", str(path)) < 1.25 * train
    assert peak("compress", str(path), "--json") < 1.25 * train
