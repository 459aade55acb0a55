"""A lesson's walk-through: steps 1…k written as a document in the style of the classic
walk-throughs (Sennrich et al.'s low · lower · newest · widest, the FRED FED TED BREAD one).

Per iteration: the merge made (with its count, the ties it met and who decided), the vocabulary,
the corpus with each word's segmentation, the pair table with the ties at the top marked, and the
merge list so far. As Markdown or HTML. Large corpora are cut to their most frequent words and
pairs (the cut is said), so a walk-through stays readable.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from bpe_core.training.trainer import Trainer

WORDS = 25  # word types listed per iteration (the most frequent)
PAIRS = 15  # pairs listed per iteration (in the rule's order)
TOKENS = 300  # vocabulary entries listed per iteration


@dataclass
class _Iteration:
    title: str
    merge: str
    vocabulary: list[str]
    vocabulary_size: int
    corpus: list[tuple[str, int, str]]  # word, count, segmentation
    pairs: list[tuple[str, int, bool]]  # pair, count, tied at the top
    merges: list[str]


def walkthrough(
    trainer: Trainer,
    steps: int | None = None,
    html_output: bool = False,
    progress: Callable[[int, int], None] | None = None,
    source: str | None = None,
    tie_rule: str | None = None,
) -> str:
    """Steps 1…``steps`` (default: up to the position) of the trainer's current line, replayed
    on a fresh trainer over the same corpus (the trainer itself is not touched). ``source``
    names the corpus in the title (a handout says what it walks through); ``tie_rule`` says how
    ties were decided when it was not the trainer's rule (the window's Ask me)."""
    line = trainer.history[: trainer.position if steps is None else steps]
    fresh = Trainer(trainer.corpus, trainer.training)
    iterations = [_iteration(fresh, "Start", "")]
    for number, record in enumerate(line, start=1):
        fresh.step(record.pair, decided_by=record.decided_by)
        token = fresh.token_string
        ties = (
            f", tied with {record.ties - 1:,} other pair{'s' if record.ties > 2 else ''}"
            if record.ties > 1
            else ""
        )
        merge = (
            f"Merged {_quote(token(record.pair[0]))} + {_quote(token(record.pair[1]))} → "
            f"{_quote(token(record.token))} (count {record.count:,}{ties}; decided by {record.decided_by})."
        )
        iterations.append(_iteration(fresh, f"Iteration {number}", merge))
        if progress is not None:
            progress(number, len(line))
    config = trainer.corpus.config
    intro = (
        f"{trainer.word_count:,} word types, {sum(trainer.corpus.counts):,} words; pre-tokenizer "
        f"{config.pretokenize}, unit {config.unit}, end-of-word marker {config.end_of_word or 'none'}; "
        f"tie rule {tie_rule or trainer.training.tie_break}, minimum pair count "
        f"{trainer.training.min_frequency}. "
        f"Each iteration lists up to {WORDS} words and {PAIRS} pairs; ★ marks the pairs tied at the top."
    )
    render = _html if html_output else _markdown
    return render(f"BPE walk-through: {source}" if source else "BPE walk-through", intro, iterations)


def _iteration(trainer: Trainer, title: str, merge: str) -> _Iteration:
    token = trainer.token_string
    order = sorted(range(trainer.word_count), key=lambda w: -trainer.corpus.counts[w])[:WORDS]
    corpus = [
        (trainer.corpus.words[w], trainer.corpus.counts[w], " ".join(map(token, trainer.segmentation(w))))
        for w in order
    ]
    top = trainer.top_count()
    tie = trainer.ties_at_top() > 1  # a pair alone at the top count ties with nothing: no ★
    pairs = [
        (f"{token(p.pair[0])} {token(p.pair[1])}", p.count, tie and p.count == top)
        for p in trainer.top_pairs(PAIRS)
    ]
    merges = [
        f"{token(r.pair[0])} + {token(r.pair[1])} → {token(r.token)}"
        for r in trainer.history[: trainer.position]
    ]
    vocabulary = [token(t) for t in range(min(trainer.vocab_size, TOKENS))]
    return _Iteration(title, merge, vocabulary, trainer.vocab_size, corpus, pairs, merges)


def _quote(text: str) -> str:
    return f"'{text}'"


def _more(shown: int, total: int) -> str:
    return f" … and {total - shown:,} more" if total > shown else ""


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def _code(text: str) -> str:
    """Corpus text as a Markdown code span in a table: shown as it is, whatever it holds
    (backticks fence it with a longer run; a pipe, which would end the cell, is escaped)."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or not text.strip() else text
    return fence + padded.replace("|", "\\|") + fence


def markdown_text(text: str) -> str:
    """Text with corpus tokens in it, as Markdown that neither formats nor links nor runs them."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _markdown(title: str, intro: str, iterations: list[_Iteration]) -> str:
    out = [f"# {title}", "", intro, ""]
    for it in iterations:
        out += [f"## {it.title}", ""]
        if it.merge:
            out += [markdown_text(it.merge), ""]
        shown = " ".join(_code(t) for t in it.vocabulary) + _more(len(it.vocabulary), it.vocabulary_size)
        out += [f"**Vocabulary** ({it.vocabulary_size:,}): {shown}", ""]
        out += ["**Corpus**", "", "| word | count | segmentation |", "|---|---:|---|"]
        out += [f"| {_code(w)} | {c:,} | {_code(s)} |" for w, c, s in it.corpus]
        out += ["", "**Pairs**", "", "| pair | count | |", "|---|---:|---|"]
        out += [f"| {_code(p)} | {c:,} | {'★' if tied else ''} |" for p, c, tied in it.pairs]
        if not it.pairs:
            out.append("| (none) | | |")
        out += ["", "**Merges**", ""]
        out += [f"{n}. {_code(m)}" for n, m in enumerate(it.merges, start=1)] or ["(none yet)"]
        out.append("")
    return "\n".join(out)


def _html(title: str, intro: str, iterations: list[_Iteration]) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        f'<html><head><meta charset="utf-8"><title>{e(title)}</title>',
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px}code{background:#f4f4f4}.tie{color:#c0392b}"
        ".n{text-align:right}</style>",
        f"</head><body><h1>{e(title)}</h1><p>{e(intro)}</p>",
    ]
    for it in iterations:
        out.append(f"<h2>{e(it.title)}</h2>")
        if it.merge:
            out.append(f"<p>{e(it.merge)}</p>")
        shown = " ".join(f"<code>{e(t)}</code>" for t in it.vocabulary)
        more = e(_more(len(it.vocabulary), it.vocabulary_size))
        out.append(f"<p><b>Vocabulary</b> ({it.vocabulary_size:,}): {shown}{more}</p>")
        rows = "".join(
            f"<tr><td>{e(w)}</td><td class='n'>{c:,}</td><td><code>{e(s)}</code></td></tr>"
            for w, c, s in it.corpus
        )
        out.append(
            f"<p><b>Corpus</b></p><table><tr><th>word</th><th>count</th><th>segmentation</th></tr>{rows}</table>"
        )
        rows = "".join(
            f"<tr><td><code>{e(p)}</code></td><td class='n'>{c:,}</td>"
            f"<td class='tie'>{'★' if tied else ''}</td></tr>"
            for p, c, tied in it.pairs
        )
        out.append(f"<p><b>Pairs</b></p><table><tr><th>pair</th><th>count</th><th></th></tr>{rows}</table>")
        items = "".join(f"<li><code>{e(m)}</code></li>" for m in it.merges)
        out.append(f"<p><b>Merges</b></p><ol>{items}</ol>" if items else "<p><b>Merges</b>: none yet</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
