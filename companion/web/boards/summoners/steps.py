"""Age of Summoners choices as steps: what to do first (summon, an action, a discard), then the
exact choice, so a phone shows a few buttons at a time instead of one long list; payments go
step by step too (paying.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.cardgames.summoners.state import Action
from companion.cardgames.summoners.view import View

from .catalogue import pgettext
from .paying import pay_order, pay_steps
from .words import action_name, kind_name


def steps(
    action: Action, label: str, view: View, names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The step labels that lead to ``action``; the last is its full ``label``."""
    if action["type"] == "pay":
        return (*pay_steps(action, view), label)
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


def _optional(action: Action) -> str:
    return kind_name(action.get("kind", ""))


def _discard(action: Action) -> str:
    if action.get("zone") == "hand":
        return pgettext("age-of-summoners", "Discard from your hand")
    return pgettext("age-of-summoners", "Discard mana or a stone")


_FIRST: dict[str, Callable[[Action], str]] = {
    "summon": _summon,
    "place": _place,
    "paid": _paid,
    "act": _act,
    "discard": _discard,
    "optional": _optional,
}


def step_order(action: Action, view: View) -> int:
    """Where a choice comes among its steps' buttons: payments with fewer stones first."""
    return pay_order(action, view)
