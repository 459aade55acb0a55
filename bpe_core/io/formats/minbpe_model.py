"""minbpe's ``.model`` files (read only): ``minbpe v1``, the split pattern, the special tokens
with their ids, then one merge per line as the ids of its two parts.

Ids are kept: token ``b`` (0-255) is the byte ``b``, merge ``i`` makes token ``256 + i``, and
each special token has the id written beside it.
"""

from __future__ import annotations

from pathlib import Path

from bpe_core.encoding.encoder import Encoder, Merge
from bpe_core.encoding.numbering import sparse_limit
from bpe_core.errors import ConfigError, InputError, quoted
from bpe_core.io.formats.checks import after_colon, whole_number
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR
from bpe_core.pipeline.config import PipelineConfig
from bpe_core.pipeline.pretokenize import GPT4_PATTERN, MINBPE_GPT4_PATTERN
from bpe_core.runtime.fileio import read_bounded

# minbpe's own constants, by the pre-tokenizer they split as.
MINBPE_PATTERNS = {
    "": "none",  # BasicTokenizer: the whole text is one sequence
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""": "gpt2",
    MINBPE_GPT4_PATTERN: "gpt4-minbpe",
    GPT4_PATTERN: "gpt4",
}


def read_minbpe(path: str | Path) -> Encoder:
    path = Path(path)
    named = f"The minbpe model {str(path)!r}"
    try:
        text = read_bounded(path, "minbpe model").decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{named} is not UTF-8 text.") from None
    # minbpe reads with universal newlines (it writes CRLF on Windows), and strips its pattern.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[0].strip() != "minbpe v1" or len(lines) < 3:
        raise InputError(f"{named} does not start with 'minbpe v1'.")
    pattern = lines[1].strip()
    if pattern not in MINBPE_PATTERNS:
        raise InputError(f"{named} splits with a pattern BPE Studio does not know: {quoted(pattern)}.")
    special_count = whole_number(lines[2].strip())
    if special_count is None:
        raise InputError(f"{named} does not give its number of special tokens on line 3.")
    specials: dict[int, str] = {}
    listed: list[tuple[int, int, int]] = []  # (left, right, line) of each merge line; its id is 256 + index
    keys = list(BYTE_TO_CHAR)
    for number, line in enumerate(lines[3:], start=4):
        if not line.strip():
            continue
        if len(specials) < special_count:
            token, _, written = line.rpartition(" ")
            token_id = whole_number(written)
            if not token or token_id is None:
                raise InputError(f"Line {number} of {named[4:]} is not 'special-token id'.")
            if token_id in specials:  # one id, two tokens: none of ours can say which it decodes to
                raise InputError(
                    f"{named} gives the special tokens {quoted(specials[token_id])} and {quoted(token)} "
                    f"the same id {token_id}."
                )
            specials[token_id] = token
            continue
        parts = line.split()
        ids = [i for i in map(whole_number, parts) if i is not None and i < len(keys)]
        if len(parts) != 2 or len(ids) != 2:
            raise InputError(f"Line {number} of {named[4:]} is not two ids of tokens made before it.")
        left, right = ids
        listed.append((left, right, number))
        keys.append(keys[left] + keys[right])
    merges = _merges(listed, named[4:])
    for made in range(256, len(keys)):
        if made not in merges:
            keys[made] = ""  # the id of a merge listed again: minbpe has no token there
    if len(specials) < special_count:
        raise InputError(f"{named} lists fewer special tokens than it says.")
    limit = sparse_limit(len(keys) + len(specials))
    for special_id, token in specials.items():
        if special_id < len(keys):
            raise InputError(f"{named} gives the special token {quoted(token)} the id of a byte or merge.")
        if special_id >= limit:
            raise InputError(
                f"{named} gives the special token {quoted(token)} the id {special_id:,}, far beyond its "
                f"{len(keys):,} tokens (ids up to {limit - 1:,} are read)."
            )
    # minbpe's own GPT-4 tokenizer puts them at 100257 and up: the ids between stay empty.
    keys.extend("" for _ in range(len(keys), max(specials, default=len(keys) - 1) + 1))
    for special_id, special in specials.items():
        keys[special_id] = special
    try:
        config = PipelineConfig(
            unit="byte",
            pretokenize=MINBPE_PATTERNS[pattern],
            end_of_word=None,
            special_tokens=tuple(specials.values()),
        )
    except ConfigError as error:
        raise InputError(f"{named} has special tokens BPE Studio cannot use: {after_colon(error)}") from None
    # minbpe numbers bytes by value; the keys above are GPT-2's display of each byte, in that order.
    return Encoder(config, keys, list(merges.values()), sorted(specials))


def _merges(listed: list[tuple[int, int, int]], named: str) -> dict[int, Merge]:
    """Token id -> the merge making it, in rank order. minbpe reads its merges into a dict from
    pair to id, in order: a pair listed twice takes the later id, and the earlier names no token
    (minbpe itself cannot load a model whose merges use it)."""
    last = {(left, right): index for index, (left, right, _) in enumerate(listed)}
    kept = [index for index, (left, right, _) in enumerate(listed) if last[left, right] == index]
    merges = {256 + index: Merge(rank, *listed[index][:2], 256 + index, 0) for rank, index in enumerate(kept)}
    for left, right, number in listed:
        for part in (left, right):
            if part >= 256 and part not in merges:
                earlier = listed[part - 256]
                raise InputError(
                    f"Line {listed[last[earlier[:2]]][2]} of {named} lists the merge of line {earlier[2]} "
                    f"again, yet line {number} uses its earlier id {part}, which minbpe then gives no token."
                )
    return merges
