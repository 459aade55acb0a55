"""bpe_core: a correct, incremental, undoable Byte Pair Encoding engine (no Qt).

Pipeline: normalize -> pre-tokenize -> units (+ end-of-word marker) -> merges (``Trainer``) ->
``Encoder``. Sessions are saved and loaded with ``bpe_core.io.session``.
"""

__version__ = "0.2.0"

from bpe_core.errors import BpeError, ConfigError, InputError, MergeError, SessionError
from bpe_core.history.records import MergeRecord, StopReason
from bpe_core.io.corpus_files import load_corpus, read_text_file
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.corpus import Corpus
from bpe_core.training.config import TrainingConfig
from bpe_core.training.trainer import PairStat, SeriesPoint, Trainer

__all__ = [
    "BpeError",
    "ConfigError",
    "Corpus",
    "InputError",
    "MergeError",
    "MergeRecord",
    "PairStat",
    "PipelineConfig",
    "SeriesPoint",
    "SessionError",
    "StopReason",
    "Trainer",
    "TrainingConfig",
    "__version__",
    "load_corpus",
    "read_text_file",
]
