"""Low-level card movements shared by the engine and the effect blocks (all act in place).

Every function here mutates the state it is given; ``engine.apply`` hands them a private copy.
What a move tells (the log, the story's events, what each seat learns or forgets) goes to a
``Sink``: ``RECORD`` writes it into the state, ``DROP`` (a ``quiet`` state: simulations and bot
rollouts on a sampled world) drops it. The rules run the same code either way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal, NotRequired, Required, TypedDict, TypeVar

from companion.cardgames import chance as chances

from . import cards

T = TypeVar("T")


class Action(TypedDict, total=False):
    """Draw, or play a card with its target and the choices its effect asks for."""

    type: Required[Literal["draw", "play"]]
    card: str
    target: int
    take: Literal["flame", "non_flame"]
    give: str
    bottom: str


class Options(TypedDict, total=False):
    """What ``new`` reads of a table's options."""

    start: int | None  # the start player of round 1 (None: drawn from the seed)
    max_rounds: int | None  # a safety cap on rounds (simulations)


class Private(TypedDict, total=False):
    """The secret part of an event, for the seats it names only."""

    seats: Required[list[int]]
    card: str
    cards: list[str]


class Event(TypedDict, total=False):
    """One step of the story (docs/cardgames.md, "Events"): a type, the round, and the facts of
    that type; ``private`` holds what only some seats may read."""

    type: Required[str]
    round: int
    seat: int
    target: int
    start: int
    direction: int
    shuffles: int
    flame: bool
    card: str
    cards: list[str]
    count: int
    source: str
    block: str
    ended_by: str
    ender: int
    scores: list[int]
    totals: list[int]
    winner: int
    flame_end: int  # views only: the Flames that end a round (round-ended)
    private: Private


class Revealed(TypedDict):
    """One hand as a round's scoring shows it: by kind, so no card id outlives the round."""

    seat: int
    flames: int
    kinds: list[str]
    night: bool
    dawn: bool


class RoundSummary(TypedDict):
    """A finished round: how and by whom it ended, its raw sums, scores and running totals."""

    round: int
    ended_by: Literal["flame", "deck"]
    ender: int
    turns: int
    raw: list[int]
    scores: list[int]
    totals: list[int]
    hands: list[Revealed]


class Result(TypedDict):
    """A finished match: the winner, the totals, the rounds played, the tie order (D6) and whether
    the round cap ended it."""

    winner: int
    totals: list[int]
    rounds: int
    order: list[int]
    capped: bool


class State(TypedDict):
    """A whole match. The deck's top card is its LAST element."""

    game: str
    version: int
    players: int
    seed: int
    options: Options
    quiet: bool  # a bot's sampled world: no log, events or knowledge
    rng: int  # generators taken from the seed so far (since version 2: outcomes of chance)
    round: int
    turn: int
    first: int  # the start player of round 1
    start: int  # the start player of this round
    direction: int  # 1 or -1
    night: int  # who holds Night (is to act)
    dawn: int | None  # who holds Before-Dawn
    skip: bool
    deck: list[str]
    hands: list[list[str]]
    flames: list[int]
    played: list[str]
    known: list[list[str]]  # per seat, the cards it has seen and still knows the place of
    totals: list[int]
    rounds: list[RoundSummary]
    log: list[list[Any]]  # [seat, action] per move: a JSON pair
    events: list[Event]
    round_events: int
    result: Result | None
    # since engine version 2: the chance outcomes drawn since ``new`` or ``apply`` made the
    # state, and while a replay runs, the recorded ones it uses instead (``cardgames.chance``)
    drawn: NotRequired[list[chances.Outcome]]
    script: NotRequired[list[Any]]


FLAMES = cards.flame_ids()
VALUE = cards.values()
KIND = {cid: cards.kinds()[kid] for cid, kid in cards.all_cards().items()}
_KIND_ID = cards.all_cards()
_NIGHT, _DAWN = cards.kinds()["night"]["value"], cards.kinds()["dawn"]["value"]


def rng(st: State) -> random.Random:
    """The next generator of the match: derived from the seed and a counter kept in the state."""
    st["rng"] += 1
    return random.Random(f"traitors-flame:{st['seed']}:{st['rng']}")


def chance(
    st: State, kind: str, drawing: Callable[[random.Random], T], sound: Callable[[Any], bool]
) -> T:
    """One outcome of chance: ``drawing`` on the match's next generator, or under version 2,
    the replay's recorded outcome when it runs one (``cardgames.chance``).

    Since version 2 the counter counts outcomes, recorded or drawn, so a replayed state is the
    one the match played, and the draws an outcome takes do not move the next one's generator.
    """
    if st["version"] == 1:
        return drawing(rng(st))
    st["rng"] += 1
    key = f"traitors-flame:{st['seed']}:{st['rng']}"
    return chances.draw(
        st.get("drawn"), st.get("script"), kind, lambda: drawing(random.Random(key)), sound
    )


class Sink:
    """Where a move's record goes: this one writes it into the state (the log, the events and
    what each seat knows). ``keeps`` says whether it keeps anything: when it does not, the
    rules skip building what they would tell it (an event, the cards a seat learns) and make
    the very same state changes around it."""

    __slots__ = ()
    keeps = True

    def logged(self, st: State, seat: int, action: Action) -> None:
        """A move, for the replay log."""
        st["log"].append([seat, action])

    def event(self, st: State, ev: Event) -> None:
        """A step of the story, tagged with the round."""
        ev["round"] = st["round"]
        st["events"].append(ev)

    def drew(self, st: State, seat: int, card: str, flame: bool) -> None:
        """``seat`` drew ``card`` (a Flame or not, as everyone sees)."""
        private: Private = {"seats": [seat], "card": card}
        self.event(st, {"type": "drew", "seat": seat, "flame": flame, "private": private})

    def played(self, st: State, seat: int, card: str, target: int | None) -> None:
        """``seat`` played ``card`` (at ``target``, for a card that takes one)."""
        ev: Event = {"type": "played", "seat": seat, "card": card}
        if target is not None:
            ev["target"] = target
        self.event(st, ev)

    def passed(self, st: State, seat: int, target: int) -> None:
        """Night went from ``seat`` to ``target``."""
        self.event(st, {"type": "passed", "seat": seat, "target": target})

    def learn(self, st: State, seat: int, found: list[str]) -> None:
        """``seat`` now knows where the given cards are."""
        known = st["known"][seat]
        for card in found:
            if card not in known:
                known.append(card)

    def blur(self, st: State, owner: int, involved: tuple[int, ...]) -> None:
        """A non-Flame left ``owner``'s hand unseen: others forget which non-Flames it holds."""
        hand = st["hands"][owner]
        for seat, known in enumerate(st["known"]):
            if seat not in involved and known:
                st["known"][seat] = [c for c in known if c not in hand]


class Dropped(Sink):
    """A sink that keeps nothing: quiet play, whose states have no log, events or knowledge."""

    __slots__ = ()
    keeps = False

    def logged(self, st: State, seat: int, action: Action) -> None:
        """Nothing is logged."""

    def event(self, st: State, ev: Event) -> None:
        """Nothing is told."""

    def drew(self, st: State, seat: int, card: str, flame: bool) -> None:
        """Nothing is told."""

    def played(self, st: State, seat: int, card: str, target: int | None) -> None:
        """Nothing is told."""

    def passed(self, st: State, seat: int, target: int) -> None:
        """Nothing is told."""

    def learn(self, st: State, seat: int, found: list[str]) -> None:
        """Nothing is learnt."""

    def blur(self, st: State, owner: int, involved: tuple[int, ...]) -> None:
        """Nothing is forgotten."""


RECORD, DROP = Sink(), Dropped()
# the sink by ``st["quiet"]``: a state's ``SINKS[st["quiet"]]`` is its ``sink(st)``
SINKS: tuple[Sink, Sink] = (RECORD, DROP)


def sink(st: State) -> Sink:
    """The sink a state's moves tell to: ``DROP`` for a quiet state, else ``RECORD``."""
    return SINKS[st["quiet"]]


def draw(st: State, seat: int, n: int, out: Sink) -> bool:
    """Draw ``n`` (at least 1) cards for ``seat``, stopping as soon as the deck is empty; True if
    it is (the round must end)."""
    deck, hand = st["deck"], st["hands"][seat]
    while n and deck:
        n -= 1
        card = deck.pop()
        hand.append(card)
        flame = card in FLAMES
        if flame:
            st["flames"][seat] += 1
        if out.keeps:
            out.drew(st, seat, card, flame)
    return not deck


def move(st: State, card: str, src: int, dst: int) -> None:
    """Move a card between two hands, keeping the Flame counts right."""
    st["hands"][src].remove(card)
    st["hands"][dst].append(card)
    if card in FLAMES:
        st["flames"][src] -= 1
        st["flames"][dst] += 1


def score_hands(st: State) -> list[int]:
    """Each seat's raw round sum: its hand plus Night (+2) and Before-Dawn (+4) if it holds them."""
    night, dawn, value = st["night"], st["dawn"], VALUE.__getitem__
    return [
        int(
            sum(map(value, hand))
            + (_NIGHT if night == seat else 0)
            + (_DAWN if dawn == seat else 0)
        )
        for seat, hand in enumerate(st["hands"])
    ]


def hand_score(hand: list[str], night: bool, dawn: bool) -> int:
    """One hand's raw sum as a round's end would count it, before the floor of 0."""
    total = sum(map(VALUE.__getitem__, hand))
    total += _NIGHT if night else 0
    total += _DAWN if dawn else 0
    return int(total)


def round_score(raw: int) -> int:
    """What a hand's raw sum scores when a round ends: a negative sum counts 0."""
    return raw if raw > 0 else 0


def next_holder(players: int, direction: int, seat: int, skip: bool) -> tuple[int, int | None]:
    """Who receives Night from ``seat``, and the seat a pending skip passes over (or None)."""
    nxt = (seat + direction) % players
    if not skip:
        return nxt, None
    return (nxt + direction) % players, nxt


def reveal(st: State) -> list[Revealed]:
    """The hands shown at scoring, by kind (no card ids, so they cannot leak into later rounds)."""
    flames, night, dawn = st["flames"], st["night"], st["dawn"]
    return [
        {
            "seat": seat,
            "flames": flames[seat],
            "kinds": sorted([_KIND_ID[c] for c in hand if c not in FLAMES]),
            "night": night == seat,
            "dawn": dawn == seat,
        }
        for seat, hand in enumerate(st["hands"])
    ]
