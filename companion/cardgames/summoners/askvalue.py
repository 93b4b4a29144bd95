"""What the heuristic bot makes of an asked ability (section 10: every ability is optional),
as ``Eye.ask_value``: its worth now against declining it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import kinds, trim_of
from .state import FAITH_CAP
from .view import SeatView, asking_copies

if TYPE_CHECKING:
    from .valuation import Eye


def ask_value(self: Eye, kind: str, copies: int | None = None) -> float:
    """Using an asked ability now (``copies`` of the copies asking; None: all of them):
    Nightmare's trim by what it takes from whom, Kasha's by the cards the players of equal
    faith would give, the others by their effects, less what their faith would void later
    (a gain of 2 in hand, Vodyanoy's, is void from faith 9: 4.4)."""
    if trim_of(kind) is not None:
        return self.nightmare_gain()
    ability = kinds()[kind]["ability"]
    if ability["hook"] == "inquisition-equal":
        mine = self.me["faith"]
        equal = sum(1 for s in self.view["seats"] if s["seat"] != self.seat and s["faith"] == mine)
        return equal * self.card_value()
    used = asking_copies(self.view["waiting"], kind) if copies is None else copies
    value = self.effect_value(ability.get("effects", []), used)
    gained = sum(e.get("faith", 0) for e in ability.get("effects", []))
    if gained and self.faith_gain(gained, used) + self.me["faith"] == FAITH_CAP - 1:
        value -= self.void_later() * self.faith_value()
    return value


def void_later(self: Eye) -> int:
    """Faith this seat's hand would gain by one spirit's "gain 2" (Vodyanoy), which faith 9
    voids while 8 would not."""
    return (
        max(
            (
                e.get("faith", 0)
                for kind in self.hand
                for e in kinds()[kind]["ability"].get("effects", [])
                if kinds()[kind]["ability"]["hook"] == "on-summon"
            ),
            default=0,
        )
        // 2
        * 2
    )


def nightmare_gain(self: Eye) -> float:
    """Cards the others would lose minus cards this seat would lose."""

    def excess(s: SeatView) -> int:
        return max(0, int(s["hand_count"]) - 6) + max(0, len(s["mana"]) + int(s["stones"]) - 7)

    mine = excess(self.me)
    theirs = sum(excess(s) for s in self.view["seats"] if s["seat"] != self.seat)
    return 0.6 * float(theirs - mine * (self.players - 1))
