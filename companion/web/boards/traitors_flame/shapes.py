"""What the board's view model hands the templates: one TypedDict per part of the table."""

from __future__ import annotations

from typing import TypedDict

from companion.cardgames.traitors_flame.cards import CardInfo


class Status(TypedDict):
    """Whose turn it is, who is next and whom a pending skip passes over, in words."""

    turn: str
    next: str
    skip: str
    mine: bool  # the viewer holds Night


class Place(TypedDict):
    """One seat in the order of play."""

    seat: int
    name: str
    current: bool


class SeatRow(TypedDict):
    """One seat's public hand: backs of each kind, markers, total, the cards the viewer saw."""

    seat: int
    name: str
    bot: bool
    me: bool
    current: bool
    count: int
    flames: int
    others: int  # non-Flame backs
    night: bool
    dawn: bool
    total: int
    summary: str
    danger: bool  # Night reaching this hand would end the round
    known: list[CardInfo]


class Group(TypedDict):
    """Copies of one kind side by side (the viewer's hand, the played row)."""

    card: CardInfo
    count: int
    latest: bool  # the played row's last card is of this kind


class Worth(TypedDict):
    """The viewer's hand: its raw sum, what it would score, and whether the floor changed it."""

    sum: int
    score: int
    floored: bool


class ScoreRow(TypedDict):
    """One seat's line of the score table."""

    seat: int
    name: str
    scores: list[int]
    raw: list[int]
    floored: list[bool]  # per round: the score is not the raw sum
    total: int
    bar: int  # the total, up to the winning one
    lead: bool


class RevealedRow(TypedDict):
    """One hand as a finished round showed it."""

    name: str
    flames: int
    kinds: list[str]  # card names
    night: bool
    dawn: bool
    raw: int
    score: int
    floored: bool


class RoundRow(TypedDict):
    """A finished round in words, with its revealed hands."""

    round: int
    line: str
    hands: list[RevealedRow]


class BoardModel(TypedDict):
    """Everything ``_board.html`` draws."""

    status: Status
    order: list[Place]
    direction: str
    seats: list[SeatRow]
    played: list[Group]
    hand: list[Group] | None
    worth: Worth | None
    scores: list[ScoreRow]
    rounds: list[RoundRow]


class Standing(TypedDict):
    """One line of the final standings."""

    rank: int
    name: str
    total: int
    winner: bool


class ResultInfo(TypedDict):
    """Everything ``_result.html`` draws: standings, the winner and the tie explanation."""

    winner: str
    score: int
    rows: list[Standing]
    order: list[str]
    first: str
    ender: str
    tied: list[str]
    rounds: int
    capped: bool
    goal: int
