"""The card games that live beside the legacy game: a registry of pure rules engines.

Every game is a module exposing ``GAME``, an object with the shape documented in
``docs/cardgames.md``: ``new``, ``legal_actions``, ``apply``, ``view``, ``result`` and ``bots``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

_MODULES = {
    "traitors-flame": "companion.cardgames.traitors_flame",
    "age-of-summoners": "companion.cardgames.summoners",
}


class CardGameRuleError(ValueError):
    """An action the rules do not allow; the state is unchanged."""

    def __init__(self, message: str, code: str = "illegal-action", **params: Any) -> None:
        super().__init__(message % params if params else message)
        self.template = message
        self.code = code
        self.params = params


def shown(value: object, limit: int = 80) -> str:
    """A value from a request, quoted and cut short, for a refusal's message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CardGame(Protocol):
    """What every card game module's ``GAME`` offers."""

    key: str
    names: dict[str, str]
    min_players: int
    max_players: int
    bots: dict[str, Any]
    options: list[dict[str, Any]]  # key, type ("bool"), default, label and help message ids

    def new(self, players: int, seed: int, options: dict[str, Any]) -> dict[str, Any]: ...

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]: ...

    def apply(self, state: dict[str, Any], seat: int, action: dict[str, Any]) -> dict[str, Any]: ...

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]: ...

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None: ...

    def describe(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str: ...

    def option_words(self, message: str, lang: str) -> str: ...

    def standings(self, state: dict[str, Any]) -> list[dict[str, Any]]: ...

    def standing_line(self, row: dict[str, Any], lang: str) -> str: ...


def game_keys() -> tuple[str, ...]:
    """The keys of every registered card game."""
    return tuple(_MODULES)


def game_package(key: str) -> str:
    """The dotted name of the package holding game ``key`` (its simulate, rules and data)."""
    return _MODULES[key]


def get_game(key: str) -> CardGame:
    """The game registered under ``key``; raises KeyError for an unknown game."""
    module = importlib.import_module(_MODULES[key])
    return module.GAME  # type: ignore[no-any-return]
