"""Session (model) files: versioned JSON holding the configuration, the corpus as word counts,
the merge history with counts and tie decisions, every branch, and the current position.

``write`` saves atomically; ``validate`` reads and checks every field, refusing a bad file with
one sentence (nothing in a file is ever executed: plain ``json`` only); ``restore`` rebuilds the
trainer; ``model`` reads only what encoding needs; ``stream`` and ``corpus_reader`` read a
file as it streams in.

Imports :mod:`bpe_core.training` and below: restoring a session rebuilds a trainer.
"""

from bpe_core.io.session.model import load_encoder, read_model
from bpe_core.io.session.restore import load_session, trainer_from_session
from bpe_core.io.session.validate import (
    FORMAT,
    MAX_TEST_TEXT,
    VERSION,
    check_test_text,
    parse_session,
    read_session,
    sniff_session,
)
from bpe_core.io.session.write import save_session, session_text, session_to_dict

__all__ = [
    "FORMAT",
    "MAX_TEST_TEXT",
    "VERSION",
    "check_test_text",
    "load_encoder",
    "load_session",
    "parse_session",
    "read_model",
    "read_session",
    "save_session",
    "session_text",
    "session_to_dict",
    "sniff_session",
    "trainer_from_session",
]
