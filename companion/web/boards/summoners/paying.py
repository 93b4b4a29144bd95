"""Paying in a few short steps: whether to use every cost reduction (where the rules let a
payment leave some unused), how many philosopher's stones, then, while more than a handful of
payments remain, how much of one colour; the payment's own button comes last.

Every step is worked out from the payments the view lists (the seat's legal actions), so a
level never holds more than about ``SHOWN`` buttons and no payment is put forward first.
"""

from __future__ import annotations

from collections import Counter

from companion.cardgames.summoners.cards import COLOURS
from companion.cardgames.summoners.state import Action
from companion.cardgames.summoners.view import View

from .catalogue import npgettext, pgettext
from .words import colour_name

# The most payments a level shows as buttons before it is split once more.
SHOWN = 6


def pay_steps(action: Action, view: View) -> tuple[str, ...]:
    """The steps that lead to a payment's button: none when the payments are few."""
    pending = view["pending"]
    listed = pending.get("actions", []) if pending else []
    payments = [a["pay"] for a in listed if a["type"] == "pay"]
    mine = action["pay"]
    path = []
    fewest = min(map(_cards, payments), default=0)
    if any(_cards(p) > fewest for p in payments):  # some leave reductions unused
        path.append(reduction_step(_cards(mine) - fewest))
        payments = [p for p in payments if _cards(p) == _cards(mine)]
    if len(payments) <= SHOWN:
        return tuple(path)
    stones = mine.get("stone", 0)
    if len({p.get("stone", 0) for p in payments}) > 1:
        path.append(stones_step(stones))
        payments = [p for p in payments if p.get("stone", 0) == stones]
    while len(payments) > SHOWN:
        colour = _splitting_colour(payments)
        if colour is None:
            break
        n = mine.get(colour, 0)
        path.append(colour_step(colour, n))
        payments = [p for p in payments if p.get(colour, 0) == n]
    return tuple(path)


def _splitting_colour(payments: list[dict[str, int]]) -> str | None:
    """The colour whose counts split the payments into the smallest largest group (None: the
    payments agree on every colour)."""
    best: tuple[int, str] | None = None
    for colour in COLOURS:
        groups = Counter(p.get(colour, 0) for p in payments)
        if len(groups) > 1 and (best is None or max(groups.values()) < best[0]):
            best = (max(groups.values()), colour)
    return best[1] if best else None


def stones_step(stones: int) -> str:
    """The step of the payments that spend ``stones`` philosopher's stones."""
    if not stones:
        return pgettext("age-of-summoners", "Pay without philosopher's stones")
    return npgettext(
        "age-of-summoners",
        "Pay with %(num)d philosopher's stone",
        "Pay with %(num)d philosopher's stones",
        stones,
    )


def colour_step(colour: str, n: int) -> str:
    """The step of the payments that spend ``n`` mana of ``colour``."""
    if not n:
        return pgettext("age-of-summoners", "No %(colour)s mana", colour=colour_name(colour))
    return pgettext("age-of-summoners", "%(n)s %(colour)s mana", n=n, colour=colour_name(colour))


def _cards(payment: dict[str, int]) -> int:
    """The cards and stones a payment spends."""
    return sum(payment.values())


def reduction_step(unused: int) -> str:
    """The step of the payments that leave ``unused`` cost reductions unused (they pay as many
    cards more)."""
    if not unused:
        return pgettext("age-of-summoners", "Use every cost reduction")
    return npgettext(
        "age-of-summoners",
        "Leave %(num)d reduction unused (pay %(num)d card more)",
        "Leave %(num)d reductions unused (pay %(num)d cards more)",
        unused,
    )


def pay_order(action: Action, view: View) -> int:
    """Where a payment comes among the others: the fewer cards it spends (every reduction
    used), then the fewer stones, the sooner."""
    if action["type"] != "pay":
        return 0
    pending = view["pending"]
    listed = pending.get("actions", []) if pending else []
    fewest = min((_cards(a["pay"]) for a in listed if a["type"] == "pay"), default=0)
    return (_cards(action["pay"]) - fewest) * 100 + action["pay"].get("stone", 0)
