"""The spirit set: 30 kinds, 110 cards, loaded once from ``data/spirits.json`` and checked."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

COLOURS = ("black", "green", "red", "yellow", "blue")
ICONS = ("armour", "shield", "staff", "axe", "sword")
HOOKS = frozenset(
    {
        "zero-played", "paid", "on-summon", "on-action", "end-game", "place-on-summon",
        "self-discount", "end-of-turn", "on-assist", "inquisition-equal", "ward", "discount",
        "shift-command",
    }
)  # fmt: skip
EFFECTS = frozenset(
    {"vp", "faith", "draw", "stone", "mana", "steal-victim", "steal-each", "cards-per-icon", "trim"}
)
ACTIONS = ("conquest", "research", "alchemy", "prayer", "festival", "inquisition", "pilgrimage")
_DATA = Path(__file__).with_name("data") / "spirits.json"


@cache
def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_DATA.read_text(encoding="utf-8"))
    return data


@cache
def colour_info() -> dict[str, dict[str, Any]]:
    """Per colour: its number and the ja/en names of the colour and its mana."""
    info: dict[str, dict[str, Any]] = _raw()["colours"]
    return info


@cache
def kinds() -> dict[str, dict[str, Any]]:
    """Every spirit kind by id, in card-code order; raises ValueError on a malformed set."""
    table = {spec["id"]: spec for spec in _raw()["spirits"]}
    check_set(list(table.values()))
    return table


def check_set(specs: list[dict[str, Any]]) -> None:
    """Raise ValueError unless the set follows the design brief's structural rules."""
    if sum(s["copies"] for s in specs) != 110 or len(specs) != 30:
        raise ValueError("the set must have 30 kinds and 110 cards")
    for spec in specs:
        _check_kind(spec)
    per_colour = Counter((s["colour"], s["copies"]) for s in specs)
    for colour in COLOURS:
        if per_colour[(colour, 4)] != 5 or per_colour[(colour, 2)] != 1:
            raise ValueError(f"{colour!r} must have 5 common and 1 rare kind")
    for icon in ("armour", "shield", "staff"):
        if sum(icon in s["icons"] for s in specs) < 4:
            raise ValueError(f"icon {icon!r} must appear on at least 4 kinds")


def _check_kind(spec: dict[str, Any]) -> None:
    name = spec["id"]
    if spec["number"] != colour_info()[spec["colour"]]["number"]:
        raise ValueError(f"{name!r}: number does not match colour")
    if not 1 <= len(spec["cost"]) <= (6 if spec["copies"] == 2 else 5):
        raise ValueError(f"{name!r}: cost must have 1-5 symbols (6 for a rare)")
    if spec["colour"] not in spec["cost"] or len(spec["icons"]) > 2:
        raise ValueError(f"{name!r}: cost needs its own colour; at most 2 icons")
    if "axe" in spec["icons"] and spec["colour"] != "black":
        raise ValueError(f"{name!r}: axes only on black spirits")
    if "sword" in spec["icons"] and spec["colour"] != "red":
        raise ValueError(f"{name!r}: swords only on red spirits")
    ability = spec["ability"]
    if ability["hook"] not in HOOKS:
        raise ValueError(f"{name!r}: unknown hook {ability['hook']!r}")
    for effect in ability.get("effects", []):
        if set(effect) - EFFECTS:
            raise ValueError(f"{name!r}: unknown effect {effect!r}")


@cache
def card_ids() -> tuple[str, ...]:
    """All 110 card ids, ``"<kind>-<copy>"``, in card-code order."""
    return tuple(f"{k}-{n}" for k, spec in kinds().items() for n in range(1, spec["copies"] + 1))


@cache
def kind_of_card() -> dict[str, str]:
    """Card id -> kind id."""
    return {card: card.rsplit("-", 1)[0] for card in card_ids()}


@cache
def colour_of_card() -> dict[str, str]:
    """Card id -> colour (the card's mana type)."""
    table = kinds()
    return {card: table[kind]["colour"] for card, kind in kind_of_card().items()}


@cache
def number_of_card() -> dict[str, int]:
    """Card id -> number."""
    table = kinds()
    return {card: table[kind]["number"] for card, kind in kind_of_card().items()}


def number_of_action(number: int) -> str:
    """The action a command number selects: <=3 conquest ... >=9 pilgrimage."""
    if number <= 3:
        return "conquest"
    if number >= 9:
        return "pilgrimage"
    return ACTIONS[number - 3]
