"""Final scoring (5.3) and the winner with the tie rule (5.4)."""

from __future__ import annotations

from .abilities import end_game_points
from .cards import kind_of_card, kinds
from .records import Result, Score
from .state import State, seats_from

_POINTS = {card: kinds()[kind]["points"] for card, kind in kind_of_card().items()}


def score_seat(s: State, seat: int) -> Score:
    """One seat's final score: VP chips + spirits' point values + game-end abilities (D15)."""
    p = s["seats"][seat]
    points = sum(_POINTS[c] for c in p["spirits"])
    abilities = end_game_points(s, seat)
    total = p["vp"] + points + sum(abilities.values())
    return {"chips": p["vp"], "points": points, "abilities": abilities, "total": total}


def standings(s: State) -> list[Score]:
    """Every seat's score as the match would end now; built from public facts only (chips,
    spirits, faith, the number of stones), so any seat may see every row."""
    return [score_seat(s, seat) for seat in range(s["players"])]


def final_result(s: State, reason: str | None = None) -> Result:
    """Totals, breakdowns and the winner.

    Ties go to the tied player nearest clockwise from the declarer, so the declarer loses every
    tie (5.4). A match stopped by the safety cap has no declarer; the player who took the last
    turn stands in for one. ``reason`` says why the match ended (``declared``, ``cap``...).
    """
    breakdown = standings(s)
    totals = [b["total"] for b in breakdown]
    best = max(totals)
    tied = [seat for seat, total in enumerate(totals) if total == best]
    winner = ranking(totals, tie_order(s)[1])[0]
    return {
        "winner": winner,
        "totals": totals,
        "breakdown": breakdown,
        "tied": tied if len(tied) > 1 else [],
        "declarer": s["declarer"],
        "reason": reason,
        "turns": [p["turns"] for p in s["seats"]],
    }


def tie_order(s: State) -> tuple[int, list[int]]:
    """The seat ties are counted from (the declarer, else whoever took the last turn) and every
    seat in the order a tie goes, from the one after it (5.4)."""
    anchor = s["declarer"] if s["declarer"] is not None else s["turn"].get("seat", s["start"])
    return anchor, seats_from(s, (anchor + 1) % s["players"])


def ranking(totals: list[int], order: list[int]) -> list[int]:
    """Seats from first place to last: by total, equal totals in tie order."""
    return sorted(order, key=lambda seat: -totals[seat])
