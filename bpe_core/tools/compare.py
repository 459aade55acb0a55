"""Comparing runs: where two merge histories part, how much their vocabularies share, and what
each does to the corpus; and the rule sweep, every tie rule trained to the same target.

A run is read from a line of the history (a branch, or a trainer trained by one rule) as token
keys, so runs from different trainers over the same corpus compare exactly.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.errors import Cancelled, plural
from bpe_core.history.merge_line import LineView, field_values
from bpe_core.history.records import MergeRecord
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus
from bpe_core.tools.walkthrough import markdown_text
from bpe_core.training.config import TrainingConfig
from bpe_core.training.tie_rules import TieBreakRule
from bpe_core.training.trainer import Trainer


@dataclass(frozen=True, slots=True)
class Run:
    """One line of merges, named by ``label`` (a tie rule or a branch)."""

    label: str
    base: tuple[str, ...]  # special tokens and the alphabet, by key
    merges: tuple[tuple[str, str], ...]  # each merge's pair, by key
    records: Sequence[MergeRecord]
    corpus_tokens: int  # after the last merge
    display: Callable[[str], str]  # a key as shown
    start_tokens: int = 0  # the corpus tokens before the first merge

    @property
    def tokens(self) -> list[str]:
        """Each merge's token, by key."""
        return [left + right for left, right in self.merges]

    def vocabulary(self, length: int) -> set[str]:
        """The vocabulary after the first ``length`` merges."""
        return {*self.base, *itertools.islice(self.tokens, length)}

    def tokens_after(self, length: int) -> int:
        """The corpus tokens after the first ``length`` merges."""
        if length >= len(self.records):
            return self.corpus_tokens
        return self.records[length - 1].corpus_tokens if length > 0 else self.start_tokens


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two runs compared at their common length (the shorter one's): a longer run's further
    merges are told apart, never weighed against merges the other did not make."""

    a: Run
    b: Run
    first_divergence: int | None  # 1-based step of the first different merge; None if none differ
    vocab_overlap: float  # Jaccard of the two vocabularies at the common length
    common_length: int

    @property
    def tokens_a(self) -> int:
        """A's corpus tokens at the common length."""
        return self.a.tokens_after(self.common_length)

    @property
    def tokens_b(self) -> int:
        return self.b.tokens_after(self.common_length)

    @property
    def compression_difference(self) -> float:
        """How many more corpus tokens B leaves than A at the common length, in % of A's
        (negative: B compresses more)."""
        return 100.0 * (self.tokens_b - self.tokens_a) / max(1, self.tokens_a)

    @property
    def longer(self) -> str | None:
        """ "A" or "B", whichever made more merges; None if they made as many."""
        a, b = len(self.a.merges), len(self.b.merges)
        return None if a == b else "A" if a > b else "B"

    @property
    def continuation(self) -> str | None:
        """ "A" or "B" when that run makes all the other's merges and then more (it continues the
        other); None otherwise."""
        return self.longer if self.first_divergence is None else None

    def further_tokens(self) -> list[str]:
        """The tokens the longer run made after the common length, by key, in order."""
        run = self.a if self.longer == "A" else self.b
        return run.tokens[self.common_length :]

    def summary(self) -> str:
        """The one-line summary the Compare view and the CLI show."""
        a, b, common = self.a, self.b, self.common_length
        longer = self.longer
        more = abs(len(a.merges) - len(b.merges))
        if self.continuation is not None:
            short, long = (b, a) if longer == "A" else (a, b)
            change = 100.0 * (long.corpus_tokens - short.corpus_tokens) / max(1, short.corpus_tokens)
            other = "B" if longer == "A" else "A"
            return (
                f"{a.label} vs {b.label}: {longer} continues {other} after step {common:,}; the same "
                f"{count(common)} {_leave(common)} {count(short.corpus_tokens)} corpus tokens, {longer}'s "
                f"{count(more)} further {_leave(more)} {count(long.corpus_tokens)} "
                f"({signed_percent(change)})"
            )
        parted = (
            f"first divergence at step {self.first_divergence:,}"
            if self.first_divergence is not None
            else f"no divergence in {common:,} {plural(common, 'step')}"
        )
        tail = f"; {longer} goes on for {count(more)} more {plural(more, 'merge')}" if longer else ""
        return (
            f"{a.label} vs {b.label}: {parted}; vocabulary overlap {percent(self.vocab_overlap)} "
            f"at {common:,} {plural(common, 'merge')}; "
            f"corpus tokens {count(self.tokens_a)} vs {count(self.tokens_b)} "
            f"({signed_percent(self.compression_difference)}){tail}"
        )


def _leave(n: int) -> str:
    return "merge leaves" if n == 1 else "merges leave"


# -- one number format for the summary, the tables and the exports ----------------------------


def count(value: int) -> str:
    """A whole number with thousands separators: 12,345."""
    return f"{value:,}"


def percent(fraction: float) -> str:
    """A fraction as a percentage: 0.935 -> 93.5%."""
    return f"{fraction:.1%}"


def signed_percent(value: float) -> str:
    """A difference in % with its sign, never "-0.00%": -0.001 -> +0.00%, -1.5 -> -1.50%."""
    return f"{round(value, 2) + 0.0:+.2f}%"  # + 0.0 turns a rounded -0.0 into 0.0


def run_of(trainer: Trainer, label: str, records: Sequence[MergeRecord] | None = None) -> Run:
    """The run of a trainer's line: ``records`` (a branch's, see ``Trainer.branch_history``) or
    the current one up to the position. Its corpus tokens are the last record's."""
    vocab = trainer.vocab
    base = tuple(vocab.keys[: vocab.n_special + vocab.n_base])
    line = records if records is not None else trainer.history[: trainer.position]
    names = line_names(trainer, line)
    merges = tuple((names[left], names[right]) for left, right in _pairs(line))
    start = trainer.initial_point.corpus_tokens
    tokens = line[-1].corpus_tokens if line else start
    return Run(label, base, merges, line, tokens, _displayer(trainer), start)


def _pairs(records: Sequence[MergeRecord]) -> list[tuple[int, int]]:
    return records.pairs() if isinstance(records, LineView) else [record.pair for record in records]


def line_names(trainer: Trainer, records: Sequence[MergeRecord]) -> dict[int, str]:
    """Token id -> key along a line of merges (an id names different tokens on different lines)."""
    vocab = trainer.vocab
    names: dict[int, str] = dict(enumerate(vocab.keys[: vocab.n_special + vocab.n_base]))
    tokens = records.column("token").tolist() if isinstance(records, LineView) else [r.token for r in records]
    for (left, right), token in zip(_pairs(records), tokens, strict=True):
        names[token] = names[left] + names[right]
    return names


def _displayer(trainer: Trainer) -> Callable[[str], str]:
    from bpe_core.pipeline.vocab import display

    marker = trainer.corpus.config.end_of_word
    return lambda key: display(key, marker)


def compare(a: Run, b: Run) -> Comparison:
    common = min(len(a.merges), len(b.merges))
    first = next((i + 1 for i in range(common) if a.merges[i] != b.merges[i]), None)
    va, vb = a.vocabulary(common), b.vocabulary(common)
    overlap = len(va & vb) / max(1, len(va | vb))
    return Comparison(a, b, first, overlap, common)


def sweep(
    corpus: Corpus,
    training: TrainingConfig,
    rules: Sequence[str],
    merges: int | None = None,
    vocab_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> list[Run]:
    """Train every rule in ``rules`` from the same corpus to the same target, one after the
    other (the corpus is counted once). ``progress(done, total)`` counts merges over all runs."""
    runs = []
    goal = merges or 0
    for number, rule in enumerate(rules):
        trainer = Trainer(corpus, TrainingConfig(training.min_frequency, rule, training.merges_per_pass))
        done = number * goal

        def report(k: int, _total: int, done: int = done) -> None:
            if progress is not None:
                progress(done + k, goal * len(rules))

        trainer.run(merges=merges, vocab_size=vocab_size, progress=report, cancel=cancel)
        if cancel is not None and cancel():
            raise Cancelled
        runs.append(run_of(trainer, rule))
    return runs


def pairwise_comparisons(runs: Sequence[Run]) -> list[Comparison]:
    """Every pair of runs, in order: (1, 2), (1, 3), ..., (2, 3), ..."""
    return [compare(a, b) for a, b in itertools.combinations(runs, 2)]


def encoder_of(run: Run, config: PipelineConfig, n_special: int) -> Encoder:
    """An encoder with a run's merges (its records' ids hold along its own line), read from
    its columns: no record is made."""
    keys = list(run.base)
    for made, (left, right) in zip(field_values(run.records, "new_token"), run.merges, strict=True):
        if made:
            keys.append(left + right)
    lefts, rights = zip(*_pairs(run.records), strict=True) if run.records else ((), ())
    tokens, counts = (field_values(run.records, name) for name in ("token", "count"))
    merges = list(map(Merge, range(len(run.records)), lefts, rights, tokens, counts))
    return Encoder(config, keys, merges, range(n_special))


# -- exports (CSV and Markdown, for slides and papers) ----------------------------------------


def comparison_header(comparison: Comparison) -> list[str]:
    return ["Step", f"A: {comparison.a.label}", f"B: {comparison.b.label}", ""]


def comparison_rows(comparison: Comparison) -> list[list[str]]:
    """Step by step: the merge of A, the merge of B, and whether they differ (the first
    divergence marked as such; past the common length, whose merge it is)."""
    a, b = comparison.a, comparison.b
    rows = []
    for step in range(1, max(len(a.merges), len(b.merges)) + 1):
        left = _merge_text(a, step)
        right = _merge_text(b, step)
        if step > comparison.common_length:
            mark = f"{comparison.longer} only"
        elif left == right:
            mark = ""
        else:
            mark = "first divergence" if step == comparison.first_divergence else "differs"
        rows.append([count(step), left, right, mark])
    return rows


def _merge_text(run: Run, step: int) -> str:
    if step > len(run.merges):
        return ""
    left, right = run.merges[step - 1]
    return f"{run.display(left)} + {run.display(right)}"


def sweep_rows(comparisons: Sequence[Comparison]) -> list[list[str]]:
    """Each pair of runs, in the summary's number format."""
    return [
        [
            c.a.label,
            c.b.label,
            _parting(c),
            percent(c.vocab_overlap),
            count(c.tokens_a),
            count(c.tokens_b),
            signed_percent(c.compression_difference),
        ]
        for c in comparisons
    ]


def _parting(c: Comparison) -> str:
    if c.first_divergence is not None:
        return count(c.first_divergence)
    if c.continuation is not None:
        return f"none ({c.continuation} goes on after {count(c.common_length)})"
    return "none"


SWEEP_HEADER = ["a", "b", "first divergence", "vocabulary overlap", "tokens a", "tokens b", "difference"]


def to_csv(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def to_markdown(header: Sequence[str], rows: Sequence[Sequence[str]], title: str = "") -> str:
    def cell(text: str) -> str:  # tokens as they are: `</w>` is no HTML tag, `*` no emphasis
        return markdown_text(text.replace("\n", " ")) or " "

    lines = [f"{markdown_text(title)}\n"] if title else []
    lines.append("| " + " | ".join(cell(h) for h in header) + " |")
    lines.append("|" + "---|" * len(header))
    lines.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return "\n".join(lines) + "\n"


# -- ties -------------------------------------------------------------------------------------

STATIC_RULES = ("hf", "subword-nmt", "lexicographic")  # rules whose pick needs no corpus positions


def tie_picks(record: MergeRecord, token: Callable[[int], str]) -> tuple[dict[str, tuple[int, int]], bool]:
    """Which pair each position-free rule picks among a tie step's tied pairs, and whether that
    is all of them (a record lists at most ``CANDIDATE_CAP`` of its tied pairs, plus the merged
    one, if it was tied: a pair picked by hand below the top was none of them). ``first-seen`` is
    left out: its pick depends on the corpus at that step."""
    tied = (record.pair,) if record.count == record.top_count else ()
    pairs = list(dict.fromkeys([*record.candidates, *tied]))
    picks = {}
    for name in STATIC_RULES:
        rule = TieBreakRule(name)

        def key(pair: tuple[int, int], rule: TieBreakRule = rule) -> Any:
            return rule.static_key(token(pair[0]), token(pair[1]), *pair)

        picks[name] = min(pairs, key=key)
    return picks, len(pairs) >= record.ties


def tie_steps(records: Sequence[MergeRecord]) -> int:
    """How many steps met a tie at the top count."""
    if isinstance(records, LineView):
        return int((records.column("ties") > 1).sum())
    return sum(1 for record in records if record.ties > 1)


def tie_choices(
    trainer: Trainer,
    records: Sequence[MergeRecord] | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancel: Callable[[], bool] | None = None,
) -> dict[int, tuple[MergeRecord, dict[str, tuple[int, int]]]]:
    """At each tie step of a line (default: the current one), the pair every rule would have
    merged among *all* the tied pairs, first-seen included: the line is replayed on a fresh
    trainer, and at each tie the tied pairs are read from its queue (the top ``ties`` pairs).
    Returns step -> (its record, rule -> pair)."""
    line = trainer.history if records is None else records
    fresh = Trainer(trainer.corpus, trainer.training)
    choices = {}
    for number, record in enumerate(line, start=1):
        if cancel is not None and cancel():
            raise Cancelled
        if record.ties > 1:
            choices[record.step] = (record, fresh.rule_choices(fresh.tied_candidates(record.ties)))
        fresh.step(record.pair, decided_by=record.decided_by)
        if progress is not None:
            progress(number, len(line))
    return choices
