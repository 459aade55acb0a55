"""Tie-break rules: named, documented total orders among pairs tied at the top count.

Each rule turns a pair into a sort key; the smallest key wins. Pairs are given as the display
strings and ids of their two symbols.

* ``first-seen`` (default): the pair whose first occurrence comes earliest, word types in order of
  first appearance in the text, then position in the word. This is what Python's ``max`` over an
  insertion-ordered dict gives in the classic walk-throughs, minbpe and ``tiktoken._educational``.
* ``hf``: the smallest ``(left id, right id)``, as Hugging Face ``tokenizers``' BPE trainer.
* ``subword-nmt``: the lexicographically greatest ``(left, right)`` strings, as subword-nmt's
  ``max(stats, key=lambda x: (stats[x], x))``.
* ``lexicographic``: the lexicographically smallest ``(left, right)`` strings.
* ``random:SEED``: a fixed pseudo-random order per seed (a keyed hash of the two strings), so a run
  is reproducible.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from bpe_core.errors import ConfigError

RULE_NAMES = ("first-seen", "hf", "subword-nmt", "lexicographic", "random")
DESCRIPTIONS = {
    "first-seen": "earliest first occurrence (word order of first appearance, then position)",
    "hf": "smallest (left id, right id), like Hugging Face tokenizers",
    "subword-nmt": "greatest (left, right) strings, like subword-nmt",
    "lexicographic": "smallest (left, right) strings",
    "random": "a fixed pseudo-random order given by a seed",
}


@dataclass(frozen=True)
class TieBreakRule:
    """A parsed rule: ``name`` is one of :data:`RULE_NAMES`; ``seed`` is set for ``random``."""

    name: str
    seed: int = 0

    @property
    def spec(self) -> str:
        """The rule as written on the command line, e.g. ``random:7``."""
        return f"random:{self.seed}" if self.name == "random" else self.name

    @property
    def depends_on_position(self) -> bool:
        """True for ``first-seen``, whose key changes as merges move first occurrences."""
        return self.name == "first-seen"

    def static_key(self, left: str, right: str, left_id: int, right_id: int) -> object:
        """Sort key of a pair for the rules whose order does not depend on the corpus state.

        The ids come last: two pairs can look the same (text that spells the end-of-word marker
        beside the marker itself), and the order must still be total."""
        if self.name == "hf":
            return (left_id, right_id)
        if self.name == "lexicographic":
            return (left, right, left_id, right_id)
        if self.name == "subword-nmt":
            return (descending(left), descending(right), left_id, right_id)
        if self.name == "random":
            digest = hashlib.blake2b(
                f"{left}\x00{right}".encode("utf-8", "surrogatepass"),
                digest_size=8,
                key=str(self.seed).encode(),
            ).digest()
            return (int.from_bytes(digest, "big"), left_id, right_id)
        raise ValueError(f"The {self.name} rule has no static key.")


def descending(text: str) -> tuple[int, ...]:
    """A key that sorts strings in reverse lexicographic order (a prefix sorts after its extensions).

    Example: ``sorted(["a", "ab", "b"], key=descending)`` -> ``["b", "ab", "a"]``.
    """
    return (*(-ord(char) for char in text), 1)


def parse_rule(spec: str) -> TieBreakRule:
    """Parse ``first-seen``, ``hf``, ``subword-nmt``, ``lexicographic`` or ``random[:SEED]``."""
    name, _, seed = spec.partition(":")
    if name not in RULE_NAMES:
        raise ConfigError(f"Unknown tie-break rule {spec!r}; choose one of: {', '.join(RULE_NAMES)}.")
    if name != "random":
        if seed:
            raise ConfigError(f"The {name} tie-break rule takes no seed.")
        return TieBreakRule(name)
    if seed and not (seed.isdigit() and seed.isascii()):
        raise ConfigError(f"The random tie-break seed {seed[:40]!r} is not a whole number.")
    if len(seed) > 64:  # the seed is the key of a BLAKE2b hash, 64 bytes at most
        raise ConfigError(f"The random tie-break seed {seed[:40] + '…'!r} has more than 64 digits.")
    return TieBreakRule("random", int(seed or 0))
