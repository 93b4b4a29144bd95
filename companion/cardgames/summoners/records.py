"""What a match records as it goes: its story events and its result.

Plain typed dicts (JSON as stored); events carry kinds, never card ids (docs/cardgames.md).
"""

from __future__ import annotations

from typing import Required, TypedDict


class Private(TypedDict, total=False):
    """The secret part of an event, merged into the view of ``seats`` only."""

    seats: Required[list[int]]
    kinds: list[str]  # dealt, drew, refill-drawn, gave, kept, assisted
    kind: str  # discarded from a hand


# VP an ability took from its victim ("from": a seat, None for the supply); "from" is a keyword,
# hence the functional form.
Steal = TypedDict("Steal", {"from": int | None, "amount": int})


class EventFields(TypedDict, total=False):
    """The particulars of one event, by event type (each type uses a few)."""

    players: int  # setup
    start: int  # setup
    count: int  # dealt, drew, refill-drawn, stones, reshuffled
    kinds: list[str]  # initial-mana, mana, revealed
    vp: int  # catch-up, declared; ability
    played: str | None  # command
    pairing: str | None  # command
    pairing_number: int  # command
    number: int  # command, action, assisted
    kind: str  # summoned, placed, paid, ability, discarded (mana), assisted, declined
    paid: dict[str, int]  # summoned, paid
    action: str  # action
    via: str  # action: base, zero-played or shift
    choice: str | None  # action
    gain: int  # conquest, research, pilgrimage
    victim: int | None  # conquest
    flipped: str | None  # research
    times: int  # ability: copies resolving together
    faith: int  # ability
    draw: int  # ability
    stone: int  # ability
    mana: int  # ability
    cards: int  # ability (Sphinx)
    steal: Steal  # ability
    steal_each: dict[str, int]  # ability: seat (as text) -> VP taken
    trim: bool  # ability (Nightmare)
    to: int  # gave, assisted
    from_deck: bool  # gave
    placed: list[str]  # festival
    discarded: str | None  # festival
    zone: str  # discarded
    assisted: None  # kept: nothing was assisted
    spirits: int  # declared
    reason: str  # game-end
    totals: list[int]  # game-end
    winner: int  # game-end


class Event(EventFields, total=False):
    """One story event: its type, the turn number, the seat it is about and its particulars."""

    type: Required[str]
    turn: Required[int]
    seat: Required[int | None]
    private: Private


class Score(TypedDict):
    """One seat's score: VP chips + spirits' points + game-end abilities (by kind) = total."""

    chips: int
    points: int
    abilities: dict[str, int]
    total: int


class Result(TypedDict):
    """How a match ended: totals, breakdowns, the winner and the tie, who declared and why."""

    winner: int
    totals: list[int]
    breakdown: list[Score]
    tied: list[int]
    declarer: int | None
    reason: str | None
    turns: list[int]
