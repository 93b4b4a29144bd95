"""The ability interpreter: hooks (when an ability acts) and effects (what it does), from data.

Using an ability is optional (4.9). An ability marked ``optional`` in the data, exactly those
that move cards (``cards.MOVES_CARDS``), asks its owner to use it or not; the others only add VP
or faith or take VP from rivals, so declining them could never help and they apply at once.
Copies of one kind resolve together as one step (the Leprechaun ruling), their faith one copy at
a time (so the cap of 4.4 takes no more than it must); different kinds resolve in card-code
order, the automatic ones first. When one event triggers several asked abilities of a seat, one
ask lists them all and the seat chooses which to resolve first (4.9, D18).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .cards import (
    ACTIONS,
    ICONS,
    Effect,
    PerIcon,
    kind_of_card,
    kinds,
    number_of_action,
    number_of_card,
)
from .lineup import Lineup, group, icon_counts, reach_amounts, warded
from .records import EventFields
from .state import State, Step, gain_faith, push, seats_from

_KIND = kind_of_card()
_NUMBER = number_of_card()
_SPECS = kinds()


Reach = tuple[tuple[str, tuple[int, str]], ...]


def reachable_actions(s: State, seat: int) -> dict[str, tuple[int, str]]:
    """Action name -> (command number, how) for every action the seat may take this turn."""
    return dict(reachable(s, seat))


def reachable(s: State, seat: int) -> Reach:
    """``reachable_actions`` as pairs, for the active seat."""
    return _reach(s, *reach_amounts(s, seat))


def reachable_of(s: State, spirits: Lineup) -> Reach:
    """``reachable_actions`` as pairs, for the active seat whose line-up is ``spirits``."""
    return _reach(s, spirits.zero, spirits.shift)


def _reach(s: State, zero_played: int, shift: int) -> Reach:
    """The reach of the active seat with these zero-played and shift-command amounts."""
    t = s["turn"]
    zero = t["pairing_num"] if t["played"] is not None and zero_played else None
    return _reachable(t["base"], zero, shift)


def play_reach(s: State, seat: int, pairing: int, played: int) -> dict[str, tuple[int, str]]:
    """``reachable_actions`` for a card of number ``played`` about to be played from hand."""
    zero_played, shift = reach_amounts(s, seat)
    zero = pairing if zero_played else None
    return dict(_reachable(pairing + played, zero, shift))


@cache
def _options(base: int, zero: int | None, shift: int) -> tuple[tuple[int, str], ...]:
    options = {base: "base"}
    if zero is not None:
        options.setdefault(zero, "zero-played")
    for number, via in list(options.items()):
        for d in range(-shift, shift + 1):
            options.setdefault(number + d, via if d == 0 else "shift")
    return tuple(options.items())


@cache
def _reachable(base: int, zero: int | None, shift: int) -> Reach:
    found: dict[str, tuple[int, str]] = {}
    ranked = sorted(_options(base, zero, shift), key=lambda item: _VIA_RANK[item[1]])
    for number, via in ranked:
        found.setdefault(number_of_action(number), (number, via))
    return tuple(found.items())


_VIA_RANK = {"base": 0, "zero-played": 1, "shift": 2}


def take_vp(s: State, taker: int, victim: int | None, amount: int) -> int:
    """Take VP from ``victim`` (the supply pays what they cannot); returns what the victim lost."""
    lost = 0
    if victim is not None:
        p = s["seats"][victim]
        lost = min(p["vp"], amount)
        p["vp"] -= lost
    s["seats"][taker]["vp"] += amount
    return lost


def resolve(s: State, seat: int, kind: str, effects: list[Effect], times: int) -> None:
    """Apply one kind's effects ``times`` over as a single step; deck draws become steps."""
    p = s["seats"][seat]
    done: EventFields = {}
    steps: list[Step] = []
    value: Any  # an effect's amount: an int, or a dict for cards-per-icon and trim (cards.Effect)
    for effect in effects:
        for name, value in effect.items():
            if name == "vp":
                p["vp"] += value * times
                done["vp"] = done.get("vp", 0) + value * times
            elif name == "faith":  # copy by copy: each gain that would pass 10 is void (4.4)
                done["faith"] = sum(gain_faith(s, seat, value) for _ in range(times))
            elif name == "draw":
                done["draw"] = value * times
                steps.append({"step": "deal", "seat": seat, "n": value * times, "to": "hand"})
            elif name == "stone":
                done["stone"] = value * times
                steps.append({"step": "deal", "seat": seat, "n": value * times, "to": "stone"})
            elif name == "mana":
                done["mana"] = value * times
                steps.append({"step": "deal", "seat": seat, "n": value * times, "to": "mana"})
            elif name == "steal-victim":
                victim = s["turn"].get("victim")
                done["steal"] = {"from": victim, "amount": value * times}
                take_vp(s, seat, victim, value * times)
            elif name == "steal-each":
                done["steal_each"] = _steal_each(s, seat, value * times)
            elif name == "cards-per-icon":
                steps += _cards_per_icon(s, seat, value, times)
                done["cards"] = sum(step["n"] for step in steps if step["step"] == "deal")
            elif name == "trim":
                done["trim"] = True
                steps += [
                    {"step": "trim", "seat": other, "hand": value["hand"], "mana": value["mana"]}
                    for other in seats_from(s, seat)
                ]
    s["events"].append(
        {
            "type": "ability",
            "turn": s["turn_number"],
            "seat": seat,
            "kind": kind,
            "times": times,
            **done,  # type: ignore[typeddict-item]  # an ability event has no private part
        }
    )
    if steps:
        s["todo"] += reversed(steps)  # push()


def _steal_each(s: State, seat: int, amount: int) -> dict[str, int]:
    taken: dict[str, int] = {}
    for other in seats_from(s, seat)[1:]:
        if s["seats"][other]["vp"] > 0 and not warded(s, other, "steal"):
            lost = min(amount, s["seats"][other]["vp"])
            s["seats"][other]["vp"] -= lost
            s["seats"][seat]["vp"] += lost
            taken[str(other)] = lost
    return taken


def _cards_per_icon(s: State, seat: int, value: PerIcon, times: int) -> list[Step]:
    count = icon_counts(s, seat)[value["icon"]] * times
    to_hand = min(count, value["hand"])
    steps: list[Step] = [{"step": "deal", "seat": seat, "n": to_hand, "to": "hand"}]
    if count > to_hand:
        steps.append({"step": "deal", "seat": seat, "n": count - to_hand, "to": "mana"})
    return steps


def action_triggers(s: State, seat: int, action: str) -> None:
    """Resolve "when you take <action>" abilities, each kind as one combined step; the asked
    ones come after the others, in one ask (the seat orders them)."""
    if _TRIGGERED_BY.get(action, _NONE).isdisjoint(s["seats"][seat]["spirits"]):
        return  # no spirit of the seat has a "when you take" ability this action triggers
    triggered = [(k, n) for k, n in group(s, seat, "on-action") if _triggers(k, action)]
    _schedule(s, seat, triggered)


def _triggers(kind: str, action: str) -> bool:
    """Whether taking ``action`` triggers the "when you take" ability of ``kind``."""
    return action in _SPECS[kind]["ability"]["actions"]


# action -> the card ids of the spirits whose "when you take" ability it triggers
_TRIGGERED_BY = {
    action: frozenset(
        card
        for card, kind in _KIND.items()
        if _SPECS[kind]["ability"]["hook"] == "on-action" and _triggers(kind, action)
    )
    for action in ACTIONS
}
_NONE: frozenset[str] = frozenset()


def _schedule(s: State, seat: int, triggered: list[tuple[str, int]]) -> None:
    """Push the triggered (kind, copies): automatic ones as resolve steps in card-code order,
    then one ask for the optional ones."""
    asked = [(k, n) for k, n in triggered if _SPECS[k]["ability"].get("optional")]
    steps: list[Step] = [
        {"step": "resolve", "seat": seat, "kind": k, "times": n}
        for k, n in triggered
        if not _SPECS[k]["ability"].get("optional")
    ]
    if asked:
        steps.append(ask_step(seat, asked))
    if steps:
        push(s, *steps)


def ask_step(seat: int, asked: list[tuple[str, int]]) -> Step:
    """The step that asks ``seat`` whether to use each of these (kind, copies), in turn."""
    return {
        "step": "optional",
        "seat": seat,
        "kinds": [k for k, _ in asked],
        "copies": [n for _, n in asked],
    }


def summon_triggers(s: State, seat: int, card: str) -> None:
    """The summoned spirit's own "when summoned" ability (optional ones ask first)."""
    kind = _KIND[card]
    ability = _SPECS[kind]["ability"]
    if ability["hook"] != "on-summon":
        return
    if ability.get("optional"):
        push(s, ask_step(seat, [(kind, 1)]))
    else:
        resolve(s, seat, kind, ability["effects"], 1)


def assist_triggers(s: State, seat: int, assisted: str) -> None:
    """Abilities about the card the seat just assisted (Cerberus)."""
    grouped = group(s, seat, "on-assist")
    if not grouped:
        return
    for kind, times in grouped:
        ability = _SPECS[kind]["ability"]
        if _NUMBER[assisted] >= ability["min_number"]:
            resolve(s, seat, kind, ability["effects"], times)


def end_of_turn_triggers(s: State, seat: int) -> None:
    """ "At the end of your turn" abilities (Kodama asks, Kelpie applies)."""
    grouped = group(s, seat, "end-of-turn")
    if not grouped:
        return
    p = s["seats"][seat]
    triggered = []
    for kind, times in grouped:
        ability = _SPECS[kind]["ability"]
        if len(p["hand"]) <= ability.get("max_hand", 99) and p["faith"] <= ability.get(
            "max_faith", 99
        ):
            triggered.append((kind, times))
    _schedule(s, seat, triggered)


def end_game_points(s: State, seat: int) -> dict[str, int]:
    """Points from "game end" abilities, by kind (each copy scores separately)."""
    icons = icon_counts(s, seat)
    p = s["seats"][seat]
    scored: dict[str, int] = {}
    for kind, times in group(s, seat, "end-game"):
        a = kinds()[kind]["ability"]
        if a["score"] == "icon-sets":
            base = min(icons[i] for i in ICONS) * a["points"]
        elif a["score"] == "icons":
            base = icons[a["icon"]] // a["per"] * a["points"]
        elif a["score"] == "stones":
            base = len(p["stones"]) // a["per"] * a["points"]
        else:
            base = p["faith"] // a["per"] * a["points"]
        scored[kind] = base * times
    return scored
