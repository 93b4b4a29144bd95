"""A running score: the points each seat has banked toward the winning total.

Hands are scored only when a round ends, so the banked totals are all anyone may see."""

from __future__ import annotations

from typing import TypedDict

from .moves import Result, State

WIN_SCORE = 20


class Standing(TypedDict):
    """One seat's banked total, the winning total and what it still needs."""

    total: int
    goal: int
    to_go: int


def standings(st: State) -> list[Standing]:
    """Every seat's banked total from the rounds scored so far, and what it still needs."""
    return [
        {"total": total, "goal": WIN_SCORE, "to_go": max(0, WIN_SCORE - total)}
        for total in st["totals"]
    ]


def ranking(result: Result) -> list[int]:
    """Seats from first to last: higher total first, a tie to whoever would play sooner (D6)."""
    totals = result["totals"]
    order = result.get("order") or list(range(len(totals)))
    return sorted(order, key=lambda s: (-totals[s], order.index(s)))
