"""Reading only a session's model (its merges up to the position, not its corpus), for encoding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import SessionError
from bpe_core.io.session.corpus_reader import CORPUS_KEY
from bpe_core.io.session.stream import read_streamed
from bpe_core.io.session.validate import FORMAT, check_merge, read_session, validated
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.vocab import sorted_alphabet
from bpe_core.runtime.fileio import input_limit, open_input


def read_model(path: str | Path) -> dict[str, Any]:
    """A session's validated data without its corpus, which encoding does not need.

    A file as :func:`save_session` writes it is read only up to the corpus, a merge at a time
    (``bpe_core.io.session.stream``); a file with one key per line (version 1) up to the corpus as
    JSON; any other layout (edited by hand) is read whole.
    """
    path = Path(path)
    streamed = read_streamed(path, check_merge, model_only=True)
    if streamed is not None and streamed.get("format") == FORMAT and "position" in streamed:
        try:
            return validated(streamed, model_only=True)
        except SessionError as error:
            raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None
    head = _model_text(path)
    if head is not None:
        try:
            data = json.loads(head)
        except (ValueError, RecursionError):
            data = None
        if (
            isinstance(data, dict)
            and data.get("format") == FORMAT
            and "merges" in data
            and "position" in data
        ):
            try:
                return validated(data, model_only=True)
            except SessionError as error:
                raise SessionError(f"The session file {str(path)!r} is invalid: {error}") from None
    return read_session(path)


def _model_text(path: Path) -> str | None:
    """The file's text before the line that starts the corpus, closed as a JSON object; or
    ``None`` if there is no such line (the caller then reads the whole file)."""
    limit = input_limit()
    lines: list[bytes] = []
    size = 0
    try:
        with open_input(path) as stream:
            # The start of each line first: the corpus line, often most of the file, is not read.
            while line := stream.readline(min(len(CORPUS_KEY), limit + 1 - size)):
                if line.startswith(CORPUS_KEY):
                    text = b"".join(lines).decode("utf-8", errors="strict").rstrip()
                    return text.removesuffix(",") + "\n}"
                if not line.endswith(b"\n"):
                    line += stream.readline(limit + 1 - size - len(line))
                lines.append(line)
                size += len(line)
                if size > limit:
                    return None
    except (OSError, UnicodeDecodeError):
        return None  # read_session reports it
    return None


def load_encoder(path: str | Path) -> Encoder:
    """An encoder with the merges up to the saved position, without reading the corpus."""
    data = read_model(path)
    pipeline: PipelineConfig = data["pipeline"]
    tokens = [*pipeline.special_tokens, *data["alphabet"]]
    if data["alphabet"] != sorted_alphabet(data["alphabet"], pipeline.end_of_word):
        raise SessionError(f"The session file {str(path)!r} is invalid: its alphabet is not sorted.")
    if set(pipeline.special_tokens) & set(data["alphabet"]):
        raise SessionError(
            f"The session file {str(path)!r} is invalid: a special token is also in the alphabet."
        )
    # Special tokens apart: a merge that spells one makes a token of its own (as in training).
    ids = {token: i for i, token in enumerate(tokens) if i >= len(pipeline.special_tokens)}
    merges: list[Merge] = []
    saved = data["merges"]
    for rank in range(data["position"]):  # a merge at a time: SavedMerges makes each on demand
        merge = saved[rank]
        left, right = merge["pair"]
        if left not in ids or right not in ids:
            raise SessionError(
                f"The session file {str(path)!r} is invalid: merge {rank + 1} uses a token not made yet."
            )
        token = ids.get(merge["token"])
        if token is None:
            token = ids[merge["token"]] = len(tokens)
            tokens.append(merge["token"])
        merges.append(Merge(rank, ids[left], ids[right], token, merge["count"]))
    encoder = Encoder(pipeline, tokens, merges, range(len(pipeline.special_tokens)))
    numbering: Numbering | None = data["numbering"]
    if numbering is None:
        return encoder
    return encoder.renumbered(numbering.ids(tokens, encoder.n_special), numbering.unknown, numbering.parts)
