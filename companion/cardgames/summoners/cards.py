"""The spirit set: 30 kinds, 110 cards, loaded once from ``data/spirits.json`` and checked."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any, Required, TypedDict, cast


class PerIcon(TypedDict):
    """Sphinx: one card per ``icon`` among the spirits, the first ``hand`` into the hand."""

    icon: str
    hand: int


class Limits(TypedDict):
    """Nightmare: the hand and mana (stones included) everyone discards down to."""

    hand: int
    mana: int


# One effect block: a single name and its amount (a dict for the last two).
Effect = TypedDict(
    "Effect",
    {
        "vp": int,
        "faith": int,
        "draw": int,
        "stone": int,
        "mana": int,
        "steal-victim": int,
        "steal-each": int,
        "cards-per-icon": PerIcon,
        "trim": Limits,
    },
    total=False,
)


class Ability(TypedDict, total=False):
    """A spirit's one ability: its hook and the parameters that hook reads."""

    hook: Required[str]
    effects: list[Effect]
    actions: list[str]  # on-action: the actions that trigger it
    amount: int  # discount, self-discount, place-on-summon, shift-command
    colour: str  # self-discount: the colour it waives
    cost: list[str]  # paid
    min_number: int  # on-assist
    max_hand: int  # end-of-turn
    max_faith: int  # end-of-turn
    score: str  # end-game: icon-sets, icons or faith
    icon: str  # end-game icons
    per: int  # end-game: one point-step per this many
    points: int  # end-game
    against: str  # ward: steal or inquisition


class Kind(TypedDict):
    """A spirit kind as the rules read it; its words in each language are ``kind_words``."""

    id: str
    code: str
    colour: str
    number: int
    copies: int
    cost: list[str]
    icons: list[str]
    points: int
    ability: Ability


class Colour(TypedDict):
    """A colour as the rules read it: its number; its words are ``colour_words``."""

    number: int


COLOURS = ("black", "green", "red", "yellow", "blue")
ICONS = ("armour", "shield", "staff", "axe", "sword")
# what a "game end" ability counts (abilities.end_game_score)
END_GAME_SCORES = frozenset({"icon-sets", "icons", "faith"})
HOOKS = frozenset(
    {
        "zero-played",
        "paid",
        "on-summon",
        "on-action",
        "end-game",
        "place-on-summon",
        "self-discount",
        "end-of-turn",
        "on-assist",
        "inquisition-equal",
        "ward",
        "discount",
        "shift-command",
    }
)
EFFECTS = frozenset(
    {"vp", "faith", "draw", "stone", "mana", "steal-victim", "steal-each", "cards-per-icon", "trim"}
)
# Effects that take cards from the deck or make players discard: the abilities engine version 2
# asked (versions.py); since version 3 every ability that acts by itself is asked.
MOVES_CARDS = frozenset({"draw", "stone", "mana", "cards-per-icon", "trim"})
ACTIONS = ("conquest", "research", "alchemy", "prayer", "festival", "inquisition", "pilgrimage")
_DATA = Path(__file__).with_name("data") / "spirits.json"


@cache
def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_DATA.read_text(encoding="utf-8"))
    return data


@cache
def colour_info() -> dict[str, Colour]:
    """Per colour: its number."""
    return cast(dict[str, Colour], _raw()["colours"])


@cache
def kinds() -> dict[str, Kind]:
    """Every spirit kind by id, in card-code order; raises ValueError on a malformed set."""
    table: dict[str, Kind] = {spec["id"]: spec for spec in _raw()["spirits"]}
    check_set(list(table.values()))
    return table


def _words(record: dict[str, Any]) -> dict[str, str]:
    """The language fields of a data record ("name_ja", "text_en"...): one per language given."""
    return {k: v for k, v in record.items() if k.split("_")[0] in WORD_FIELDS}


WORD_FIELDS = ("name", "text", "flavour", "mana")


@cache
def kind_words(kind: str) -> dict[str, str]:
    """A kind's name, text and flavour in each language the data gives ("name_ja"...)."""
    return _words(next(s for s in _raw()["spirits"] if s["id"] == kind))


@cache
def colour_words(symbol: str) -> dict[str, str]:
    """A cost symbol's words in each language the data gives: a colour's name and its mana's
    ("name_ja", "mana_en"...); the generic symbol "any" has a name, as card texts write it."""
    return _words(_raw()["any"] if symbol == "any" else _raw()["colours"][symbol])


def check_set(specs: list[Kind]) -> None:
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


def _check_kind(spec: Kind) -> None:
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
    if ability["hook"] == "end-game" and ability.get("score") not in END_GAME_SCORES:
        raise ValueError(f"{name!r}: unknown game-end score {ability.get('score')!r}")
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


def trim_of(kind: str) -> Limits | None:
    """What a kind's trim effect makes everyone discard down to (Nightmare), else None."""
    for effect in kinds()[kind]["ability"].get("effects", []):
        if "trim" in effect:
            return effect["trim"]
    return None


def number_of_action(number: int) -> str:
    """The action a command number selects: <=3 conquest ... >=9 pilgrimage."""
    if number <= 3:
        return "conquest"
    if number >= 9:
        return "pilgrimage"
    return ACTIONS[number - 3]
