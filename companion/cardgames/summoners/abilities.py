"""The ability interpreter: hooks (when an ability acts) and effects (what it does), from data.

Using an ability is optional (section 10, 「能力を使用するかどうかは、任意です。ただし、弱く使うこと
…は出来ません。」): every ability that acts by itself when something happens asks its owner to use
it or not (the kinds ``versions.Rules.asked`` names: all of them since engine version 3, unless
the table chose to use every ability unasked). Copies of one kind are asked together and may be
used all, some or none (each copy is an ability of its own, 「能力は累積します」); those used
resolve as one step (the Leprechaun ruling), their faith one copy at a time, so the cap of 4.4
voids only the gains that would pass 10. When one event triggers several abilities of a seat,
one ask lists them all and the seat chooses which to use or decline first (「能力の処理が重なった
時は任意の順番…で解決して構いません」, D18); abilities not asked resolve first, in card-code order.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from .state import State, Step, gain_faith, push, rules, seats_from

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
    """Apply one kind's effects ``times`` over as a single step; deck draws become steps.

    Faith is gained one copy at a time, so the cap of 4.4 voids only the gains past 10."""
    p = s["seats"][seat]
    done: EventFields = {}
    steps: list[Step] = []
    value: Any  # an effect's amount: an int, or a dict for cards-per-icon and trim (cards.Effect)
    for effect in effects:
        for name, value in effect.items():
            if name == "vp":
                p["vp"] += value * times
                done["vp"] = done.get("vp", 0) + value * times
            elif name == "faith":
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
    """Push the triggered (kind, copies): the ones not asked as resolve steps in card-code
    order, then one ask for the others."""
    if not triggered:
        return
    ask = rules(s).asked
    asked = [(k, n) for k, n in triggered if k in ask]
    steps: list[Step] = [
        {"step": "resolve", "seat": seat, "kind": k, "times": n}
        for k, n in triggered
        if k not in ask
    ]
    if asked:
        steps.append(ask_step(seat, asked))
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
    """The summoned spirit's own "when summoned" ability (asked first when the rules ask it)."""
    kind = _KIND[card]
    ability = _SPECS[kind]["ability"]
    if ability["hook"] != "on-summon":
        return
    if kind in rules(s).asked:
        push(s, ask_step(seat, [(kind, 1)]))
    else:
        resolve(s, seat, kind, ability["effects"], 1)


def assist_triggers(s: State, seat: int, assisted: str) -> None:
    """Abilities about the card the seat just assisted (Cerberus)."""
    grouped = group(s, seat, "on-assist")
    if not grouped:
        return
    number = _NUMBER[assisted]
    _schedule(s, seat, [(k, n) for k, n in grouped if number >= _SPECS[k]["ability"]["min_number"]])


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
    icons, faith = icon_counts(s, seat), s["seats"][seat]["faith"]
    return {
        kind: end_game_score(kind, times, icons, faith)
        for kind, times in group(s, seat, "end-game")
    }


def end_game_score(kind: str, copies: int, icons: Mapping[str, int], faith: int) -> int:
    """What ``copies`` spirits of ``kind`` score at game end (0 for a kind without a "game end"
    ability), from the seat's icons and faith: public facts, so a seat's view scores it too."""
    a = kinds()[kind]["ability"]
    if a["hook"] != "end-game":
        return 0
    if a["score"] == "icon-sets":
        base = min(icons.get(i, 0) for i in ICONS) * a["points"]
    elif a["score"] == "icons":
        base = icons.get(a["icon"], 0) // a["per"] * a["points"]
    else:
        base = faith // a["per"] * a["points"]
    return base * copies
