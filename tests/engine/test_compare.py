"""Comparing runs and the rule sweep: engine and ``bpe-studio compare`` goldens."""

import json
from pathlib import Path

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.tools.compare import compare, pairwise_comparisons, run_of, sweep, tie_picks, tie_steps
from tests.cli.test_contract import run
from tests.conftest import data_text

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
ONE_SEQUENCE = ["--pretokenize", "none", "--end-of-word", "none"]


def test_cli_compare_golden_on_aaabdaaabac():
    code, out, _ = run(
        "compare",
        str(SAMPLES / "aaabdaaabac.txt"),
        *ONE_SEQUENCE,
        "--tie-break",
        "first-seen",
        "--tie-break",
        "hf",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    merges = {r["tie_break"]: [(m["pair"], m["count"], m["ties"]) for m in r["merges"]] for r in data["runs"]}
    # The document's run (hf: Z = aa, Y = ab, X = ZY) against first-seen, which takes aa + a at the tie.
    assert merges["hf"] == [(["a", "a"], 4, 1), (["a", "b"], 2, 2), (["aa", "ab"], 2, 1)]
    assert merges["first-seen"] == [(["a", "a"], 4, 1), (["aa", "a"], 2, 2), (["aaa", "b"], 2, 1)]
    assert [(r["corpus_tokens"], r["vocab_size"]) for r in data["runs"]] == [(5, 7), (5, 7)]
    assert data["pairs"] == [
        {
            "a": "first-seen",
            "b": "hf",
            "first_divergence": 2,
            "vocab_overlap": 0.75,
            "tokens_a": 5,
            "tokens_b": 5,
        }
    ]


def test_cli_compare_summary_and_usage():
    code, out, _ = run(
        "compare", str(SAMPLES / "fred.txt"), "--end-of-word", "_", "--tie-break", "hf", "--tie-break", "hf"
    )
    assert code == 0
    assert out.splitlines()[-1] == (
        "hf vs hf: no divergence in 10 steps; vocabulary overlap 100.0% at 10 merges; "
        "corpus tokens 11 vs 11 (+0.00%)."
    )
    code, _, err = run("compare", str(SAMPLES / "fred.txt"), "--tie-break", "hf")
    assert (
        code == 2
        and err.strip() == "bpe-studio compare: give --tie-break at least twice, one rule each time."
    )
    code, _, err = run("compare", "no-such-file.txt", "--tie-break", "hf", "--tie-break", "first-seen")
    assert code == 1 and err.count("\n") == 1


def test_comparing_two_branches_of_one_trainer():
    trainer = Trainer(Corpus.from_text(data_text("shakespeare_200k.txt"), PipelineConfig()))
    trainer.run(merges=60)
    trainer.goto(20)
    trainer.step(trainer.top_pairs(300)[-1].pair)  # a rare pair: the lines stay apart
    trainer.run(merges=39)
    main, other = (run_of(trainer, b.name, trainer.branch_history(b.id)) for b in trainer.branches())
    result = compare(main, other)
    assert result.first_divergence == 21 and result.common_length == 60
    shared = main.vocabulary(60) & other.vocabulary(60)
    assert result.vocab_overlap == len(shared) / len(main.vocabulary(60) | other.vocabulary(60)) < 1
    assert result.tokens_a == trainer.branch_history(0)[-1].corpus_tokens
    assert "first divergence at step 21" in result.summary()
    # A run that stops where the other goes on does not differ from it: the other continues it,
    # and their corpus tokens are compared at the same length.
    short = run_of(trainer, "short", trainer.branch_history(0)[:30])
    continued = compare(short, main)
    assert continued.first_divergence is None and continued.continuation == "B"
    assert continued.tokens_a == continued.tokens_b == trainer.branch_history(0)[29].corpus_tokens
    assert continued.further_tokens() == main.tokens[30:]
    assert continued.summary().startswith("short vs main: B continues A after step 30; the same 30 merges")
    assert compare(main, short).continuation == "A"


def test_numbers_read_alike_everywhere_and_no_difference_reads_minus_zero():
    from bpe_core.tools.compare import signed_percent

    assert [signed_percent(v) for v in (-0.001, 0.0, -1.5, 2.345)] == ["+0.00%", "+0.00%", "-1.50%", "+2.35%"]


def test_a_sweep_trains_each_rule_to_the_same_target_from_one_corpus():
    corpus = Corpus.from_text(data_text("kjv_genesis_100k.txt")[:30000], PipelineConfig())
    rules = ["first-seen", "hf", "lexicographic", "random:1"]
    runs = sweep(corpus, TrainingConfig(), rules, merges=150)
    assert [r.label for r in runs] == rules and all(len(r.merges) == 150 for r in runs)
    for run_, rule in zip(runs, rules, strict=True):
        alone = Trainer(corpus, TrainingConfig(tie_break=rule))
        alone.run(merges=150)
        assert run_.records == alone.history and run_.corpus_tokens == alone.corpus_tokens
    pairs = pairwise_comparisons(runs)
    assert [(c.a.label, c.b.label) for c in pairs][:3] == [
        ("first-seen", "hf"),
        ("first-seen", "lexicographic"),
        ("first-seen", "random:1"),
    ]
    assert len(pairs) == 6 and all(
        c.first_divergence is None or 1 <= c.first_divergence <= 150 for c in pairs
    )


def test_tie_picks_of_the_position_free_rules():
    trainer = Trainer(
        Corpus.from_text("ab ab cd cd ef ef", PipelineConfig(end_of_word=None)), TrainingConfig()
    )
    record = trainer.step()  # three pairs tied at 2; first-seen takes a + b
    token = trainer.token_string
    picks, complete = tie_picks(record, token)
    assert complete and record.ties == 3 and record.pair == (trainer.vocab.ids["a"], trainer.vocab.ids["b"])
    assert picks["hf"] == picks["lexicographic"] == record.pair
    ids = trainer.vocab.ids
    assert picks["subword-nmt"] in {(ids["a"], ids["b"]), (ids["c"], ids["d"]), (ids["e"], ids["f"])}
    assert tie_steps(trainer.history) == 1


def test_the_comparison_exports_carry_the_names_and_marks_and_show_tokens_as_they_are():
    """The Markdown export wrote `est + </w>` raw (rendered, the marker vanished as an HTML tag),
    its columns were headed A and B, and it marked the first divergence only as "differs"."""
    from bpe_core.tools.compare import comparison_header, comparison_rows, to_csv, to_markdown

    trainer = Trainer(Corpus.from_counts("low\t5\nlower\t2\nnewest\t6\nwidest\t3\n", PipelineConfig()))
    trainer.run(merges=6)
    trainer.goto(3)
    trainer.set_tie_break("subword-nmt")
    trainer.run(merges=2)
    trainer.rename_branch(trainer.branches()[1].id, "<i>mine</i> *x*")
    a, b = (run_of(trainer, br.name, trainer.branch_history(br.id)) for br in trainer.branches())
    result = compare(a, b)
    header, rows = comparison_header(result), comparison_rows(result)
    assert header[1:3] == ["A: main", "B: <i>mine</i> *x*"]
    assert rows[3][3] == "first divergence" and {row[3] for row in rows[4:]} <= {"differs", "", "A only"}
    markdown = to_markdown(header, rows, result.summary())
    assert "\\</w\\>" in markdown and "</w>" not in markdown.replace("\\</w\\>", "")
    assert "\\<i\\>mine\\</i\\> \\*x\\*" in markdown
    assert to_csv(header, rows).splitlines()[0] == "Step,A: main,B: <i>mine</i> *x*,"
