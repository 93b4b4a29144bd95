"""How each card game's table looks: view models, pictures and words, kept out of the engines.

A game is two halves: its rules (``companion.cardgames.<game>.GAME``, the ``CardGame``
contract) and its board here, the ``Board`` contract: every word in the current Babel locale
under the game's message context. ``Board`` is what the table shell and its shared templates
call; each game's own templates (``templates/tables/<game>/``) draw with the members of its
own protocol below. mypy checks each board package against its protocol in ``boards()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from markupsafe import Markup

Names = Sequence[str] | None
View = dict[str, Any]


class Board(Protocol):
    """What the table shell and the shared table templates ask of a game's board package."""

    def name(self) -> str:
        """The game's name in the current locale."""
        ...

    def label(self, action: dict[str, Any], view: View, names: Names = None) -> str:
        """The button text of a legal action."""
        ...

    def steps(
        self, action: dict[str, Any], label: str, view: View, names: Names = None
    ) -> tuple[str, ...]:
        """The step labels a phone walks through to reach ``action``; the last is ``label``."""
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

    def board(self, view: View, names: Sequence[str], bots: Sequence[Any]) -> dict[str, Any]:
        """The board's view model: what the game's ``_board.html`` draws."""
        ...

    def defs(self, view: View) -> Markup:
        """One hidden ``<svg>`` with every picture the view needs, drawn by reference after."""
        ...


class TraitorsFlameBoard(Board, Protocol):
    """What ``templates/tables/traitors-flame/`` draws with, beyond the shell's members."""

    def result_info(
        self, result: dict[str, Any], rounds: list[dict[str, Any]], names: Sequence[str]
    ) -> dict[str, Any]: ...
    def face(self, card: dict[str, Any] | str, extra: str = "") -> Markup: ...
    def back(self, which: str, extra: str = "") -> Markup: ...
    def data_name(self, card: dict[str, Any] | str) -> str: ...
    def data_text(self, card: dict[str, Any] | str) -> str: ...
    def count_words(self, n: int, flames: int | None = None) -> str: ...
    def flame_count(self, n: int) -> str: ...
    def hand_value(self, view: View) -> int: ...


class SummonersBoard(Board, Protocol):
    """What ``templates/tables/age-of-summoners/`` draws with, beyond the shell's members."""

    def result_info(
        self, result: dict[str, Any], view: View, names: Sequence[str]
    ) -> dict[str, Any]: ...
    def card(self, kind_or_card: str, state: str, extra: str = "") -> Markup: ...
    def back(self, extra: str = "") -> Markup: ...
    def stone(self, extra: str = "") -> Markup: ...
    def card_count(self, n: int) -> str: ...
    def card_tag(self, kind_or_card: str) -> str: ...
    def icon_pip(self, icon: str) -> Markup: ...
    def kind_name(self, kind_or_card: str) -> str: ...
    def mana_pip(self, colour: str, extra: str = "") -> Markup: ...


def boards() -> dict[str, Board]:
    """Every game's board package by the game's key."""
    from . import summoners, traitors_flame

    # Typed by each game's protocol, so mypy checks every member its templates call.
    flame: TraitorsFlameBoard = traitors_flame
    summoning: SummonersBoard = summoners
    return {"age-of-summoners": summoning, "traitors-flame": flame}


def board_for(key: str) -> Board:
    """The board package of the game ``key`` (KeyError for an unknown game)."""
    return boards()[key]
