"""Age of Summoners choices as steps: what to do first (summon, an action, a payment's stones),
then the exact choice, so a phone shows a few buttons at a time instead of one long list."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.cardgames.summoners.state import Action
from companion.cardgames.summoners.view import View

from .catalogue import npgettext, pgettext
from .words import action_name


def steps(
    action: Action, label: str, view: View, names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The step labels that lead to ``action``; the last is its full ``label``."""
    first = _FIRST.get(action["type"])
    head = first(action) if first is not None else None
    return (head, label) if head else (label,)


def _summon(action: Action) -> str:
    return pgettext("age-of-summoners", "Summon a spirit")


def _place(action: Action) -> str:
    return pgettext("age-of-summoners", "Place a card as mana first")


def _paid(action: Action) -> str:
    return pgettext("age-of-summoners", "Use a spirit's ability")


def _act(action: Action) -> str:
    return action_name(action["action"])


def _pay(action: Action) -> str:
    stones = int((action.get("pay") or {}).get("stone", 0))
    if not stones:
        return str(pgettext("age-of-summoners", "Pay without philosopher's stones"))
    return str(
        npgettext(
            "age-of-summoners",
            "Pay with %(num)d philosopher's stone",
            "Pay with %(num)d philosopher's stones",
            stones,
        )
    )


def _discard(action: Action) -> str:
    if action.get("zone") == "hand":
        return str(pgettext("age-of-summoners", "Discard from your hand"))
    return str(pgettext("age-of-summoners", "Discard mana or a stone"))


_FIRST: dict[str, Callable[[Action], str]] = {
    "summon": _summon,
    "place": _place,
    "paid": _paid,
    "act": _act,
    "pay": _pay,
    "discard": _discard,
}
