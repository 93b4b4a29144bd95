"""Cards, the twelve piles and the four life stages (rules 1.1, 1.2, 3.1)."""

from __future__ import annotations

from dataclasses import dataclass

SUITS = ("hearts", "diamonds", "clubs", "spades")
SUIT_LETTERS = {"hearts": "H", "diamonds": "D", "clubs": "C", "spades": "S"}
SLOTS = ("low", "middle", "face")
SLOT_RANKS = {
    "low": ("A", "2", "3", "4", "5"),
    "middle": ("6", "7", "8", "9", "10"),
    "face": ("J", "Q", "K"),
}
PILES = tuple(f"{suit}-{slot}" for suit in SUITS for slot in SLOTS)
PILE_CARDS = {
    f"{suit}-{slot}": tuple(rank + SUIT_LETTERS[suit] for rank in SLOT_RANKS[slot])
    for suit in SUITS
    for slot in SLOTS
}
CARDS = tuple(card for pile in PILES for card in PILE_CARDS[pile])
CARD_PILE = {card: pile for pile in PILES for card in PILE_CARDS[pile]}
DRAWS_PER_PILE = 3  # one draw per pile per round, three rounds per stage (4.10)


@dataclass(frozen=True)
class Stage:
    """One life stage: its order, key, suit, dice per check and the suggested human age."""

    index: int
    key: str
    suit: str
    dice: int
    age: str


STAGES = (
    Stage(0, "youth", "hearts", 4, "20-32"),
    Stage(1, "prime", "diamonds", 3, "33-48"),
    Stage(2, "maturity", "clubs", 2, "49-62"),
    Stage(3, "old-age", "spades", 1, "63+"),
)
ROUNDS_PER_STAGE = 3
TURNS_PER_ROUND = 3
MAX_MARKS = 8


def pile_index(stage: int, turn: int) -> int:
    """The index in ``PILES`` of the pile that turn 1, 2 or 3 of ``stage`` draws from (3.1)."""
    return stage * len(SLOTS) + turn - 1


def pile_of(card: str) -> str | None:
    """The pile a card code such as ``"10D"`` belongs to, or None if it is no card."""
    return CARD_PILE.get(card)
