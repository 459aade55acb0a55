"""The observer API and the trainer's query and stop-condition contract."""

import pytest

from bpe_core import Corpus, MergeError, PipelineConfig, StopReason, TrainingConfig
from bpe_core.history.events import (
    CorpusReplaced,
    HistoryReset,
    Jumped,
    MergeApplied,
    MergeUndone,
    SettingsChanged,
)
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from tests.helpers import snapshot, trainer_for

LOW = "low\t5\nlower\t2\nnewest\t6\nwidest\t3\n"


def test_each_command_emits_one_past_tense_event():
    trainer = trainer_for(LOW, counts=True)
    events = []
    unsubscribe = trainer.events.subscribe(events.append)
    trainer.step()
    trainer.undo()
    trainer.redo()
    trainer.run(merges=5)
    trainer.goto(2)
    trainer.goto(2)  # no move, no event
    trainer.set_tie_break("hf")
    trainer.reset()
    trainer.replace_corpus(Corpus.from_text("a b", PipelineConfig()))
    kinds = [type(e) for e in events]
    assert kinds == [
        MergeApplied,
        MergeUndone,
        MergeApplied,
        Jumped,
        Jumped,
        SettingsChanged,
        HistoryReset,
        CorpusReplaced,
    ]
    assert events[2].redo and not events[0].redo
    assert events[3] == Jumped(1, 6, StopReason.MERGES) and events[4] == Jumped(6, 2, None)
    unsubscribe()
    trainer.step()
    assert len(events) == 8


def test_stop_conditions_and_reasons():
    trainer = trainer_for(LOW, counts=True)
    assert trainer.run(merges=3) is StopReason.MERGES and trainer.position == 3
    assert trainer.run(vocab_size=trainer.vocab_size + 2) is StopReason.VOCAB_SIZE
    assert trainer.run(min_frequency=6) is StopReason.MIN_FREQUENCY and trainer.top_count() < 6
    assert trainer.run() is StopReason.NO_PAIRS and trainer.stop_reason() is StopReason.NO_PAIRS
    assert trainer.step() is None
    fred = trainer_for("FRED FED TED BREAD AND TED FED FRED BREAD", end_of_word="_")
    assert fred.run() is StopReason.MIN_FREQUENCY and fred.top_count() == 1


def test_vocab_size_counts_special_tokens_alphabet_and_merges():
    trainer = trainer_for("hug pug pun bun hugs hugs", end_of_word=None, special_tokens=("<|endoftext|>",))
    assert trainer.vocab_size == 1 + 7
    trainer.run(vocab_size=10)
    assert trainer.vocab_size == 10 and trainer.position == 2


def test_manual_merge_of_any_present_pair_even_below_min_frequency():
    trainer = trainer_for(LOW, counts=True)
    find = trainer.vocab.find
    record = trainer.step((find("d"), find("e")))
    assert record.decided_by == "user" and record.count == 3 and record.top_count == 9
    assert trainer.token_string(record.token) == "de"
    rare = trainer_for("ab cd cd", min_frequency=2)
    record = rare.step((rare.vocab.find("a"), rare.vocab.find("b")))
    assert record.count == 1


def test_overlapping_counts_and_real_replacements():
    trainer = trainer_for("aaaa", pretokenize="none", end_of_word=None)
    a = trainer.vocab.find("a")
    assert trainer.pair_count((a, a)) == 3 and trainer.replacements((a, a)) == 2
    record = trainer.step()
    assert record.count == 3 and record.replacements == 2


def test_the_last_change_names_its_words_as_a_4_byte_array_that_a_view_can_read_in_place():
    trainer = trainer_for(LOW, counts=True)
    trainer.run(merges=3)
    trainer.step()
    change = trainer.last_change
    assert change is not None and change.applied
    assert change.words.itemsize == 4 and memoryview(change.words).format == "i"
    assert sorted(change.words) == sorted(trainer.changed_words())
    trainer.undo()
    undone = trainer.last_change
    assert undone is not None and not undone.applied
    assert sorted(undone.words) == sorted(change.words) and undone.words.itemsize == 4


def test_queries_for_views():
    trainer = trainer_for(LOW, counts=True)
    trainer.run(merges=4)
    find = trainer.vocab.find
    assert trainer.words_with_pair((find("lo"), find("w"))) == [0, 1]
    assert trainer.words_with_token(find("est</w>")) == [2, 3]
    assert trainer.token_frequency(find("est</w>")) == 9
    assert trainer.token_created_at(find("est</w>")) == 3 and trainer.token_created_at(find("l")) == 0
    assert trainer.token_parts(find("est</w>")) == (find("est"), find("</w>"))
    assert trainer.changed_words() == [0, 1]
    series = trainer.series()
    assert [p.step for p in series] == [0, 1, 2, 3, 4]
    assert series[0].corpus_tokens == 5 * 4 + 2 * 6 + 6 * 7 + 3 * 7
    assert series[-1].corpus_tokens == trainer.corpus_tokens
    assert [p.top_count for p in series[1:]] == [9, 9, 9, 7]
    assert trainer.top_pairs(2)[0].count == 7


def test_tied_candidates_and_what_each_rule_would_pick():
    trainer = trainer_for("aaabdaaabac", pretokenize="none", end_of_word=None)
    trainer.step()
    assert trainer.ties_at_top() == 2
    candidates = trainer.tied_candidates()
    strings = {trainer.pair_string(p) for p in candidates}
    assert strings == {"('aa', 'a')", "('a', 'b')"}
    choices = {rule: trainer.pair_string(p) for rule, p in trainer.rule_choices(candidates).items()}
    assert choices == {
        "first-seen": "('aa', 'a')",
        "hf": "('a', 'b')",
        "subword-nmt": "('aa', 'a')",
        "lexicographic": "('a', 'b')",
    }


def test_a_pair_picked_below_the_top_records_the_pairs_it_was_chosen_over_tie_or_not():
    trainer = trainer_for("low low low lot", min_frequency=1)
    top = trainer.top_pairs(1)[0]
    assert trainer.ties_at_top() == 1
    below = next(p for p in trainer.pair_counts() if trainer.pair_count(p) < top.count)
    record = trainer.step(below)
    assert record.ties == 1 and record.top_count == top.count
    assert record.candidates == (top.pair,)
    trainer.undo()
    # The top pair itself, picked by hand without a tie, was chosen over nothing.
    assert trainer.step(top.pair).candidates == ()


def test_ids_specials_then_alphabet_by_code_point_then_merges():
    trainer = trainer_for("b a  c", unit="byte", end_of_word=None, special_tokens=("<s>",))
    assert trainer.vocab.tokens[0] == "<s>"
    assert trainer.vocab.tokens[1:257] == sorted(BYTE_TO_CHAR)
    # GPT-2's own ids: 'Ġ' (space) is 220 and 'Ċ' (newline) 198, counted without specials.
    assert trainer.vocab.find("Ġ") - 1 == 220 and trainer.vocab.find("Ċ") - 1 == 198


def test_a_merge_that_spells_the_marker_makes_a_text_token_not_the_marker():
    # With the marker "bc", merging the characters b + c spells the marker: it is a token of
    # its own (the marker's identity is not its string), so decoding keeps the text.
    trainer = trainer_for("xbc xbc abc", end_of_word="bc", min_frequency=1)
    find = trainer.vocab.find
    size, before = trainer.vocab_size, snapshot(trainer)
    marker = trainer.segmentation(0)[-1]
    record = trainer.step((find("b"), find("c")))
    assert record.new_token and record.token != marker and trainer.vocab_size == size + 1
    assert trainer.token_string(record.token) == trainer.token_string(marker) == "bc"
    assert [trainer.segmentation(w)[1:] for w in range(2)] == [[record.token, marker]] * 2
    encoder = trainer.encoder()
    assert encoder.decode(encoder.encode("abc xbc").ids) == "abc xbc"
    trainer.undo()
    assert snapshot(trainer) == before


def test_goto_outside_history_is_refused():
    trainer = trainer_for(LOW, counts=True)
    with pytest.raises(MergeError, match="outside the history"):
        trainer.goto(3)
    with pytest.raises(MergeError):
        trainer.undo()
    with pytest.raises(MergeError):
        trainer.redo()


def test_training_config_is_validated():
    with pytest.raises(ValueError):
        TrainingConfig(min_frequency=0)
    with pytest.raises(ValueError):
        TrainingConfig(tie_break="nope")
    with pytest.raises(ValueError):
        PipelineConfig(end_of_word=" ")
    with pytest.raises(ValueError):
        PipelineConfig(end_of_word=None, attach_marker=True)


def test_a_choice_at_a_tie_that_the_line_ahead_made_too_is_recorded_as_chosen():
    """Undo, then choose at the tie the very pair the line had merged: the line was followed
    and its old decider ("first-seen") kept, though the user, or the rule the user let decide,
    chose it this time. Every line through that node now says so; nothing else changes."""
    trainer = trainer_for(LOW, counts=True)
    trainer.run(merges=6)
    trainer.goto(3)
    trainer.set_tie_break("subword-nmt")
    trainer.run(merges=2)  # a second branch, sharing the first three merges
    trainer.set_tie_break("first-seen")
    assert len(trainer.branches()) == 2
    trainer.goto(0)
    before = trainer.history
    first = before[0]
    assert first.decided_by == "first-seen" and first.ties > 1
    events = []
    trainer.events.subscribe(events.append)
    replayed = trainer.step(first.pair, decided_by="hf")  # a replay (a run opened as a branch)
    assert replayed == first and trainer.branch_history(0)[0] == first  # keeps the line's decider
    trainer.undo()
    events.clear()
    chosen = trainer.step(first.pair, decided_by="user", chosen=True)
    assert chosen.decided_by == "user" and events == [MergeApplied(chosen, redo=True)]
    assert trainer.history == (chosen, *before[1:]) and len(trainer.branches()) == 2
    for branch in trainer.branches():
        trainer.switch(branch.id)
        assert trainer.history[0] == chosen  # the node both lines pass through
    trainer.goto(1)
    second = trainer.history[1]
    revision = trainer.revision
    assert trainer.step(second.pair, decided_by=second.decided_by, chosen=True) == second  # alike
    trainer.undo()
    assert trainer.step() == second  # the rule's own pick follows the line as it is
    assert trainer.revision == revision
