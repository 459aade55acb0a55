"""The ids an imported tokenizer gives its tokens, kept by a session that numbers them its own way.

A session numbers its tokens as it trains (special tokens, the sorted alphabet, then merged
tokens in creation order). A tokenizer imported from a file keeps the ids the file gives
(GPT-2's ``<|endoftext|>`` is 50256; minbpe numbers bytes by value): a :class:`Numbering` maps
each token, by key, to that id. Tokens made after the import (training continued) take the
next ids, in creation order. ``unknown`` is the id the tokenizer gives a unit its vocabulary
lacks: an unknown token's, ``UNKNOWN_ID`` (-1, marked unknown), or ``None`` (dropped, as Hugging
Face does without an unknown token). ``parts`` are an imported ``tokenizer.json``'s decoder and
post-processor, kept as data to be written back on export (never run here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bpe_core.errors import SessionError

UNKNOWN_ID = -1  # the id of a unit no token covers, marked unknown


def sparse_limit(tokens: int) -> int:
    """The first id too large for ``tokens`` tokens: ids may have gaps (a tokenizer exported part
    way through its merges keeps its special tokens' ids), never so many that holding them would
    take far more memory than the tokens do. Ids up to 2**18 are always allowed: a small model
    trained with GPT-4's or o200k's special tokens keeps their ids (100257, 200018; minbpe's
    own tests do), at the cost of about 10 MB an encoder for so sparse a numbering."""
    return 4 * tokens + (1 << 18)


@dataclass(frozen=True)
class Numbering:
    specials: tuple[int, ...]  # the id of each special token, in the pipeline's order
    tokens: dict[str, int]  # key -> id of the other tokens the tokenizer had
    unknown: int | None = UNKNOWN_ID
    parts: dict[str, Any] | None = None

    def ids(self, keys: list[str], n_special: int) -> list[int]:
        """The id of each of a session's tokens (``keys`` in the session's order)."""
        fresh = max([*self.specials, *self.tokens.values()], default=-1) + 1
        out = list(self.specials[:n_special])
        for key in keys[n_special:]:
            token_id = self.tokens.get(key)
            if token_id is None:
                token_id, fresh = fresh, fresh + 1
            out.append(token_id)
        return out

    def to_dict(self) -> dict[str, Any]:
        data = {"specials": list(self.specials), "tokens": self.tokens, "unknown": self.unknown}
        return {**data, "hf_parts": self.parts} if self.parts else data

    @classmethod
    def from_dict(cls, data: Any, n_special: int) -> Numbering:
        if not (
            isinstance(data, dict)
            and isinstance(data.get("specials"), list)
            and isinstance(data.get("tokens"), dict)
            and len(data["specials"]) == n_special
            and all(_is_id(i) for i in [*data["specials"], *data["tokens"].values()])
            and (data.get("unknown", UNKNOWN_ID) in (None, UNKNOWN_ID) or _is_id(data["unknown"]))
            and _are_parts({} if data.get("hf_parts") is None else data["hf_parts"])
        ):
            raise SessionError("its token numbering is malformed.")
        ids = [*data["specials"], *data["tokens"].values()]
        if len(set(ids)) != len(ids):
            raise SessionError("its token numbering gives one id to two tokens.")
        if max(ids, default=0) >= sparse_limit(len(ids)):
            raise SessionError("its token numbering runs to ids far beyond its tokens.")
        parts = data.get("hf_parts") or None
        return cls(tuple(data["specials"]), dict(data["tokens"]), data.get("unknown", UNKNOWN_ID), parts)


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _are_parts(value: Any) -> bool:
    """Whether ``value`` is a decoder and a post-processor as kept (each an object with a type,
    nested no deeper than real ones ever are): what else they hold is checked where they are
    written back."""
    return isinstance(value, dict) and all(
        name in ("decoder", "post_processor")
        and (
            (isinstance(node, dict) and isinstance(node.get("type"), str) and nested_within(node))
            or (name == "decoder" and node is None)  # a file's null decoder (see ``joins_tokens``)
        )
        for name, node in value.items()
    )


def joins_tokens(parts: dict[str, Any] | None) -> bool:
    """Whether an imported ``tokenizer.json`` had no decoder: Hugging Face then decodes by
    joining the tokens with spaces (``Ġhello Ġworld``), and its export writes none again."""
    return parts is not None and "decoder" in parts and parts["decoder"] is None


PART_DEPTH_MOST = 32  # levels a kept decoder or post-processor may nest (real ones: three or four)


def nested_within(value: Any, most: int = PART_DEPTH_MOST) -> bool:
    """Whether JSON data nests no deeper than ``most`` levels, walked without recursion: a
    hostile file's hundreds of levels then never exhaust Python's stack where the data is
    copied or written."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > most:
            return False
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return True
