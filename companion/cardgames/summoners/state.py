"""The match state as a plain dict: set-up, cheap copies, the deck, chips and events."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict, Unpack, cast

from companion.cardgames import chance as chances

from .cards import card_ids, kind_of_card
from .records import Event, EventFields, Private, Result
from .versions import ENGINE_VERSION, RECORDS_CHANCE, Rules, rules_for


class Action(TypedDict, total=False):
    """One move: its ``type`` and the fields that type takes (legal.py lists every shape)."""

    type: Required[str]
    card: str  # play, summon, place, discard, give, choose, keep
    action: str  # act: the action's name
    victim: int | None  # act conquest
    flip: str | None  # act research: the colour
    choice: str  # act alchemy, prayer, pilgrimage
    kind: str  # paid: the spirit kind
    pay: dict[str, int]  # pay: counts per colour and "stone"
    zone: str  # discard: hand, mana or stones
    use: bool  # optional
    copies: int  # optional: how many of the asking copies are used (absent: all of them)


class Options(TypedDict, total=False):
    """The choices a table made before the deal (options.py offers the lobby's)."""

    start: int | None  # the start seat (else drawn from the seed)
    turn_cap: int  # turns per player before the safety cap ends the match
    catch_up: bool  # the catch-up chips (D23)
    always_use: bool  # every ability is used as it triggers, without asking (version 3)


class Seat(TypedDict):
    """One player's zones (card ids) and counters."""

    hand: list[str]
    mana: list[str]  # the face-up row, oldest first
    stones: list[str]
    spirits: list[str]
    vp: int
    faith: int
    pairing: str | None  # the pending pairing card (D5)
    turns: int


# What a payment pays for: a summon's card or a paid ability's kind ("for" is a keyword).
# A payment: how many cards of each colour (COLOURS order), then how many stones
Payment = tuple[int, int, int, int, int, int]
# What the seat is paying for; "options" keeps the payments worked out when it was asked to
# choose (as lists: a state is plain JSON)
Paying = TypedDict(
    "Paying",
    {"for": str, "card": str, "kind": str, "options": list[list[int]]},
    total=False,
)


class Turn(TypedDict):
    """This turn so far: the command number's cards, what was paid, placed, drawn, chosen."""

    seat: int
    played: str | None
    pairing_card: str | None
    pairing_num: int
    base: int  # the command number
    paid: dict[str, int]  # paid abilities used, by kind
    placed: int  # cards placed as mana (Baltanders)
    drawn: list[str]  # the two Phase III cards
    reveal: list[str]  # the festival's revealed cards
    victim: int | None
    action: str | None
    paying: NotRequired[Paying]
    assisted: NotRequired[str]


def new_turn(seat: int) -> Turn:
    """``seat``'s turn before anything is played."""
    return {
        "seat": seat,
        "played": None,
        "pairing_card": None,
        "pairing_num": 0,
        "base": 0,
        "paid": {},
        "placed": 0,
        "drawn": [],
        "reveal": [],
        "victim": None,
        "action": None,
    }


class WaitFor(TypedDict, total=False):
    """The particulars of a decision; every one is public (the view shows a wait whole)."""

    to: int  # give: who receives
    hand: int  # trim: the hand to discard down to
    mana: int  # trim: the mana (stones included) to discard down to
    kinds: list[str]  # optional: the spirits asking, any of which may resolve first
    copies: list[int]  # optional: how many of each resolve together


class Await(WaitFor):
    """The decision a seat owes now: who, the phase (legal.py's table) and its particulars."""

    seat: int
    phase: str


class Step(TypedDict, total=False):
    """One step of the turn machine still to run (flow.py's table), with what it needs."""

    step: Required[str]
    seat: int
    n: int  # deal: cards to take
    to: str | int  # deal: where the cards go; give: the seat that receives
    upto: int  # deal: take until the hand holds this many
    after99: bool  # deal: the retry after the 9/9 rule
    receiver: int  # deal to "give": who receives
    hand: int  # trim
    mana: int  # trim
    kind: str  # resolve
    times: int  # resolve: copies resolving together
    kinds: list[str]  # optional: the spirits asking
    copies: list[int]  # optional: copies of each
    equal: bool  # givers: whether players of equal faith give too (Kasha)
    action: str  # triggers
    card: str  # on-summon
    phase: str  # await


# The whole match (``await`` is a keyword, hence the functional form).
State = TypedDict(
    "State",
    {
        "game": str,
        "version": int,  # the engine version whose rules the match plays (versions.py)
        "seed": int,
        "players": int,
        "options": Options,
        "start": int,
        "deck": list[str],
        "discard": list[str],
        "seats": list[Seat],
        "turn": Turn,
        "await": Await | None,  # who must decide what now
        "todo": list[Step],  # steps still due this turn
        "declarer": int | None,
        "final_left": int | None,
        "result": Result | None,  # set once the match is over
        "turn_number": int,
        "reshuffles": int,
        "rule99": int,
        "log": list[list[Any]],  # [seat, action] per move: a JSON pair of an int and an Action
        "events": list[Event],
        # since version 4: the chance outcomes drawn since ``new`` or ``apply`` made the state,
        # and while a replay runs, the recorded ones it uses instead (``cardgames.chance``)
        "drawn": NotRequired[list[chances.Outcome]],
        "script": NotRequired[list[Any]],
    },
)
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


def new_state(
    players: int,
    seed: int,
    options: Mapping[str, Any],
    version: int = ENGINE_VERSION,
    outcomes: Sequence[Any] | None = None,
) -> State:
    """A fresh match: shuffled deck, 6-card hands, 1 faith and 2 initial mana each (rule 2).
    ``outcomes``: the deal's recorded chance (``cardgames.chance``), drawn from the seed if None.

    With ``options["catch_up"]`` (a house rule, off by default since engine version 2: the
    printed set-up gives no VP), every player after the start player begins with VP chips equal
    to their place in turn order (2 for the second, 3 for the third, 4 for the fourth):
    decision D23, which offsets the start player's lead in tempo.
    """
    drawn: list[chances.Outcome] | None = [] if version >= RECORDS_CHANCE else None
    script = chances.start(drawn, outcomes)
    made: list[random.Random] = []  # one generator for the deal and the start, made if drawn

    def rng() -> random.Random:
        if not made:
            made.append(random.Random(seed))
        return made[0]

    def shuffled() -> list[str]:
        deck = list(card_ids())
        rng().shuffle(deck)
        return deck

    deck = list(chances.draw(drawn, script, "deal", shuffled, _ORDER_OF_CARDS))
    start = options.get("start")
    if start is None:
        start = chances.draw(
            drawn, script, "start", lambda: rng().randrange(players), chances.is_seat(players)
        )
    else:
        start = int(start)
    chances.finish(script)
    s: State = {
        "game": "age-of-summoners",
        "version": version,
        "seed": seed,
        "players": players,
        "options": cast(Options, dict(options)),  # as given: the lobby checks them (options.py)
        "start": start,
        "deck": deck,
        "discard": [],
        "seats": [_new_seat() for _ in range(players)],
        "turn": cast(Turn, {}),  # start_turn fills it before anything reads it
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
    }
    if drawn is not None:
        s["drawn"] = drawn
    emit(s, "setup", None, players=players, start=start)
    for seat, p in enumerate(s["seats"]):
        p["hand"] = [deck.pop() for _ in range(HAND_SIZE)]
        emit(s, "dealt", seat, count=HAND_SIZE, private=_kinds_for(seat, p["hand"]))
    for seat, p in enumerate(s["seats"]):
        p["mana"] = [deck.pop(), deck.pop()]
        p["pairing"] = p["mana"][1]
        emit(s, "initial-mana", seat, kinds=[kind_of_card()[c] for c in p["mana"]])
    if s["options"].get("catch_up", rules(s).catch_up):
        for seat, chips in zip(seats_from(s, start)[1:], catch_up_chips(players), strict=True):
            s["seats"][seat]["vp"] = chips
            emit(s, "catch-up", seat, vp=chips)
    return s


_ORDER_OF_CARDS = chances.is_order_of(card_ids())


def catch_up_chips(players: int) -> list[int]:
    """The VP chips of each player after the start player, in turn order (D23): their place."""
    return list(range(2, players + 1))


def _new_seat() -> Seat:
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


def _kinds_for(seat: int, cards: list[str]) -> Private:
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
    turn = s["turn"].copy()
    if "drawn" in turn:
        turn["drawn"] = turn["drawn"][:]
    if "reveal" in turn:
        turn["reveal"] = turn["reveal"][:]
    if "paid" in turn:
        turn["paid"] = dict(turn["paid"])
    c["turn"] = turn
    c["await"] = s["await"].copy() if s["await"] else None
    c["todo"] = s["todo"][:]
    c["log"] = s["log"][:]
    c["events"] = s["events"][:]
    if "drawn" in s:
        c["drawn"] = s["drawn"][:]
    return c


def emit(
    s: State,
    etype: str,
    seat: int | None,
    private: Private | None = None,
    **fields: Unpack[EventFields],
) -> None:
    """Append one story event; ``private`` holds what only ``private["seats"]`` may see."""
    # mypy asks every key of an unpacked literal to be spelled out, "private" too: it comes next
    event: Event = {"type": etype, "turn": s["turn_number"], "seat": seat, **fields}  # type: ignore[typeddict-item]
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
    return (seat - 1) % s["players"]


def mana_count(p: Seat) -> int:
    """A seat's mana as a discard-down limit counts it: face-up cards and stones (4.7, 4.10)."""
    return len(p["mana"]) + len(p["stones"])


def turn_cap(s: State) -> int:
    """Turns per player after which the safety cap ends the match."""
    return s["options"].get("turn_cap", TURN_CAP)


def rules(s: State) -> Rules:
    """The rules the match plays: its engine version's, for its options."""
    return rules_for(s["version"], s["options"])


def gain_faith(s: State, seat: int, amount: int) -> int:
    """Change faith (rule 4.4); returns the change made. A gain to 11 or more does not happen
    (「１１以上を得るような効果は、ないものとして処理します」): 9 and "gain 2" stays 9 (version 1
    stopped it at 10). Faith never goes below 0."""
    p = s["seats"][seat]
    before = p["faith"]
    if before + amount > FAITH_CAP:
        if s["version"] > 1:
            return 0
        amount = FAITH_CAP - before
    p["faith"] = max(0, before + amount)
    return p["faith"] - before


def deck_ready(s: State) -> bool:
    """True when a card can be taken, reshuffling the discard pile first if the deck is empty."""
    if s["deck"]:
        return True
    if not s["discard"]:
        return False
    reshuffle(s)
    return True


def reshuffle(s: State) -> None:
    """Shuffle the discard pile into a new deck; the order is drawn from a seed-derived generator.

    Since version 4 the order is recorded (``cardgames.chance``) and a replay uses it; versions
    1 to 3 draw it again from the seed (``random.Random``'s seeded sequence)."""
    s["reshuffles"] += 1

    def shuffled() -> list[str]:
        rng = random.Random(f"{s['seed']}/reshuffle/{s['reshuffles']}")
        deck = sorted(s["discard"])
        rng.shuffle(deck)
        return deck

    order = chances.is_order_of(s["discard"])
    deck = list(chances.draw(s.get("drawn"), s.get("script"), "reshuffle", shuffled, order))
    s["deck"] = deck + s["deck"]
    s["discard"] = []
    emit(s, "reshuffled", None, count=len(deck))


def zone_cards(p: Seat, zone: object) -> list[str] | None:
    """A seat's cards in ``zone`` ("hand", "mana", "stones", "spirits"); None for another name."""
    if zone == "hand":
        return p["hand"]
    if zone == "mana":
        return p["mana"]
    if zone == "stones":
        return p["stones"]
    if zone == "spirits":
        return p["spirits"]
    return None


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
