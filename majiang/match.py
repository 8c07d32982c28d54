"""A match: a fixed number of hands at one table, with dealer rotation and running totals."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from majiang.actions import Event
from majiang.round import Round
from majiang.variant import Variant

__all__ = ["Match"]


@dataclass
class Match:
    """The hands of one match. Deal each hand with :meth:`deal`, close it with :meth:`finish`.

    ``dealer`` and ``streak`` are those of the next hand to deal.
    """

    variant: Variant
    settings: dict[str, Any]
    dealer: int
    streak: int = 1
    hands_played: int = 0
    totals: list[int] = field(default_factory=list)

    @classmethod
    def start(
        cls, variant: Variant, settings: Mapping[str, Any] | None, *, seed: str, opener: int = 0
    ) -> Match:
        """A new match. The first dealer follows the variant (D4: the opener; Z5: by seed)."""
        checked = variant.schema.validate(settings)
        dealer = variant.first_dealer(checked, seed, opener)
        return cls(variant, checked, dealer, totals=[0] * variant.players(checked))

    @property
    def hands_total(self) -> int:
        """How many hands the match has (setting ``hands_per_match``)."""
        return int(self.settings["hands_per_match"])

    @property
    def over(self) -> bool:
        """Whether every hand has been played."""
        return self.hands_played >= self.hands_total

    def deal(self, seed: str) -> tuple[Round, list[Event]]:
        """Deal the next hand from ``seed``."""
        if self.over:
            raise ValueError("the match is over")
        return Round.deal(
            self.variant, self.settings, dealer=self.dealer, streak=self.streak, seed=seed
        )

    def finish(self, rnd: Round) -> None:
        """Count an ended hand: add its totals and rotate the dealer."""
        settlement = rnd.settlement()
        for seat, points in enumerate(settlement.totals):
            self.totals[seat] += points
        self.dealer, self.streak = rnd.next_dealer()
        self.hands_played += 1
