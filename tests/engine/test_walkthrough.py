"""The walk-through export: the classic walk-throughs' iterations, as Markdown and HTML."""

import re
from pathlib import Path

from bpe_core import Corpus, PipelineConfig, Trainer
from bpe_core.tools.walkthrough import walkthrough
from tests.cli.test_contract import run

FRED = Path(__file__).resolve().parents[2] / "resources" / "samples" / "fred.txt"


def fred(merges: int) -> Trainer:
    trainer = Trainer(Corpus.from_text(FRED.read_text(encoding="utf-8"), PipelineConfig(end_of_word="_")))
    trainer.run(merges=merges)
    return trainer


def section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_fred_iterations_as_the_classic_walk_through_writes_them():
    trainer = fred(10)
    trainer.goto(3)
    text = walkthrough(trainer)
    assert "## Iteration 3" in text and "## Iteration 4" not in text  # up to the position
    second = section(text, "Iteration 2")
    assert "Merged 'E' + 'D\\_' → 'ED\\_' (count 6; decided by first-seen)." in second  # _ escaped
    # The document's corpus after iteration 2: T ED_, F R ED_, A N D_, B R E A D_, F ED_.
    for word, seg in (
        ("TED", "T ED_"),
        ("FRED", "F R ED_"),
        ("AND", "A N D_"),
        ("BREAD", "B R E A D_"),
        ("FED", "F ED_"),
    ):
        assert f"| `{word}` | " in second and f"`{seg}`" in second
    # "Now we see that there are several pairs with the highest frequency": the eight at 2, marked.
    assert second.count("| 2 | ★ |") == 8 and "| `A N` | 1 |  |" in second
    assert "1. `D + _ → D_`\n2. `E + D_ → ED_`" in second
    third = section(text, "Iteration 3")
    # The document's bag happened to pick T + ED_ here; first-seen takes the first pair of FRED.
    assert "Merged 'F' + 'R' → 'FR' (count 2, tied with 7 other pairs; decided by first-seen)." in third
    assert trainer.position == 3 and trainer.history_length == 10  # the trainer was not touched


def test_html_has_the_same_iterations_escaped():
    text = walkthrough(fred(10), html_output=True)
    assert text.startswith("<!DOCTYPE html>") and text.count("<h2>") == 11
    assert "<h2>Iteration 10</h2>" in text and "BREA + D_ → BREAD_" in text


def test_cli_writes_a_walkthrough_and_checks_the_path_before_training(tmp_path):
    out = tmp_path / "lesson.md"
    code, _, _ = run("train", str(FRED), "--end-of-word", "_", "--walkthrough", str(out))
    text = out.read_text(encoding="utf-8")
    assert code == 0 and "## Iteration 10" in text and text.startswith("# BPE walk-through: fred.txt\n")
    code, _, err = run("train", str(FRED), "--walkthrough", str(tmp_path / "missing" / "x.md"))
    assert code == 1 and err.count("\n") == 1


def test_corpus_text_in_markdown_is_shown_never_formatted_linked_or_run():
    """Found by an adversarial pass: words went into the Markdown tables as they were, so
    ``<script>``, ``[x](javascript:…)`` and ``**bold**`` were live; backticks became quotes."""
    text = "<script>x</script> [x](javascript:alert) **bold** a|b `code` a`b ~~gone~~ " * 3
    trainer = Trainer(Corpus.from_text(text, PipelineConfig(end_of_word=None)))
    trainer.run(merges=30)
    markdown = walkthrough(trainer)
    lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    for line in lines:  # every cell is a code span or plain figures, and a pipe never splits one
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        assert all(c.strip().startswith("`") or not re.search(r"[<*\[~]", c) for c in cells), line
    assert "| `<script>x</script>` |" in markdown and "| ``a`b`` |" in markdown
    assert "| `a\\|b` |" in markdown
    for line in markdown.splitlines():
        if line.startswith("Merged"):
            assert not re.search(r"(?<!\\)[<*\[`_~]", line), line


def test_only_ties_are_starred():
    """The header says ★ marks the pairs tied at the top, yet a lone top pair was starred too."""
    text = walkthrough(fred(3))
    first = section(text, "Iteration 1")  # after D + _, E + D_ (6) stands alone at the top
    assert "| `E D_` | 6 |  |" in first and "★ |" not in first.split("**Pairs**")[1].split("**Merges**")[0]
    html = walkthrough(fred(3), html_output=True)
    iteration = html.split("<h2>Iteration 1</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<td class='tie'>★</td>" not in iteration
    assert section(text, "Iteration 2").count("| 2 | ★ |") == 8  # a real tie is still marked
