"""Traitor's Flame choices as steps: the card, then its target, then what it takes, gives or
puts back, so a phone shows a few buttons at a time instead of every combination at once."""

from __future__ import annotations

from collections.abc import Sequence

from companion.cardgames.traitors_flame.moves import Action
from companion.cardgames.traitors_flame.view import View

from .words import card_name, pgettext, seat_name


def steps(
    action: Action, label: str, view: View, names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The step labels that lead to ``action``; the last is its full ``label``."""
    if action.get("type") != "play" or "card" not in action:
        return (label,)
    name = card_name(action["card"])
    path = [pgettext("traitors-flame", "Play %(card)s", card=name)]
    target = action.get("target")
    if isinstance(target, int):
        path.append(_target(target, view, names))
    return (*path, label)


def _target(seat: int, view: View, names: Sequence[str] | None) -> str:
    if seat == view["seat"]:
        return pgettext("traitors-flame", "On yourself")
    return pgettext("traitors-flame", "On %(name)s", name=seat_name(seat, names))
