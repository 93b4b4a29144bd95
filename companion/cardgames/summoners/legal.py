"""Legal actions, the one source of legality, and the check ``apply`` runs before acting.

Copies of one kind in the same zone are interchangeable, so the list names one copy per kind
(the first in the zone); ``apply`` accepts any copy of a listed kind. Mana is interchangeable
within a colour, so payments are colour counts (see payment.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.cardgames import CardGameRuleError, shown

from .abilities import reachable_of
from .cards import COLOURS, colour_of_card, kind_of_card, kinds
from .lineup import Lineup, lineup, warded
from .payment import PRICES, can_pay, mana_counts, payment_dict, pending_options, price, symbols
from .refusals import (
    BAD_CHOICE,
    CANNOT_PAY,
    MATCH_OVER,
    NOT_AN_ACTION,
    NOT_IN_HAND,
    NOT_NOW,
    NOT_YOUR_TURN,
    PAYMENT_SHORT,
)
from .state import Action, Await, State, mana_count, rules, zone_cards

Counts = tuple[int, ...]
_KIND = kind_of_card()
_COLOUR = colour_of_card()
# kinds with a paid ability -> its cost's price
_PAID_PRICE = {
    k: price(*symbols(tuple(spec["ability"]["cost"])))
    for k, spec in kinds().items()
    if spec["ability"]["hook"] == "paid"
}


def legal_actions(s: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now; empty when it is not that seat's choice."""
    ctx = s["await"]
    if ctx is None or ctx["seat"] != seat or s["result"] is not None:
        return []
    return PHASES[ctx["phase"]](s, seat, ctx)


def first_copies(cards: list[str]) -> list[str]:
    """The first card of each kind among ``cards``, in their order (one action per kind)."""
    seen: dict[str, str] = {}
    first = seen.setdefault
    kind_of = _KIND
    for card in cards:
        first(kind_of[card], card)
    return list(seen.values())


def _play(s: State, seat: int, ctx: Await) -> list[Action]:
    hand = s["seats"][seat]["hand"]
    if not hand:
        return [{"type": "play-top"}]
    return [{"type": "play", "card": c} for c in first_copies(hand)]


def summons(s: State, seat: int) -> list[Action]:
    """One summon per kind in hand the seat can pay for (the payment is chosen next)."""
    avail, stones = mana_counts(s, seat)
    return hand_summons(s["seats"][seat]["hand"], lineup(s, seat), avail, stones)


def hand_summons(hand: list[str], spirits: Lineup, avail: Counts, stones: int) -> list[Action]:
    """The summons of hand cards (one per kind) that the mana on hand can pay for."""
    counts, free, kind_of, prices = spirits.counts, spirits.free, _KIND, PRICES
    have = avail[0] + avail[1] + avail[2] + avail[3] + avail[4] + stones
    found: list[Action] = []
    seen: set[str] = set()
    for card in hand:  # the first copy of each kind, as first_copies() lists them
        kind = kind_of[card]
        if kind in seen:
            continue
        seen.add(kind)
        # the price of lineup_cost(), read from its table
        if can_pay(prices[kind][kind in counts], free, avail, stones, have):
            found.append({"type": "summon", "card": card})
    return found


def placements(
    s: State, seat: int, spirits: Lineup, avail: Counts, stones: int, payable: set[str]
) -> list[Action]:
    """Baltanders: a hand card may become mana when that lets another hand card be summoned.

    ``payable``: the kinds in hand the seat can already pay for (more mana keeps them payable).
    """
    if s["turn"]["placed"] >= spirits.place:
        return []
    hand = s["seats"][seat]["hand"]
    copies: dict[str, int] = {}
    for card in hand:
        copies[_KIND[card]] = copies.get(_KIND[card], 0) + 1
    helped: dict[str, set[str]] = {}  # colour placed -> the other kinds in hand it makes payable
    found: list[Action] = []
    for card in first_copies(hand):
        kind = _KIND[card]
        others = [k for k in copies if k != kind or copies[k] > 1]
        if not any(k in payable for k in others):
            colour = _COLOUR[card]
            if colour not in helped:
                i = COLOURS.index(colour)
                more = avail[:i] + (avail[i] + 1,) + avail[i + 1 :]
                have = sum(more) + stones
                helped[colour] = {
                    k
                    for k in copies
                    if k not in payable
                    and can_pay(PRICES[k][k in spirits.counts], spirits.free, more, stones, have)
                }
            if not any(k in helped[colour] for k in others):
                continue
        found.append({"type": "place", "card": card})
    return found


def _acts(s: State, seat: int, avail: Counts, spirits: Lineup, found: list[Action]) -> list[Action]:
    """Adds the seat's actions to ``found`` and returns it."""
    for name, _ in reachable_of(s, spirits):
        found += act_variants(s, seat, name, avail)
    return found


def act_variants(s: State, seat: int, name: str, avail: Counts) -> list[Action]:
    """The legal forms of one reachable action: a conquest per victim, a research per colour
    to flip, an alchemy, prayer or pilgrimage per choice (``avail``: the seat's mana counts)."""
    if name == "conquest":
        seats = s["seats"]
        victims: list[int | None] = [
            o
            for o in range(s["players"])
            if o != seat and seats[o]["vp"] > 0 and not warded(s, o, "steal")
        ]
        return [{"type": "act", "action": name, "victim": v} for v in victims or (None,)]
    if name == "research":
        flips = [c for c, n in zip(COLOURS, avail, strict=True) if n]
        return [{"type": "act", "action": name, "flip": c} for c in flips or (None,)]
    if name in _CHOICES:
        return [{"type": "act", "action": name, "choice": c} for c in _CHOICES[name]]
    return [{"type": "act", "action": name}]


_CHOICES = {
    "alchemy": ("draw", "faith"),
    "prayer": ("draw", "refill"),
    "pilgrimage": ("vp", "faith"),
}


def add_paid_uses(
    s: State, spirits: Lineup, avail: Counts, stones: int, found: list[Action]
) -> list[Action]:
    """Adds the paid abilities the seat can use and pay for to ``found`` and returns it."""
    if _PAID_PRICE.keys().isdisjoint(spirits.counts):  # no spirit with a paid ability
        return found
    used = s["turn"]["paid"]
    for kind, count in spirits.counts.items():
        if kind not in _PAID_PRICE:
            continue
        if used.get(kind, 0) < count:
            if can_pay(_PAID_PRICE[kind], 0, avail, stones, sum(avail) + stones):
                found.append({"type": "paid", "kind": kind})
    return found


def _main(s: State, seat: int, ctx: Await) -> list[Action]:
    spirits = lineup(s, seat)
    avail, stones = mana_counts(s, seat)
    found = hand_summons(s["seats"][seat]["hand"], spirits, avail, stones)
    placing = s["turn"]["placed"] < spirits.place
    payable = {_KIND[a["card"]] for a in found} if placing else set()
    _acts(s, seat, avail, spirits, found)
    if spirits.counts:
        add_paid_uses(s, spirits, avail, stones, found)
    if placing:
        found += placements(s, seat, spirits, avail, stones, payable)
    return found


def _summon_only(s: State, seat: int, ctx: Await) -> list[Action]:
    spirits = lineup(s, seat)
    avail, stones = mana_counts(s, seat)
    found = hand_summons(s["seats"][seat]["hand"], spirits, avail, stones)
    if s["turn"]["placed"] < spirits.place:
        found += placements(s, seat, spirits, avail, stones, {_KIND[a["card"]] for a in found})
    return found


def _pay(s: State, seat: int, ctx: Await) -> list[Action]:
    return [{"type": "pay", "pay": payment_dict(p)} for p in pending_options(s, seat)]


def _prayer_discard(s: State, seat: int, ctx: Await) -> list[Action]:
    hand = s["seats"][seat]["hand"]
    discards: list[Action] = [
        {"type": "discard", "zone": "hand", "card": c} for c in first_copies(hand)
    ]
    return discards + [{"type": "done"}]


def _mana_firsts(s: State, seat: int) -> list[str]:
    p = s["seats"][seat]
    pairing = p["pairing"]
    seen: dict[tuple[str, bool], str] = {}
    for card in p["mana"]:
        seen.setdefault((_COLOUR[card], card == pairing), card)
    return list(seen.values())


def _trim(s: State, seat: int, ctx: Await) -> list[Action]:
    p = s["seats"][seat]
    found: list[Action] = []
    if len(p["hand"]) > ctx["hand"]:
        found += [{"type": "discard", "zone": "hand", "card": c} for c in first_copies(p["hand"])]
    if mana_count(p) > ctx["mana"]:
        found += [{"type": "discard", "zone": "mana", "card": c} for c in _mana_firsts(s, seat)]
        if p["stones"]:
            found.append({"type": "discard", "zone": "stones"})
    return found


def _give(s: State, seat: int, ctx: Await) -> list[Action]:
    return [{"type": "give", "card": c} for c in first_copies(s["seats"][seat]["hand"])]


def _festival(s: State, seat: int, ctx: Await) -> list[Action]:
    return [{"type": "choose", "card": c} for c in first_copies(s["turn"]["reveal"])]


def _keep(s: State, seat: int, ctx: Await) -> list[Action]:
    return [{"type": "keep", "card": c} for c in first_copies(s["turn"]["drawn"])]


def _optional(s: State, seat: int, ctx: Await) -> list[Action]:
    """Use or decline each asking spirit; the one chosen first resolves first (4.9, D18). Of
    several copies, some may be used (``copies``), where the rules allow it."""
    laws = rules(s)
    if not laws.names_kind:  # version 1: one spirit asked, and its actions did not name it
        return [{"type": "optional", "use": True}, {"type": "optional", "use": False}]
    found: list[Action] = []
    for kind, copies in zip(ctx["kinds"], ctx["copies"], strict=True):
        found.append({"type": "optional", "kind": kind, "use": True})
        if laws.some_copies and copies > 1 and _SOME[kind]:
            found += [
                {"type": "optional", "kind": kind, "use": True, "copies": n}
                for n in range(1, copies)
            ]
        found.append({"type": "optional", "kind": kind, "use": False})
    return found


# kinds whose copies may be used in part: those whose copies add up (Kasha's do not: one makes
# players of equal faith give, and more change nothing)
_SOME = {k: spec["ability"]["hook"] != "inquisition-equal" for k, spec in kinds().items()}


def _declare(s: State, seat: int, ctx: Await) -> list[Action]:
    return [{"type": "declare"}, {"type": "pass"}]


PHASES: dict[str, Callable[[State, int, Await], list[Action]]] = {
    "play": _play,
    "main": _main,
    "summon": _summon_only,
    "pay": _pay,
    "prayer-discard": _prayer_discard,
    "trim": _trim,
    "give": _give,
    "festival": _festival,
    "keep": _keep,
    "optional": _optional,
    "declare": _declare,
}


def _zone(s: State, seat: int, action: dict[Any, Any]) -> list[str] | None:
    """Where the card of a card action must lie (None: the action takes no card from a zone)."""
    kind = action.get("type")
    if kind == "discard":
        return zone_cards(s["seats"][seat], action.get("zone"))
    if kind == "choose":
        return s["turn"]["reveal"]
    if kind == "keep":
        return s["turn"]["drawn"]
    if kind in _FROM_HAND:
        return s["seats"][seat]["hand"]
    return None


def signature(s: State, seat: int, action: Any) -> tuple[Any, ...]:
    """What makes an action distinct: card copies collapse to their kind (mana: colour).

    Values keep their JSON type (``1``, ``1.0`` and ``true`` differ); a list, or an object
    inside an object, matches no legal action.
    """
    items = []
    for key, value in action.items():
        if key == "card" and isinstance(value, str) and value in _KIND:
            if action.get("zone") == "mana":
                p = s["seats"][seat]
                value = ("mana", _COLOUR[value], value == p["pairing"])
            else:
                value = _KIND[value]
        items.append((repr(key), _token(value, nested=False)))
    return tuple(sorted(items))


def _token(value: Any, nested: bool) -> tuple[Any, ...]:
    """A comparable stand-in for a value of an action: its type and its value."""
    if value is None or isinstance(value, (str, int, float)):
        return (type(value).__name__, value)
    if isinstance(value, dict) and not nested:
        return ("dict", tuple(sorted((repr(k), _token(v, nested=True)) for k, v in value.items())))
    return ("other",)


def check(s: State, seat: int, action: Any) -> None:
    """Raise CardGameRuleError unless ``action`` is legal for ``seat`` now.

    Legality is decided first; a refusal then depends only on what ``seat`` may see (the phase,
    its own hand and its legal actions), never on where a hidden card lies.
    """
    if s["result"] is not None:
        raise CardGameRuleError("match-over", MATCH_OVER)
    ctx = s["await"]
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise CardGameRuleError("unknown-action", NOT_AN_ACTION)
    if ctx is None or ctx["seat"] != seat:
        raise CardGameRuleError("not-your-turn", NOT_YOUR_TURN, seat=seat)
    legal = legal_actions(s, seat)
    wanted = signature(s, seat, action)
    if any(signature(s, seat, a) == wanted for a in legal) and _in_place(s, seat, action):
        return
    _refuse(s, seat, action, legal, ctx["phase"])


def _in_place(s: State, seat: int, action: Any) -> bool:
    """Whether the very copy a legal action names lies where the action takes it from."""
    if "card" not in action:
        return True
    zone = _zone(s, seat, action)
    return zone is not None and action["card"] in zone


def _refuse(s: State, seat: int, action: Any, legal: list[Action], phase: str) -> None:
    kind, card = action["type"], action.get("card")
    hand = s["seats"][seat]["hand"]
    in_hand = isinstance(card, str) and card in hand
    if kind == "summon" and phase in ("main", "summon") and in_hand:
        raise CardGameRuleError("cannot-pay", CANNOT_PAY, card=card)
    if kind not in {a["type"] for a in legal}:
        raise CardGameRuleError("unknown-action", NOT_NOW, type=shown(kind), phase=phase)
    if kind == "pay":
        raise CardGameRuleError("cannot-pay", PAYMENT_SHORT)
    from_hand = kind in _FROM_HAND or (kind == "discard" and action.get("zone") == "hand")
    if from_hand and "card" in action and not in_hand:
        raise CardGameRuleError("card-not-in-hand", NOT_IN_HAND, card=shown(card))
    raise CardGameRuleError("bad-choice", BAD_CHOICE, action=shown(action))


_FROM_HAND = ("play", "summon", "place", "give")
