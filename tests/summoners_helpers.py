"""Shared set-up for the Age of Summoners rule scenarios: a match on the printed set-up (no
catch-up chips), seat 0 to start, and small lookups by kind."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from flask import Flask
from flask_babel import Babel, force_locale

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.cards import kind_of_card
from companion.cardgames.summoners.engine import new

State = dict[str, Any]


def printed_start(players: int = 3, seed: int = 1) -> State:
    """A fresh match as the rulebook sets it up, seat 0 first."""
    return new(players, seed, {"start": 0, "catch_up": False})


def do(s: State, seat: int, **action: Any) -> State:
    return GAME.apply(s, seat, action)


def use_asked(s: State, use: bool = True) -> State:
    """Answer every ability that asks, in the order asked: use each (all its copies) or not."""
    while s["await"] is not None and s["await"]["phase"] == "optional":
        seat, kind = s["await"]["seat"], s["await"]["kinds"][0]
        s = do(s, seat, type="optional", kind=kind, use=use)
    return s


def card_of(s: State, seat: int, kind: str, zone: str = "hand") -> str:
    return next(c for c in s["seats"][seat][zone] if kind_of_card()[c] == kind)


def kinds(cards: list[str]) -> list[str]:
    return [kind_of_card()[c] for c in cards]


@cache
def _words_app() -> Flask:
    """A bare app that knows the project's catalogues (companion/translations)."""
    app = Flask("companion")
    Babel(app)
    return app


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Words in ``lang``, as a table page in that language shows them."""
    with _words_app().app_context(), force_locale(lang):
        yield
