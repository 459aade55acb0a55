"""Small helpers shared by the core tests."""

from collections import Counter
from itertools import pairwise

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.training.flat_index import FlatIndex


def trainer_for(
    text: str, *, counts: bool = False, rule: str = "first-seen", min_frequency: int = 2, **pipeline
) -> Trainer:
    config = PipelineConfig(**pipeline)
    corpus = Corpus.from_counts(text, config) if counts else Corpus.from_text(text, config)
    return Trainer(corpus, TrainingConfig(min_frequency=min_frequency, tie_break=rule))


def merge_strings(trainer: Trainer) -> list[tuple[str, str]]:
    """The applied merges as (left, right) display strings."""
    tokens = trainer.token_string
    return [(tokens(r.pair[0]), tokens(r.pair[1])) for r in trainer.history[: trainer.position]]


def segmentation_strings(trainer: Trainer) -> list[list[str]]:
    return [[trainer.token_string(t) for t in trainer.segmentation(w)] for w in range(trainer.word_count)]


def recount(trainer: Trainer) -> tuple[Counter, Counter, int]:
    """Pair counts, token frequencies and total tokens recomputed from the segmentation."""
    pairs: Counter = Counter()
    tokens: Counter = Counter()
    for w, count in enumerate(trainer.corpus.counts):
        seg = trainer.segmentation(w)
        for left, right in pairwise(seg):
            pairs[(left, right)] += count
        for token in seg:
            tokens[token] += count
    return pairs, tokens, sum(tokens.values())


def snapshot(trainer: Trainer) -> tuple:
    """Everything observable about the trainer's state, for exact-equality checks."""
    return (
        trainer.position,
        tuple(trainer.vocab.tokens),
        tuple(tuple(trainer.segmentation(w)) for w in range(trainer.word_count)),
        tuple(sorted(trainer.pair_counts().items())),
        tuple(trainer.token_frequency(t) for t in range(trainer.vocab_size)),
        trainer.corpus_tokens,
        tuple(trainer.top_pairs(10)),
        trainer.ties_at_top(),
    )


def counted_takes() -> tuple[list, object]:
    """A list of what merges and undos took from work ahead (by kind), and the
    ``FlatIndex._prepared`` that fills it."""
    taken: list = []
    prepared = FlatIndex._prepared

    def counted(index, key):
        plan = prepared(index, key)
        if plan is not None:
            taken.append("merge" if isinstance(key, str) else "undo")
        return plan

    return taken, counted
