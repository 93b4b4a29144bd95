"""Each seat on the Age of Summoners board, and the final standings, from one seat's view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from companion.cardgames.summoners.cards import COLOURS, ICONS, kinds
from companion.cardgames.summoners.records import Result
from companion.cardgames.summoners.view import ManaView, SeatView, View

from .catalogue import pgettext
from .rules_text import card_text
from .shapes import ManaEntry, ResultInfo, ResultRow, SeatInfo, SpiritInfo
from .words import card_count, kind_name, seat_name


def _mana_note(view: View, s: int, card: ManaView, names: Sequence[str]) -> str:
    if card["pairing"]:
        giver = view["seats"][s]["pairing_from"]
        if giver is None:
            return pgettext("age-of-summoners", "Pairs next turn")
        return pgettext("age-of-summoners", "Assisted by %(name)s", name=seat_name(giver, names))
    command = view["command"]
    if command is None or command["seat"] != s or "id" not in card:
        return ""
    played, paired = command["played"], command["pairing"]
    if played is not None and card["id"] == played.get("id"):
        return pgettext("age-of-summoners", "played this turn")
    if paired is not None and card["id"] == paired.get("id"):
        return pgettext("age-of-summoners", "paired this turn")
    return ""


def _spirits(seat: SeatView) -> list[SpiritInfo]:
    counts = Counter(c["kind"] for c in seat["spirits"])
    return [
        {
            "kind": kind,
            "count": n,
            "name": kind_name(kind),
            "text": card_text(kind),
            "points": kinds()[kind]["points"],
        }
        for kind, n in counts.items()
    ]


def _mana_row(view: View, s: int, names: Sequence[str]) -> list[ManaEntry]:
    """The row as drawn: colour by colour, the pending pairing card last."""
    mana = sorted(
        view["seats"][s]["mana"],
        key=lambda c: (c["pairing"], COLOURS.index(c["colour"]), c["kind"]),
    )
    return [
        {"card": c, "pairing": c["pairing"], "note": _mana_note(view, s, c, names)} for c in mana
    ]


def seat_info(view: View, s: int, names: Sequence[str], bots: Sequence[object]) -> SeatInfo:
    """One seat as everyone sees it: chips, hand size, spirits, the mana row and its stones."""
    seat = view["seats"][s]
    counts = Counter(c["colour"] for c in seat["mana"])
    stones = seat["stones"]
    over = view["result"] is not None
    return {
        "seat": s,
        "name": seat_name(s, names),
        "me": s == view["seat"],
        "bot": s < len(bots) and bool(bots[s]),
        "active": s == view["active"] and not over,
        "acting": view["current"] == s and not over,
        "declared": seat["declared"],
        "can_declare": seat["can_declare"],
        "vp": seat["vp"],
        "faith": seat["faith"],
        "hand_count": seat["hand_count"],
        "hand_words": card_count(seat["hand_count"]),
        "stones": stones,
        "stone_words": stone_words(stones),
        "spirit_count": len(seat["spirits"]),
        "spirits": _spirits(seat),
        "icons": [{"icon": i, "count": seat["icons"].get(i, 0)} for i in ICONS],
        "mana": _mana_row(view, s, names),
        "mana_total": seat["mana_total"],
        "mana_counts": [{"colour": c, "count": counts[c]} for c in COLOURS if counts[c]],
        "turns": seat["turns"],
        "assists_to": seat_name(seat["assists_to"], names),
    }


def stone_words(n: int) -> str:
    """ "1 philosopher's stone" / "3 philosopher's stones"."""
    if n == 1:
        return pgettext("age-of-summoners", "1 philosopher's stone")
    return pgettext("age-of-summoners", "%(n)s philosopher's stones", n=n)


def result_info(result: Result, view: View, names: Sequence[str]) -> ResultInfo:
    """Final standings in winning order (ties as the rule breaks them), each total's parts, who
    declared and how a tie was or would have been broken: all as the view says."""
    tie = view["tie_break"]
    assert tie is not None, "a finished match's view says how it was ranked"
    declarer = result["declarer"]
    rows = [_result_row(result, rank, s, names) for rank, s in enumerate(tie["ranking"], start=1)]
    tied = result["tied"]
    return {
        "winner": seat_name(result["winner"], names),
        "score": result["totals"][result["winner"]],
        "rows": rows,
        "declarer": seat_name(declarer, names) if declarer is not None else "",
        "capped": result["reason"] == "cap",
        "turn_cap": view["turn_cap"],
        "tied": [seat_name(s, names) for s in tie["order"] if s in tied],
        "order": [seat_name(s, names) for s in tie["order"]],
        "anchor": seat_name(tie["anchor"], names),
    }


def _result_row(result: Result, rank: int, s: int, names: Sequence[str]) -> ResultRow:
    part = result["breakdown"][s]
    return {
        "rank": rank,
        "seat": s,
        "name": seat_name(s, names),
        "total": result["totals"][s],
        "chips": part["chips"],
        "points": part["points"],
        "abilities": [
            {"name": kind_name(kind), "points": pts}
            for kind, pts in part["abilities"].items()
            if pts  # an ability that scored nothing is no part of the total
        ],
        "winner": s == result["winner"],
        "declarer": s == result["declarer"],
    }
