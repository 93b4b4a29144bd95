"""Button labels of the Age of Summoners legal actions, in the current Babel locale.

A label reads the action and the view only: what a play reaches, what a summon costs and what
an action gives come from the engine's view (``pending``), never worked out here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.cardgames.summoners.cards import kinds, number_of_action

from .catalogue import pgettext
from .words import (
    action_name,
    card_tag,
    colour_name,
    cost_words,
    effect_words,
    kind_id,
    kind_name,
    listed,
    payment_words,
    seat_name,
)

Names = Sequence[str] | None
Label = Callable[[dict[str, Any], dict[str, Any], Names], str]


def label(action: dict[str, Any], view: dict[str, Any], names: Names = None) -> str:
    """The button text of a legal action: the card, the choice and what it does."""
    handler = _LABELS.get(str(action.get("type")))
    if handler is None:
        return str(action.get("type") or "?")
    return handler(action, view, names)


def _pending(view: dict[str, Any], key: str) -> Any:
    return (view.get("pending") or {}).get(key) or {}


def _my_seat(view: dict[str, Any]) -> dict[str, Any]:
    me = view.get("seat")
    seats = view.get("seats") or []
    return seats[me] if me is not None and 0 <= me < len(seats) else {}


def _play(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    card = str(a["card"])
    play = _pending(view, "plays").get(card) or {"number": 0, "reach": {}}
    base = int(play["number"])
    extra = [
        pgettext("age-of-summoners", "%(action)s %(n)s", action=action_name(name), n=number)
        for name, (number, via) in play["reach"].items()
        if via != "base"
    ]
    pair = view.get("next_pairing")
    params = {
        "card": kind_name(card),
        "number": kinds()[kind_id(card)]["number"],
        "base": base,
        "action": action_name(number_of_action(base)),
    }
    if pair:
        text = pgettext(
            "age-of-summoners",
            "Play %(card)s (%(number)s) beside %(pair)s (%(pair_number)s): %(base)s, %(action)s",
            pair=kind_name(pair["kind"]),
            pair_number=pair["number"],
            **params,
        )
    else:
        text = pgettext(
            "age-of-summoners", "Play %(card)s (%(number)s): %(base)s, %(action)s", **params
        )
    if extra:
        text += pgettext("age-of-summoners", " (also %(list)s)", list=listed(extra))
    return text


def _play_top(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    return pgettext("age-of-summoners", "Play the top card of the deck (your hand is empty)")


def _summon(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    kind = kind_id(str(a["card"]))
    cost = _pending(view, "costs").get(kind) or {"cost": kinds()[kind]["cost"], "free": 0}
    words = cost_words(cost["cost"])
    if cost["free"]:
        return pgettext(
            "age-of-summoners",
            "Summon %(card)s (pay %(cost)s, %(free)s coloured fewer)",
            card=kind_name(kind),
            cost=words,
            free=cost["free"],
        )
    return pgettext(
        "age-of-summoners", "Summon %(card)s (pay %(cost)s)", card=kind_name(kind), cost=words
    )


def _place(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    card = str(a["card"])
    return pgettext(
        "age-of-summoners",
        "First place %(card)s (%(tag)s) as mana",
        card=kind_name(card),
        tag=card_tag(card),
    )


def _paid(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    kind = str(a["kind"])
    ability = kinds()[kind]["ability"]
    return pgettext(
        "age-of-summoners",
        "Use %(card)s: pay %(cost)s to %(effect)s",
        card=kind_name(kind),
        cost=cost_words(ability.get("cost", [])),
        effect=effect_words(ability.get("effects", [])),
    )


def _pay(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    return pgettext("age-of-summoners", "Pay with %(what)s", what=payment_words(a.get("pay") or {}))


def _act(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    name = str(a["action"])
    reach = (view.get("command") or {}).get("actions") or {}
    number, via = (reach.get(name) or [None, "base"])[:2]
    head = action_name(name)
    if number is not None:
        head = pgettext("age-of-summoners", "%(action)s (%(n)s)", action=head, n=number)
    if via == "zero-played":
        head += pgettext("age-of-summoners", " (Asmodai)")
    elif via == "shift":
        head += pgettext("age-of-summoners", " (Sandman)")
    how = _ACT_WORDS[name](a, view, _pending(view, "gains"), names)
    return pgettext("age-of-summoners", "%(head)s: %(how)s", head=head, how=how)


def _conquest(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    victim = a.get("victim")
    if victim is None:
        return pgettext(
            "age-of-summoners",
            "gain %(n)s VP for axes and swords, take 1 VP from the supply",
            n=gains.get("conquest", 0),
        )
    return pgettext(
        "age-of-summoners",
        "gain %(n)s VP for axes and swords, take 1 VP from %(victim)s",
        n=gains.get("conquest", 0),
        victim=seat_name(victim, names),
    )


def _research(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    n = gains.get("research", 0)
    if a.get("flip"):
        return pgettext(
            "age-of-summoners",
            "gain %(n)s VP for stones, then turn a %(colour)s mana into a stone",
            n=n,
            colour=colour_name(str(a["flip"])),
        )
    return pgettext("age-of-summoners", "gain %(n)s VP for stones", n=n)


def _alchemy(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    if a.get("choice") == "draw":
        return pgettext("age-of-summoners", "draw 1 card and gain a stone")
    return pgettext("age-of-summoners", "gain 1 faith and a stone")


def _prayer(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    if a.get("choice") == "draw":
        return pgettext("age-of-summoners", "draw 2 cards")
    return pgettext("age-of-summoners", "discard any, then draw up to 5")


def _festival(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    return pgettext("age-of-summoners", "gain 1 faith, reveal 2 cards for your mana row")


def _inquisition(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    n = gains.get("inquisition", 0)
    givers = [seat_name(g, names) for g in gains.get("givers", [])]
    if not givers:
        return pgettext("age-of-summoners", "draw %(n)s, nobody has less faith", n=n)
    if len(givers) == 1:
        return pgettext(
            "age-of-summoners", "draw %(n)s, then %(who)s gives you a card", n=n, who=givers[0]
        )
    who = pgettext("age-of-summoners", " and ").join(givers)
    return pgettext(
        "age-of-summoners", "draw %(n)s, then %(who)s each give you a card", n=n, who=who
    )


def _pilgrimage(a: dict[str, Any], view: dict[str, Any], gains: Any, names: Names) -> str:
    if a.get("choice") == "vp":
        return pgettext(
            "age-of-summoners", "gain %(n)s VP (your faith)", n=gains.get("pilgrimage", 0)
        )
    return pgettext("age-of-summoners", "draw 1 card and gain 1 faith")


_ACT_WORDS: dict[str, Callable[[dict[str, Any], dict[str, Any], Any, Names], str]] = {
    "conquest": _conquest,
    "research": _research,
    "alchemy": _alchemy,
    "prayer": _prayer,
    "festival": _festival,
    "inquisition": _inquisition,
    "pilgrimage": _pilgrimage,
}


def _discard(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    zone = a.get("zone")
    if zone == "stones":
        return pgettext("age-of-summoners", "Discard a philosopher's stone")
    card = str(a.get("card", ""))
    if zone != "mana":
        return pgettext("age-of-summoners", "Discard %(card)s from your hand", card=kind_name(card))
    mine = _my_seat(view).get("mana", [])
    if any(c.get("id") == card and c.get("pairing") for c in mine):
        return pgettext(
            "age-of-summoners",
            "Discard your pairing card (%(tag)s, %(card)s)",
            tag=card_tag(card),
            card=kind_name(card),
        )
    return pgettext(
        "age-of-summoners",
        "Discard a %(colour)s mana (%(card)s)",
        colour=colour_name(kinds()[kind_id(card)]["colour"]),
        card=kind_name(card),
    )


def _done(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    return pgettext("age-of-summoners", "Stop discarding and draw up to 5")


def _give(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    to = (view.get("waiting") or {}).get("to")
    return pgettext(
        "age-of-summoners",
        "Give %(card)s to %(who)s",
        card=kind_name(str(a["card"])),
        who=seat_name(to, names),
    )


def _choose(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    card = str(a["card"])
    others = [c for c in view.get("reveal", []) if c.get("id") != card]
    params = {"card": kind_name(card), "tag": card_tag(card)}
    if not others:
        return pgettext("age-of-summoners", "Place %(card)s (%(tag)s) as mana", **params)
    return pgettext(
        "age-of-summoners",
        "Place %(card)s (%(tag)s) as mana, discard %(other)s",
        other=kind_name(others[0]["kind"]),
        **params,
    )


def _keep(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    card = str(a["card"])
    drawn = _pending(view, "drawn") or []
    others = [c for c in drawn if c.get("id") != card]
    if not others:
        return pgettext("age-of-summoners", "Keep %(card)s", card=kind_name(card))
    me = view.get("seat")
    right = seat_name((me - 1) % view["players"], names) if me is not None else "—"
    other = others[0]["kind"]
    return pgettext(
        "age-of-summoners",
        "Keep %(card)s, give %(other)s (%(tag)s) to %(who)s",
        card=kind_name(card),
        other=kind_name(other),
        tag=card_tag(other),
        who=right,
    )


def _optional(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    kind = str((view.get("waiting") or {}).get("kind") or "")
    if kind not in kinds():
        return "?"
    name = kind_name(kind)
    trims = [e["trim"] for e in kinds()[kind]["ability"].get("effects", []) if "trim" in e]
    if not a.get("use"):
        return pgettext("age-of-summoners", "Do not use %(card)s", card=name)
    if trims:
        return pgettext(
            "age-of-summoners",
            "Use %(card)s: everyone discards down to %(hand)s hand cards and %(mana)s mana",
            card=name,
            hand=trims[0]["hand"],
            mana=trims[0]["mana"],
        )
    return pgettext("age-of-summoners", "Use %(card)s", card=name)


def _declare(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    return pgettext("age-of-summoners", "Declare the end (one more lap, then the match ends)")


def _pass(a: dict[str, Any], view: dict[str, Any], names: Names) -> str:
    return pgettext("age-of-summoners", "Do not declare yet")


_LABELS: dict[str, Label] = {
    "play": _play,
    "play-top": _play_top,
    "summon": _summon,
    "place": _place,
    "paid": _paid,
    "pay": _pay,
    "act": _act,
    "discard": _discard,
    "done": _done,
    "give": _give,
    "choose": _choose,
    "keep": _keep,
    "optional": _optional,
    "declare": _declare,
    "pass": _pass,
}
