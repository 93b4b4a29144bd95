"""What taking a Phase II action is worth to the heuristic bot at once, as ``Eye.act_value``
(what it gains now and the triggers it sets off, not the position it leads to)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .state import REFILL_TO

if TYPE_CHECKING:
    from .valuation import Eye


def action_value(
    self: Eye, name: str, action: Mapping[str, Any] | None = None, extra_mana: str | None = None
) -> float:
    """Immediate worth of taking action ``name`` (with its choice, if given)."""
    choice = (action or {}).get("choice")
    me = self.me
    card, faith = self.card_value(), self.faith_value()
    others = [s for s in self.view["seats"] if s["seat"] != self.seat]
    if name == "conquest":
        base = self.icons["axe"] + self.icons["sword"] + 1.0
        base += 0.5 if (action or {}).get("victim") is not None else 0.0
    elif name == "research":
        base = me["stones"] + self.stone_value() - 0.45 * self.scale
    elif name == "alchemy":
        gain = {"draw": card, "faith": faith}.get(choice or "", max(card, faith))
        base = gain + self.stone_value()
    elif name == "prayer":
        refill = max(0, REFILL_TO - len(self.hand) + (1 if extra_mana else 0)) * card
        base = {"draw": 2 * card, "refill": refill}.get(choice or "", max(2 * card, refill))
    elif name == "festival":
        lower = any(s["faith"] < min(10, me["faith"] + 1) for s in others)
        base = faith + (2 if lower else 1) * 0.55 * self.scale
    elif name == "inquisition":
        givers = sum(1 for s in others if s["faith"] < me["faith"] and s["hand_count"])
        base = (2 if self.players == 4 else 3) * card + 0.6 * givers * self.scale
    else:
        gains = {"vp": float(me["faith"]), "faith": card + faith}
        base = gains.get(choice or "", max(gains.values()))
    return base + self.triggers(name)
