"""The match state as a plain dict: set-up, cheap copies, the deck, chips and events."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Required, TypedDict

from .cards import card_ids, kind_of_card


class Action(TypedDict, total=False):
    """One move: its ``type`` and the fields that type takes (legal.py lists every shape)."""

    type: Required[str]
    card: str  # play, summon, place, discard, give, choose, keep
    action: str  # act: the action's name
    victim: int | None  # act conquest
    flip: str | None  # act research: the colour
    choice: str  # act alchemy, prayer, pilgrimage
    kind: str  # paid: the spirit kind
    pay: dict[str, Any]  # pay: cards and stones
    zone: str  # discard: hand, mana or stones
    use: bool  # optional


# The whole match (``await`` is a keyword, hence the functional form).
State = TypedDict(
    "State",
    {
        "game": str,
        "seed": int,
        "players": int,
        "options": dict[str, Any],
        "start": int,
        "deck": list[str],
        "discard": list[str],
        "seats": list[dict[str, Any]],
        "turn": dict[str, Any],
        "await": dict[str, Any] | None,  # who must decide what now
        "todo": list[dict[str, Any]],  # steps still due this turn
        "declarer": int | None,
        "final_left": int | None,
        "result": dict[str, Any] | None,  # set once the match is over
        "turn_number": int,
        "reshuffles": int,
        "rule99": int,
        "log": list[list[Any]],  # [seat, action] per move
        "events": list[dict[str, Any]],
        "chance": list[dict[str, Any]],
    },
)
Step = dict[str, Any]
Await = dict[str, Any]  # the decision a seat owes: seat, phase and its particulars
MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 6
TURN_CAP = 80
FAITH_CAP = 10
END_SPIRITS = 10
END_VP = 30
# The numbers the actions and phases use (3, 4.3, 4.7); the view tells them to the board.
NO_PAIRING = 0  # the pairing number with no face-up mana (4.1)
ASSIST_DRAW = 2  # Phase III: draw two, keep one, assist the other
CONQUEST_TAKE = 1  # VP a conquest takes from its victim or the supply
ALCHEMY_DRAW = 1
ALCHEMY_FAITH = 1
PRAYER_DRAW = 2
REFILL_TO = 5  # prayer's refill draws until the hand holds this many (D11)
FESTIVAL_FAITH = 1
FESTIVAL_REVEAL = 2
PILGRIMAGE_DRAW = 1
PILGRIMAGE_FAITH = 1
RULE99_HAND = 9  # the 9/9 rule: with deck and discard empty, everyone trims to these (4.7)
RULE99_MANA = 9


def new_state(players: int, seed: int, options: Mapping[str, Any]) -> State:
    """A fresh match: shuffled deck, 6-card hands, 1 faith and 2 initial mana each (rule 2).

    Unless ``options["catch_up"]`` is false, every player after the start player begins with
    VP chips equal to their place in turn order (2 for the second, 3 for the third, 4 for the
    fourth): decision D23, which offsets the start player's lead in tempo.
    """
    rng = random.Random(seed)
    deck = list(card_ids())
    rng.shuffle(deck)
    start = options.get("start")
    start = rng.randrange(players) if start is None else int(start)
    s: State = {
        "game": "age-of-summoners",
        "seed": seed,
        "players": players,
        "options": dict(options),
        "start": start,
        "deck": deck,
        "discard": [],
        "seats": [_new_seat() for _ in range(players)],
        "turn": {},
        "await": None,
        "todo": [],
        "declarer": None,
        "final_left": None,
        "result": None,
        "turn_number": 0,
        "reshuffles": 0,
        "rule99": 0,
        "log": [],
        "events": [],
        "chance": [{"kind": "shuffle", "order": list(deck)}],
    }
    emit(s, "setup", None, players=players, start=start)
    for seat, p in enumerate(s["seats"]):
        p["hand"] = [deck.pop() for _ in range(HAND_SIZE)]
        emit(s, "dealt", seat, count=HAND_SIZE, private=_kinds_for(seat, p["hand"]))
    for seat, p in enumerate(s["seats"]):
        p["mana"] = [deck.pop(), deck.pop()]
        p["pairing"] = p["mana"][1]
        emit(s, "initial-mana", seat, kinds=[kind_of_card()[c] for c in p["mana"]])
    if s["options"].get("catch_up", True):
        for seat, chips in zip(seats_from(s, start)[1:], catch_up_chips(players), strict=True):
            s["seats"][seat]["vp"] = chips
            emit(s, "catch-up", seat, vp=chips)
    return s


def catch_up_chips(players: int) -> list[int]:
    """The VP chips of each player after the start player, in turn order (D23): their place."""
    return list(range(2, players + 1))


def _new_seat() -> dict[str, Any]:
    return {
        "hand": [],
        "mana": [],
        "stones": [],
        "spirits": [],
        "vp": 0,
        "faith": 1,
        "pairing": None,
        "turns": 0,
    }


def _kinds_for(seat: int, cards: list[str]) -> dict[str, Any]:
    return {"seats": [seat], "kinds": [kind_of_card()[c] for c in cards]}


def copy_state(s: State) -> State:
    """A copy sharing only immutable parts (events, log entries, steps), cheap enough per move."""
    c = s.copy()
    c["deck"] = s["deck"][:]
    c["discard"] = s["discard"][:]
    c["seats"] = [
        {
            **p,
            "hand": p["hand"][:],
            "mana": p["mana"][:],
            "stones": p["stones"][:],
            "spirits": p["spirits"][:],
        }
        for p in s["seats"]
    ]
    turn = dict(s["turn"])
    for key in ("drawn", "reveal"):
        if key in turn:
            turn[key] = turn[key][:]
    if "paid" in turn:
        turn["paid"] = dict(turn["paid"])
    c["turn"] = turn
    c["await"] = dict(s["await"]) if s["await"] else None
    c["todo"] = s["todo"][:]
    c["log"] = s["log"][:]
    c["events"] = s["events"][:]
    c["chance"] = s["chance"][:]
    return c


def emit(
    s: State, etype: str, seat: int | None, private: dict[str, Any] | None = None, **fields: Any
) -> None:
    """Append one story event; ``private`` holds what only ``private["seats"]`` may see."""
    event: dict[str, Any] = {"type": etype, "turn": s["turn_number"], "seat": seat, **fields}
    if private is not None:
        event["private"] = private
    s["events"].append(event)


def push(s: State, *steps: Step) -> None:
    """Schedule steps to run next, in the order given (the to-do list is a stack)."""
    s["todo"].extend(reversed(steps))


def seats_from(s: State, seat: int) -> list[int]:
    """All seats in turn order, starting with ``seat``."""
    n = s["players"]
    return [(seat + i) % n for i in range(n)]


def right_of(s: State, seat: int) -> int:
    """The right-hand neighbour: the player who took the turn just before ``seat``."""
    return (seat - 1) % int(s["players"])


def gain_faith(s: State, seat: int, amount: int) -> int:
    """Change faith within 0..10 (rule 4.4); returns the change actually made."""
    p = s["seats"][seat]
    before = p["faith"]
    p["faith"] = max(0, min(FAITH_CAP, before + amount))
    return int(p["faith"] - before)


def deck_ready(s: State) -> bool:
    """True when a card can be taken, reshuffling the discard pile first if the deck is empty."""
    if s["deck"]:
        return True
    if not s["discard"]:
        return False
    reshuffle(s)
    return True


def reshuffle(s: State) -> None:
    """Shuffle the discard pile into a new deck; the order is drawn from a seed-derived generator."""
    s["reshuffles"] += 1
    rng = random.Random(f"{s['seed']}/reshuffle/{s['reshuffles']}")
    deck = sorted(s["discard"])
    rng.shuffle(deck)
    s["deck"] = deck + s["deck"]
    s["discard"] = []
    s["chance"].append({"kind": "shuffle", "order": list(deck)})
    emit(s, "reshuffled", None, count=len(deck))


def all_cards(s: State) -> list[str]:
    """Every card id in every zone, for conservation checks."""
    cards: list[str] = s["deck"] + s["discard"]
    cards += s["turn"].get("drawn", []) + s["turn"].get("reveal", [])
    for p in s["seats"]:
        cards += p["hand"] + p["mana"] + p["stones"] + p["spirits"]
    return cards


def may_declare(s: State, seat: int) -> bool:
    """True when nobody has declared yet and the seat has enough spirits or VP to end (4.8)."""
    p = s["seats"][seat]
    return s["declarer"] is None and (len(p["spirits"]) >= END_SPIRITS or p["vp"] >= END_VP)
