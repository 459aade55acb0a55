"""What counting a pair's words costs (``Trainer.pair_words_work``) bounds the words counted,
stale list entries included, in a trainer started warm and in one started cold."""

import tempfile
from pathlib import Path

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.session import load_session, save_session
from tests.engine.test_trainer_properties import tiny_slices

TEXT = "low lower newest widest lowest slow slower newer wider " * 3 + "aaaa aaab abab"


def trainers() -> list[Trainer]:
    warm = Trainer(Corpus.from_text(TEXT, PipelineConfig(end_of_word="</w>")), TrainingConfig())
    warm.run(merges=6)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.json"
        save_session(warm, path)
        with tiny_slices():  # a small session replayed word by word: its index starts cold
            cold = load_session(path)
    assert cold._index.cold is not None
    return [warm, cold]


def test_the_work_is_at_least_the_words_holding_the_pair():
    for trainer in trainers():
        pairs = list(trainer.pair_counts())
        assert pairs
        for pair in pairs:
            assert trainer.pair_words_work(pair) >= trainer.word_count_with_pair(pair) > 0


def test_the_work_counts_the_words_that_held_a_pair_once():
    trainer = trainers()[0]
    pair = trainer.top_pairs(1)[0].pair
    before = trainer.pair_words_work(pair)
    trainer.step()  # merges the pair away: its words are listed still, until looked at
    assert trainer.word_count_with_pair(pair) == 0
    assert 0 <= trainer.pair_words_work(pair) <= before
    assert trainer.pair_words_work((10**6, 10**6)) == 0  # a pair never seen
