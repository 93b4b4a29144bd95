"""What the Age of Summoners templates read: the board's view model, typed.

Every field is worked out from one seat's view (``companion.cardgames.summoners.view.View``);
the words in it are already in the reader's language. Card texts are markup (their colour
symbols drawn), everything else plain text the template escapes.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from markupsafe import Markup

from companion.cardgames.summoners.view import CardView


class Status(TypedDict):
    """Whose turn it is and what the player who must choose now is doing."""

    turn: str
    now: str
    mine: bool
    acting: int | None


class EndLine(TypedDict):
    """The end declaration and the final lap, or how the end may be declared."""

    declared: bool
    line: str


class OrderSeat(TypedDict):
    """A seat in the order of play."""

    seat: int
    name: str
    active: bool


class ReachInfo(TypedDict):
    """An action the command number reaches, and how (Asmodai, Sandman)."""

    action: str
    number: int
    note: str


class CommandInfo(TypedDict):
    """The command number (Phase II on) or the card Phase I will pair with (``phase1``)."""

    phase1: bool
    name: str
    pairing: CardView | None
    line: NotRequired[str]  # Phase I
    pairing_number: NotRequired[int]
    played: NotRequired[CardView | None]
    played_number: NotRequired[int]  # what the played card adds (no card: nothing)
    number: NotRequired[int]
    reach: NotRequired[list[ReachInfo]]
    chosen: NotRequired[str]
    reveal: NotRequired[list[CardView]]


class ChoiceInfo(TypedDict):
    """What the viewer must decide now, beyond the buttons."""

    phase: str
    drawn: list[CardView]
    note: Markup


class HandCard(TypedDict):
    """One kind in the viewer's hand, with its facts and what it does."""

    kind: str
    count: int
    name: str
    colour: str
    number: int
    tag: str
    cost: str
    icons: list[str]
    points: int
    facts: str
    text: Markup
    summonable: bool


class HandInfo(TypedDict):
    """The viewer's own hand, grouped by kind."""

    count: int
    cards: list[HandCard]


class SpiritInfo(TypedDict):
    """One kind among a seat's spirits."""

    kind: str
    count: int
    name: str
    text: Markup
    points: int


class ManaEntry(TypedDict):
    """A card in a mana row, and what to say about it (pairs next, played this turn...)."""

    card: CardView
    pairing: bool
    note: str


class IconCount(TypedDict):
    """How many of one icon a seat's spirits show."""

    icon: str
    count: int


class ColourCount(TypedDict):
    """How many face-up mana of one colour a row holds."""

    colour: str
    count: int


class SeatInfo(TypedDict):
    """One seat as everyone sees it."""

    seat: int
    name: str
    me: bool
    bot: bool
    active: bool
    acting: bool
    declared: bool
    can_declare: bool
    vp: int
    faith: int
    hand_count: int
    hand_words: str
    stones: int
    stone_words: str
    spirit_count: int
    spirits: list[SpiritInfo]
    icons: list[IconCount]
    mana: list[ManaEntry]
    mana_total: int
    mana_counts: list[ColourCount]
    turns: int
    assists_to: str


class Board(TypedDict):
    """Everything the board template shows."""

    status: Status
    end: EndLine
    order: list[OrderSeat]
    command: CommandInfo | None
    choice: ChoiceInfo | None
    hand: HandInfo | None
    seats: list[SeatInfo]


class AbilityPart(TypedDict):
    """Points a game-end ability adds to a total."""

    name: str
    points: int


class ResultRow(TypedDict):
    """A seat in the final standings."""

    rank: int
    seat: int
    name: str
    total: int
    chips: int
    points: int
    abilities: list[AbilityPart]
    winner: bool
    declarer: bool


class ResultInfo(TypedDict):
    """The final standings and how a tie was, or would have been, broken."""

    winner: str
    score: int
    rows: list[ResultRow]
    declarer: str
    capped: bool
    turn_cap: int
    tied: list[str]
    order: list[str]
    anchor: str
