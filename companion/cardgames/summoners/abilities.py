"""The ability interpreter: hooks (when an ability acts) and effects (what it does), from data.

Abilities whose effect can only help are applied automatically; an ability marked ``optional``
in the data (Nightmare, which also hits its owner) becomes a yes/no choice. Copies of one kind
resolve together as one step (the Leprechaun ruling); different kinds resolve in card-code order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import ICONS, kind_of_card, kinds, number_of_action, number_of_card
from .state import State, emit, gain_faith, push, seats_from

_KIND = kind_of_card()


def kind_counts(s: State, seat: int) -> Counter[str]:
    """How many spirits of each kind the seat has in play."""
    return Counter(kind_of_card()[c] for c in s["seats"][seat]["spirits"])


def hook_amount(s: State, seat: int, hook: str, key: str = "amount") -> int:
    """Sum of a numeric ability parameter over the seat's spirits with ``hook``."""
    total = 0
    for card in s["seats"][seat]["spirits"]:
        ability = kinds()[kind_of_card()[card]]["ability"]
        if ability["hook"] == hook:
            total += ability.get(key, 1)
    return total


def icon_counts(s: State, seat: int) -> Counter[str]:
    """Icons over the seat's spirits."""
    icons: Counter[str] = Counter()
    for card in s["seats"][seat]["spirits"]:
        icons.update(kinds()[kind_of_card()[card]]["icons"])
    return icons


def warded(s: State, seat: int, against: str) -> bool:
    """True when the seat has a ward ability against ``against`` ("steal" or "inquisition")."""
    for card in s["seats"][seat]["spirits"]:
        ability = kinds()[kind_of_card()[card]]["ability"]
        if ability["hook"] == "ward" and ability["against"] == against:
            return True
    return False


def command_options(s: State, seat: int) -> dict[int, str]:
    """Command numbers the seat may use this turn -> how ("base", "zero-played", "shift")."""
    t = s["turn"]
    options = {t["base"]: "base"}
    if t["played"] is not None and hook_amount(s, seat, "zero-played"):
        options.setdefault(t["pairing_num"], "zero-played")
    shift = hook_amount(s, seat, "shift-command")
    for number, via in list(options.items()):
        for d in range(-shift, shift + 1):
            options.setdefault(number + d, via if d == 0 else "shift")
    return options


def reachable_actions(s: State, seat: int) -> dict[str, tuple[int, str]]:
    """Action name -> (command number, how) for every action the seat may take this turn."""
    found: dict[str, tuple[int, str]] = {}
    ranked = sorted(command_options(s, seat).items(), key=lambda item: _VIA_RANK[item[1]])
    for number, via in ranked:
        found.setdefault(number_of_action(number), (number, via))
    return found


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


def resolve(s: State, seat: int, kind: str, effects: list[dict[str, Any]], times: int) -> None:
    """Apply one kind's effects ``times`` over as a single step; deck draws become steps."""
    p = s["seats"][seat]
    done: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    for effect in effects:
        for name, value in effect.items():
            if name == "vp":
                p["vp"] += value * times
                done["vp"] = done.get("vp", 0) + value * times
            elif name == "faith":
                done["faith"] = gain_faith(s, seat, value * times)
            elif name in ("draw", "stone", "mana"):
                to = {"draw": "hand", "stone": "stone", "mana": "mana"}[name]
                done[name] = value * times
                steps.append({"step": "deal", "seat": seat, "n": value * times, "to": to})
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
    emit(s, "ability", seat, kind=kind, times=times, **done)
    push(s, *steps)


def _steal_each(s: State, seat: int, amount: int) -> dict[str, int]:
    taken = {}
    for other in seats_from(s, seat)[1:]:
        if s["seats"][other]["vp"] > 0 and not warded(s, other, "steal"):
            lost = min(amount, s["seats"][other]["vp"])
            s["seats"][other]["vp"] -= lost
            s["seats"][seat]["vp"] += lost
            taken[str(other)] = lost
    return taken


def _cards_per_icon(s: State, seat: int, value: dict[str, Any], times: int) -> list[dict[str, Any]]:
    count = icon_counts(s, seat)[value["icon"]] * times
    to_hand = min(count, value["hand"])
    steps = [{"step": "deal", "seat": seat, "n": to_hand, "to": "hand"}]
    if count > to_hand:
        steps.append({"step": "deal", "seat": seat, "n": count - to_hand, "to": "mana"})
    return steps


_ORDER = {k: i for i, k in enumerate(kinds())}
_HOOK = {k: spec["ability"]["hook"] for k, spec in kinds().items()}


def _grouped(s: State, seat: int, hook: str) -> list[tuple[str, int]]:
    """(kind, copies) of the seat's spirits with ``hook``, in card-code order."""
    spirits = s["seats"][seat]["spirits"]
    if not spirits:
        return []
    counts: dict[str, int] = {}
    for card in spirits:
        kind = _KIND[card]
        if _HOOK[kind] == hook:
            counts[kind] = counts.get(kind, 0) + 1
    return sorted(counts.items(), key=lambda item: _ORDER[item[0]])


def action_triggers(s: State, seat: int, action: str) -> None:
    """Resolve "when you take <action>" abilities, each kind as one combined step."""
    for kind, times in reversed(_grouped(s, seat, "on-action")):
        ability = kinds()[kind]["ability"]
        if action in ability["actions"]:
            push(s, {"step": "resolve", "seat": seat, "kind": kind, "times": times})


def summon_triggers(s: State, seat: int, card: str) -> None:
    """The summoned spirit's own "when summoned" ability (optional ones ask first)."""
    kind = kind_of_card()[card]
    ability = kinds()[kind]["ability"]
    if ability["hook"] != "on-summon":
        return
    if ability.get("optional"):
        push(s, {"step": "optional", "seat": seat, "kind": kind})
    else:
        resolve(s, seat, kind, ability["effects"], 1)


def assist_triggers(s: State, seat: int, assisted: str) -> None:
    """Abilities about the card the seat just assisted (Cerberus)."""
    for kind, times in _grouped(s, seat, "on-assist"):
        ability = kinds()[kind]["ability"]
        if number_of_card()[assisted] >= ability["min_number"]:
            resolve(s, seat, kind, ability["effects"], times)


def end_of_turn_triggers(s: State, seat: int) -> None:
    """ "At the end of your turn" abilities (Kodama)."""
    for kind, times in reversed(_grouped(s, seat, "end-of-turn")):
        ability = kinds()[kind]["ability"]
        p = s["seats"][seat]
        if len(p["hand"]) <= ability.get("max_hand", 99) and p["faith"] <= ability.get(
            "max_faith", 99
        ):
            push(s, {"step": "resolve", "seat": seat, "kind": kind, "times": times})


def end_game_points(s: State, seat: int) -> dict[str, int]:
    """Points from "game end" abilities, by kind (each copy scores separately)."""
    icons = icon_counts(s, seat)
    p = s["seats"][seat]
    scored: dict[str, int] = {}
    for kind, times in _grouped(s, seat, "end-game"):
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
