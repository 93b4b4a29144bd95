"""Page helpers for the Age of Summoners table: button labels, card pictures and the board's words.

Everything here reads a ``view`` (what one seat may know), never the engine state, so the board
cannot show more than the view holds. Card pictures come from ``svg.py`` in its three states (in
hand, upright as a spirit, sideways as mana) and the back (a philosopher's stone lies sideways):
each picture a page needs is defined once as an SVG ``<symbol>`` (``defs``) and drawn with
``<use>`` wherever it appears.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import cache
from html import escape
from pathlib import Path
from typing import Any

from markupsafe import Markup

from . import svg
from .cards import COLOURS, ICONS, colour_info, kind_of_card, kinds, number_of_action
from .events import ACTION_NAMES
from .events import describe as _engine_describe

STATES = ("hand", "spirit", "mana")
_SVG = re.compile(r'^<svg[^>]*viewBox="(?P<box>[^"]+)"[^>]*>(?P<body>.*)</svg>$', re.DOTALL)

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "table": "Age of Summoners table",
        "turn_no": "Turn {n}",
        "your_turn": "Your turn",
        "their_turn": "{name}'s turn",
        "over": "The match is over",
        "order": "Order of play",
        "order_note": "Play passes to the left; each player assists to the right.",
        # What the player who must choose is doing now (mine / theirs)
        "play_mine": "Phase I: play a card from your hand beside your pairing card.",
        "play_theirs": "Phase I: {name} plays a card to set the command number.",
        "main_mine": "Phase II: summon one spirit, or take the action of your command number.",
        "main_theirs": "Phase II: {name} summons a spirit or takes an action.",
        "summon_mine": "Phase II: you placed a card as mana; now summon a spirit.",
        "summon_theirs": "Phase II: {name} placed a card as mana and now summons.",
        "pay_mine": "Choose which mana to pay with.",
        "pay_theirs": "{name} chooses which mana to pay with.",
        "prayer-discard_mine": "Prayer: discard as many cards as you like, then draw up to 5.",
        "prayer-discard_theirs": "Prayer: {name} discards, then draws up to 5.",
        "trim_mine": "Discard down to {hand} hand cards and {mana} mana (stones count as mana).",
        "trim_theirs": "{name} discards down to {hand} hand cards and {mana} mana.",
        "give_mine": "Inquisition: choose a card from your hand to give to {to}.",
        "give_theirs": "Inquisition: {name} gives {to} a card.",
        "festival_mine": "Festival: place one revealed card as mana; the other is discarded.",
        "festival_theirs": "Festival: {name} places one of the revealed cards as mana.",
        "keep_mine": "Phase III: keep one of the two cards you drew; the other goes to {right}"
        " as an assist.",
        "keep_theirs": "Phase III: {name} keeps one card and assists the other to {right}.",
        "optional_mine": "Use {kind}'s ability?",
        "optional_theirs": "{name} decides whether to use {kind}'s ability.",
        "declare_mine": "You may declare the end of the game now.",
        "declare_theirs": "{name} may declare the end of the game.",
        # The end
        "end_rule": "A player with 10 or more spirits or 30 or more VP may declare the end at"
        " the end of their turn.",
        "declared": "{name} has declared the end. Final lap: {n} turns left, this one included;"
        " {name}'s extra turn comes last.",
        "last_turn": "{name} has declared the end. This is the last turn of the match.",
        # The command number
        "command": "Command number",
        "pairing": "Pairing card",
        "played": "Played",
        "hidden_pair": "no face-up mana: counts 0",
        "will_pair": "{name} will pair with",
        "will_pair_none": "{name} has no face-up mana to pair with (counts 0).",
        "reachable": "Actions within reach",
        "via_zero": "Asmodai: the played card counts 0",
        "via_shift": "Sandman: shifted",
        "chosen": "Chosen",
        "summon": "Summon",
        "revealed": "Revealed by the festival",
        # The centre of the table
        "deck": "Deck",
        "discard": "Discard pile",
        "cards": "{n} cards",
        "one_card": "1 card",
        "discard_note": "nobody may look through it",
        # Seats
        "seats": "Players",
        "you": "you",
        "bot": "bot",
        "active": "active",
        "to_act": "to choose",
        "declared_tag": "declared the end",
        "can_declare": "may declare",
        "vp": "VP",
        "faith": "Faith",
        "hand": "Hand",
        "stones": "Stones",
        "spirits": "Spirits",
        "spirits_n": "Spirits ({n})",
        "no_spirits": "No spirits yet.",
        "mana": "Mana",
        "mana_n": "Mana row ({n})",
        "no_mana": "No mana.",
        "stone_n": "{n} philosopher's stones",
        "one_stone": "1 philosopher's stone",
        "turns": "Turns played: {n}",
        "assists_to": "Assists to {name}",
        "pairs_next": "Pairs next turn",
        "assisted_by": "Assisted by {name}",
        "icons": "Icons",
        "abilities": "What their spirits do",
        "stone": "Philosopher's stone",
        "card_back": "Card back",
        "this_turn_played": "played this turn",
        "this_turn_paired": "paired this turn",
        # Your hand and choices
        "your_hand": "Your hand",
        "empty_hand": "Your hand is empty.",
        "cost": "Cost",
        "points": "Points",
        "no_icons": "no icons",
        "summonable": "can be summoned now",
        "you_drew": "You drew",
        "keep_note": "Keep one; the other goes to {right}'s mana row and becomes their next"
        " pairing card.",
        "give_note": "Your hand is shown below: the card you pick goes to {to}.",
        "now_counts": "Now: {hand} hand cards, {mana} mana.",
        "ability_text": "{kind}: {text}",
        "colon": ": ",
        "sep": ", ",
        "paren": " ({x})",
        "facts": "{tag} · cost {cost} · {points} · {icons}",
        "one_point": "1 point",
        "n_points": "{n} points",
    },
    "ja": {
        "table": "エイジ・オブ・サモナーズの卓",
        "turn_no": "{n}手番目",
        "your_turn": "あなたの手番です",
        "their_turn": "{name}の手番",
        "over": "対戦は終わりました",
        "order": "手番の順",
        "order_note": "手番は左隣りへ回り、アシストは右隣りへ渡します。",
        "play_mine": "フェイズI：手札から1枚を出し、ペアのカードの隣に置いてください。",
        "play_theirs": "フェイズI：{name}がカードを出してコマンドナンバーを決めます。",
        "main_mine": "フェイズII：精霊を1体呼び出すか、コマンドナンバーのアクションを行なってください。",
        "main_theirs": "フェイズII：{name}が精霊を呼び出すか、アクションを行ないます。",
        "summon_mine": "フェイズII：魔力を置きました。続けて精霊を呼び出してください。",
        "summon_theirs": "フェイズII：{name}は魔力を置き、これから精霊を呼び出します。",
        "pay_mine": "支払いに使う魔力を選んでください。",
        "pay_theirs": "{name}が支払う魔力を選んでいます。",
        "prayer-discard_mine": "祈祷：好きな枚数を捨ててから、手札が5枚になるまで引きます。",
        "prayer-discard_theirs": "祈祷：{name}が手札を捨ててから、5枚になるまで引きます。",
        "trim_mine": "手札{hand}枚・魔力{mana}枚（賢者の石を含む）になるまで捨ててください。",
        "trim_theirs": "{name}が手札{hand}枚・魔力{mana}枚になるまで捨てています。",
        "give_mine": "異端審問：手札から1枚を選んで{to}に渡してください。",
        "give_theirs": "異端審問：{name}が{to}にカードを1枚渡します。",
        "festival_mine": "祝祭：公開した2枚のうち1枚を魔力にしてください。もう1枚は捨て札になります。",
        "festival_theirs": "祝祭：{name}が公開した2枚のうち1枚を魔力にします。",
        "keep_mine": "フェイズIII：引いた2枚のうち1枚を手札に加え、もう1枚を{right}にアシストします。",
        "keep_theirs": "フェイズIII：{name}が1枚を手札に加え、もう1枚を{right}にアシストします。",
        "optional_mine": "{kind}の能力を使いますか？",
        "optional_theirs": "{name}が{kind}の能力を使うか決めています。",
        "declare_mine": "今ならゲームの終了を宣言できます。",
        "declare_theirs": "{name}が終了宣言をするか決めています。",
        "end_rule": "手番の終わりに精霊が10体以上か勝利点が30以上あれば、終了を宣言できます。",
        "declared": "{name}が終了を宣言しました。最後の一周：この手番を含めて残り{n}手番（最後は{name}の追加の手番）。",
        "last_turn": "{name}が終了を宣言しています。これがゲーム最後の手番です。",
        "command": "コマンドナンバー",
        "pairing": "ペアのカード",
        "played": "出したカード",
        "hidden_pair": "表向きの魔力がないので0",
        "will_pair": "{name}のペアのカード",
        "will_pair_none": "{name}には組める表向きの魔力がありません（0として数えます）。",
        "reachable": "行なえるアクション",
        "via_zero": "アスモダイ：出したカードを0として",
        "via_shift": "サンドマンで調整",
        "chosen": "選んだもの",
        "summon": "召喚",
        "revealed": "祝祭で公開されたカード",
        "deck": "山札",
        "discard": "捨て札",
        "cards": "{n}枚",
        "one_card": "1枚",
        "discard_note": "中身は誰も見られません",
        "seats": "プレイヤー",
        "you": "あなた",
        "bot": "ボット",
        "active": "手番",
        "to_act": "選択中",
        "declared_tag": "終了宣言",
        "can_declare": "宣言できる",
        "vp": "勝利点",
        "faith": "信仰",
        "hand": "手札",
        "stones": "賢者の石",
        "spirits": "精霊",
        "spirits_n": "精霊（{n}体）",
        "no_spirits": "精霊はまだいません。",
        "mana": "魔力",
        "mana_n": "魔力置き場（{n}枚）",
        "no_mana": "魔力はありません。",
        "stone_n": "賢者の石{n}枚",
        "one_stone": "賢者の石1枚",
        "turns": "手番{n}回",
        "assists_to": "アシスト先：{name}",
        "pairs_next": "次の手番のペア",
        "assisted_by": "{name}からのアシスト",
        "icons": "アイコン",
        "abilities": "精霊の能力",
        "stone": "賢者の石",
        "card_back": "カードの裏",
        "this_turn_played": "この手番に出した",
        "this_turn_paired": "この手番のペア",
        "your_hand": "あなたの手札",
        "empty_hand": "手札はありません。",
        "cost": "コスト",
        "points": "得点",
        "no_icons": "アイコンなし",
        "summonable": "今すぐ呼び出せる",
        "you_drew": "引いた2枚",
        "keep_note": "1枚を手札に残し、もう1枚は{right}の魔力置き場へ。{right}の次のペアのカードになります。",
        "give_note": "下の手札から選んだ1枚が{to}に渡ります。",
        "now_counts": "いま手札{hand}枚・魔力{mana}枚。",
        "ability_text": "{kind}：{text}",
        "colon": "：",
        "sep": "、",
        "paren": "（{x}）",
        "facts": "{tag}／コスト {cost}／{points}／{icons}",
        "one_point": "得点1",
        "n_points": "得点{n}",
    },
}

ACTION_WORDS = {**ACTION_NAMES, "summon": ("Summon", "召喚")}
ICON_WORDS = {
    "armour": ("Armour", "鎧"),
    "shield": ("Shield", "盾"),
    "staff": ("Staff", "杖"),
    "axe": ("Axe", "斧"),
    "sword": ("Sword", "剣"),
}


def _lang(lang: str | None) -> str:
    return "ja" if lang == "ja" else "en"


def word(lang: str, key: str, **params: Any) -> str:
    """One of the board's phrases in ``lang`` (ja or en), filled with ``params``."""
    return WORDS[_lang(lang)][key].format(**params)


def seat_name(seat: int | None, lang: str, names: Sequence[str] | None = None) -> str:
    """A seat as the board names it: the player's name, else "Seat 1" / "1番席"."""
    if seat is None:
        return "—"
    if names is not None and 0 <= seat < len(names):
        return str(names[seat])
    return f"Seat {seat + 1}" if _lang(lang) == "en" else f"{seat + 1}番席"


def _kind_id(kind_or_card: str) -> str:
    return kind_of_card().get(kind_or_card, kind_or_card)


def kind_name(kind_or_card: str, lang: str) -> str:
    """A spirit's name in ``lang``, from a kind id or a card id."""
    return str(kinds()[_kind_id(kind_or_card)]["name_ja" if _lang(lang) == "ja" else "name_en"])


def colour_name(colour: str, lang: str) -> str:
    """A colour as written on the board: "black" / "黒"."""
    return str(colour_info()[colour]["name_ja" if _lang(lang) == "ja" else "name_en"])


def mana_name(colour: str, lang: str) -> str:
    """A mana type's name: "Lightning" / "雷光"."""
    return str(colour_info()[colour]["mana_ja" if _lang(lang) == "ja" else "mana_en"])


def action_name(action: str, lang: str) -> str:
    """An action's name: "Conquest" / "征服" (also "summon")."""
    en, ja = ACTION_WORDS.get(action, (action, action))
    return ja if _lang(lang) == "ja" else en


def icon_name(icon: str, lang: str) -> str:
    """An icon's name: "Armour" / "鎧"."""
    en, ja = ICON_WORDS[icon]
    return ja if _lang(lang) == "ja" else en


def card_tag(kind_or_card: str, lang: str) -> str:
    """A card's mana side in words: "black 1" / "黒1"."""
    spec = kinds()[_kind_id(kind_or_card)]
    colour = colour_name(spec["colour"], lang)
    return f"{colour}{spec['number']}" if _lang(lang) == "ja" else f"{colour} {spec['number']}"


def cost_words(symbols: Sequence[str], lang: str) -> str:
    """A cost as counts: "2 black + 1 any" / "黒2・任意1"."""
    counts = Counter(symbols)
    ja = _lang(lang) == "ja"
    parts = []
    for colour in (*COLOURS, "any"):
        if counts[colour]:
            name = ("任意" if ja else "any") if colour == "any" else colour_name(colour, lang)
            parts.append(f"{name}{counts[colour]}" if ja else f"{counts[colour]} {name}")
    if not parts:
        return "なし" if ja else "nothing"
    return ("・" if ja else " + ").join(parts)


def payment_words(pay: dict[str, int], lang: str) -> str:
    """A payment dict as words: "1 black + 1 stone" / "黒1・賢者の石1"."""
    ja = _lang(lang) == "ja"
    parts = []
    for name in (*COLOURS, "stone"):
        n = pay.get(name, 0)
        if not n:
            continue
        if name == "stone":
            label = "賢者の石" if ja else ("stone" if n == 1 else "stones")
        else:
            label = colour_name(name, lang)
        parts.append(f"{label}{n}" if ja else f"{n} {label}")
    if not parts:
        return "なし" if ja else "nothing"
    return ("・" if ja else " + ").join(parts)


# What a seat's spirits give (read from the view) ---------------------------------------------


def _my_seat(view: dict[str, Any]) -> dict[str, Any]:
    me = view.get("seat")
    seats = view.get("seats") or []
    return seats[me] if me is not None and 0 <= me < len(seats) else {}


def _spirit_kinds(seat: dict[str, Any]) -> list[str]:
    return [c["kind"] for c in seat.get("spirits", [])]


def _hook_total(seat: dict[str, Any], hook: str, key: str = "amount") -> int:
    total = 0
    for kind in _spirit_kinds(seat):
        ability = kinds()[kind]["ability"]
        if ability["hook"] == hook:
            total += int(ability.get(key, 1))
    return total


def _has_hook(seat: dict[str, Any], hook: str) -> bool:
    return any(kinds()[k]["ability"]["hook"] == hook for k in _spirit_kinds(seat))


def _reduced_cost(seat: dict[str, Any], kind: str) -> tuple[list[str], int]:
    """A kind's cost for this seat after its own discount (Giant), and the free coloured symbols
    the seat's spirits grant (Gargoyle); the same reading as payment.summon_cost."""
    spec = kinds()[kind]
    cost = list(spec["cost"])
    ability = spec["ability"]
    if ability["hook"] == "self-discount" and kind not in _spirit_kinds(seat):
        for _ in range(int(ability["amount"])):
            if ability["colour"] in cost:
                cost.remove(ability["colour"])
    return cost, _hook_total(seat, "discount")


def pairing_card(seat: dict[str, Any]) -> dict[str, Any] | None:
    """The mana card the seat will pair with in Phase I: the pending card, else the rightmost
    face-up mana (D5); None when it has no face-up mana (the pairing number is then 0)."""
    mana: list[dict[str, Any]] = seat.get("mana") or []
    for card in mana:
        if card.get("pairing"):
            return card
    return mana[-1] if mana else None


def command_numbers(seat: dict[str, Any], pairing: int, played: int) -> dict[str, tuple[int, str]]:
    """Action -> (command number, how) reachable with these numbers (Asmodai, Sandman)."""
    options = {pairing + played: "base"}
    if _has_hook(seat, "zero-played"):
        options.setdefault(pairing, "zero-played")
    shift = _hook_total(seat, "shift-command")
    for number, via in list(options.items()):
        for d in range(-shift, shift + 1):
            options.setdefault(number + d, via if d == 0 else "shift")
    rank = {"base": 0, "zero-played": 1, "shift": 2}
    found: dict[str, tuple[int, str]] = {}
    for number, via in sorted(options.items(), key=lambda item: (rank[item[1]], item[0])):
        found.setdefault(number_of_action(number), (number, via))
    return found


def _inquisition_givers(view: dict[str, Any]) -> list[int]:
    me = view.get("seat")
    seats = view.get("seats") or []
    if me is None:
        return []
    mine = seats[me]
    equal_too = _has_hook(mine, "inquisition-equal")
    givers = []
    n = view["players"]
    for k in range(1, n):
        other = seats[(me + k) % n]
        warded = any(
            kinds()[kind]["ability"]["hook"] == "ward"
            and kinds()[kind]["ability"].get("against") == "inquisition"
            for kind in _spirit_kinds(other)
        )
        lower = other["faith"] < mine["faith"] or (equal_too and other["faith"] == mine["faith"])
        if lower and not warded:
            givers.append(other["seat"])
    return givers


def _effect_words(effects: list[dict[str, Any]], lang: str) -> str:
    ja = _lang(lang) == "ja"
    parts = []
    for effect in effects:
        for name, value in effect.items():
            if name == "vp":
                parts.append(f"勝利点{value}を得る" if ja else f"gain {value} VP")
            elif name == "faith":
                parts.append(f"信仰{value}を得る" if ja else f"gain {value} faith")
            elif name == "draw":
                parts.append(f"カードを{value}枚引く" if ja else f"draw {value}")
            elif name == "stone":
                parts.append(f"賢者の石を{value}枚得る" if ja else f"gain {value} stone(s)")
            else:
                parts.append(name)
    return ("、" if ja else ", ").join(parts)


# Button labels ------------------------------------------------------------------------------


def label(
    action: dict[str, Any], view: dict[str, Any], lang: str, names: Sequence[str] | None = None
) -> str:
    """The button text of a legal action, in ja or en: the card, the choice and what it does."""
    lang = _lang(lang)
    kind = action.get("type")
    handler = _LABELS.get(str(kind))
    if handler is None:
        return str(kind or "?")
    return handler(action, view, lang, names)


def _label_play(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    me = _my_seat(view)
    card = str(a["card"])
    spec = kinds()[_kind_id(card)]
    pair = pairing_card(me)
    pair_no = pair["number"] if pair else 0
    reach = command_numbers(me, pair_no, spec["number"])
    base = pair_no + spec["number"]
    base_action = action_name(number_of_action(base), lang)
    extra = [
        f"{action_name(name, lang)} {number}"
        for name, (number, via) in reach.items()
        if via != "base"
    ]
    ja = lang == "ja"
    if ja:
        beside = f"{kind_name(pair['kind'], lang)}（{pair_no}）の隣に" if pair else ""
        text = f"{kind_name(card, lang)}（{spec['number']}）を{beside}出す：{base}・{base_action}"
        return text + (f"（ほかに{'、'.join(extra)}）" if extra else "")
    beside = f" beside {kind_name(pair['kind'], lang)} ({pair_no})" if pair else ""
    text = f"Play {kind_name(card, lang)} ({spec['number']}){beside}: {base}, {base_action}"
    return text + (f" (also {', '.join(extra)})" if extra else "")


def _label_play_top(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    if lang == "ja":
        return "手札がないので、山札の一番上のカードを出す"
    return "Play the top card of the deck (your hand is empty)"


def _label_summon(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    kind = _kind_id(str(a["card"]))
    cost, free = _reduced_cost(_my_seat(view), kind)
    words = cost_words(cost, lang)
    if lang == "ja":
        less = f"、色つき{free}つ軽減" if free else ""
        return f"{kind_name(kind, lang)}を呼び出す（コスト：{words}{less}）"
    less = f", {free} coloured fewer" if free else ""
    return f"Summon {kind_name(kind, lang)} (pay {words}{less})"


def _label_place(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    card = str(a["card"])
    if lang == "ja":
        return f"先に{kind_name(card, lang)}（{card_tag(card, lang)}）を魔力として置く"
    return f"First place {kind_name(card, lang)} ({card_tag(card, lang)}) as mana"


def _label_paid(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    kind = str(a["kind"])
    ability = kinds()[kind]["ability"]
    cost = cost_words(ability.get("cost", []), lang)
    effect = _effect_words(ability.get("effects", []), lang)
    if lang == "ja":
        return f"{kind_name(kind, lang)}の能力：{cost}を支払い、{effect}"
    return f"Use {kind_name(kind, lang)}: pay {cost} to {effect}"


def _label_pay(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    words = payment_words(a.get("pay") or {}, lang)
    return f"支払う：{words}" if lang == "ja" else f"Pay with {words}"


def _label_act(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    name = str(a["action"])
    me = _my_seat(view)
    reach = (view.get("command") or {}).get("actions") or {}
    number, via = (reach.get(name) or [None, "base"])[:2]
    head = action_name(name, lang)
    if number is not None:
        head += f"（{number}）" if lang == "ja" else f" ({number})"
    how = _act_words(name, a, view, me, lang, names)
    note = ""
    if via == "zero-played":
        note = "（アスモダイ）" if lang == "ja" else " (Asmodai)"
    elif via == "shift":
        note = "（サンドマン）" if lang == "ja" else " (Sandman)"
    return f"{head}{note}{'：' if lang == 'ja' else ': '}{how}"


def _act_words(
    name: str, a: dict[str, Any], view: dict[str, Any], me: dict[str, Any], lang: str, names: Any
) -> str:
    ja = lang == "ja"
    icons = me.get("icons") or {}
    if name == "conquest":
        gain = int(icons.get("axe", 0)) + int(icons.get("sword", 0))
        victim = a.get("victim")
        if ja:
            steal = (
                f"{seat_name(victim, lang, names)}から勝利点1を奪う"
                if victim is not None
                else "中央から勝利点1を得る"
            )
            return f"斧と剣で勝利点{gain}、{steal}"
        steal = (
            f"take 1 VP from {seat_name(victim, lang, names)}"
            if victim is not None
            else "take 1 VP from the supply"
        )
        return f"gain {gain} VP for axes and swords, {steal}"
    if name == "research":
        gain = int(me.get("stones", 0))
        flip = a.get("flip")
        if ja:
            then = f"、そのあと{colour_name(flip, lang)}の魔力1枚を賢者の石にする" if flip else ""
            return f"賢者の石で勝利点{gain}{then}"
        then = f", then turn a {colour_name(flip, lang)} mana into a stone" if flip else ""
        return f"gain {gain} VP for stones{then}"
    if name == "alchemy":
        if a.get("choice") == "draw":
            return "カードを1枚引き、賢者の石を1枚得る" if ja else "draw 1 card and gain a stone"
        return "信仰1と賢者の石1枚を得る" if ja else "gain 1 faith and a stone"
    if name == "prayer":
        if a.get("choice") == "draw":
            return "カードを2枚引く" if ja else "draw 2 cards"
        return "好きなだけ捨ててから5枚まで引く" if ja else "discard any, then draw up to 5"
    if name == "festival":
        if ja:
            return "信仰1を得て、山札から2枚を公開し魔力にする"
        return "gain 1 faith, reveal 2 cards for your mana row"
    if name == "inquisition":
        n = 2 if view.get("players") == 4 else 3
        givers = [seat_name(g, lang, names) for g in _inquisition_givers(view)]
        if ja:
            each = "1枚ずつ" if len(givers) > 1 else "1枚"
            who = f"、{'と'.join(givers)}から{each}受け取る" if givers else "（受け取れる相手なし）"
            return f"カードを{n}枚引く{who}"
        if len(givers) == 1:
            who = f", then {givers[0]} gives you a card"
        elif givers:
            who = f", then {' and '.join(givers)} each give you a card"
        else:
            who = ", nobody has less faith"
        return f"draw {n}{who}"
    if name == "pilgrimage":
        if a.get("choice") == "vp":
            faith = int(me.get("faith", 0))
            return f"信仰と同じ勝利点{faith}を得る" if ja else f"gain {faith} VP (your faith)"
        return "カードを1枚引き、信仰1を得る" if ja else "draw 1 card and gain 1 faith"
    return ""


def _label_discard(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    zone = a.get("zone")
    ja = lang == "ja"
    if zone == "stones":
        return "賢者の石を1枚捨てる" if ja else "Discard a philosopher's stone"
    card = str(a.get("card", ""))
    if zone == "mana":
        pending = any(
            c.get("id") == card and c.get("pairing") for c in _my_seat(view).get("mana", [])
        )
        tag = card_tag(card, lang)
        if pending:
            if ja:
                return f"次の手番のペアのカード（{tag}・{kind_name(card, lang)}）を捨てる"
            return f"Discard your pairing card ({tag}, {kind_name(card, lang)})"
        colour = colour_name(kinds()[_kind_id(card)]["colour"], lang)
        name = kind_name(card, lang)
        return f"{colour}の魔力（{name}）を1枚捨てる" if ja else f"Discard a {colour} mana ({name})"
    if ja:
        return f"手札の{kind_name(card, lang)}を捨てる"
    return f"Discard {kind_name(card, lang)} from your hand"


def _label_done(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    return "捨てるのをやめて5枚まで引く" if lang == "ja" else "Stop discarding and draw up to 5"


def _label_give(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    to = (view.get("waiting") or {}).get("to")
    card = kind_name(str(a["card"]), lang)
    who = seat_name(to, lang, names)
    return f"{card}を{who}に渡す（異端審問）" if lang == "ja" else f"Give {card} to {who}"


def _label_choose(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    card = str(a["card"])
    others = [c for c in view.get("reveal", []) if c.get("id") != card]
    other = others[0]["kind"] if others else None
    keep = (
        f"{kind_name(card, lang)}（{card_tag(card, lang)}）"
        if lang == "ja"
        else (f"{kind_name(card, lang)} ({card_tag(card, lang)})")
    )
    if lang == "ja":
        return f"{keep}を魔力にする" + (f"（{kind_name(other, lang)}は捨てる）" if other else "")
    return f"Place {keep} as mana" + (f", discard {kind_name(other, lang)}" if other else "")


def _label_keep(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    card = str(a["card"])
    drawn = ((view.get("pending") or {}).get("drawn")) or []
    others = [c for c in drawn if c.get("id") != card]
    me = view.get("seat")
    right = seat_name((me - 1) % view["players"], lang, names) if me is not None else "—"
    if not others:
        return (
            f"{kind_name(card, lang)}を手札に残す"
            if lang == "ja"
            else (f"Keep {kind_name(card, lang)}")
        )
    other = others[0]["kind"]
    if lang == "ja":
        return (
            f"{kind_name(card, lang)}を手札に残し、{kind_name(other, lang)}"
            f"（{card_tag(other, lang)}）を{right}にアシスト"
        )
    return (
        f"Keep {kind_name(card, lang)}, give {kind_name(other, lang)}"
        f" ({card_tag(other, lang)}) to {right}"
    )


def _label_optional(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    kind = str((view.get("waiting") or {}).get("kind") or "")
    name = kind_name(kind, lang) if kind in kinds() else "?"
    trims = [
        e["trim"]
        for e in (kinds()[kind]["ability"].get("effects", []) if kind in kinds() else [])
        if "trim" in e
    ]
    if not a.get("use"):
        return f"{name}の能力を使わない" if lang == "ja" else f"Do not use {name}"
    if trims:
        t = trims[0]
        if lang == "ja":
            return f"{name}の能力を使う（全員が手札{t['hand']}枚・魔力{t['mana']}枚まで捨てる）"
        return f"Use {name}: everyone discards down to {t['hand']} hand cards and {t['mana']} mana"
    return f"{name}の能力を使う" if lang == "ja" else f"Use {name}"


def _label_declare(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    if lang == "ja":
        return "終了を宣言する（あと一周でゲーム終了）"
    return "Declare the end (one more lap, then the match ends)"


def _label_pass(a: dict[str, Any], view: dict[str, Any], lang: str, names: Any) -> str:
    return "まだ宣言しない" if lang == "ja" else "Do not declare yet"


_LABELS = {
    "play": _label_play,
    "play-top": _label_play_top,
    "summon": _label_summon,
    "place": _label_place,
    "paid": _label_paid,
    "pay": _label_pay,
    "act": _label_act,
    "discard": _label_discard,
    "done": _label_done,
    "give": _label_give,
    "choose": _label_choose,
    "keep": _label_keep,
    "optional": _label_optional,
    "declare": _label_declare,
    "pass": _label_pass,
}


# The game log -------------------------------------------------------------------------------


def describe(event: dict[str, Any], lang: str = "en", names: Sequence[str] | None = None) -> str:
    """An event of a view as a sentence in ``lang``, naming the seats by ``names``."""
    return _engine_describe(event, _lang(lang), names)


# Card pictures ------------------------------------------------------------------------------


@cache
def _picture(kind: str, state: str, lang: str) -> tuple[str, str]:
    """(viewBox, inner markup) of an svg.py picture; state "back" and "stone" are the backs."""
    if state == "back":
        picture = svg.back_svg(False, lang)
    elif state == "stone":
        picture = svg.back_svg(True, lang)
    else:
        picture = svg.card_svg(kind, state, lang)
    match = _SVG.match(picture)
    if not match:
        return ("0 0 200 280", picture)
    return (match.group("box"), match.group("body"))


def _symbol_id(kind: str, state: str, lang: str) -> str:
    if state in ("back", "stone"):
        return f"aos-{state}-{lang}"
    return f"aos-{state}-{kind}-{lang}"


def visible_cards(view: dict[str, Any]) -> set[tuple[str, str]]:
    """(kind, state) of every face this view shows: own hand and drawn cards, spirits, mana,
    the festival's revealed cards and the command number's two cards."""
    seen: set[tuple[str, str]] = set()
    for seat in view.get("seats", []):
        seen |= {(c["kind"], "spirit") for c in seat.get("spirits", [])}
        seen |= {(c["kind"], "mana") for c in seat.get("mana", [])}
        seen |= {(c["kind"], "hand") for c in seat.get("hand") or []}
    seen |= {(c["kind"], "mana") for c in view.get("reveal", [])}
    seen |= {(c["kind"], "hand") for c in (view.get("pending") or {}).get("drawn", [])}
    command = view.get("command") or {}
    for key in ("played", "pairing"):
        if command.get(key):
            seen.add((command[key]["kind"], "mana"))
    return seen


def defs(view: dict[str, Any], lang: str) -> Markup:
    """One hidden <svg> holding every picture this view needs: the back, the stone and a face
    per (kind, state) the viewer may see; nothing else, so no hidden card's picture is sent."""
    lang = _lang(lang)
    wanted = [("", "back"), ("", "stone"), *sorted(visible_cards(view))]
    parts = []
    for kind, state in wanted:
        box, body = _picture(kind, state, lang)
        parts.append(
            f'<symbol id="{_symbol_id(kind, state, lang)}" viewBox="{box}">{body}</symbol>'
        )
    return Markup(  # noqa: S704 - svg.py output (it escapes its text) and fixed ids
        '<svg class="aos-defs" aria-hidden="true" focusable="false" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


def _use(symbol: str, box: str, title: str, classes: str) -> Markup:
    return Markup(  # noqa: S704 - the title is escaped; the rest are fixed ids and classes
        f'<svg class="{escape(classes.strip())}" viewBox="{box}" role="img" '
        f'aria-label="{escape(title)}"><use href="#{symbol}"/></svg>'
    )


def card(kind_or_card: str, state: str, lang: str, extra: str = "") -> Markup:
    """A card face drawn from its symbol in ``defs``: ``state`` is hand, spirit or mana."""
    lang = _lang(lang)
    kind = _kind_id(kind_or_card)
    box = _picture(kind, state, lang)[0]
    spec = kinds()[kind]
    name = kind_name(kind, lang)
    if state == "mana":
        title = f"{mana_name(spec['colour'], lang)} {spec['number']} ({name})"
    else:
        title = name
    return _use(_symbol_id(kind, state, lang), box, title, f"aos-card aos-face-{state} {extra}")


def back(lang: str, extra: str = "") -> Markup:
    """A card back, upright (a hand card, the deck)."""
    lang = _lang(lang)
    box = _picture("", "back", lang)[0]
    return _use(
        _symbol_id("", "back", lang), box, word(lang, "card_back"), f"aos-card aos-back {extra}"
    )


def stone(lang: str, extra: str = "") -> Markup:
    """A philosopher's stone: the back, sideways."""
    lang = _lang(lang)
    box = _picture("", "stone", lang)[0]
    return _use(
        _symbol_id("", "stone", lang), box, word(lang, "stone"), f"aos-card aos-stone {extra}"
    )


def full_card(kind_or_card: str, state: str, lang: str) -> Markup:
    """A stand-alone card picture (its own <svg>), for pages without ``defs``."""
    return Markup(svg.card_svg(_kind_id(kind_or_card), state, _lang(lang)))  # noqa: S704


def full_back(sideways: bool, lang: str) -> Markup:
    """A stand-alone back; sideways it is a philosopher's stone."""
    return Markup(svg.back_svg(sideways, _lang(lang)))  # noqa: S704 - svg.py output


def mana_pip(colour: str, lang: str, extra: str = "") -> Markup:
    """A small mana symbol (coloured disc and glyph) with its name as the title."""
    glyph = getattr(svg, "_GLYPH", {}).get(colour, "")
    fill = svg.FILL.get(colour, "#777")
    return Markup(  # noqa: S704 - fixed colours and paths; the title is escaped
        f'<svg class="aos-pip {escape(extra)}" viewBox="-10 -10 20 20" role="img" '
        f'aria-label="{escape(mana_name(colour, lang))}"><circle r="9.5" fill="{fill}"/>'
        f'<path d="{glyph}" fill="#fff" stroke="#fff" stroke-width=".6"/></svg>'
    )


def icon_pip(icon: str, lang: str) -> Markup:
    """A small icon picture (armour, shield, staff, axe, sword) with its name as the title."""
    path = getattr(svg, "_ICON_PATH", {}).get(icon, "")
    return Markup(  # noqa: S704 - fixed paths; the title is escaped
        f'<svg class="aos-icon" viewBox="-10 -10 20 20" role="img" '
        f'aria-label="{escape(icon_name(icon, lang))}"><circle r="9.5" fill="#fffdf6" '
        f'stroke="#6b5a3a"/><path d="{path}" fill="none" stroke="#2a2418" stroke-width="1.6"/>'
        "</svg>"
    )


# The board as the template draws it ---------------------------------------------------------


def board(
    view: dict[str, Any], lang: str, names: Sequence[str], bots: Sequence[Any]
) -> dict[str, Any]:
    """Everything the board template shows, worked out from the view."""
    lang = _lang(lang)
    return {
        "lang": lang,
        "status": status(view, lang, names),
        "end": end_info(view, lang, names),
        "order": play_order(view, lang, names),
        "command": command_info(view, lang, names),
        "choice": choice_info(view, lang, names),
        "hand": hand_info(view, lang),
        "seats": [seat_info(view, s, lang, names, bots) for s in seat_order(view)],
    }


def seat_order(view: dict[str, Any]) -> list[int]:
    """The viewer's own seat first, then the others in turn order (a spectator: from seat 1)."""
    n = view["players"]
    first = view.get("seat") or 0
    return [(first + k) % n for k in range(n)]


def status(view: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any]:
    """Whose turn it is and what the player who must choose now is doing."""
    me = view.get("seat")
    active = view.get("active")
    waiting = view.get("waiting")
    if view.get("result") is not None or waiting is None:
        return {"turn": word(lang, "over"), "now": "", "mine": False, "acting": None}
    current = waiting["seat"]
    turn = (
        word(lang, "your_turn")
        if active == me and me is not None
        else word(lang, "their_turn", name=seat_name(active, lang, names))
    )
    phase = waiting["phase"]
    n = view["players"]
    params = {
        "name": seat_name(current, lang, names),
        "to": seat_name(waiting.get("to"), lang, names),
        "right": seat_name((current - 1) % n, lang, names),
        "hand": waiting.get("hand", ""),
        "mana": waiting.get("mana", ""),
        "kind": kind_name(waiting["kind"], lang) if waiting.get("kind") in kinds() else "",
    }
    mine = current == me and me is not None
    key = f"{phase}_{'mine' if mine else 'theirs'}"
    now = word(lang, key, **params) if key in WORDS[lang] else phase
    return {"turn": turn, "now": now, "mine": mine, "acting": current}


def end_info(view: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any]:
    """The end declaration and the final lap, or how the end can be declared."""
    declarer = view.get("declarer")
    left = view.get("final_turns_left")
    if declarer is None:
        return {"declared": False, "line": word(lang, "end_rule")}
    name = seat_name(declarer, lang, names)
    if view.get("result") is not None:
        return {"declared": True, "line": ""}
    key = "last_turn" if left is not None and left <= 1 else "declared"
    return {"declared": True, "line": word(lang, key, name=name, n=left)}


def play_order(view: dict[str, Any], lang: str, names: Sequence[str]) -> list[dict[str, Any]]:
    """Every seat in turn order, starting with the player whose turn it is."""
    n = view["players"]
    start = view.get("active")
    if start is None:
        start = view.get("start") or 0
    return [
        {"seat": s, "name": seat_name(s, lang, names), "active": s == view.get("active")}
        for s in ((start + k) % n for k in range(n))
    ]


def command_info(view: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any] | None:
    """The command number of this turn (pairing card + played card), what it reaches and what
    was chosen; in Phase I, the card the active player will pair with."""
    active = view.get("active")
    seats = view.get("seats") or []
    command = view.get("command")
    if view.get("result") is not None or active is None or active >= len(seats):
        return None
    if command is None:
        waiting = view.get("waiting") or {}
        if waiting.get("phase") != "play":
            return None
        pair = pairing_card(seats[active])
        return {
            "phase1": True,
            "name": seat_name(active, lang, names),
            "pairing": pair,
            "line": word(lang, "will_pair", name=seat_name(active, lang, names))
            if pair
            else word(lang, "will_pair_none", name=seat_name(active, lang, names)),
        }
    reach = []
    for name, (number, via) in (command.get("actions") or {}).items():
        note = ""
        if via == "zero-played":
            note = word(lang, "via_zero")
        elif via == "shift":
            note = word(lang, "via_shift")
        reach.append({"action": action_name(name, lang), "number": number, "note": note})
    chosen = command.get("action")
    return {
        "phase1": False,
        "name": seat_name(active, lang, names),
        "pairing": command.get("pairing"),
        "pairing_number": command.get("pairing_number", 0),
        "played": command.get("played"),
        "number": command.get("number"),
        "reach": reach,
        "chosen": action_name(chosen, lang) if chosen else "",
        "reveal": view.get("reveal") or [],
    }


def choice_info(view: dict[str, Any], lang: str, names: Sequence[str]) -> dict[str, Any] | None:
    """What the viewer must decide now, beyond the buttons: the two cards drawn in Phase III,
    the seat an inquisition gives to, the counts a discard must reach."""
    pending = view.get("pending")
    me = view.get("seat")
    if not pending or me is None:
        return None
    waiting = view.get("waiting") or {}
    phase = pending.get("phase")
    n = view["players"]
    info: dict[str, Any] = {"phase": phase, "drawn": [], "note": ""}
    if phase == "keep":
        info["drawn"] = pending.get("drawn") or []
        info["note"] = word(lang, "keep_note", right=seat_name((me - 1) % n, lang, names))
    elif phase == "give":
        info["note"] = word(lang, "give_note", to=seat_name(waiting.get("to"), lang, names))
    elif phase in ("trim", "prayer-discard"):
        seat = view["seats"][me]
        info["note"] = word(
            lang, "now_counts", hand=seat["hand_count"], mana=len(seat["mana"]) + seat["stones"]
        )
    elif phase == "optional" and waiting.get("kind") in kinds():
        spec = kinds()[waiting["kind"]]
        info["note"] = word(
            lang, "ability_text", kind=kind_name(waiting["kind"], lang), text=spec[f"text_{lang}"]
        )
    return info


def _summonable(view: dict[str, Any]) -> set[str]:
    actions = (view.get("pending") or {}).get("actions") or []
    return {_kind_id(a["card"]) for a in actions if a.get("type") == "summon"}


def hand_info(view: dict[str, Any], lang: str) -> dict[str, Any] | None:
    """The viewer's own hand grouped by kind, with each card's cost, icons and ability; None for
    a spectator."""
    me = _my_seat(view)
    if not me or me.get("hand") is None:
        return None
    summonable = _summonable(view)
    groups: dict[str, dict[str, Any]] = {}
    for c in me["hand"]:
        group = groups.setdefault(c["kind"], {"card": c, "count": 0})
        group["count"] += 1
    cards = []
    for kind, group in groups.items():
        spec = kinds()[kind]
        cost, free = _reduced_cost(me, kind)
        cards.append(
            {
                "kind": kind,
                "count": group["count"],
                "name": kind_name(kind, lang),
                "colour": spec["colour"],
                "number": spec["number"],
                "tag": card_tag(kind, lang),
                "cost": cost_words(spec["cost"], lang),
                "icons": [icon_name(i, lang) for i in spec["icons"]],
                "points": spec["points"],
                "facts": word(
                    lang,
                    "facts",
                    tag=card_tag(kind, lang),
                    cost=cost_words(spec["cost"], lang),
                    points=word(
                        lang, "one_point" if spec["points"] == 1 else "n_points", n=spec["points"]
                    ),
                    icons=("・" if lang == "ja" else ", ").join(
                        icon_name(i, lang) for i in spec["icons"]
                    )
                    or word(lang, "no_icons"),
                ),
                "text": spec[f"text_{lang}"],
                "summonable": kind in summonable,
            }
        )
    cards.sort(key=lambda c: (not c["summonable"], COLOURS.index(c["colour"]), c["name"]))
    return {"count": me["hand_count"], "cards": cards}


def _assisted_by(view: dict[str, Any], seat: int, kind: str) -> int | None:
    """Who assisted the seat's pending pairing card (from the public "assisted" events)."""
    for event in reversed(view.get("events") or []):
        if event.get("type") == "turn" and event.get("seat") == seat:
            return None
        if event.get("type") == "assisted" and event.get("to") == seat:
            return event.get("seat") if event.get("kind") == kind else None
    return None


def seat_info(
    view: dict[str, Any], s: int, lang: str, names: Sequence[str], bots: Sequence[Any]
) -> dict[str, Any]:
    """One seat as everyone sees it: chips, hand size, spirits, the mana row and its stones."""
    seat = view["seats"][s]
    n = view["players"]
    command = view.get("command") or {}
    played_id = (command.get("played") or {}).get("id") if command.get("seat") == s else None
    paired_id = (command.get("pairing") or {}).get("id") if command.get("seat") == s else None
    mana = sorted(
        seat["mana"],
        key=lambda c: (bool(c.get("pairing")), COLOURS.index(c["colour"]), c["kind"]),
    )
    row = []
    for c in mana:
        note = ""
        if c.get("pairing"):
            giver = _assisted_by(view, s, c["kind"])
            note = (
                word(lang, "assisted_by", name=seat_name(giver, lang, names))
                if giver is not None
                else word(lang, "pairs_next")
            )
        elif c.get("id") is not None and c.get("id") == played_id:
            note = word(lang, "this_turn_played")
        elif c.get("id") is not None and c.get("id") == paired_id:
            note = word(lang, "this_turn_paired")
        row.append({"card": c, "pairing": bool(c.get("pairing")), "note": note})
    counts = Counter(c["colour"] for c in seat["mana"])
    spirits: dict[str, dict[str, Any]] = {}
    for c in seat["spirits"]:
        spirits.setdefault(c["kind"], {"kind": c["kind"], "count": 0})["count"] += 1
    spirit_list = [
        {
            **g,
            "name": kind_name(g["kind"], lang),
            "text": kinds()[g["kind"]][f"text_{lang}"],
            "points": kinds()[g["kind"]]["points"],
        }
        for g in spirits.values()
    ]
    icons = seat.get("icons") or {}
    stones = int(seat["stones"])
    waiting = view.get("waiting") or {}
    return {
        "seat": s,
        "name": seat_name(s, lang, names),
        "me": s == view.get("seat"),
        "bot": s < len(bots) and bool(bots[s]),
        "active": s == view.get("active") and view.get("result") is None,
        "acting": waiting.get("seat") == s and view.get("result") is None,
        "declared": bool(seat.get("declared")),
        "can_declare": view.get("declarer") is None
        and (len(seat["spirits"]) >= 10 or seat["vp"] >= 30),
        "vp": seat["vp"],
        "faith": seat["faith"],
        "hand_count": seat["hand_count"],
        "hand_words": card_count(lang, seat["hand_count"]),
        "stones": stones,
        "stone_words": word(lang, "one_stone" if stones == 1 else "stone_n", n=stones),
        "spirit_count": len(seat["spirits"]),
        "spirits": spirit_list,
        "icons": [{"icon": i, "count": int(icons.get(i, 0))} for i in ICONS],
        "mana": row,
        "mana_total": len(seat["mana"]) + stones,
        "mana_counts": [{"colour": c, "count": counts[c]} for c in COLOURS if counts[c]],
        "turns": seat.get("turns", 0),
        "assists_to": seat_name((s - 1) % n, lang, names),
    }


def card_count(lang: str, n: int) -> str:
    """ "3 cards" / "3枚"."""
    return word(lang, "one_card" if n == 1 else "cards", n=n)


# The result ---------------------------------------------------------------------------------


def result_info(
    result: dict[str, Any], view: dict[str, Any], lang: str, names: Sequence[str]
) -> dict[str, Any]:
    """Final standings in winning order (ties as the rule breaks them), each total's parts, who
    declared and how a tie was or would have been broken."""
    lang = _lang(lang)
    totals = result["totals"]
    n = len(totals)
    declarer = result.get("declarer")
    anchor = declarer if declarer is not None else view.get("active")
    anchor = 0 if anchor is None else anchor
    order = [(anchor + 1 + k) % n for k in range(n)]
    ranked = sorted(range(n), key=lambda s: (-totals[s], order.index(s)))
    rows = []
    for rank, s in enumerate(ranked, start=1):
        part = (result.get("breakdown") or [{}] * n)[s]
        abilities = [
            {"name": kind_name(kind, lang), "points": pts}
            for kind, pts in (part.get("abilities") or {}).items()
        ]
        rows.append(
            {
                "rank": rank,
                "seat": s,
                "name": seat_name(s, lang, names),
                "total": totals[s],
                "chips": part.get("chips", 0),
                "points": part.get("points", 0),
                "abilities": abilities,
                "winner": s == result["winner"],
                "declarer": s == declarer,
            }
        )
    tied = result.get("tied") or []
    return {
        "winner": seat_name(result["winner"], lang, names),
        "score": totals[result["winner"]],
        "rows": rows,
        "declarer": seat_name(declarer, lang, names) if declarer is not None else "",
        "capped": result.get("reason") == "cap",
        "tied": [seat_name(s, lang, names) for s in order if s in tied],
        "order": [seat_name(s, lang, names) for s in order],
        "anchor": seat_name(anchor, lang, names),
    }


# The spirit list of the rules pages -----------------------------------------------------------


def spirit_list_markdown(lang: str) -> str:
    """The rules pages' list of the 30 spirits, by colour, from the card data (Markdown lists, no
    tables). rules/en.md and rules/ja.md end with this text; regenerate it when the data changes."""
    lang = _lang(lang)
    ja = lang == "ja"
    out: list[str] = []
    for colour in COLOURS:
        info = colour_info()[colour]
        specs = [s for s in kinds().values() if s["colour"] == colour]
        total = sum(s["copies"] for s in specs)
        if ja:
            out.append(
                f"## {info['name_ja']}：{info['mana_ja']}・ナンバー{info['number']}（{total}枚）\n"
            )
        else:
            out.append(
                f"## {str(info['name_en']).capitalize()}: {info['mana_en']}, number "
                f"{info['number']} ({total} cards)\n"
            )
        for s in specs:
            icons = ("・" if ja else ", ").join(icon_name(i, lang).lower() for i in s["icons"])
            cost = cost_words(s["cost"], lang)
            if ja:
                rare = "・レア" if s["copies"] == 2 else ""
                head = (
                    f"- **{s['name_ja']}**（{s['name_en']}、{s['code']}）：{s['copies']}枚{rare}。"
                    f"コスト {cost}。アイコン：{icons or 'なし'}。得点{s['points']}。"
                )
            else:
                rare = ", rare" if s["copies"] == 2 else ""
                unit = "point" if s["points"] == 1 else "points"
                head = (
                    f"- **{s['name_en']}** ({s['name_ja']}, {s['code']}): {s['copies']} copies"
                    f"{rare}; cost {cost}; icons: {icons or 'none'}; {s['points']} {unit}."
                )
            out.append(f"{head}  \n  {s[f'text_{lang}']}  \n  *{s[f'flavour_{lang}']}*")
        out.append("")
    return "\n".join(out)


SPIRITS_HEADING = {"en": "# The spirits\n", "ja": "# 精霊一覧\n"}


def refresh_rules(folder: Path | None = None) -> list[Path]:
    """Rewrite the spirit list at the end of rules/en.md and rules/ja.md from the card data
    (``python -m companion.cardgames.summoners.board``); returns the files changed."""
    folder = folder or Path(__file__).with_name("rules")
    changed = []
    for lang, heading in SPIRITS_HEADING.items():
        path = folder / f"{lang}.md"
        text = path.read_text(encoding="utf-8")
        start = text.index(heading)
        cut = text.index("\n## ", start) + 1
        new = text[:cut] + spirit_list_markdown(lang)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


_COST_LETTER = {"black": "K", "green": "G", "red": "R", "yellow": "Y", "blue": "U", "any": "*"}
DOCS_TABLE_HEAD = "| Code | Spirit | Colour | × | Cost | Icons | Pts | Ability |\n|---|"


def docs_table_markdown() -> str:
    """The spirit table of docs/cardgames.md (English), one row per kind, from the card data."""
    rows = [DOCS_TABLE_HEAD + "---|---|---|---|---|---|---|"]
    for s in kinds().values():
        cost = "".join(_COST_LETTER[c] for c in s["cost"])
        rows.append(
            f"| {s['code']} | {s['name_en']} {s['name_ja']} | {s['colour']} {s['number']} "
            f"| {s['copies']} | `{cost}` | {', '.join(s['icons']) or '-'} | {s['points']} "
            f"| {s['text_en']} |"
        )
    return "\n".join(rows) + "\n"


def refresh_docs(path: Path | None = None) -> list[Path]:
    """Rewrite the spirit table in docs/cardgames.md, when the repository's docs are present."""
    path = path or Path(__file__).resolve().parents[3] / "docs" / "cardgames.md"
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    start = text.index(DOCS_TABLE_HEAD)
    end = text.index("\n\n", start) + 1
    new = text[:start] + docs_table_markdown() + text[end:]
    if new == text:
        return []
    path.write_text(new, encoding="utf-8")
    return [path]


if __name__ == "__main__":
    for changed_file in refresh_rules() + refresh_docs():
        print(f"rewrote {changed_file}")
