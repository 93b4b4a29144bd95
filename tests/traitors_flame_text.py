"""The rules text of a Traitor's Flame card, built from its effect blocks (tests only).

The card data (``cards.json``) keeps each kind's text per language as data, as it keeps the
names; this generator holds the grammar that words the blocks, so a test can check that the
data still says what the blocks do. A language added to the card data needs its phrases here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PHRASES: dict[str, dict[tuple[Any, ...], str]] = {}
PHRASES["en"] = {
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
PHRASES["ja"] = {
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
TARGET = {
    "en": {"any": "Choose a player (you may choose yourself).", "other": "Choose another player."},
    "ja": {"any": "プレイヤー1人を選ぶ（自分でもよい）。", "other": "他のプレイヤー1人を選ぶ。"},
}
COND = {
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
GRAMMAR: dict[str, dict[str, Any]] = {
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


def _phrase(block: dict[str, Any], lang: str) -> str:
    table = PHRASES[lang]
    name = block["block"]
    param = block.get("n") if name == "DRAW" else block.get("selector") or block.get("source")
    key: tuple[Any, ...] = (name, param)
    if key not in table:
        key = (name,)
    return table[key].format(n=block.get("n"))


def effect_text(kind: dict[str, Any], lang: str) -> str:
    """The rules text of a kind, generated from its blocks (consecutive blocks share a condition)."""
    grammar = GRAMMAR[lang]
    if not kind["usable"]:
        return str(grammar["unusable"])
    parts = [TARGET[lang][kind["target_rule"]]] if kind["target_rule"] != "none" else []
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
            head = COND[lang][name].format(n=n)
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


def text_languages(kind: Mapping[str, Any]) -> list[str]:
    """The languages a kind's record has a rules text in (its ``text_<code>`` keys)."""
    return sorted(key.removeprefix("text_") for key in kind if key.startswith("text_"))


def text_mismatches(kinds: list[dict[str, Any]]) -> list[str]:
    """Every kind and language whose text in the data differs from the text of its blocks."""
    return [
        f"{k['id']}: text_{lang} differs from the text built from its blocks"
        for k in kinds
        for lang in text_languages(k)
        if k[f"text_{lang}"] != effect_text(k, lang)
    ]
