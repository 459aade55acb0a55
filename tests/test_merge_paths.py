"""The vectorised and per-word merge paths give identical histories and states on real text."""

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig, pair_index
from tests.conftest import data_text
from tests.helpers import recount, snapshot


def train_and_undo(text: str, batch_words: int, config: PipelineConfig):
    saved = pair_index.BATCH_WORDS
    pair_index.BATCH_WORDS = batch_words
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
        pair_index.BATCH_WORDS = saved


def test_paths_agree_on_real_text():
    text = data_text("shakespeare_200k.txt")
    for config in (PipelineConfig(), PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)):
        results = [train_and_undo(text, n, config) for n in (0, 64, 10**9)]
        assert results[0] == results[1] == results[2]
