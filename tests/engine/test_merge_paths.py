"""The merge paths (the flat index one occurrence at a time or vectorised; the string index
vectorised, per word, long words as linked lists) give identical histories and states on real
text."""

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.training import flat_index, pair_index
from bpe_core.training import trainer as trainer_module
from tests.conftest import data_text
from tests.helpers import recount, snapshot


def train_and_undo(
    text: str, batch_words: int, config: PipelineConfig, long_word: int = 10**9, few: int | None = None
):
    """Train, walk back and check, on the string index (or the flat one, with ``few``)."""
    saved = pair_index.BATCH_WORDS, pair_index.LONG_WORD, flat_index.FEW, trainer_module.FLAT_INDEX
    pair_index.BATCH_WORDS, pair_index.LONG_WORD = batch_words, long_word
    trainer_module.FLAT_INDEX = few is not None
    flat_index.FEW = few if few is not None else saved[2]
    try:
        trainer = Trainer(Corpus.from_text(text, config), TrainingConfig())
        trainer.run(merges=600)
        after_run = snapshot(trainer)
        trainer.goto(150)
        middle = snapshot(trainer)
        pairs, _, total = recount(trainer)
        assert trainer.pair_counts() == dict(pairs) and trainer.corpus_tokens == total
        return trainer.history, after_run, middle
    finally:
        pair_index.BATCH_WORDS, pair_index.LONG_WORD, flat_index.FEW, trainer_module.FLAT_INDEX = saved


def test_paths_agree_on_real_text():
    text = data_text("shakespeare_200k.txt")
    for config in (PipelineConfig(), PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)):
        results = [train_and_undo(text, n, config) for n in (0, 64, 10**9)]
        results += [train_and_undo(text, 0, config, few=few) for few in (0, 96, 10**9)]
        assert all(result == results[0] for result in results)


def test_a_long_word_as_linked_symbols_trains_and_undoes_like_a_string():
    # One 100,000-character sequence (a file as one word): linked symbols, or one string.
    text = data_text("jargon_file_120k.txt")[:100_000]
    for config in (
        PipelineConfig(pretokenize="none", end_of_word=None),
        PipelineConfig(pretokenize="none", unit="byte", end_of_word="</w>"),
    ):
        linked = train_and_undo(text, 10**9, config, long_word=4096)
        string = train_and_undo(text, 10**9, config, long_word=10**9)
        flat = train_and_undo(text, 0, config, few=96)
        assert linked == string == flat


def test_a_pair_left_only_in_long_words_with_many_stale_short_entries():
    # Review finding: once long words were set apart, the short words left could all be stale
    # entries, 1,024 of them or more, and the vectorised path then failed on finding none.
    short = ["xyz" + "".join("abcdefghij"[int(c)] for c in str(i)) for i in range(1100)]
    text = "xyq" * 2000 + "ryz" * 3000 + " " + " ".join(short)
    for rule, flat in (("first-seen", False), ("hf", False), ("first-seen", True)):
        trainer_module.FLAT_INDEX = flat
        corpus = Corpus.from_text(text, PipelineConfig(end_of_word=None))
        linked = Trainer(corpus, TrainingConfig(tie_break=rule))
        linked.run(merges=10)
        trainer_module.FLAT_INDEX = True
        pairs, _, total = recount(linked)
        assert linked.pair_counts() == dict(pairs) and linked.corpus_tokens == total


def test_undoing_a_merge_into_an_existing_token_restores_a_long_words_pairs():
    for long_word in (2, 10**9):
        saved = pair_index.LONG_WORD
        pair_index.LONG_WORD = long_word
        try:
            index = pair_index.PairIndex(["abdab"], [1], 4)
            effect = index.merge("ab", "d", fresh=False)
            index.unmerge("ab", "d", effect)
            assert index.pair_count == {"ab": 2, "bd": 1, "da": 1}, long_word
        finally:
            pair_index.LONG_WORD = saved
