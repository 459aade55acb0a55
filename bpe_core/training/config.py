"""The training options (minimum frequency, tie rule, merges per pass), validated once."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bpe_core.errors import ConfigError
from bpe_core.pipeline.config import checked_fields
from bpe_core.training.tie_rules import parse_rule


@dataclass(frozen=True)
class TrainingConfig:
    """How the trainer chooses merges.

    Attributes
    ----------
    min_frequency : a pair is merged only if it occurs at least this often (default 2).
    tie_break : name of the rule ordering pairs tied at the top count (see ``bpe_core.training.tie_rules``).
    merges_per_pass : how many merges one step makes (as the FRED FED TED BREAD walk-through
        allows): 1 is the classic algorithm; K > 1 takes up to K non-conflicting pairs of the
        ranking at once; 0 takes all.
    """

    min_frequency: int = 2
    tie_break: str = "first-seen"
    merges_per_pass: int = 1

    def __post_init__(self) -> None:
        if isinstance(self.min_frequency, bool) or not isinstance(self.min_frequency, int):
            raise ConfigError("The minimum frequency must be a whole number.")
        if self.min_frequency < 1:
            raise ConfigError("The minimum frequency must be at least 1.")
        parse_rule(self.tie_break)
        if isinstance(self.merges_per_pass, bool) or not isinstance(self.merges_per_pass, int):
            raise ConfigError("The merges per pass must be a whole number (0 for all).")
        if self.merges_per_pass < 0:
            raise ConfigError("The merges per pass must be at least 1, or 0 for all.")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainingConfig:
        return cls(**checked_fields(cls, data, "training"))
