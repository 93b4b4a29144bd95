"""Shared set-up for the Age of Summoners rule scenarios: a match on the printed set-up (no
catch-up chips), seat 0 to start, and small lookups by kind."""

from __future__ import annotations

from typing import Any

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.cards import kind_of_card
from companion.cardgames.summoners.engine import new

State = dict[str, Any]


def printed_start(players: int = 3, seed: int = 1) -> State:
    """A fresh match as the rulebook sets it up, seat 0 first."""
    return new(players, seed, {"start": 0, "catch_up": False})


def do(s: State, seat: int, **action: Any) -> State:
    return GAME.apply(s, seat, action)


def card_of(s: State, seat: int, kind: str, zone: str = "hand") -> str:
    return next(c for c in s["seats"][seat][zone] if kind_of_card()[c] == kind)


def kinds(cards: list[str]) -> list[str]:
    return [kind_of_card()[c] for c in cards]
