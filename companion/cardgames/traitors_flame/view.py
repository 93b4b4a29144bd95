"""What one seat may know: the table view, and the compact observation the bots reason on."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from companion.cardgames import CardGameRuleError

from . import cards, engine, refusals
from .cards import CardInfo
from .effects import Step, outcome
from .moves import (
    FLAMES,
    Action,
    Event,
    Result,
    RoundSummary,
    State,
    hand_score,
    next_holder,
    round_score,
)
from .standing import WIN_SCORE, ranking


class SeatView(TypedDict):
    """One seat's hand as the viewer may know it: public counts, and the cards themselves only
    for the viewer's own hand (``cards``, ``worth``, ``score``) or those it saw (``known``)."""

    seat: int
    count: int
    flames: int
    night: bool
    dawn: bool
    total: int
    at_risk: bool  # Night reaching this hand would end the round
    cards: NotRequired[list[CardInfo]]
    worth: NotRequired[int]  # its raw round sum now
    score: NotRequired[int]  # what that sum would score (a negative sum counts 0)
    known: NotRequired[list[CardInfo]]


class DeckView(TypedDict):
    """The deck as everyone sees it."""

    count: int
    top_is_flame: bool  # a Flame's back shows through
    flames: int  # Flames left in it


class KnownCard(TypedDict):
    """A deck card the viewer peeked at, by its place from the top (0)."""

    position: int
    card: CardInfo


class NextView(TypedDict):
    """Who gets Night after this turn, and the seat a pending skip passes over."""

    seat: int
    skipped: int | None


class Pending(TypedDict):
    """What the viewing seat may do now, and what each action would do (same order)."""

    seat: int
    actions: list[Action]
    outcomes: list[list[Step]]


class View(TypedDict):
    """Everything one seat (or a spectator) may know (docs/cardgames.md, "View")."""

    game: str
    seat: int | None
    players: int
    round: int
    turn: int
    first_player: int
    round_start: int
    current: int | None
    night: int
    dawn: int | None
    direction: int
    skip_pending: bool
    next: NextView | None
    order: list[int]
    deck: DeckView
    known_deck: list[KnownCard]
    hands: list[SeatView]
    played: list[CardInfo]
    totals: list[int]
    round_scores: list[list[int]]
    rounds: list[RoundSummary]
    win_score: int
    flame_end: int  # Night reaching a hand of this many Flames ends the round
    events: list[Event]
    pending: Pending | None
    result: Result | None
    places: list[int] | None  # once the match is over: the seats from first to last (D6)


class Observation(TypedDict):
    """The bots' compact reading of a view (``observe``, ``observe_view``)."""

    me: int
    n: int
    direction: int
    hand: list[str]
    counts: list[int]
    flames: list[int]
    known: dict[int, list[str]]  # other seats' cards the bot saw, by seat
    deck: int
    top_flame: bool
    deck_known: dict[int, str]  # peeked deck cards by place from the top
    played: list[str]
    totals: list[int]
    night: int
    dawn: int | None
    round: int


def view(st: State, seat: int | None) -> View:
    """Everything the table page needs for ``seat`` (None = spectator), and nothing secret."""
    n = st["players"]
    if seat is not None and (not isinstance(seat, int) or seat not in range(n)):
        raise CardGameRuleError("bad-seat", refusals.BAD_SEAT, seat=seat)
    known = set(st["known"][seat]) if seat is not None else set()
    deck = st["deck"]
    result = st["result"]
    current = None if result is not None else st["night"]
    return {
        "game": engine.KEY,
        "seat": seat,
        "players": n,
        "round": st["round"],
        "turn": st["turn"],
        "first_player": st["first"],
        "round_start": st["start"],
        "current": current,
        "night": st["night"],
        "dawn": st["dawn"],
        "direction": st["direction"],
        "skip_pending": st["skip"],
        "next": _next(st, current),
        "order": _order(st, current),
        "deck": {
            "count": len(deck),
            "top_is_flame": bool(deck) and deck[-1] in FLAMES,
            "flames": cards.FLAME_TOTAL - sum(st["flames"]),
        },
        "known_deck": [
            {"position": i, "card": cards.card_info(c)}
            for i, c in enumerate(reversed(deck))
            if c in known
        ],
        "hands": [_hand(st, s, seat, known) for s in range(n)],
        "played": [cards.card_info(c) for c in st["played"]],
        "totals": list(st["totals"]),
        "round_scores": [r["scores"] for r in st["rounds"]],
        "rounds": st["rounds"],
        "win_score": WIN_SCORE,
        "flame_end": engine.FLAME_END,
        "events": [_seen(ev, seat) for ev in st["events"][st["round_events"] :]],
        "pending": _pending(st, seat, current),
        "result": result,
        "places": ranking(result) if result is not None else None,
    }


def _hand(st: State, s: int, seat: int | None, known: set[str]) -> SeatView:
    hand = st["hands"][s]
    out: SeatView = {
        "seat": s,
        "count": len(hand),
        "flames": st["flames"][s],
        "night": st["night"] == s,
        "dawn": st["dawn"] == s,
        "total": st["totals"][s],
        "at_risk": st["flames"][s] >= engine.FLAME_END,
    }
    if s == seat:
        out["cards"] = [cards.card_info(c) for c in hand]
        worth = hand_score(hand, out["night"], out["dawn"])
        out["worth"], out["score"] = worth, round_score(worth)
    else:
        out["known"] = [cards.card_info(c) for c in hand if c in known and c not in FLAMES]
    return out


def _next(st: State, current: int | None) -> NextView | None:
    """Who gets Night after this turn, and whom a pending skip passes over (None once over)."""
    if current is None:
        return None
    seat, skipped = next_holder(st["players"], st["direction"], current, st["skip"])
    return {"seat": seat, "skipped": skipped}


def _order(st: State, current: int | None) -> list[int]:
    """Every seat in the direction of play, from whoever holds Night."""
    n, d = st["players"], st["direction"]
    start = st["night"] if current is None else current
    return [(start + d * k) % n for k in range(n)]


def _pending(st: State, seat: int | None, current: int | None) -> Pending | None:
    """The viewing seat's legal actions when it is to act, and what each would do (``outcomes``,
    in the same order: the steps of a play, none for a draw)."""
    if seat is None or seat != current:
        return None
    actions = engine.legal_actions(st, seat)
    flames, counts = st["flames"], [len(h) for h in st["hands"]]
    return {
        "seat": seat,
        "actions": actions,
        "outcomes": [
            outcome(flames, counts, seat, a) if a["type"] == "play" else [] for a in actions
        ],
    }


def _seen(ev: Event, seat: int | None) -> Event:
    """An event as ``seat`` sees it: its private part only for the seats it names."""
    if ev["type"] == "round-ended":  # the sentence says how many Flames end a round
        return {**ev, "flame_end": engine.FLAME_END}
    if "private" not in ev:
        return ev
    out = ev.copy()
    private = out.pop("private")
    if seat is not None and seat in private["seats"]:
        if "card" in private:
            out["card"] = private["card"]
        if "cards" in private:
            out["cards"] = private["cards"]
    return out


def observe(st: State, seat: int) -> Observation:
    """The bots' compact observation, read from the state but only from what ``seat`` may know."""
    known = st["known"][seat]
    deck = st["deck"]
    return {
        "me": seat,
        "n": st["players"],
        "direction": st["direction"],
        "hand": list(st["hands"][seat]),
        "counts": [len(h) for h in st["hands"]],
        "flames": list(st["flames"]),
        "known": {
            s: [c for c in h if c in known and c not in FLAMES]
            for s, h in enumerate(st["hands"])
            if s != seat
        },
        "deck": len(deck),
        "top_flame": bool(deck) and deck[-1] in FLAMES,
        "deck_known": {i: c for i, c in enumerate(reversed(deck)) if c in known} if known else {},
        "played": list(st["played"]),
        "totals": list(st["totals"]),
        "night": st["night"],
        "dawn": st["dawn"],
        "round": st["round"],
    }


def observe_view(v: View) -> Observation:
    """The same observation as ``observe``, built from a view alone (a seat's, not a spectator's)."""
    me = v["seat"]
    if me is None:
        raise ValueError("a spectator's view has no hand to observe")
    return {
        "me": me,
        "n": v["players"],
        "direction": v["direction"],
        "hand": [c["id"] for c in v["hands"][me]["cards"]],
        "counts": [h["count"] for h in v["hands"]],
        "flames": [h["flames"] for h in v["hands"]],
        "known": {h["seat"]: [c["id"] for c in h["known"]] for h in v["hands"] if h["seat"] != me},
        "deck": v["deck"]["count"],
        "top_flame": v["deck"]["top_is_flame"],
        "deck_known": {k["position"]: k["card"]["id"] for k in v["known_deck"]},
        "played": [c["id"] for c in v["played"]],
        "totals": list(v["totals"]),
        "night": v["night"],
        "dawn": v["dawn"],
        "round": v["round"],
    }
