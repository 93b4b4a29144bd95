"""How each card game's table looks: view models, pictures and words, kept out of the engines.

A game is two halves: its rules (``companion.cardgames.<game>.GAME``, the ``CardGame``
contract) and its board here, the ``Board`` contract: every word in the current Babel locale
under the game's message context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, Protocol

Names = Sequence[str] | None


class Board(Protocol):
    """What the table shell asks of a game's board package."""

    def label(self, action: Mapping[str, Any], view: dict[str, Any], names: Names = None) -> str:
        """The button text of a legal action."""
        ...

    def describe(self, event: dict[str, Any], names: Names = None) -> str:
        """One event of a view as a sentence, naming the seats by ``names``."""
        ...

    def standing_line(self, row: dict[str, Any]) -> str:
        """How one seat's running score is made up."""
        ...

    def option_words(self, message: str) -> str:
        """A lobby option's label or help sentence, from its message id."""
        ...


def boards() -> dict[str, ModuleType]:
    """Every game's board package by the game's key."""
    from . import summoners, traitors_flame

    return {"age-of-summoners": summoners, "traitors-flame": traitors_flame}


def board_for(key: str) -> ModuleType:
    """The board package of the game ``key`` (KeyError for an unknown game)."""
    return boards()[key]
