"""Story events in words: ``describe(event, lang, names)`` gives one sentence in ``ja`` or ``en``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import colour_info, kinds

ACTION_NAMES = {
    "conquest": ("Conquest", "征服"),
    "research": ("Research", "研究"),
    "alchemy": ("Alchemy", "錬金術"),
    "prayer": ("Prayer", "祈祷"),
    "festival": ("Festival", "祝祭"),
    "inquisition": ("Inquisition", "異端審問"),
    "pilgrimage": ("Pilgrimage", "巡礼"),
}

_TEMPLATES: dict[str, tuple[str, str]] = {
    "setup": ("A match for {players} players begins; {start} starts.",
              "{players}人のゲームを開始。スタートプレイヤーは{start}。"),
    "dealt": ("{who} is dealt {count} cards{kinds_paren}.", "{who}に手札{count}枚{kinds_paren}。"),
    "initial-mana": ("{who} reveals initial mana: {kinds}.", "{who}の初期魔力：{kinds}。"),
    "catch-up": ("{who} plays later in the lap and starts with {vp} VP.",
                 "{who}は手番が後なので勝利点{vp}点から始める。"),
    "turn": ("{who}'s turn.", "{who}の手番。"),
    "empty-hand": ("{who} has no hand and plays the top card of the deck.",
                   "{who}は手札がないので山札の一番上のカードを出す。"),
    "command": ("{who} plays {played} beside {pairing}: command number {number}.",
                "{who}は{pairing}の隣に{played}を置く。コマンドナンバー{number}。"),
    "summoned": ("{who} summons {kind} (paid {paid}).", "{who}は{kind}を呼び出す（支払い：{paid}）。"),
    "placed": ("{who} places {kind} as mana (Baltanders).",
               "{who}は{kind}を魔力として置く（バルトアンデルス）。"),
    "paid": ("{who} pays {paid} for {kind}'s ability.", "{who}は{kind}の能力に{paid}を支払う。"),
    "action": ("{who} takes {action}{choice_paren} with {number}{via_paren}.",
               "{who}は{number}で{action}を行なう{choice_paren}{via_paren}。"),
    "conquest": ("{who} gains {gain} VP from axes and swords and takes 1 VP from {victim}.",
                 "{who}は斧と剣で勝利点{gain}を得て、{victim}から勝利点1を奪う。"),
    "research": ("{who} gains {gain} VP for stones{flip_text}.",
                 "{who}は賢者の石で勝利点{gain}を得る{flip_text}。"),
    "pilgrimage": ("{who} gains {gain} VP for faith.", "{who}は信仰により勝利点{gain}を得る。"),
    "ability": ("{who}'s {kind}{times}: {effects}.", "{who}の{kind}{times}：{effects}。"),
    "drew": ("{who} draws {count}{kinds_paren}.", "{who}はカードを{count}枚引く{kinds_paren}。"),
    "stones": ("{who} gains {count} philosopher's stone(s).", "{who}は賢者の石を{count}枚得る。"),
    "mana": ("{who} places {kinds} from the deck as mana.", "{who}は山札から{kinds}を魔力として置く。"),
    "refill-drawn": ("{who} draws 2 for the refill{kinds_paren}.",
                     "{who}は補充のため2枚引く{kinds_paren}。"),
    "revealed": ("{who} reveals {kinds}.", "{who}は{kinds}を公開する。"),
    "gave": ("{who} gives a card to {to}{kinds_paren}.", "{who}は{to}にカードを1枚渡す{kinds_paren}。"),
    "festival": ("{who} places {placed} as mana{discard_text}.",
                 "{who}は{placed}を魔力として置く{discard_text}。"),
    "discarded": ("{who} discards {what}.", "{who}は{what}を捨てる。"),
    "prayer-done": ("{who} stops discarding and refills to 5.", "{who}は捨てるのをやめ、5枚まで引く。"),
    "kept": ("{who} keeps the only card drawn{kinds_paren}; no assist.",
             "{who}は引けた1枚を手札に加える{kinds_paren}。アシストなし。"),
    "assisted": ("{who} keeps a card{kinds_paren} and assists {kind} ({number}) to {to}.",
                 "{who}は1枚を手札に加え{kinds_paren}、{kind}（{number}）を{to}にアシストする。"),
    "declined": ("{who} does not use {kind}'s ability.", "{who}は{kind}の能力を使わない。"),
    "declared": ("{who} declares the end ({spirits} spirits, {vp} VP). One more lap.",
                 "{who}が終了宣言（精霊{spirits}体、勝利点{vp}）。もう一周で終了。"),
    "reshuffled": ("The discard pile ({count}) is shuffled into a new deck.",
                   "捨て札{count}枚をシャッフルして新しい山札にする。"),
    "rule-9-9": ("Deck and discard are empty: everyone discards down to 9 hand and 9 mana.",
                 "山札も捨て札も尽きた。全員、手札と魔力を9枚まで捨てる。"),
    "game-end": ("The match ends. Scores {totals}; {winner} wins.",
                 "ゲーム終了。得点{totals}、{winner}の勝利。"),
}  # fmt: skip


_CHOICES = {
    "draw": {
        "alchemy": ("a card and a stone", "カード1枚と賢者の石"),
        "prayer": ("draw 2", "2枚引く"),
    },
    "faith": {
        "alchemy": ("1 faith and a stone", "信仰1と賢者の石"),
        "pilgrimage": ("a card and 1 faith", "カード1枚と信仰1"),
    },
    "refill": {"prayer": ("discard, then refill to 5", "捨てて5枚まで引く")},
    "vp": {"pilgrimage": ("VP equal to faith", "信仰と同じ勝利点")},
}
_VIA = {"zero-played": ("Asmodai", "アスモダイ"), "shift": ("Sandman", "サンドマン")}


def _who(seat: Any, names: Sequence[str] | None) -> str:
    """A seat by its player's name, else "P1", "P2"..."""
    if seat is None:
        return "—"
    if names is not None and 0 <= seat < len(names):
        return str(names[seat])
    return f"P{seat + 1}"


def _kind(kind: Any, ja: bool) -> str:
    if kind is None:
        return "—"
    return str(kinds()[kind]["name_ja" if ja else "name_en"])


def _kinds(values: list[str] | None, ja: bool) -> str:
    return ("、" if ja else ", ").join(_kind(k, ja) for k in values or []) or "—"


def _paid(paid: dict[str, int] | None, ja: bool) -> str:
    if not paid:
        return "なし" if ja else "nothing"
    parts = []
    for name, count in paid.items():
        label = ("賢者の石" if ja else "stone") if name == "stone" else (
            colour_info()[name]["name_ja" if ja else "name_en"])  # fmt: skip
        parts.append(f"{label}×{count}")
    return " ".join(parts)


def _effects(event: dict[str, Any], ja: bool) -> str:
    parts = []
    if "vp" in event:
        parts.append(f"勝利点+{event['vp']}" if ja else f"+{event['vp']} VP")
    if "faith" in event:
        parts.append(f"信仰+{event['faith']}" if ja else f"+{event['faith']} faith")
    if "steal" in event:
        amount = event["steal"]["amount"]
        parts.append(f"勝利点{amount}を奪う" if ja else f"takes {amount} VP")
    if "steal_each" in event:
        total = sum(event["steal_each"].values())
        parts.append(f"計{total}点を奪う" if ja else f"takes {total} VP in all")
    for key, en, jp in (("draw", "draws {}", "{}枚引く"), ("stone", "{} stone(s)", "賢者の石{}枚"),
                        ("mana", "{} mana from the deck", "山札から魔力{}枚"),
                        ("cards", "{} cards", "カード{}枚")):  # fmt: skip
        if key in event:
            parts.append((jp if ja else en).format(event[key]))
    if event.get("trim"):
        parts.append(
            "全員が手札6枚・魔力7枚まで捨てる" if ja else "everyone trims to 6 hand, 7 mana"
        )
    return ("、" if ja else ", ").join(parts) or ("効果" if ja else "resolved")


def describe(event: dict[str, Any], lang: str = "en", names: Sequence[str] | None = None) -> str:
    """One sentence for a (viewed) event, in ``lang`` ("ja" or "en"), naming seats by ``names``."""
    ja = lang == "ja"
    template = _TEMPLATES.get(event["type"])
    if template is None:
        return str(event["type"])
    ctx = dict(event)
    ctx["who"] = _who(event.get("seat"), names)
    ctx["start"] = _who(event.get("start"), names)
    ctx["to"] = _who(event.get("to"), names)
    ctx["winner"] = _who(event.get("winner"), names)
    ctx["victim"] = _who(event.get("victim"), names) if event.get("victim") is not None else (
        "中央" if ja else "the supply")  # fmt: skip
    ctx["kind"] = _kind(event.get("kind"), ja)
    ctx["played"] = _kind(event.get("played"), ja)
    ctx["pairing"] = _kind(event.get("pairing"), ja) + f"({event.get('pairing_number', 0)})"
    ctx["kinds"] = _kinds(event.get("kinds"), ja)
    ctx["kinds_paren"] = f"（{ctx['kinds']}）" if ja and event.get("kinds") else (
        f" ({ctx['kinds']})" if event.get("kinds") else "")  # fmt: skip
    ctx["placed"] = _kinds(event.get("placed"), ja)
    discarded = event.get("discarded")
    ctx["discard_text"] = (
        ""
        if not discarded
        else (
            f"、{_kind(discarded, ja)}を捨てる" if ja else f" and discards {_kind(discarded, ja)}"
        )
    )
    ctx["paid"] = _paid(event.get("paid"), ja)
    ctx["action"] = ACTION_NAMES.get(event.get("action", ""), ("", ""))[1 if ja else 0]
    choice = _CHOICES.get(event.get("choice") or "", {}).get(event.get("action", ""))
    ctx["choice_paren"] = "" if not choice else (f"（{choice[1]}）" if ja else f" ({choice[0]})")
    via = _VIA.get(event.get("via") or "")
    ctx["via_paren"] = "" if not via else (f"（{via[1]}）" if ja else f" (by {via[0]})")
    flipped = event.get("flipped")
    ctx["flip_text"] = "" if not flipped else (
        f"。その後、{colour_info()[flipped]['name_ja']}の魔力を賢者の石にする" if ja
        else f", then turns a {flipped} mana into a stone")  # fmt: skip
    ctx["times"] = f"×{event['times']}" if event.get("times", 1) > 1 else ""
    ctx["effects"] = _effects(event, ja)
    zone = event.get("zone")
    ctx["what"] = _discard_what(zone, event.get("kind"), ja)
    return template[1 if ja else 0].format(**ctx)


def _discard_what(zone: Any, kind: Any, ja: bool) -> str:
    if zone == "stones":
        return "賢者の石1枚" if ja else "a philosopher's stone"
    if zone == "mana":
        return f"魔力の{_kind(kind, ja)}" if ja else f"{_kind(kind, ja)} from mana"
    if kind is None:
        return "手札1枚" if ja else "a hand card"
    return f"手札の{_kind(kind, ja)}" if ja else f"{_kind(kind, ja)} from hand"
