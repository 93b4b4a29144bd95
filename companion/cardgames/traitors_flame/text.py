"""Events as sentences in Japanese or English, for the table page's game log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import cards

_EN = {
    "round-started": "Round {round} begins: {start} holds Night, play goes {direction}"
    " (shuffled {shuffles}×).",
    "drew": "{seat} drew {what}.",
    "played": "{seat} played {card}{at}.",
    "took": "{seat} took {what} from {target}.",
    "gave": "{seat} gave {what} to {target}.",
    "looked": "{seat} looked at {target}'s hand{cards}.",
    "peeked": "{seat} looked at the top {count} cards of the deck{cards}.",
    "bottomed": "{seat} put a card at the bottom of the deck{card}.",
    "reversed": "The direction of play is now {direction}.",
    "skip-set": "Night will pass over the next player.",
    "skipped": "Night passed over {seat}.",
    "passed": "{seat} hands Night to {target} and takes Before-Dawn.",
    "fizzled": "{seat}'s effect found nothing to take from {target}.",
    "round-ended": "Round {round} ends ({how}); {ender} ended it. Scores: {scores}.",
    "match-ended": "{winner} wins with {score} points.",
}
_JA = {
    "round-started": "第{round}回開始：{start}が「夜」を持ち、{direction}に回る（山札は{shuffles}回切った）。",
    "drew": "{seat}が{what}を引いた。",
    "played": "{seat}が{card}を使った{at}。",
    "took": "{seat}が{target}から{what}を奪った。",
    "gave": "{seat}が{target}に{what}を渡した。",
    "looked": "{seat}が{target}の手札を見た{cards}。",
    "peeked": "{seat}が山札の上から{count}枚を見た{cards}。",
    "bottomed": "{seat}がカードを1枚山札の一番下に置いた{card}。",
    "reversed": "手番の向きが{direction}になった。",
    "skip-set": "次の「夜」の受け渡しで1人飛ばされる。",
    "skipped": "{seat}は飛ばされた。",
    "passed": "{seat}が{target}に「夜」を渡し、「夜明け前」を受け取った。",
    "fizzled": "{seat}の効果は{target}から何も奪えなかった。",
    "round-ended": "第{round}回終了（{how}）。終わらせたのは{ender}。得点：{scores}。",
    "match-ended": "{winner}が{score}点で勝利。",
}
_WORDS = {
    "en": {
        "flame": "a Flame",
        "card": "a card",
        "non_flame": "a non-Flame card",
        1: "clockwise",
        -1: "counterclockwise",
        "by_flame": "Night reached 3 Flames",
        "by_deck": "the deck ran out",
        "at": " on {target}",
    },
    "ja": {
        "flame": "「逆臣の炎」",
        "card": "カード",
        "non_flame": "炎以外のカード",
        1: "時計回り",
        -1: "反時計回り",
        "by_flame": "炎3枚に夜が到達",
        "by_deck": "山札切れ",
        "at": "（対象：{target}）",
    },
}


def seat_name(seat: int | None, lang: str, names: Sequence[str] | None = None) -> str:
    """A seat as the log names it: the player's name if given, else "Seat 1" / "1番席"."""
    if seat is None:
        return "—"
    if names is not None and seat < len(names):
        return names[seat]
    return f"Seat {seat + 1}" if lang == "en" else f"{seat + 1}番席"


def card_name(card: str, lang: str) -> str:
    """A card's name in ``lang`` (Japanese names in 「」)."""
    kind = cards.kind_of(card)
    return kind["name_en"] if lang == "en" else f"「{kind['name_ja']}」"


def describe(event: dict[str, Any], lang: str = "en", names: Sequence[str] | None = None) -> str:
    """An event from a view as one sentence; private details appear only if the view kept them."""
    lang = "ja" if lang == "ja" else "en"
    words = _WORDS[lang]
    sep = ", " if lang == "en" else "、"

    def who(key: str) -> str:
        return seat_name(event.get(key), lang, names)

    def what() -> str:
        if "card" in event and not event.get("flame"):
            return card_name(event["card"], lang)
        return words["flame"] if event.get("flame") else words["non_flame"]

    def listed(key: str) -> str:
        if key not in event:
            return ""
        shown = sep.join(card_name(c, lang) for c in event[key]) or "—"
        return f": {shown}" if lang == "en" else f"（{shown}）"

    kind = event["type"]
    fields = {
        "round": event.get("round"),
        "seat": who("seat"),
        "target": who("target"),
        "start": who("start"),
        "ender": who("ender"),
        "winner": who("winner"),
        "direction": words.get(event.get("direction", 1), ""),
        "shuffles": event.get("shuffles"),
        "count": event.get("count"),
        "what": what() if kind in ("took", "gave", "drew") else "",
        "card": "",
        "cards": listed("cards"),
        "at": words["at"].format(target=who("target")) if "target" in event else "",
        "how": words.get(f"by_{event.get('ended_by')}", ""),
        "scores": sep.join(str(s) for s in event.get("scores", [])),
        "score": (event.get("totals") or [0])[event.get("winner") or 0],
    }
    if kind == "played":
        fields["card"] = card_name(event["card"], lang)
    elif kind == "bottomed" and "card" in event:
        fields["card"] = (
            f" ({card_name(event['card'], lang)})"
            if lang == "en"
            else f"（{card_name(event['card'], lang)}）"
        )
    template = (_EN if lang == "en" else _JA).get(kind)
    return template.format(**fields) if template else kind
