"""Page helpers for the Traitor's Flame table: button labels, card pictures and the board's words.

Everything here reads a ``view`` (what one seat may know), never the engine state, so the board
cannot show more than the view holds. Card pictures come from ``svg.py``: each picture a page needs
is defined once as an SVG ``<symbol>`` (``defs``) and drawn with ``<use>`` wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from html import escape
from typing import Any

from markupsafe import Markup

from . import cards, svg
from .text import seat_name

BACKS = ("back", "flame", "night", "dawn")
_SVG_BODY = re.compile(r"^<svg[^>]*>(?:<title>.*?</title>)?(?P<body>.*)</svg>$", re.DOTALL)

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "round": "Round {n}",
        "turn": "turn {n}",
        "your_turn": "Your turn: you hold Night",
        "their_turn": "{name}'s turn: holds Night",
        "over": "The match is over",
        "next": "Next: {name}",
        "skipping": "Night will pass over {name}",
        "clockwise": "Clockwise",
        "counterclockwise": "Counterclockwise",
        "order": "Order of play",
        "deck": "Deck",
        "deck_cards": "{n} cards",
        "deck_flames": "Flames left in it: {n}",
        "top_flame": "Top card: a Flame",
        "top_other": "Top card: not a Flame",
        "deck_empty": "The deck is empty",
        "you_saw": "You saw in the deck",
        "from_top": "{n} from the top",
        "dawn_table": "Before-Dawn lies on the table",
        "played": "Played this round",
        "played_none": "No card played yet this round.",
        "latest": "latest",
        "seats": "Hands",
        "you": "you",
        "bot": "bot",
        "cards": "{n} cards",
        "one_card": "1 card",
        "no_cards": "no cards",
        "flames": "{n} Flames",
        "one_flame": "1 Flame",
        "no_flames": "no Flames",
        "danger": "3+ Flames: the round ends if Night reaches them",
        "holds_night": "holds Night (+2)",
        "holds_dawn": "holds Before-Dawn (+4)",
        "you_know": "You have seen",
        "your_hand": "Your hand",
        "empty_hand": "Your hand is empty.",
        "usable": "can be played",
        "unusable": "cannot be played",
        "hand_value": "Your hand is worth {n} now",
        "negative": " (a negative sum counts as 0)",
        "points": "{n}",
        "colon": ": ",
        "scores": "Scores",
        "total": "Total",
        "to_win": "First to {n} or more after a round",
        "seat": "Player",
        "round_short": "R{n}",
        "how_flame": "Night reached 3 Flames",
        "how_deck": "the deck ran out",
        "round_ended": "Round {n}: {how}; {name} ended it",
        "revealed": "Hands shown at scoring",
        "raw": "sum {n}, counts as 0",
        "night": "Night",
        "dawn": "Before-Dawn",
        "flame": "Flame",
        "card_back": "card back",
        "back_of": "back: {name}",
        "table": "Traitor's Flame table",
        "nothing": "nothing else",
    },
    "ja": {
        "round": "第{n}回",
        "turn": "{n}手目",
        "your_turn": "あなたの手番です（「夜」を持っています）",
        "their_turn": "{name}の手番（「夜」を持っています）",
        "over": "対戦は終わりました",
        "next": "次は{name}",
        "skipping": "次の受け渡しで{name}は飛ばされます",
        "clockwise": "時計回り",
        "counterclockwise": "反時計回り",
        "order": "手番の順",
        "deck": "山札",
        "deck_cards": "{n}枚",
        "deck_flames": "うち「逆臣の炎」{n}枚",
        "top_flame": "一番上は「逆臣の炎」",
        "top_other": "一番上は炎ではない",
        "deck_empty": "山札はありません",
        "you_saw": "あなたが見た山札のカード",
        "from_top": "上から{n}枚目",
        "dawn_table": "「夜明け前」は場に置かれています",
        "played": "この回に使われたカード",
        "played_none": "この回はまだカードが使われていません。",
        "latest": "最新",
        "seats": "各プレイヤーの手札",
        "you": "あなた",
        "bot": "ボット",
        "cards": "{n}枚",
        "one_card": "1枚",
        "no_cards": "0枚",
        "flames": "炎{n}枚",
        "one_flame": "炎1枚",
        "no_flames": "炎なし",
        "danger": "炎3枚以上：「夜」が回れば回が終わります",
        "holds_night": "「夜」を持つ（+2）",
        "holds_dawn": "「夜明け前」を持つ（+4）",
        "you_know": "あなたが見たカード",
        "your_hand": "あなたの手札",
        "empty_hand": "手札はありません。",
        "usable": "使用できる",
        "unusable": "使用できない",
        "hand_value": "今の手札は{n}点",
        "negative": "（マイナスは0点として数えます）",
        "points": "{n}点",
        "colon": "：",
        "scores": "得点",
        "total": "合計",
        "to_win": "回の終わりに{n}点以上で勝利",
        "seat": "プレイヤー",
        "round_short": "{n}回",
        "how_flame": "炎3枚に「夜」が到達",
        "how_deck": "山札切れ",
        "round_ended": "第{n}回：{how}。終わらせたのは{name}",
        "revealed": "得点計算で公開された手札",
        "raw": "合計{n}点、0点として加算",
        "night": "夜",
        "dawn": "夜明け前",
        "flame": "逆臣の炎",
        "card_back": "カードの裏",
        "back_of": "裏：{name}",
        "table": "逆臣の炎の卓",
        "nothing": "ほかになし",
    },
}


def _lang(lang: str | None) -> str:
    return "ja" if lang == "ja" else "en"


def word(lang: str, key: str, **params: Any) -> str:
    """One of the board's phrases in ``lang`` (ja or en), filled with ``params``."""
    return WORDS[_lang(lang)][key].format(**params)


def count_words(lang: str, n: int, flames: int | None = None) -> str:
    """A hand summary: "5 cards · 2 Flames" / "5枚・炎2枚"."""
    text = word(lang, "one_card" if n == 1 else "no_cards" if n == 0 else "cards", n=n)
    if flames is None:
        return text
    fl = word(
        lang, "one_flame" if flames == 1 else "no_flames" if flames == 0 else "flames", n=flames
    )
    return f"{text} · {fl}" if _lang(lang) == "en" else f"{text}・{fl}"


def card_name(card: str, lang: str) -> str:
    """A card's (or kind's) name as the board writes it; Japanese names in 「」."""
    kind = _kind(card)
    return kind["name_en"] if _lang(lang) == "en" else f"「{kind['name_ja']}」"


def _kind(card: str) -> dict[str, Any]:
    kinds = cards.kinds()
    return kinds[card] if card in kinds else cards.kind_of(card)


# Button labels ------------------------------------------------------------------------------


def label(
    action: dict[str, Any], view: dict[str, Any], lang: str, names: Sequence[str] | None = None
) -> str:
    """The button text of a legal action: the card, its target and the choices, in ja or en."""
    lang = _lang(lang)
    if action.get("type") == "draw":
        top = view.get("deck", {}).get("top_is_flame")
        if lang == "en":
            return "Draw the top card" + (" (a Flame)" if top else "")
        return "山札から1枚引く" + ("（一番上は「逆臣の炎」）" if top else "")
    if action.get("type") != "play" or "card" not in action:
        return str(action.get("type", "?"))
    card = str(action["card"])
    steps = _steps(action, view, lang)
    target = action.get("target")
    if lang == "en":
        text = f"Play {card_name(card, lang)}"
        if target is not None:
            text += " on " + _who(target, view, lang, names)
        return text + (": " + ", ".join(p for p, _ in steps) if steps else "")
    text = card_name(card, lang)
    if target is not None:
        text += "を" + _who(target, view, lang, names) + "に使う"
    else:
        text += "を使う"
    if not steps:
        return text
    joined = "、".join(j for _, j in steps[:-1])
    return text + "（" + (joined + "、" if joined else "") + steps[-1][0] + "）"


def _who(seat: int, view: dict[str, Any], lang: str, names: Sequence[str] | None) -> str:
    if seat == view.get("seat"):
        return "yourself" if lang == "en" else "自分"
    return seat_name(seat, lang, names)


def _steps(action: dict[str, Any], view: dict[str, Any], lang: str) -> list[tuple[str, str]]:
    """What the play will do that the player chose or should know: (phrase, joining form)."""
    kind = _kind(str(action["card"]))
    target = action.get("target")
    me = view.get("seat")
    hands = view.get("hands") or []
    flames = [h.get("flames", 0) for h in hands]
    out: list[tuple[str, str]] = []
    acting = False
    for block in kind["effect"]:
        if not _holds(block, flames, me, target):
            continue
        name = block["block"]
        if name in ("TAKE", "GIVE", "LOOK_HAND") and (target is None or target == me):
            continue  # targeting yourself takes, gives and shows nothing (D10)
        acting = True
        phrase = _step(name, block, action, hands, target, lang)
        if phrase:
            out.append(phrase)
    if not acting:
        return [("no effect", "no effect") if lang == "en" else ("効果なし", "効果なし")]
    return out


def _holds(block: dict[str, Any], flames: list[int], me: Any, target: Any) -> bool:
    cond = block.get("if") or {}
    for name, n in cond.items():
        who = target if name == "target_flames_at_least" else me
        if who is None or who >= len(flames) or flames[who] < n:
            return False
    return True


def _step(
    name: str,
    block: dict[str, Any],
    action: dict[str, Any],
    hands: list[dict[str, Any]],
    target: Any,
    lang: str,
) -> tuple[str, str] | None:
    en = lang == "en"
    if name == "TAKE":
        what = action.get("take") if block.get("selector") == "choose" else block.get("selector")
        hand = hands[target] if target is not None and target < len(hands) else {}
        if what == "flame" and hand.get("flames", 0):
            return ("take a Flame", "") if en else ("「逆臣の炎」を奪う", "「逆臣の炎」を奪い")
        if what == "non_flame" and hand.get("count", 0) > hand.get("flames", 0):
            if en:
                return ("take a random non-Flame card", "")
            return ("炎以外を1枚無作為に奪う", "炎以外を1枚無作為に奪い")
        return ("nothing to take", "") if en else ("奪えるカードなし", "奪えるカードはなく")
    if name == "GIVE":
        if "give" not in action:
            return ("nothing to give", "") if en else ("渡せるカードなし", "渡せるカードはなく")
        card = card_name(str(action["give"]), lang)
        return (f"give {card}", "") if en else (f"{card}を渡す", f"{card}を渡し")
    if name == "BOTTOM" and block.get("source") == "own_hand" and "bottom" in action:
        card = card_name(str(action["bottom"]), lang)
        if en:
            return (f"put {card} at the bottom of the deck", "")
        return (f"{card}を山札の一番下に置く", f"{card}を山札の一番下に置き")
    return None


# Card pictures ------------------------------------------------------------------------------


@cache
def _body(picture: str) -> str:
    """The inside of an svg.py picture (no outer <svg>, no title)."""
    match = _SVG_BODY.match(picture)
    return match.group("body") if match else picture


@cache
def _front_body(kind: str, lang: str) -> str:
    return _body(svg.front(kind, lang))


@cache
def _back_body(which: str) -> str:
    return _body(svg.back(_back_kind(which)))


def _back_kind(which: str) -> str:
    if which in ("flame", "night", "dawn"):
        return which
    return str(cards.characters()[0]["id"])  # every character shares the one rose-window back


def back_of(card: dict[str, Any] | str) -> str:
    """Which back a card shows: ``flame``, ``night``, ``dawn`` or the common ``back``."""
    kind = card["kind"] if isinstance(card, dict) else _kind(card)["id"]
    return kind if kind in ("flame", "night", "dawn") else "back"


def defs(view: dict[str, Any], lang: str) -> Markup:
    """One hidden <svg> holding every picture this view needs: the four backs, and a face per
    kind the viewer may see (own hand, played row, cards they have seen)."""
    lang = _lang(lang)
    parts = [
        f'<symbol id="tf-back-{b}" viewBox="0 0 {svg.W} {svg.H}">{_back_body(b)}</symbol>'
        for b in BACKS
    ]
    parts += [
        f'<symbol id="tf-face-{k}-{lang}" viewBox="0 0 {svg.W} {svg.H}">'
        f"{_front_body(k, lang)}</symbol>"
        for k in sorted(visible_kinds(view))
    ]
    return Markup(  # noqa: S704 - built from svg.py output and kind ids, no user text
        '<svg class="tf-defs" aria-hidden="true" focusable="false" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


def visible_kinds(view: dict[str, Any]) -> set[str]:
    """The kinds whose faces this view shows."""
    seen = [c["kind"] for c in view.get("played", [])]
    seen += [k["card"]["kind"] for k in view.get("known_deck", [])]
    for hand in view.get("hands", []):
        seen += [c["kind"] for c in hand.get("cards", []) + hand.get("known", [])]
    return set(seen)


def face(card: dict[str, Any] | str, lang: str, extra: str = "") -> Markup:
    """A card face drawn from its symbol in ``defs`` (the kind must be visible to the viewer)."""
    lang = _lang(lang)
    kind = card["kind"] if isinstance(card, dict) else _kind(card)["id"]
    title = _kind(kind)[f"name_{lang}"]
    return _use(f"tf-face-{kind}-{lang}", title, f"tf-card tf-face {extra}")


def back(which: str, lang: str, extra: str = "") -> Markup:
    """A card back (``back``, ``flame``, ``night`` or ``dawn``) drawn from its symbol."""
    if which == "back":
        title = word(lang, "card_back")
    else:
        title = word(lang, "back_of", name=word(lang, which))
    return _use(f"tf-back-{which}", title, f"tf-card tf-back tf-back-{which} {extra}")


def _use(symbol: str, title: str, classes: str) -> Markup:
    return Markup(  # noqa: S704 - the title is escaped; the rest are fixed ids
        f'<svg class="{escape(classes.strip())}" viewBox="0 0 {svg.W} {svg.H}" role="img" '
        f'aria-label="{escape(title)}"><use href="#{symbol}"/></svg>'
    )


def full_face(card: str, lang: str) -> Markup:
    """A stand-alone card face (its own <svg>), for pages without ``defs``."""
    return Markup(svg.front(card, _lang(lang)))  # noqa: S704 - svg.py escapes its text


def full_back(card: str) -> Markup:
    """A stand-alone card back (its own <svg>)."""
    return Markup(svg.back(card))  # noqa: S704 - svg.py output, no user text


# The board as the template draws it ---------------------------------------------------------


def board(
    view: dict[str, Any], lang: str, names: Sequence[str], bots: Sequence[Any]
) -> dict[str, Any]:
    """Everything the board template shows, worked out from the view."""
    lang = _lang(lang)
    n = view["players"]
    return {
        "lang": lang,
        "status": status(view, lang, names),
        "order": play_order(view, lang, names),
        "direction": word(lang, "clockwise" if view["direction"] == 1 else "counterclockwise"),
        "seats": [seat_info(view, h, lang, names, bots) for h in view["hands"]],
        "played": played_groups(view),
        "hand": hand_groups(view),
        "scores": score_rows(view, lang, names, n),
        "rounds": [round_info(r, lang, names) for r in view.get("rounds", [])],
    }


def status(view: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any]:
    """Whose turn, who is next (and who a pending skip passes over)."""
    current = view.get("current")
    if current is None:
        return {"turn": word(lang, "over"), "next": "", "skip": "", "mine": False}
    n, d = view["players"], view["direction"]
    nxt = (current + d) % n
    skip = ""
    if view.get("skip_pending"):
        skip = word(lang, "skipping", name=seat_name(nxt, lang, names))
        nxt = (nxt + d) % n
    mine = current == view.get("seat")
    turn = (
        word(lang, "your_turn")
        if mine
        else word(lang, "their_turn", name=seat_name(current, lang, names))
    )
    return {
        "turn": turn,
        "next": word(lang, "next", name=seat_name(nxt, lang, names)),
        "skip": skip,
        "mine": mine,
    }


def play_order(view: dict[str, Any], lang: str, names: Sequence[str]) -> list[dict[str, Any]]:
    """Every seat in the direction of play, starting from whoever holds Night."""
    n, d = view["players"], view["direction"]
    start = view.get("current")
    if start is None:
        start = view.get("night") or 0
    return [
        {"seat": s, "name": seat_name(s, lang, names), "current": s == view.get("current")}
        for s in ((start + d * k) % n for k in range(n))
    ]


def seat_info(
    view: dict[str, Any],
    hand: dict[str, Any],
    lang: str,
    names: Sequence[str],
    bots: Sequence[bool],
) -> dict[str, Any]:
    """One seat's public hand: how many backs of each kind, markers, total, what you saw."""
    s = hand["seat"]
    return {
        "seat": s,
        "name": seat_name(s, lang, names),
        "bot": s < len(bots) and bool(bots[s]),
        "me": s == view.get("seat"),
        "current": s == view.get("current"),
        "count": hand["count"],
        "flames": hand["flames"],
        "others": hand["count"] - hand["flames"],
        "night": hand["night"],
        "dawn": hand["dawn"],
        "total": hand["total"],
        "summary": count_words(lang, hand["count"], hand["flames"]),
        "danger": hand["flames"] >= 3,
        "known": [c for c in hand.get("known", []) if c.get("kind") != "flame"],
    }


def hand_groups(view: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The viewer's own hand grouped by kind (usable cards first), or None for a spectator."""
    me = view.get("seat")
    if me is None:
        return None
    groups: dict[str, dict[str, Any]] = {}
    for card in view["hands"][me].get("cards", []):
        groups.setdefault(card["kind"], {"card": card, "count": 0})["count"] += 1
    return sorted(
        groups.values(),
        key=lambda g: (not g["card"]["usable"], g["card"]["kind"] != "flame", -g["card"]["value"]),
    )


def played_groups(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The played row grouped by kind, in the order the kinds first came out; the last card's
    group is marked ``latest``."""
    groups: dict[str, dict[str, Any]] = {}
    played = view.get("played", [])
    for card in played:
        group = groups.setdefault(card["kind"], {"card": card, "count": 0, "latest": False})
        group["count"] += 1
    if played:
        groups[played[-1]["kind"]]["latest"] = True
    return list(groups.values())


def hand_value(view: dict[str, Any]) -> int:
    """What your hand would score now (Night and Before-Dawn included, before the floor of 0)."""
    me = view.get("seat")
    hand = view["hands"][me] if me is not None else {}
    return int(
        sum(c["value"] for c in hand.get("cards", []))
        + (2 if hand.get("night") else 0)
        + (4 if hand.get("dawn") else 0)
    )


def score_rows(
    view: dict[str, Any], lang: str, names: Sequence[str], n: int
) -> list[dict[str, Any]]:
    """Per seat: the score of every finished round, the total and the share of the 20 to win."""
    rounds = view.get("rounds", [])
    win = view.get("win_score", 20)
    best = max(view["totals"]) if view["totals"] else 0
    return [
        {
            "seat": s,
            "name": seat_name(s, lang, names),
            "scores": [r["scores"][s] for r in rounds],
            "raw": [r["raw"][s] for r in rounds],
            "total": view["totals"][s],
            "bar": min(view["totals"][s], win),
            "lead": best > 0 and view["totals"][s] == best,
        }
        for s in range(n)
    ]


def round_info(summary: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any]:
    """A finished round: how it ended, who ended it, and the hands revealed at scoring."""
    how = word(lang, "how_flame" if summary["ended_by"] == "flame" else "how_deck")
    return {
        "round": summary["round"],
        "line": word(
            lang,
            "round_ended",
            n=summary["round"],
            how=how,
            name=seat_name(summary["ender"], lang, names),
        ),
        "hands": [
            {
                "name": seat_name(h["seat"], lang, names),
                "flames": h["flames"],
                "kinds": [card_name(k, lang) for k in h["kinds"]],
                "night": h["night"],
                "dawn": h["dawn"],
                "raw": summary["raw"][h["seat"]],
                "score": summary["scores"][h["seat"]],
            }
            for h in summary["hands"]
        ],
    }


def result_info(
    result: dict[str, Any], rounds: list[dict[str, Any]], lang: str, names: Sequence[str]
) -> dict[str, Any]:
    """The final standings in tie order, the winner and why ties went the way they did."""
    lang = _lang(lang)
    totals = result["totals"]
    order = result.get("order") or list(range(len(totals)))
    ranked = sorted(order, key=lambda s: (-totals[s], order.index(s)))
    best = totals[result["winner"]]
    tied = [s for s in order if totals[s] == best]
    ender = rounds[-1]["ender"] if rounds else None
    return {
        "winner": seat_name(result["winner"], lang, names),
        "score": best,
        "rows": [
            {
                "rank": i + 1,
                "name": seat_name(s, lang, names),
                "total": totals[s],
                "winner": s == result["winner"],
            }
            for i, s in enumerate(ranked)
        ],
        "order": [seat_name(s, lang, names) for s in order],
        "first": seat_name(order[0], lang, names),
        "ender": seat_name(ender, lang, names) if ender is not None else "",
        "tied": [seat_name(s, lang, names) for s in tied] if len(tied) > 1 else [],
        "rounds": result.get("rounds", len(rounds)),
        "capped": bool(result.get("capped")),
    }
