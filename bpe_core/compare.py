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

from bpe_core.config import PipelineConfig, TrainingConfig
from bpe_core.corpus import Corpus
from bpe_core.encoder import Encoder, Merge
from bpe_core.errors import Cancelled
from bpe_core.history import MergeRecord
from bpe_core.merge_line import LineView, field_values
from bpe_core.tiebreak import TieBreakRule
from bpe_core.trainer import Trainer
from bpe_core.walkthrough import markdown_text


@dataclass(frozen=True, slots=True)
class Run:
    """One line of merges, named by ``label`` (a tie rule or a branch)."""

    label: str
    base: tuple[str, ...]  # special tokens and the alphabet, by key
    merges: tuple[tuple[str, str], ...]  # each merge's pair, by key
    records: Sequence[MergeRecord]
    corpus_tokens: int  # after the last merge
    display: Callable[[str], str]  # a key as shown

    @property
    def tokens(self) -> list[str]:
        """Each merge's token, by key."""
        return [left + right for left, right in self.merges]

    def vocabulary(self, length: int) -> set[str]:
        """The vocabulary after the first ``length`` merges."""
        return {*self.base, *itertools.islice(self.tokens, length)}


@dataclass(frozen=True, slots=True)
class Comparison:
    a: Run
    b: Run
    first_divergence: int | None  # 1-based step of the first different merge; None if none differ
    vocab_overlap: float  # Jaccard of the two vocabularies at the common length
    common_length: int

    @property
    def tokens_a(self) -> int:
        return self.a.corpus_tokens

    @property
    def tokens_b(self) -> int:
        return self.b.corpus_tokens

    @property
    def compression_difference(self) -> float:
        """How many more corpus tokens B leaves than A, in % of A's (negative: B compresses more)."""
        return 100.0 * (self.tokens_b - self.tokens_a) / max(1, self.tokens_a)

    def summary(self) -> str:
        """The one-line summary the Compare view and the CLI show."""
        parted = (
            f"first divergence at step {self.first_divergence:,}"
            if self.first_divergence is not None
            else f"no divergence in {self.common_length:,} steps"
        )
        return (
            f"{self.a.label} vs {self.b.label}: {parted}; vocabulary overlap {self.vocab_overlap:.1%} "
            f"at {self.common_length:,} merges; corpus tokens {self.tokens_a:,} vs {self.tokens_b:,} "
            f"({self.compression_difference:+.2f}%)"
        )


def run_of(trainer: Trainer, label: str, records: Sequence[MergeRecord] | None = None) -> Run:
    """The run of a trainer's line: ``records`` (a branch's, see ``Trainer.branch_history``) or
    the current one up to the position. Its corpus tokens are the last record's."""
    vocab = trainer.vocab
    base = tuple(vocab.keys[: vocab.n_special + vocab.n_base])
    line = records if records is not None else trainer.history[: trainer.position]
    names = line_names(trainer, line)
    merges = tuple((names[left], names[right]) for left, right in _pairs(line))
    tokens = line[-1].corpus_tokens if line else trainer.initial_point.corpus_tokens
    return Run(label, base, merges, line, tokens, _displayer(trainer))


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
    from bpe_core.vocab import display

    marker = trainer.corpus.config.end_of_word
    return lambda key: display(key, marker)


def compare(a: Run, b: Run) -> Comparison:
    common = min(len(a.merges), len(b.merges))
    first = next((i + 1 for i in range(common) if a.merges[i] != b.merges[i]), None)
    if first is None and len(a.merges) != len(b.merges):
        first = common + 1  # one goes on where the other stopped
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
    divergence marked as such)."""
    a, b = comparison.a, comparison.b
    rows = []
    for step in range(1, max(len(a.merges), len(b.merges)) + 1):
        left = _merge_text(a, step)
        right = _merge_text(b, step)
        mark = (
            "" if left == right else "first divergence" if step == comparison.first_divergence else "differs"
        )
        rows.append([str(step), left, right, mark])
    return rows


def _merge_text(run: Run, step: int) -> str:
    if step > len(run.merges):
        return ""
    left, right = run.merges[step - 1]
    return f"{run.display(left)} + {run.display(right)}"


def sweep_rows(comparisons: Sequence[Comparison]) -> list[list[str]]:
    return [
        [
            c.a.label,
            c.b.label,
            "" if c.first_divergence is None else str(c.first_divergence),
            f"{c.vocab_overlap:.4f}",
            str(c.tokens_a),
            str(c.tokens_b),
            f"{c.compression_difference:+.2f}",
        ]
        for c in comparisons
    ]


SWEEP_HEADER = ["a", "b", "first divergence", "vocabulary overlap", "tokens a", "tokens b", "difference %"]


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
    one). ``first-seen`` is left out: its pick depends on the corpus at that step."""
    pairs = list(dict.fromkeys([*record.candidates, record.pair]))
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
