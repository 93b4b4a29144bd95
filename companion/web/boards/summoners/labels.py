"""Button labels of the Age of Summoners legal actions, in the current Babel locale.

A label reads the action and the view only: what a play reaches, what a summon costs, what an
action gives and the amounts the rules use come from the engine's view, never worked out here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.cardgames.summoners.cards import kinds
from companion.cardgames.summoners.prospects import Gains
from companion.cardgames.summoners.state import Action
from companion.cardgames.summoners.view import Pending, View

from .asking import optional_label
from .catalogue import npgettext, pgettext
from .words import (
    action_name,
    card_tag,
    colour_name,
    cost_words,
    effect_words,
    kind_id,
    kind_name,
    listed,
    my_seat,
    payment_words,
    seat_name,
)

Names = Sequence[str] | None
Label = Callable[[Action, View, Names], str]


def label(action: Action, view: View, names: Names = None) -> str:
    """The button text of a legal action: the card, the choice and what it does."""
    handler = _LABELS.get(action["type"])
    if handler is None:
        return action["type"] or "?"
    return handler(action, view, names)


def _pending(view: View) -> Pending:
    """The viewer's decision: a label is asked for the viewing seat's legal actions only."""
    pending = view["pending"]
    assert pending is not None, "labels are for the viewing seat's legal actions"
    return pending


def _play(a: Action, view: View, names: Names) -> str:
    card = a["card"]
    play = _pending(view)["plays"][card]
    base = next(name for name, (_n, via) in play["reach"].items() if via == "base")
    extra = [
        pgettext("age-of-summoners", "%(action)s %(n)s", action=action_name(name), n=number)
        for name, (number, via) in play["reach"].items()
        if via != "base"
    ]
    pair = view["next_pairing"]
    params: dict[str, object] = {
        "card": kind_name(card),
        "number": kinds()[kind_id(card)]["number"],
        "base": play["number"],
        "action": action_name(base),
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


def _play_top(a: Action, view: View, names: Names) -> str:
    return pgettext("age-of-summoners", "Play the top card of the deck (your hand is empty)")


def _summon(a: Action, view: View, names: Names) -> str:
    kind = kind_id(a["card"])
    cost = _pending(view)["costs"][kind]
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


def _place(a: Action, view: View, names: Names) -> str:
    card = a["card"]
    return pgettext(
        "age-of-summoners",
        "First place %(card)s (%(tag)s) as mana",
        card=kind_name(card),
        tag=card_tag(card),
    )


def _paid(a: Action, view: View, names: Names) -> str:
    kind = a["kind"]
    ability = kinds()[kind]["ability"]
    return pgettext(
        "age-of-summoners",
        "Use %(card)s: pay %(cost)s to %(effect)s",
        card=kind_name(kind),
        cost=cost_words(ability.get("cost", [])),
        effect=effect_words(ability.get("effects", [])),
    )


def _pay(a: Action, view: View, names: Names) -> str:
    return pgettext("age-of-summoners", "Pay with %(what)s", what=payment_words(a["pay"]))


def _act(a: Action, view: View, names: Names) -> str:
    name = a["action"]
    command = view["command"]
    assert command is not None, "an action is taken with a command number"
    number, via = command["actions"][name]
    head = pgettext("age-of-summoners", "%(action)s (%(n)s)", action=action_name(name), n=number)
    if via == "zero-played":
        head += pgettext("age-of-summoners", " (Asmodai)")
    elif via == "shift":
        head += pgettext("age-of-summoners", " (Sandman)")
    how = _ACT_WORDS[name](a, view, _pending(view)["gains"], names)
    return pgettext("age-of-summoners", "%(head)s: %(how)s", head=head, how=how)


def _conquest(a: Action, view: View, gains: Gains, names: Names) -> str:
    victim = a.get("victim")
    take = view["numbers"]["conquest_take"]
    if victim is None:
        return pgettext(
            "age-of-summoners",
            "gain %(n)s VP for axes and swords, take %(take)s VP from the supply",
            n=gains["conquest"],
            take=take,
        )
    return pgettext(
        "age-of-summoners",
        "gain %(n)s VP for axes and swords, take %(take)s VP from %(victim)s",
        n=gains["conquest"],
        take=take,
        victim=seat_name(victim, names),
    )


def _research(a: Action, view: View, gains: Gains, names: Names) -> str:
    n = gains["research"]
    flip = a.get("flip")
    if flip:
        return pgettext(
            "age-of-summoners",
            "gain %(n)s VP for stones, then turn a %(colour)s mana into a stone",
            n=n,
            colour=colour_name(flip),
        )
    return pgettext("age-of-summoners", "gain %(n)s VP for stones", n=n)


def _alchemy(a: Action, view: View, gains: Gains, names: Names) -> str:
    numbers = view["numbers"]
    if a.get("choice") == "draw":
        return npgettext(
            "age-of-summoners",
            "draw %(num)d card and gain a stone",
            "draw %(num)d cards and gain a stone",
            numbers["alchemy_draw"],
        )
    return pgettext("age-of-summoners", "gain %(n)s faith and a stone", n=numbers["alchemy_faith"])


def _prayer(a: Action, view: View, gains: Gains, names: Names) -> str:
    numbers = view["numbers"]
    if a.get("choice") == "draw":
        return npgettext(
            "age-of-summoners", "draw %(num)d card", "draw %(num)d cards", numbers["prayer_draw"]
        )
    return pgettext(
        "age-of-summoners", "discard any, then draw up to %(n)s", n=numbers["refill_to"]
    )


def _festival(a: Action, view: View, gains: Gains, names: Names) -> str:
    numbers = view["numbers"]
    return npgettext(
        "age-of-summoners",
        "gain %(faith)s faith, reveal %(num)d card for your mana row",
        "gain %(faith)s faith, reveal %(num)d cards for your mana row",
        numbers["festival_reveal"],
        faith=numbers["festival_faith"],
    )


def _inquisition(a: Action, view: View, gains: Gains, names: Names) -> str:
    n = gains["inquisition"]
    givers = [seat_name(g, names) for g in gains["givers"]]
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


def _pilgrimage(a: Action, view: View, gains: Gains, names: Names) -> str:
    if a.get("choice") == "vp":
        return pgettext("age-of-summoners", "gain %(n)s VP (your faith)", n=gains["pilgrimage"])
    numbers = view["numbers"]
    return npgettext(
        "age-of-summoners",
        "draw %(num)d card and gain %(faith)s faith",
        "draw %(num)d cards and gain %(faith)s faith",
        numbers["pilgrimage_draw"],
        faith=numbers["pilgrimage_faith"],
    )


_ACT_WORDS: dict[str, Callable[[Action, View, Gains, Names], str]] = {
    "conquest": _conquest,
    "research": _research,
    "alchemy": _alchemy,
    "prayer": _prayer,
    "festival": _festival,
    "inquisition": _inquisition,
    "pilgrimage": _pilgrimage,
}


def _discard(a: Action, view: View, names: Names) -> str:
    zone = a.get("zone")
    if zone == "stones":
        return pgettext("age-of-summoners", "Discard a philosopher's stone")
    card = a["card"]
    if zone != "mana":
        return pgettext("age-of-summoners", "Discard %(card)s from your hand", card=kind_name(card))
    seat = my_seat(view)
    if seat is not None and any(c.get("id") == card and c["pairing"] for c in seat["mana"]):
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


def _done(a: Action, view: View, names: Names) -> str:
    return pgettext(
        "age-of-summoners", "Stop discarding and draw up to %(n)s", n=view["numbers"]["refill_to"]
    )


def _give(a: Action, view: View, names: Names) -> str:
    waiting = view["waiting"]
    return pgettext(
        "age-of-summoners",
        "Give %(card)s to %(who)s",
        card=kind_name(a["card"]),
        who=seat_name(waiting.get("to") if waiting else None, names),
    )


def _choose(a: Action, view: View, names: Names) -> str:
    card = a["card"]
    others = [c for c in view["reveal"] if c.get("id") != card]
    params = {"card": kind_name(card), "tag": card_tag(card)}
    if not others:
        return pgettext("age-of-summoners", "Place %(card)s (%(tag)s) as mana", **params)
    return pgettext(
        "age-of-summoners",
        "Place %(card)s (%(tag)s) as mana, discard %(other)s",
        other=kind_name(others[0]["kind"]),
        **params,
    )


def _keep(a: Action, view: View, names: Names) -> str:
    card = a["card"]
    others = [c for c in _pending(view).get("drawn", []) if c.get("id") != card]
    seat = my_seat(view)
    if not others or seat is None:
        return pgettext("age-of-summoners", "Keep %(card)s", card=kind_name(card))
    other = others[0]["kind"]
    return pgettext(
        "age-of-summoners",
        "Keep %(card)s, give %(other)s (%(tag)s) to %(who)s",
        card=kind_name(card),
        other=kind_name(other),
        tag=card_tag(other),
        who=seat_name(seat["assists_to"], names),
    )


def _declare(a: Action, view: View, names: Names) -> str:
    return pgettext("age-of-summoners", "Declare the end (one more lap, then the match ends)")


def _pass(a: Action, view: View, names: Names) -> str:
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
    "optional": optional_label,
    "declare": _declare,
    "pass": _pass,
}
