"""Token strings by id. Ids are special tokens, then the base alphabet in code-point order of the
display strings (for bytes: GPT-2's order), then merged tokens in creation order.

A merge whose string already exists reuses that id, as Hugging Face ``tokenizers`` and
``tiktoken`` do; the vocabulary size counts distinct strings.
"""

from __future__ import annotations

from collections.abc import Iterable

from bpe_core.errors import ConfigError


class Vocabulary:
    """Attributes: ``tokens`` (id -> string), ``ids`` (string -> id), ``created_at`` (id -> step,
    0 for special and base tokens), ``n_special``, ``n_base``."""

    def __init__(self, specials: Iterable[str], alphabet: Iterable[str]) -> None:
        specials = list(specials)
        alphabet = sorted(set(alphabet))
        clash = set(specials) & set(alphabet)
        if clash:
            raise ConfigError(f"The special token {sorted(clash)[0]!r} is also a base symbol.")
        self.tokens: list[str] = [*specials, *alphabet]
        self.ids: dict[str, int] = {token: i for i, token in enumerate(self.tokens)}
        self.created_at: list[int] = [0] * len(self.tokens)
        self.n_special = len(specials)
        self.n_base = len(alphabet)

    def __len__(self) -> int:
        return len(self.tokens)

    def is_special(self, token_id: int) -> bool:
        return token_id < self.n_special

    def add(self, token: str, step: int) -> int:
        """Append a new token created at ``step``; returns its id."""
        token_id = len(self.tokens)
        self.tokens.append(token)
        self.ids[token] = token_id
        self.created_at.append(step)
        return token_id

    def remove_last(self) -> None:
        """Forget the most recently added token (undo of the merge that created it)."""
        del self.ids[self.tokens.pop()]
        self.created_at.pop()
