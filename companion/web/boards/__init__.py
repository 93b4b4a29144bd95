"""How each card game's table looks: view models, pictures and words, kept out of the engines.

A game is two halves: its rules (``companion.cardgames.<game>.GAME``, the ``CardGame``
contract) and its board here, the ``Board`` contract: every word in the current Babel locale
under the game's message context. ``Board`` is what the table shell and its shared templates
call; each game's own templates (``templates/tables/<game>/``) draw with the members of its
own protocol below. A board is found by its game's key in the card games' one registry
(``companion.cardgames.GAMES``): the package of the game's package name here. mypy checks each
board package against its protocol (``_FLAME``, ``_SUMMONING``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from markupsafe import Markup

from companion.cardgames import game_keys, game_package

Names = Sequence[str] | None
# Each game types its own views, actions, events, standings and cards (TypedDicts in its
# engine); the shell only carries them from the engine to the board, so here they are open.
View = Any
Action = Any
Event = Any
Row = Any
Card = Any
Model = Mapping[str, Any]  # a board's view model, read by the game's own templates


class Board(Protocol):
    """What the table shell and the shared table templates ask of a game's board package."""

    def name(self) -> str:
        """The game's name in the current locale."""
        ...

    def label(self, action: Action, view: View, names: Names = None) -> str:
        """The button text of a legal action."""
        ...

    def steps(self, action: Action, label: str, view: View, names: Names = None) -> tuple[str, ...]:
        """The step labels a phone walks through to reach ``action``; the last is ``label``."""
        ...

    def step_order(self, action: Action, view: View) -> int:
        """Where a choice comes among its level's buttons (a stable sort: equal keys keep the
        engine's order)."""
        ...

    def rules_appendix(self) -> str:
        """What the rules page adds after the game's rules, made from the card data (Markdown
        in the current locale; empty when nothing)."""
        ...

    def card_name(self, card: str) -> str:
        """A card's name in the current locale, from its id; KeyError for an id the game lacks."""
        ...

    def describe(self, event: Event, names: Names = None) -> str:
        """One event of a view as a sentence, naming the seats by ``names``."""
        ...

    def standing_line(self, row: Row) -> str:
        """How one seat's running score is made up."""
        ...

    def option_words(self, message: str) -> str:
        """A lobby option's label or help sentence, from its message id."""
        ...

    def board(self, view: View, names: Sequence[str], bots: Sequence[Any]) -> Model:
        """The board's view model: what the game's ``_board.html`` draws."""
        ...

    def defs(self, view: View) -> Markup:
        """One hidden ``<svg>`` with every picture the view needs, drawn by reference after."""
        ...

    def batch(self, view: View, names: Names = None) -> Batch | None:
        """Where the viewing seat makes several moves of one kind at once (tick the cards to
        discard, then one button), a form of boxes each holding one legal action, applied in
        order; None where it chooses one move at a time."""
        ...


class BatchItem(TypedDict):
    """One box of a batch form: its words and the legal action it stands for."""

    label: str
    action: Action


class BatchGroup(TypedDict):
    """A group of boxes (a hand, a mana row), with how many of them to tick."""

    title: str
    need: int
    items: list[BatchItem]


class Batch(TypedDict):
    """A form of boxes, each a legal action: ticked, they are applied in order."""

    intro: str
    groups: list[BatchGroup]
    submit: str


class TraitorsFlameBoard(Board, Protocol):
    """What ``templates/tables/traitors-flame/`` draws with, beyond the shell's members."""

    def result_info(self, result: Any, rounds: Any, names: Sequence[str]) -> Model: ...
    def face(self, card: Card, extra: str = "") -> Markup: ...
    def back(self, which: str, extra: str = "") -> Markup: ...
    def data_name(self, card: Card) -> str: ...
    def data_text(self, card: Card) -> str: ...
    def count_words(self, n: int, flames: int | None = None) -> str: ...
    def flame_count(self, n: int) -> str: ...
    def printed_value(self, card: Card) -> str: ...


class SummonersBoard(Board, Protocol):
    """What ``templates/tables/age-of-summoners/`` draws with, beyond the shell's members."""

    def result_info(self, result: Any, view: View, names: Sequence[str]) -> Model: ...
    def card(self, kind_or_card: str, state: str, extra: str = "") -> Markup: ...
    def back(self, extra: str = "") -> Markup: ...
    def stone(self, extra: str = "") -> Markup: ...
    def card_count(self, n: int) -> str: ...
    def card_tag(self, kind_or_card: str) -> str: ...
    def icon_pip(self, icon: str) -> Markup: ...
    def kind_name(self, kind_or_card: str) -> str: ...
    def mana_pip(self, colour: str, extra: str = "") -> Markup: ...


if TYPE_CHECKING:
    from . import summoners, traitors_flame

    # Each board package typed by its game's protocol, so mypy checks every member its
    # templates call (the registry below finds the packages by name, which mypy cannot follow).
    _FLAME: TraitorsFlameBoard = traitors_flame
    _SUMMONING: SummonersBoard = summoners


def boards() -> dict[str, Board]:
    """Every game's board package by the game's key, in the lobby's order."""
    return {key: board_for(key) for key in game_keys()}


@cache
def board_for(key: str) -> Board:
    """The board of the game ``key``: the package of the game's own package name here, as the
    card games' one registry (``companion.cardgames.GAMES``) names it; KeyError for an unknown
    game."""
    board: Board = importlib.import_module(f"{__name__}.{game_package(key)}")
    return board
