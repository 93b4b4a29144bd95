"""Each seat on the Age of Summoners board, and the final standings, from one seat's view."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from companion.cardgames.summoners.cards import COLOURS, ICONS, kinds

from .catalogue import pgettext
from .rules_text import card_text
from .words import card_count, kind_name, seat_name


def _assisted_by(view: dict[str, Any], seat: int, kind: str) -> int | None:
    """Who assisted the seat's pending pairing card (from the public "assisted" events)."""
    for event in reversed(view.get("events") or []):
        if event.get("type") == "turn" and event.get("seat") == seat:
            return None
        if event.get("type") == "assisted" and event.get("to") == seat:
            return event.get("seat") if event.get("kind") == kind else None
    return None


def _mana_note(view: dict[str, Any], s: int, card: dict[str, Any], names: Sequence[str]) -> str:
    command = view.get("command") or {}
    mine = command.get("seat") == s
    if card.get("pairing"):
        giver = _assisted_by(view, s, card["kind"])
        if giver is None:
            return pgettext("age-of-summoners", "Pairs next turn")
        return pgettext("age-of-summoners", "Assisted by %(name)s", name=seat_name(giver, names))
    if card.get("id") is None or not mine:
        return ""
    if card["id"] == (command.get("played") or {}).get("id"):
        return pgettext("age-of-summoners", "played this turn")
    if card["id"] == (command.get("pairing") or {}).get("id"):
        return pgettext("age-of-summoners", "paired this turn")
    return ""


def _spirits(seat: dict[str, Any]) -> list[dict[str, Any]]:
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


def seat_info(
    view: dict[str, Any], s: int, names: Sequence[str], bots: Sequence[Any]
) -> dict[str, Any]:
    """One seat as everyone sees it: chips, hand size, spirits, the mana row and its stones."""
    seat = view["seats"][s]
    mana = sorted(
        seat["mana"],
        key=lambda c: (bool(c.get("pairing")), COLOURS.index(c["colour"]), c["kind"]),
    )
    row = [
        {"card": c, "pairing": bool(c.get("pairing")), "note": _mana_note(view, s, c, names)}
        for c in mana
    ]
    counts = Counter(c["colour"] for c in seat["mana"])
    icons = seat.get("icons") or {}
    stones = int(seat["stones"])
    over = view.get("result") is not None
    return {
        "seat": s,
        "name": seat_name(s, names),
        "me": s == view.get("seat"),
        "bot": s < len(bots) and bool(bots[s]),
        "active": s == view.get("active") and not over,
        "acting": (view.get("waiting") or {}).get("seat") == s and not over,
        "declared": bool(seat.get("declared")),
        "can_declare": bool(seat.get("can_declare")),
        "vp": seat["vp"],
        "faith": seat["faith"],
        "hand_count": seat["hand_count"],
        "hand_words": card_count(seat["hand_count"]),
        "stones": stones,
        "stone_words": stone_words(stones),
        "spirit_count": len(seat["spirits"]),
        "spirits": _spirits(seat),
        "icons": [{"icon": i, "count": int(icons.get(i, 0))} for i in ICONS],
        "mana": row,
        "mana_total": len(seat["mana"]) + stones,
        "mana_counts": [{"colour": c, "count": counts[c]} for c in COLOURS if counts[c]],
        "turns": seat.get("turns", 0),
        "assists_to": seat_name((s - 1) % view["players"], names),
    }


def stone_words(n: int) -> str:
    """ "1 philosopher's stone" / "3 philosopher's stones"."""
    if n == 1:
        return pgettext("age-of-summoners", "1 philosopher's stone")
    return pgettext("age-of-summoners", "%(n)s philosopher's stones", n=n)


def result_info(
    result: dict[str, Any], view: dict[str, Any], names: Sequence[str]
) -> dict[str, Any]:
    """Final standings in winning order (ties as the rule breaks them), each total's parts, who
    declared and how a tie was or would have been broken."""
    totals = result["totals"]
    n = len(totals)
    declarer = result.get("declarer")
    anchor = declarer if declarer is not None else view.get("active")
    anchor = 0 if anchor is None else anchor
    order = [(anchor + 1 + k) % n for k in range(n)]
    ranked = sorted(range(n), key=lambda s: (-totals[s], order.index(s)))
    breakdown = result.get("breakdown") or [{}] * n
    rows = [
        {
            "rank": rank,
            "seat": s,
            "name": seat_name(s, names),
            "total": totals[s],
            "chips": breakdown[s].get("chips", 0),
            "points": breakdown[s].get("points", 0),
            "abilities": [
                {"name": kind_name(kind), "points": pts}
                for kind, pts in (breakdown[s].get("abilities") or {}).items()
            ],
            "winner": s == result["winner"],
            "declarer": s == declarer,
        }
        for rank, s in enumerate(ranked, start=1)
    ]
    tied = result.get("tied") or []
    return {
        "winner": seat_name(result["winner"], names),
        "score": totals[result["winner"]],
        "rows": rows,
        "declarer": seat_name(declarer, names) if declarer is not None else "",
        "capped": result.get("reason") == "cap",
        "tied": [seat_name(s, names) for s in order if s in tied],
        "order": [seat_name(s, names) for s in order],
        "anchor": seat_name(anchor, names),
    }
