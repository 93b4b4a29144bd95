"""What each player action does to a (working copy of the) state. Validation lives in legal.py."""

from __future__ import annotations

from collections.abc import Callable

from .abilities import (
    ask_step,
    assist_triggers,
    reachable,
    resolve,
    take_vp,
)
from .cards import colour_of_card, kind_of_card, kinds, number_of_card
from .flow import set_command, wait
from .lineup import lineup, warded
from .payment import pay, payment_dict, payment_tuple, pending_payments
from .records import Private
from .state import (
    ALCHEMY_DRAW,
    ALCHEMY_FAITH,
    CONQUEST_TAKE,
    FESTIVAL_FAITH,
    FESTIVAL_REVEAL,
    PILGRIMAGE_DRAW,
    PILGRIMAGE_FAITH,
    PRAYER_DRAW,
    REFILL_TO,
    Action,
    Await,
    Payment,
    State,
    Step,
    emit,
    gain_faith,
    push,
    right_of,
    rules,
    seats_from,
)

_KIND = kind_of_card()
_NUMBER = number_of_card()
_COLOUR = colour_of_card()
_SPECS = kinds()
_HOOK_OF_KIND = {kind: spec["ability"]["hook"] for kind, spec in _SPECS.items()}
_HOOK = {card: _HOOK_OF_KIND[kind] for card, kind in _KIND.items()}
# the kind whose ability has players of equal faith give at an inquisition (Kasha)
_EQUAL_KIND = next(k for k, hook in _HOOK_OF_KIND.items() if hook == "inquisition-equal")


def _play(s: State, seat: int, a: Action, ctx: Await) -> None:
    s["seats"][seat]["hand"].remove(a["card"])
    set_command(s, seat, a["card"])


def _play_top(s: State, seat: int, a: Action, ctx: Await) -> None:
    emit(s, "empty-hand", seat)
    push(s, {"step": "deal", "seat": seat, "n": 1, "to": "play"})


def _summon(s: State, seat: int, a: Action, ctx: Await) -> None:
    s["turn"]["paying"] = {"for": "summon", "card": a["card"]}
    _ask_payment(s, seat)


def _ask_payment(s: State, seat: int) -> None:
    options = pending_payments(s, seat)
    if len(options) == 1:
        _settle(s, seat, options[0])
    else:  # nothing changes before the seat pays, so its choices are kept for legal_actions
        s["turn"]["paying"]["options"] = list(map(list, options))
        s["await"] = {"seat": seat, "phase": "pay"}


def _pay(s: State, seat: int, a: Action, ctx: Await) -> None:
    payment = payment_tuple(a["pay"])
    assert payment is not None
    _settle(s, seat, payment)


def _settle(s: State, seat: int, payment: Payment) -> None:
    target = s["turn"].pop("paying")
    pay(s, seat, payment)
    if target["for"] == "summon":
        card = target["card"]
        p = s["seats"][seat]
        p["hand"].remove(card)
        p["spirits"].append(card)
        s["turn"]["action"] = "summon"
        s["events"].append(
            {
                "type": "summoned",
                "turn": s["turn_number"],
                "seat": seat,
                "kind": _KIND[card],
                "paid": payment_dict(payment),
            }
        )
        s["todo"] += (
            {"step": "phase3", "seat": seat},
            {"step": "on-summon", "seat": seat, "card": card},
        )
        return
    kind = target["kind"]
    paid = s["turn"]["paid"]
    paid[kind] = paid.get(kind, 0) + 1
    emit(s, "paid", seat, kind=kind, paid=payment_dict(payment))
    push(s, {"step": "await", "seat": seat, "phase": "main"})
    resolve(s, seat, kind, _SPECS[kind]["ability"]["effects"], 1)


def _place(s: State, seat: int, a: Action, ctx: Await) -> None:
    p = s["seats"][seat]
    p["hand"].remove(a["card"])
    p["mana"].append(a["card"])
    s["turn"]["placed"] += 1
    emit(s, "placed", seat, kind=_KIND[a["card"]])
    wait(s, seat, "summon")


def _paid(s: State, seat: int, a: Action, ctx: Await) -> None:
    s["turn"]["paying"] = {"for": "paid", "kind": a["kind"]}
    _ask_payment(s, seat)


def _act(s: State, seat: int, a: Action, ctx: Await) -> None:
    name = a["action"]
    for act, reach in reachable(s, seat):
        if act == name:
            number, via = reach
            break
    else:
        raise KeyError(name)  # as reachable_actions(s, seat)[name] would
    s["turn"]["action"] = name
    s["events"].append(
        {
            "type": "action",
            "turn": s["turn_number"],
            "seat": seat,
            "action": name,
            "number": number,
            "via": via,
            "choice": a.get("choice"),
        }
    )
    s["todo"] += (
        {"step": "phase3", "seat": seat},
        {"step": "triggers", "seat": seat, "action": name},
    )
    _ACTS[name](s, seat, a)


def conquest_gain(s: State, seat: int) -> int:
    """VP a conquest gives before the steal: one per axe and sword icon (4.3)."""
    icons = lineup(s, seat).icons
    return int(icons.get("axe", 0) + icons.get("sword", 0))


def inquisition_draw(s: State) -> int:
    """Cards an inquisition draws: 2 at a table of four, else 3."""
    return 2 if s["players"] == 4 else 3


def _conquest(s: State, seat: int, a: Action) -> None:
    gain = conquest_gain(s, seat)
    s["seats"][seat]["vp"] += gain
    victim = a.get("victim")
    s["turn"]["victim"] = victim
    take_vp(s, seat, victim, CONQUEST_TAKE)
    emit(s, "conquest", seat, gain=gain, victim=victim)


def _research(s: State, seat: int, a: Action) -> None:
    p = s["seats"][seat]
    gain = len(p["stones"])
    p["vp"] += gain
    flip = a.get("flip")
    if flip is not None:
        card = next(c for c in p["mana"] if _COLOUR[c] == flip)
        p["mana"].remove(card)
        p["stones"].append(card)
    emit(s, "research", seat, gain=gain, flipped=flip)


def _alchemy(s: State, seat: int, a: Action) -> None:
    stone: Step = {"step": "deal", "seat": seat, "n": 1, "to": "stone"}
    if a["choice"] == "draw":
        push(s, {"step": "deal", "seat": seat, "n": ALCHEMY_DRAW, "to": "hand"}, stone)
    else:
        gain_faith(s, seat, ALCHEMY_FAITH)
        push(s, stone)


def _prayer(s: State, seat: int, a: Action) -> None:
    if a["choice"] == "draw":
        push(s, {"step": "deal", "seat": seat, "n": PRAYER_DRAW, "to": "hand"})
    else:
        push(
            s,
            {"step": "prayer", "seat": seat},
            {"step": "deal", "seat": seat, "n": 0, "upto": REFILL_TO, "to": "hand"},
        )


def _festival(s: State, seat: int, a: Action) -> None:
    gain_faith(s, seat, FESTIVAL_FAITH)
    push(
        s,
        {"step": "deal", "seat": seat, "n": FESTIVAL_REVEAL, "to": "reveal"},
        {"step": "festival", "seat": seat},
    )


def inquisition_givers(s: State, seat: int, equal: bool | None = None) -> list[int]:
    """Players who must give a card, in turn order from the active player's left (D8).

    ``equal``: whether players of equal faith give too (Kasha's ability used; None: whenever
    the seat has a Kasha in play)."""
    faith = s["seats"][seat]["faith"]
    equal_too = _kashas(s, seat) > 0 if equal is None else equal
    givers = []
    for other in seats_from(s, seat)[1:]:
        theirs = s["seats"][other]["faith"]
        if (theirs < faith or (equal_too and theirs == faith)) and not warded(
            s, other, "inquisition"
        ):
            givers.append(other)
    return givers


def _kashas(s: State, seat: int) -> int:
    """The seat's spirits whose ability has players of equal faith give at its inquisition."""
    return sum(1 for c in s["seats"][seat]["spirits"] if _HOOK[c] == "inquisition-equal")


def _inquisition(s: State, seat: int, a: Action) -> None:
    draw: Step = {"step": "deal", "seat": seat, "n": inquisition_draw(s), "to": "hand"}
    kashas = _kashas(s, seat)
    if kashas and _EQUAL_KIND in rules(s).asked:
        if inquisition_givers(s, seat, True) != inquisition_givers(s, seat, False):
            # asked when the givers are due, after the draw; they follow the answer
            push(s, draw, ask_step(seat, [(_EQUAL_KIND, kashas)]))
            return
    push(s, draw, *give_steps(s, seat, None))


def give_steps(s: State, seat: int, equal: bool | None) -> list[Step]:
    """An inquisition's gives to ``seat``, one step per giver in turn order."""
    return [{"step": "give", "seat": g, "to": seat} for g in inquisition_givers(s, seat, equal)]


def _pilgrimage(s: State, seat: int, a: Action) -> None:
    p = s["seats"][seat]
    if a["choice"] == "vp":
        p["vp"] += p["faith"]
        emit(s, "pilgrimage", seat, gain=p["faith"])
    else:
        gain_faith(s, seat, PILGRIMAGE_FAITH)
        push(s, {"step": "deal", "seat": seat, "n": PILGRIMAGE_DRAW, "to": "hand"})


def _discard(s: State, seat: int, a: Action, ctx: Await) -> None:
    p = s["seats"][seat]
    zone = a["zone"]
    if zone == "stones":
        s["discard"].append(p["stones"].pop())
        emit(s, "discarded", seat, zone=zone)
    else:
        card = a["card"]
        (p["hand"] if zone == "hand" else p["mana"]).remove(card)
        s["discard"].append(card)
        kind = _KIND[card]
        if zone == "hand":
            emit(s, "discarded", seat, zone=zone, private={"seats": [seat], "kind": kind})
        else:
            emit(s, "discarded", seat, zone=zone, kind=kind)
    if ctx["phase"] == "prayer-discard":
        push(s, {"step": "prayer", "seat": seat})


def _done(s: State, seat: int, a: Action, ctx: Await) -> None:
    emit(s, "prayer-done", seat)


def _give(s: State, seat: int, a: Action, ctx: Await) -> None:
    receiver = ctx["to"]
    s["seats"][seat]["hand"].remove(a["card"])
    s["seats"][receiver]["hand"].append(a["card"])
    private: Private = {"seats": [seat, receiver], "kinds": [_KIND[a["card"]]]}
    emit(s, "gave", seat, to=receiver, from_deck=False, private=private)


def _choose(s: State, seat: int, a: Action, ctx: Await) -> None:
    reveal = s["turn"]["reveal"]
    card = a["card"]
    other = next(c for c in reveal if c != card)
    s["seats"][seat]["mana"].append(card)
    s["discard"].append(other)
    s["turn"]["reveal"] = []
    emit(s, "festival", seat, placed=[_KIND[card]], discarded=_KIND[other])


def _keep(s: State, seat: int, a: Action, ctx: Await) -> None:
    turn = s["turn"]
    drawn = turn["drawn"]
    card = a["card"]
    other = drawn[1] if drawn[0] == card else drawn[0]  # the other of the two
    seats = s["seats"]
    seats[seat]["hand"].append(card)
    neighbour = right_of(s, seat)
    seats[neighbour]["mana"].append(other)
    seats[neighbour]["pairing"] = other
    turn["drawn"] = []
    turn["assisted"] = other
    private: Private = {"seats": [seat], "kinds": [_KIND[card]]}
    s["events"].append(
        {
            "type": "assisted",
            "turn": s["turn_number"],
            "seat": seat,
            "to": neighbour,
            "kind": _KIND[other],
            "number": _NUMBER[other],
            "private": private,
        }
    )
    if seats[seat]["spirits"]:
        assist_triggers(s, seat, other)


def _optional(s: State, seat: int, a: Action, ctx: Await) -> None:
    kinds, copies = ctx["kinds"], ctx["copies"]
    i = kinds.index(a["kind"]) if "kind" in a else 0  # version 1 asked one kind, unnamed
    kind = kinds[i]
    if len(kinds) > 1:  # the others are asked once this one (and its draws) is done
        rest = [(k, n) for j, (k, n) in enumerate(zip(kinds, copies, strict=True)) if j != i]
        push(s, ask_step(seat, rest))
    used = a.get("copies", copies[i]) if a["use"] else 0
    if _HOOK_OF_KIND[kind] == "inquisition-equal":  # Kasha: who gives at this inquisition
        push(s, *give_steps(s, seat, bool(used)))
    if used:
        resolve(s, seat, kind, _SPECS[kind]["ability"].get("effects", []), used)
    else:
        emit(s, "declined", seat, kind=kind)


def _declare(s: State, seat: int, a: Action, ctx: Await) -> None:
    p = s["seats"][seat]
    s["declarer"] = seat
    s["final_left"] = s["players"] + 1
    emit(s, "declared", seat, spirits=len(p["spirits"]), vp=p["vp"])


def _pass(s: State, seat: int, a: Action, ctx: Await) -> None:
    return None


_ACTS: dict[str, Callable[[State, int, Action], None]] = {
    "conquest": _conquest,
    "research": _research,
    "alchemy": _alchemy,
    "prayer": _prayer,
    "festival": _festival,
    "inquisition": _inquisition,
    "pilgrimage": _pilgrimage,
}

HANDLERS: dict[str, Callable[[State, int, Action, Await], None]] = {
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
