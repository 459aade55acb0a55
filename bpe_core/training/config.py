"""The training options (minimum frequency, tie rule, merges per pass), validated once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bpe_core.errors import ConfigError
from bpe_core.pipeline.config import checked_fields
from bpe_core.training.tie_rules import TieBreakRule, parse_rule


@dataclass(frozen=True)
class TrainingConfig:
    """How the trainer chooses merges.

    Attributes
    ----------
    min_frequency : a pair is merged only if it occurs at least this often (default 2).
    tie_break : the rule ordering pairs tied at the top count, as written (``"random:7"``: see
        ``bpe_core.training.tie_rules``).
    rule : that rule parsed, once, here: the trainer and the window take it from the
        configuration (it is not a setting of its own, and not saved).
    merges_per_pass : how many merges one step makes (as the FRED FED TED BREAD walk-through
        allows): 1 is the classic algorithm; K > 1 takes up to K non-conflicting pairs of the
        ranking at once; 0 takes all.
    """

    min_frequency: int = 2
    tie_break: str = "first-seen"
    merges_per_pass: int = 1
    rule: TieBreakRule = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.min_frequency, bool) or not isinstance(self.min_frequency, int):
            raise ConfigError("The minimum frequency must be a whole number.")
        if self.min_frequency < 1:
            raise ConfigError("The minimum frequency must be at least 1.")
        object.__setattr__(self, "rule", parse_rule(self.tie_break))  # frozen: set once, here
        if isinstance(self.merges_per_pass, bool) or not isinstance(self.merges_per_pass, int):
            raise ConfigError("The merges per pass must be a whole number (0 for all).")
        if self.merges_per_pass < 0:
            raise ConfigError("The merges per pass must be at least 1, or 0 for all.")

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_frequency": self.min_frequency,
            "tie_break": self.tie_break,
            "merges_per_pass": self.merges_per_pass,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        return cls(**checked_fields(cls, data, "training"))
