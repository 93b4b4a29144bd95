"""What a seat's actions would give now, as the buttons describe them (the view's ``gains``)."""

from __future__ import annotations

from typing import TypedDict

from .actions import conquest_gain, inquisition_draw, inquisition_givers
from .state import State


class Gains(TypedDict):
    """What the seat's actions would give now, as the buttons describe them."""

    conquest: int  # VP for axes and swords, before the steal
    research: int  # VP for stones
    pilgrimage: int  # VP for faith
    inquisition: int  # cards drawn
    givers: list[int]  # who would give a card, in turn order


def action_prospects(s: State, seat: int) -> Gains:
    """What the seat's actions would give now, as the buttons describe them."""
    p = s["seats"][seat]
    return {
        "conquest": conquest_gain(s, seat),
        "research": len(p["stones"]),
        "pilgrimage": p["faith"],
        "inquisition": inquisition_draw(s),
        "givers": inquisition_givers(s, seat),
    }
