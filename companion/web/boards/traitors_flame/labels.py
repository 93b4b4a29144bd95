"""Button labels: a legal action in words, with what the play will do as the engine foresees it."""

from __future__ import annotations

from collections.abc import Sequence

from companion.cardgames.traitors_flame.effects import Step
from companion.cardgames.traitors_flame.moves import Action
from companion.cardgames.traitors_flame.view import View

from .words import card_name, pgettext, seat_name


def label(action: Action, view: View, names: Sequence[str] | None = None) -> str:
    """The button text of a legal action: the card, its target and what it will do."""
    if action.get("type") == "draw":
        if view["deck"]["top_is_flame"]:
            return pgettext("traitors-flame", "Draw the top card (a Flame)")
        return pgettext("traitors-flame", "Draw the top card")
    if action.get("type") != "play" or "card" not in action:
        return str(action.get("type", "?"))
    card = card_name(action["card"])
    steps = _steps(action, view)
    target = action.get("target")
    if target is None and steps:
        return pgettext("traitors-flame", "Play %(card)s: %(steps)s", card=card, steps=steps)
    if target is None:
        return pgettext("traitors-flame", "Play %(card)s", card=card)
    who = _who(target, view, names)
    if steps:
        return pgettext(
            "traitors-flame",
            "Play %(card)s on %(target)s: %(steps)s",
            card=card,
            target=who,
            steps=steps,
        )
    return pgettext("traitors-flame", "Play %(card)s on %(target)s", card=card, target=who)


def _who(seat: int, view: View, names: Sequence[str] | None) -> str:
    if seat == view["seat"]:
        return pgettext("traitors-flame", "yourself")
    return seat_name(seat, names)


def _planned(action: Action, view: View) -> list[Step] | None:
    """What the view says the play would do (None: not one of the viewer's legal actions)."""
    pending = view["pending"]
    if pending is None:
        return None
    for listed, steps in zip(pending["actions"], pending["outcomes"], strict=True):
        if listed == action:
            return steps
    return None


def _steps(action: Action, view: View) -> str:
    """The worded parts of what the play does, each but the last in its joining form."""
    planned = _planned(action, view)
    if planned is None:
        return ""
    if not planned:
        return pgettext("traitors-flame", "no effect")
    worded = [w for w in (_step(step) for step in planned) if w is not None]
    if not worded:
        return ""
    return "".join(joined for _plain, joined in worded[:-1]) + worded[-1][0]


def _step(step: Step) -> tuple[str, str] | None:
    """(plain phrase, phrase joined to the next one) for a step a player chose or should know."""
    name = step["block"]
    if name == "TAKE":
        if step["take"] == "flame":
            return pgettext("traitors-flame", "take a Flame"), pgettext(
                "traitors-flame", "take a Flame, "
            )
        if step["take"] == "non_flame":
            return pgettext("traitors-flame", "take a random non-Flame card"), pgettext(
                "traitors-flame", "take a random non-Flame card, "
            )
        return pgettext("traitors-flame", "nothing to take"), pgettext(
            "traitors-flame", "nothing to take, "
        )
    if name == "GIVE":
        if step["card"] is None:
            return pgettext("traitors-flame", "nothing to give"), pgettext(
                "traitors-flame", "nothing to give, "
            )
        card = card_name(str(step["card"]))
        return pgettext("traitors-flame", "give %(card)s", card=card), pgettext(
            "traitors-flame", "give %(card)s, ", card=card
        )
    if name == "BOTTOM" and step["source"] == "own_hand" and step["card"] is not None:
        card = card_name(str(step["card"]))
        return (
            pgettext("traitors-flame", "put %(card)s at the bottom of the deck", card=card),
            pgettext("traitors-flame", "put %(card)s at the bottom of the deck, ", card=card),
        )
    return None
