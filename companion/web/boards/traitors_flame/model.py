"""The board as the template draws it, worked out from a view (what one seat may know).

Rules come from the engine: the view says who is next, whose Flames put the round at risk, what
the viewer's hand is worth and would score, how many Flames end a round and the final places.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.cardgames.traitors_flame.moves import Result, RoundSummary
from companion.cardgames.traitors_flame.view import SeatView, View

from .shapes import (
    BoardModel,
    Group,
    Place,
    ResultInfo,
    RoundRow,
    ScoreRow,
    SeatRow,
    Status,
    Worth,
)
from .words import card_name, count_words, direction, pgettext, round_end, seat_name


def board(view: View, names: Sequence[str], bots: Sequence[object]) -> BoardModel:
    """Everything the board template shows, worked out from the view."""
    return {
        "status": status(view, names),
        "order": play_order(view, names),
        "direction": direction(view["direction"]),
        "seats": [seat_info(view, h, names, bots) for h in view["hands"]],
        "played": played_groups(view),
        "hand": hand_groups(view),
        "worth": hand_worth(view),
        "scores": score_rows(view, names),
        "rounds": [round_info(r, names, view["flame_end"]) for r in view["rounds"]],
    }


def status(view: View, names: Sequence[str]) -> Status:
    """Whose turn, who is next (and who a pending skip passes over)."""
    current, coming = view["current"], view["next"]
    if current is None or coming is None:
        return {
            "turn": pgettext("traitors-flame", "The match is over"),
            "next": "",
            "skip": "",
            "mine": False,
        }
    skipped = coming["skipped"]
    mine = current == view["seat"]
    if mine:
        turn = pgettext("traitors-flame", "Your turn: you hold Night")
    else:
        turn = pgettext(
            "traitors-flame", "%(name)s's turn: holds Night", name=seat_name(current, names)
        )
    return {
        "turn": turn,
        "next": pgettext("traitors-flame", "Next: %(name)s", name=seat_name(coming["seat"], names)),
        "skip": pgettext(
            "traitors-flame", "Night will pass over %(name)s", name=seat_name(skipped, names)
        )
        if skipped is not None
        else "",
        "mine": mine,
    }


def play_order(view: View, names: Sequence[str]) -> list[Place]:
    """Every seat in the direction of play, starting from whoever holds Night."""
    return [
        {"seat": s, "name": seat_name(s, names), "current": s == view["current"]}
        for s in view["order"]
    ]


def seat_info(view: View, hand: SeatView, names: Sequence[str], bots: Sequence[object]) -> SeatRow:
    """One seat's public hand: how many backs of each kind, markers, total, what you saw."""
    s = hand["seat"]
    return {
        "seat": s,
        "name": seat_name(s, names),
        "bot": s < len(bots) and bool(bots[s]),
        "me": s == view["seat"],
        "current": s == view["current"],
        "count": hand["count"],
        "flames": hand["flames"],
        "others": hand["count"] - hand["flames"],
        "night": hand["night"],
        "dawn": hand["dawn"],
        "total": hand["total"],
        "summary": count_words(hand["count"], hand["flames"]),
        "danger": hand["at_risk"],
        "known": hand.get("known", []),
    }


def hand_groups(view: View) -> list[Group] | None:
    """The viewer's own hand grouped by kind (usable cards first), or None for a spectator."""
    me = view["seat"]
    if me is None:
        return None
    groups: dict[str, Group] = {}
    for card in view["hands"][me].get("cards", []):
        groups.setdefault(card["kind"], {"card": card, "count": 0, "latest": False})["count"] += 1
    return sorted(
        groups.values(),
        key=lambda g: (not g["card"]["usable"], g["card"]["kind"] != "flame", -g["card"]["value"]),
    )


def played_groups(view: View) -> list[Group]:
    """The played row grouped by kind, in the order the kinds first came out; the last card's
    group is marked ``latest``."""
    groups: dict[str, Group] = {}
    played = view["played"]
    for card in played:
        group = groups.setdefault(card["kind"], {"card": card, "count": 0, "latest": False})
        group["count"] += 1
    if played:
        groups[played[-1]["kind"]]["latest"] = True
    return list(groups.values())


def hand_worth(view: View) -> Worth | None:
    """The viewer's hand: its raw sum now, what it would score, and whether the two differ
    (None for a spectator)."""
    me = view["seat"]
    if me is None:
        return None
    hand = view["hands"][me]
    worth, score = hand.get("worth", 0), hand.get("score", 0)
    return {"sum": worth, "score": score, "floored": score != worth}


def score_rows(view: View, names: Sequence[str]) -> list[ScoreRow]:
    """Per seat: the score of every finished round, the total and the share of the goal."""
    rounds = view["rounds"]
    win = view["win_score"]
    best = max(view["totals"]) if view["totals"] else 0
    return [
        {
            "seat": s,
            "name": seat_name(s, names),
            "scores": [r["scores"][s] for r in rounds],
            "raw": [r["raw"][s] for r in rounds],
            "floored": [r["scores"][s] != r["raw"][s] for r in rounds],
            "total": total,
            "bar": min(total, win),
            "lead": best > 0 and total == best,
        }
        for s, total in enumerate(view["totals"])
    ]


def round_info(summary: RoundSummary, names: Sequence[str], flame_end: int) -> RoundRow:
    """A finished round: how it ended, who ended it, and the hands revealed at scoring."""
    line = pgettext(
        "traitors-flame",
        "Round %(n)s: %(how)s; %(name)s ended it",
        n=summary["round"],
        how=round_end(summary["ended_by"], flame_end),
        name=seat_name(summary["ender"], names),
    )
    return {
        "round": summary["round"],
        "line": line,
        "hands": [
            {
                "name": seat_name(h["seat"], names),
                "flames": h["flames"],
                "kinds": [card_name(k) for k in h["kinds"]],
                "night": h["night"],
                "dawn": h["dawn"],
                "raw": summary["raw"][h["seat"]],
                "score": summary["scores"][h["seat"]],
                "floored": summary["scores"][h["seat"]] != summary["raw"][h["seat"]],
            }
            for h in summary["hands"]
        ],
    }


def result_info(result: Result, view: View, names: Sequence[str]) -> ResultInfo:
    """The final standings in the places the view gives, the winner and why ties went the way
    they did."""
    totals, rounds = result["totals"], view["rounds"]
    order = result["order"]
    best = totals[result["winner"]]
    tied = [s for s in order if totals[s] == best]
    ender = rounds[-1]["ender"] if rounds else None
    return {
        "winner": seat_name(result["winner"], names),
        "score": best,
        "rows": [
            {
                "rank": i + 1,
                "name": seat_name(s, names),
                "total": totals[s],
                "winner": s == result["winner"],
            }
            for i, s in enumerate(view["places"] or [])
        ],
        "order": [seat_name(s, names) for s in order],
        "first": seat_name(order[0], names),
        "ender": seat_name(ender, names) if ender is not None else "",
        "tied": [seat_name(s, names) for s in tied] if len(tied) > 1 else [],
        "rounds": result["rounds"],
        "capped": result["capped"],
        "goal": view["win_score"],
    }
