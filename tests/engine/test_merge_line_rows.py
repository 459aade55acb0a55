"""A row of the merge history's columns is written whole or not at all, also when a value
part-way through it needs a wider column than the values before it."""

from __future__ import annotations

from dataclasses import replace

from bpe_core.history.merge_line import MergeLine
from bpe_core.history.records import MergeRecord

SMALL = MergeRecord(
    step=1,
    pair=(1, 2),
    token=3,
    count=4,
    top_count=4,
    replacements=4,
    ties=2,
    candidates=((1, 2), (5, 6)),
    decided_by="hf",
    new_token=True,
    vocab_size=5,
    corpus_tokens=6,
    pass_number=1,
)


def test_a_late_column_widening_keeps_every_column_one_value_a_row():
    line = MergeLine.of([SMALL])
    wide = replace(SMALL, step=2, pass_number=70_000, corpus_tokens=2**40)
    line.append(wide)
    line.append(replace(SMALL, step=3))
    assert list(line) == [SMALL, wide, replace(SMALL, step=3)]
    assert line.column("pass_number").tolist() == [1, 70_000, 1]


def test_a_later_candidate_id_widening_keeps_the_earlier_ones_once():
    line = MergeLine.of([SMALL])
    wide = replace(SMALL, step=2, candidates=((1, 2), (3, 70_000), (2**33, 4)))
    line.append(wide)
    line.append(replace(SMALL, step=3))
    assert [record.candidates for record in line] == [SMALL.candidates, wide.candidates, SMALL.candidates]
