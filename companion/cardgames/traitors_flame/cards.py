"""The Traitor's Flame card set: kinds loaded from data, card ids, and rules text built from blocks."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data") / "cards.json"

BLOCKS = ("DRAW", "PEEK", "TAKE", "GIVE", "LOOK_HAND", "BOTTOM", "REVERSE", "SKIP")
TARGETED = ("TAKE", "GIVE", "LOOK_HAND")
CONDITIONS = ("target_flames_at_least", "self_flames_at_least")
COLOURS = ("red", "blue", "white")
FLAME_TOTAL = 14
ROUND_SPECIALS = ("night", "dawn")


@cache
def load() -> dict[str, Any]:
    """The raw card data file."""
    return json.loads(DATA.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def kinds() -> dict[str, dict[str, Any]]:
    """Every kind (specials first, then characters) by kind id."""
    data = load()
    return {k["id"]: k for k in data["specials"] + data["characters"]}


def characters() -> list[dict[str, Any]]:
    """The 12 character kinds in data order."""
    return list(load()["characters"])


def card_ids_of(kind: dict[str, Any]) -> list[str]:
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


def kind_of(card: str) -> dict[str, Any]:
    """The kind record of a card id."""
    return kinds()[all_cards()[card]]


def card_info(card: str) -> dict[str, Any]:
    """A card as the table shows it: id, kind, names, colour, value, usability and text."""
    k = kind_of(card)
    return {
        "id": card,
        "kind": k["id"],
        "name": {lang: k[f"name_{lang}"] for lang in TEXT_LANGUAGES},
        "colour": k["colour"],
        "value": k["value"],
        "usable": k["usable"],
        "text": {lang: k[f"text_{lang}"] for lang in TEXT_LANGUAGES},
    }


_PHRASES: dict[str, dict[tuple[Any, ...], str]] = {}
_PHRASES["en"] = {
    ("DRAW", 1): "draw a card",
    ("DRAW", 2): "draw 2 cards",
    ("PEEK",): "look at the top {n} cards of the deck",
    (
        "TAKE",
        "choose",
    ): "take from their hand either a Flame or a random non-Flame card, as you choose",
    ("TAKE", "flame"): "take a Flame from their hand",
    ("TAKE", "non_flame"): "take a random non-Flame card from their hand",
    ("GIVE", "any"): "give them a card of your choice from your hand",
    ("GIVE", "non_flame"): "give them a non-Flame card of your choice from your hand",
    ("LOOK_HAND",): "look at their whole hand",
    ("BOTTOM", "own_hand"): "put a card of your choice from your hand at the bottom of the deck",
    ("BOTTOM", "deck_top"): "put the top card of the deck at the bottom",
    ("REVERSE",): "reverse the direction of play",
    ("SKIP",): "at the next hand-off, Night passes over the next player",
}
_PHRASES["ja"] = {
    ("DRAW", 1): "山札からカードを1枚引く",
    ("DRAW", 2): "山札からカードを2枚引く",
    ("PEEK",): "山札の上から{n}枚を見る",
    (
        "TAKE",
        "choose",
    ): "そのプレイヤーの手札から「逆臣の炎」1枚か、それ以外のカード1枚（無作為）かを選んで奪う",
    ("TAKE", "flame"): "そのプレイヤーの手札から「逆臣の炎」を1枚奪う",
    ("TAKE", "non_flame"): "そのプレイヤーの手札から「逆臣の炎」以外のカードを無作為に1枚奪う",
    ("GIVE", "any"): "自分の手札から1枚を選び、そのプレイヤーに渡す",
    ("GIVE", "non_flame"): "自分の手札から「逆臣の炎」以外の1枚を選び、そのプレイヤーに渡す",
    ("LOOK_HAND",): "そのプレイヤーの手札をすべて見る",
    ("BOTTOM", "own_hand"): "自分の手札から1枚を選び、山札の一番下に置く",
    ("BOTTOM", "deck_top"): "山札の一番上のカードを一番下に置く",
    ("REVERSE",): "手番の回る向きを逆にする",
    ("SKIP",): "次に「夜」を渡すとき、次のプレイヤーを1人飛ばす",
}
_TARGET = {
    "en": {"any": "Choose a player (you may choose yourself).", "other": "Choose another player."},
    "ja": {"any": "プレイヤー1人を選ぶ（自分でもよい）。", "other": "他のプレイヤー1人を選ぶ。"},
}
_COND = {
    "en": {
        "target_flames_at_least": "If they hold {n} or more Flames: ",
        "self_flames_at_least": "If you hold {n} or more Flames: ",
    },
    "ja": {
        "target_flames_at_least": "そのプレイヤーが「逆臣の炎」を{n}枚以上持っていれば、",
        "self_flames_at_least": "自分が「逆臣の炎」を{n}枚以上持っていれば、",
    },
}


# How each language strings a card's clauses together: the joiner between clauses of one
# condition (after ``conjugate`` turns a clause into its joining form, if it can), the stop after
# the last, the gap between sentences, whether a sentence starts with a capital, the unplayable text.
_GRAMMAR: dict[str, dict[str, Any]] = {
    "en": {
        "then": ", then ",
        "conjugate": (),
        "stop": ".",
        "gap": " ",
        "capitalise": True,
        "unusable": "Cannot be played.",
    },
    "ja": {
        "then": "、",
        "conjugate": (
            ("引く", "引き、"),
            ("見る", "見て、"),
            ("奪う", "奪い、"),
            ("渡す", "渡し、"),
            ("置く", "置き、"),
            ("する", "し、"),
            ("飛ばす", "飛ばし、"),
        ),
        "stop": "。",
        "gap": "",
        "capitalise": False,
        "unusable": "使用できない。",
    },
}
TEXT_LANGUAGES = tuple(_GRAMMAR)


def _phrase(block: dict[str, Any], lang: str) -> str:
    table = _PHRASES[lang]
    name = block["block"]
    param = block.get("n") if name == "DRAW" else block.get("selector") or block.get("source")
    key: tuple[Any, ...] = (name, param)
    if key not in table:
        key = (name,)
    return table[key].format(n=block.get("n"))


def effect_text(kind: dict[str, Any], lang: str) -> str:
    """The rules text of a kind, generated from its blocks (consecutive blocks share a condition)."""
    grammar = _GRAMMAR[lang]
    if not kind["usable"]:
        return str(grammar["unusable"])
    parts = [_TARGET[lang][kind["target_rule"]]] if kind["target_rule"] != "none" else []
    groups: list[tuple[Any, list[str]]] = []
    for block in kind["effect"]:
        cond = block.get("if")
        if groups and groups[-1][0] == cond:
            groups[-1][1].append(_phrase(block, lang))
        else:
            groups.append((cond, [_phrase(block, lang)]))
    for cond, phrases in groups:
        head = ""
        if cond:
            ((name, n),) = cond.items()
            head = _COND[lang][name].format(n=n)
        body = "".join(_joined(p, grammar) for p in phrases[:-1]) + phrases[-1]
        if not head and grammar["capitalise"]:
            body = body[0].upper() + body[1:]
        parts.append(head + body + grammar["stop"])
    return str(grammar["gap"]).join(parts)


def _joined(phrase: str, grammar: dict[str, Any]) -> str:
    """A clause in the form that joins it to the next one (Japanese: 引く → 引き、)."""
    for plain, joined in grammar["conjugate"]:
        if phrase.endswith(plain):
            return phrase[: -len(plain)] + str(joined)
    return phrase + str(grammar["then"])


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
    names = {k["name_ja"]: k for k in chars}
    for name in ("叛炎の聖女", "王の右手"):
        if name not in names or names[name]["usable"]:
            problems.append(f"{name} must exist and be unusable")
    if "真義の剣士" not in names or names["真義の剣士"]["target_rule"] != "any":
        problems.append("真義の剣士 must target any player")
    jester = names.get("忘却の道化師")
    if not jester or [b["block"] for b in jester["effect"]] != ["REVERSE", "DRAW"]:
        problems.append("忘却の道化師 must reverse then draw")
    gap = mean_value(chars, usable=False) - mean_value(chars, usable=True)
    if gap < 1.5:
        problems.append(f"usable cards must average 1.5 below unusable ones (gap {gap:.2f})")
    for k in chars:
        problems.extend(_check_effect(k))
    return problems


def mean_value(chars: list[dict[str, Any]], *, usable: bool) -> float:
    """Card-weighted mean value of the usable (or unusable) character cards."""
    group = [k for k in chars if k["usable"] == usable]
    return float(sum(k["value"] * k["copies"] for k in group) / sum(k["copies"] for k in group))


def _check_effect(k: dict[str, Any]) -> list[str]:
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
    for lang in TEXT_LANGUAGES:
        if k[f"text_{lang}"] != effect_text(k, lang):
            problems.append(f"{name}: text_{lang} differs from the text built from its blocks")
    return problems
