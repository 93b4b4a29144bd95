"""The Traitor's Flame card set: kinds loaded from data, card ids, and the design brief's checks.

Names, rules texts and flavour are card data (``name_<code>``, ``text_<code>``...) for the board."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Literal, NotRequired, Required, TypedDict, cast

DATA = Path(__file__).with_name("data") / "cards.json"

BLOCKS = ("DRAW", "PEEK", "TAKE", "GIVE", "LOOK_HAND", "BOTTOM", "REVERSE", "SKIP")
TARGETED = ("TAKE", "GIVE", "LOOK_HAND")
CONDITIONS = ("target_flames_at_least", "self_flames_at_least")
COLOURS = ("red", "blue", "white")
FLAME_TOTAL = 14
ROUND_SPECIALS = ("night", "dawn")

# One building block of an effect: its name and parameters, with an optional public condition
# (``"if": {"target_flames_at_least": 2}``; the key is a Python keyword, hence this form).
Block = TypedDict(
    "Block",
    {"block": Required[str], "n": int, "selector": str, "source": str, "if": dict[str, int]},
    total=False,
)


class Kind(TypedDict):
    """A kind's rules as the card data holds them (its names, texts and flavour, ``name_<code>``
    and so on, are there too, for the board)."""

    id: str
    name_en: str  # the engine's refusals are English sentences, and name a card by it
    special: NotRequired[Literal["night", "dawn", "flame"]]
    colour: str | None
    copies: int
    value: int
    usable: bool
    target_rule: Literal["none", "any", "other"]
    effect: list[Block]


class CardData(TypedDict):
    """The card data file."""

    version: int
    specials: list[Kind]
    characters: list[Kind]


class CardInfo(TypedDict):
    """A card as a view shows it."""

    id: str
    kind: str
    colour: str | None
    value: int
    usable: bool


@cache
def load() -> CardData:
    """The card data file."""
    return cast(CardData, json.loads(DATA.read_text(encoding="utf-8")))


@cache
def kinds() -> dict[str, Kind]:
    """Every kind (specials first, then characters) by kind id."""
    data = load()
    return {k["id"]: k for k in data["specials"] + data["characters"]}


def characters() -> list[Kind]:
    """The 12 character kinds in data order."""
    return list(load()["characters"])


def card_ids_of(kind: Kind) -> list[str]:
    """The ids of every copy of a kind: ``night``, ``flame-01``, ``swordsman-3``."""
    if kind["id"] in ROUND_SPECIALS:
        return [kind["id"]]
    width = 2 if kind["copies"] >= 10 else 1
    return [f"{kind['id']}-{i:0{width}d}" for i in range(1, kind["copies"] + 1)]


@cache
def all_cards() -> dict[str, str]:
    """Every one of the 60 card ids mapped to its kind id."""
    return {cid: kind["id"] for kind in kinds().values() for cid in card_ids_of(kind)}


@cache
def deck_cards() -> tuple[str, ...]:
    """The 58 cards that form the deck (all but Night and Before-Dawn), in a fixed order."""
    return tuple(cid for cid, kid in all_cards().items() if kid not in ROUND_SPECIALS)


@cache
def values() -> dict[str, int]:
    """Score value by card id (Night and Before-Dawn included)."""
    return {cid: kinds()[kid]["value"] for cid, kid in all_cards().items()}


@cache
def flame_ids() -> frozenset[str]:
    """The 14 Flame card ids."""
    return frozenset(cid for cid, kid in all_cards().items() if kid == "flame")


def kind_of(card: str) -> Kind:
    """The kind record of a card id."""
    return kinds()[all_cards()[card]]


def card_info(card: str) -> CardInfo:
    """A card as a view shows it: id, kind, colour, value and usability (names and texts are
    card data, which the board reads in its reader's language)."""
    k = kind_of(card)
    return {
        "id": card,
        "kind": k["id"],
        "colour": k["colour"],
        "value": k["value"],
        "usable": k["usable"],
    }


def check_set() -> list[str]:
    """Every way the character set breaks the design brief (section 8.1); empty when it is sound."""
    chars = characters()
    problems = []
    if len(chars) != 12 or sum(k["copies"] for k in chars) != 44:
        problems.append("need 12 kinds and 44 cards")
    if sorted(k["copies"] for k in chars) != [3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5]:
        problems.append("copies must be 5,5,4,4,4,4,3,3,3,3,3,3")
    for colour, want in (("red", [3, 3, 4, 5]), ("blue", [3, 3, 4, 5]), ("white", [3, 3, 4, 4])):
        if sorted(k["copies"] for k in chars if k["colour"] == colour) != want:
            problems.append(f"{colour} copies must be {want}")
    vals = [k["value"] for k in chars]
    if min(vals) != -4 or max(vals) != 2 or any(not -4 <= v <= 2 for v in vals):
        problems.append("values must span +2..-4")
    unusable = [k for k in chars if not k["usable"]]
    if not 2 <= len(unusable) <= 4:
        problems.append("2 to 4 unusable kinds")
    by_id = {k["id"]: k for k in chars}
    for kid in ("saint", "right-hand"):  # 叛炎の聖女, 王の右手
        if kid not in by_id or by_id[kid]["usable"]:
            problems.append(f"{kid} must exist and be unusable")
    if "swordsman" not in by_id or by_id["swordsman"]["target_rule"] != "any":  # 真義の剣士
        problems.append("swordsman must target any player")
    jester = by_id.get("jester")  # 忘却の道化師
    if not jester or [b["block"] for b in jester["effect"]] != ["REVERSE", "DRAW"]:
        problems.append("jester must reverse then draw")
    gap = mean_value(chars, usable=False) - mean_value(chars, usable=True)
    if gap < 1.5:
        problems.append(f"usable cards must average 1.5 below unusable ones (gap {gap:.2f})")
    for k in chars:
        problems.extend(_check_effect(k))
    return problems


def mean_value(chars: list[Kind], *, usable: bool) -> float:
    """Card-weighted mean value of the usable (or unusable) character cards."""
    group = [k for k in chars if k["usable"] == usable]
    return float(sum(k["value"] * k["copies"] for k in group) / sum(k["copies"] for k in group))


def _check_effect(k: Kind) -> list[str]:
    effect, name = k["effect"], k["id"]
    if not k["usable"]:
        return [f"{name}: unusable kinds have no effect"] if effect else []
    problems = [] if 1 <= len(effect) <= 3 else [f"{name}: 1 to 3 blocks"]
    targeted = any(b["block"] in TARGETED for b in effect)
    if targeted != (k["target_rule"] in ("any", "other")):
        problems.append(f"{name}: target_rule does not match its blocks")
    for b in effect:
        ok = b["block"] in BLOCKS and set(b.get("if", {})) <= set(CONDITIONS)
        ok = ok and (
            b["block"] not in ("DRAW", "PEEK")
            or b["n"] in ((1, 2) if b["block"] == "DRAW" else (1, 2, 3))
        )
        if not ok:
            problems.append(f"{name}: bad block {b!r}")
    return problems
