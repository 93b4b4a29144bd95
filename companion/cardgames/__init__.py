"""The card games that live beside the legacy game: a registry of pure rules engines.

Every game package exposes ``GAME``, one object implementing ``CardGame`` (see
``docs/cardgames.md``). The web shell and the CLI reach a game only through this contract,
looked up by key in the registry (``get_game``, ``game_keys``).
"""

from __future__ import annotations

import importlib
import importlib.resources
import random
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Literal, NotRequired, Protocol, TypedDict, TypeVar

from companion.base.errors import TemplatedError
from companion.base.i18n_marks import N_

# The one registry of card games: each game's key and its package, in the lobby's order. The
# package's ``GAME`` under ``companion.cardgames`` is its rules engine (with the versions it
# plays); the package of the same name under ``companion.web.boards`` is its board.
GAMES: Mapping[str, str] = {"traitors-flame": "traitors_flame", "age-of-summoners": "summoners"}

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
View = dict[str, Any]
Result = dict[str, Any]
# A game's state as the shell holds it: JSON-serialisable, kept server-side, and only ever
# handed back to its own game (each game types it as its ``State`` TypedDict).
GameState = Mapping[str, Any]
# A bot sees a seat's view and that seat's legal actions, and draws chance from ``rng`` only.
Bot = Callable[[View, list[ActionT], random.Random], ActionT]


class CardGameRuleError(TemplatedError):
    """An action the rules do not allow; the state is unchanged."""


def shown(value: object, limit: int = 80) -> str:
    """A value from a request, quoted and cut short, for a refusal's message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class GameOption(TypedDict):
    """One choice a match is dealt with (``new``'s ``options[key]``); every option ``new`` or the
    rules read is described here, and ``check_options`` holds a match's options to it.

    ``type``: ``"bool"``; ``"int"`` within ``min``..``max``; ``"seat"``, a seat number of the
    table. ``default`` is what a missing option means (``None``: not set; a seat left to the
    seed). ``lobby`` false: not offered in the lobby (simulations and tests set it).
    """

    key: str
    type: Literal["bool", "int", "seat"]
    default: bool | int | None
    label: str  # message ids for the board's ``option_words``
    help: str
    min: NotRequired[int]
    max: NotRequired[int]
    lobby: NotRequired[bool]


def in_lobby(option: GameOption) -> bool:
    """Whether the lobby offers ``option`` (every option unless it says otherwise)."""
    return option.get("lobby", True)


def check_options(game: CardGame[Any, Any], options: Mapping[str, Any], players: int) -> None:
    """Raise CardGameRuleError unless every option is one of ``game``'s with a value it takes.

    The one check of a match's options against the game's schema: the lobby's, and a stored
    match's before it is dealt again. ``unknown-option`` names an option the game does not
    have; ``bad-option`` a value of the wrong type or out of bounds.
    """
    schema = {option["key"]: option for option in game.options}
    for name, value in options.items():
        option = schema.get(name)
        if option is None:
            raise CardGameRuleError(
                "unknown-option",
                N_("There is no option %(option)s in this game."),
                option=shown(name),
            )
        if not _takes(option, value, players):
            raise CardGameRuleError(
                "bad-option",
                N_("The option %(option)s cannot be %(value)s."),
                option=name,
                value=shown(value),
            )


def _takes(option: GameOption, value: object, players: int) -> bool:
    if option["type"] == "bool":
        return isinstance(value, bool)
    if value is None:
        return option["default"] is None
    if type(value) is not int:  # not a bool either
        return False
    if option["type"] == "seat":
        return 0 <= value < players
    return option.get("min", value) <= value <= option.get("max", value)


class CardGame(Protocol[StateT, ActionT]):
    """What every card game package's ``GAME`` offers the shell, the CLI and the store.

    ``engine_version`` names the rules a recorded match replays under: change it whenever a
    rule change would make a stored match replay differently (another deal, another legal
    action, another score). ``versions`` lists every version whose rules the engine still
    plays, so a match recorded under one of them replays, and plays on, under its own rules; a
    match recorded under any other version opens read-only.
    """

    key: str  # the game's name and words are its board's (``companion.web.boards``)
    min_players: int
    max_players: int
    engine_version: int
    versions: Sequence[int]  # engine_version and every earlier version the engine still plays
    options: Sequence[GameOption]

    def new(
        self,
        players: int,
        seed: int,
        options: Mapping[str, Any],
        version: int | None = None,
        outcomes: Sequence[Any] | None = None,
    ) -> StateT:
        """A fresh match under the rules of engine ``version`` (None: ``engine_version``);
        raises CardGameRuleError for a table the rules cannot deal, ValueError for a version
        not in ``versions``. ``outcomes``: the deal's recorded chance (see ``drawn``)."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> list[ActionT]:
        """Every legal action of ``seat`` now (empty when it has nothing to decide)."""
        ...

    def apply(
        self, state: StateT, seat: int, action: ActionT, outcomes: Sequence[Any] | None = None
    ) -> StateT:
        """The next state; raises CardGameRuleError and leaves ``state`` untouched.
        ``outcomes``: the move's recorded chance, used instead of drawing (a replay); a
        ValueError (``chance.ChanceRecordError``) when the rules could not have drawn them."""
        ...

    def drawn(self, state: StateT) -> list[Any]:
        """The chance outcomes the ``new`` or ``apply`` that made ``state`` drew, to store with
        that deal or move (hidden cards among them: never shown to a seat)."""
        ...

    def view(self, state: StateT, seat: int | None) -> View:
        """What ``seat`` may know (None: a spectator)."""
        ...

    def result(self, state: StateT) -> Result | None:
        """None while the match runs, then the winner and the totals."""
        ...

    def log(self, state: StateT) -> list[tuple[int, ActionT]]:
        """The ``(seat, action)`` pairs played so far, in order (replaying them from the seed
        rebuilds ``state``)."""
        ...

    def standings(self, state: StateT) -> list[dict[str, Any]]:
        """Every seat's running score, from public facts only."""
        ...

    def bots(self) -> Mapping[str, Bot[ActionT]]:
        """The bot levels a seat may be given, by name."""
        ...

    def rules(self) -> str:
        """The rules as Markdown in English, the source the catalogues translate block by block."""
        ...

    def simulate(
        self,
        games: int,
        players: int,
        bots: Sequence[str],
        *,
        seed: int = 1,
        workers: int = 1,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Play ``games`` bot matches on seeds ``seed..``; raises ValueError for a setting the
        game's simulator does not offer (an unknown bot, more workers than it can use)."""
        ...

    def report(self, summary: dict[str, Any]) -> str:
        """A ``simulate`` summary as plain-text tables."""
        ...


AnyGame = CardGame[Any, Any]


def rules_markdown(package: str) -> str:
    """``<package>/rules.md``, the game's rules in English, or nothing."""
    path = importlib.resources.files(package) / "rules.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def game_keys() -> tuple[str, ...]:
    """The keys of every registered card game, in the lobby's order."""
    return tuple(GAMES)


def game_package(key: str) -> str:
    """The package name of the game ``key``, its rules' here and its board's in ``web.boards``;
    raises KeyError for an unknown game."""
    return GAMES[key]


@cache
def get_game(key: str) -> AnyGame:
    """The game registered under ``key``; raises KeyError for an unknown game."""
    game: AnyGame = importlib.import_module(f"{__name__}.{game_package(key)}").GAME
    if game.key != key:  # a package registered under another game's key
        raise LookupError(f"the package {GAMES[key]} holds the game {game.key}, not {key}")
    return game
