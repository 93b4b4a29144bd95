"""Age of Summoners behind the common card-game shape: new, legal_actions, apply, view, result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.cardgames import CardGameRuleError

from .actions import HANDLERS
from .events import describe
from .flow import advance, start_turn
from .legal import check, legal_actions
from .options import OPTIONS, option_words
from .scoring import final_result, standings
from .standing import standing_line
from .state import State, clone, new_state
from .view import view

Action = dict[str, Any]


def new_game(players: int, seed: int, options: dict[str, Any] | None = None) -> State:
    """A fresh match for 2-4 players; the start player comes from the seed unless given."""
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise CardGameRuleError(
            "Age of Summoners needs 2 to 4 players, not %(players)r.",
            "bad-players",
            players=players,
        )
    s = new_state(players, seed, options or {})
    start_turn(s, s["start"])
    return s


def perform(s: State, seat: int, action: Action) -> None:
    """Carry out a legal action on ``s`` in place (the fast path bots and playouts use)."""
    s["log"].append([seat, _copy(action)])
    ctx = s["await"]
    s["await"] = None
    HANDLERS[action["type"]](s, seat, action, ctx)
    advance(s)


def _copy(action: Action) -> Action:
    copy = dict(action)
    for key, value in action.items():
        if isinstance(value, dict):
            copy[key] = dict(value)
    return copy


def apply(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` takes ``action``; the given state is never changed."""
    check(state, seat, action)
    s = clone(state)
    perform(s, seat, action)
    return s


def replay(seed: int, players: int, options: dict[str, Any], log: list[Any]) -> State:
    """Rebuild a match from its seed, options and action log."""
    s = new_game(players, seed, options)
    for seat, action in log:
        s = apply(s, seat, action)
    return s


def result(state: State) -> dict[str, Any] | None:
    """None while the match runs; then totals, breakdowns and the winner (5.3-5.4)."""
    return final_result(state) if state["over"] is not None else None


class SummonersGame:
    """The ``GAME`` object the card-game registry loads."""

    key = "age-of-summoners"
    names = {"ja": "エイジ・オブ・サモナーズ", "en": "Age of Summoners"}
    min_players = 2
    max_players = 4
    options = OPTIONS

    def __init__(self, bots: dict[str, Any]) -> None:
        self.bots = bots

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        """A fresh match."""
        return new_game(players, seed, options)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal action for ``seat`` now."""
        return legal_actions(state, seat)

    def apply(self, state: State, seat: int, action: Action) -> State:
        """Validate and apply an action, returning a new state."""
        return apply(state, seat, action)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know."""
        return view(state, seat)

    def result(self, state: State) -> dict[str, Any] | None:
        """The final result, or None while running."""
        return result(state)

    def describe(self, event: dict[str, Any], names: Sequence[str], lang: str) -> str:
        """One event of a view as a sentence in ``ja`` or ``en``, naming seats by ``names``."""
        return describe(event, lang, names)

    def standings(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Every seat's score as it stands now, from public facts only."""
        return standings(state)

    def standing_line(self, row: dict[str, Any], lang: str) -> str:
        """How one seat's running score is made up, in ``ja`` or ``en``."""
        return standing_line(row, lang)

    def option_words(self, message: str, lang: str) -> str:
        """An option's label or help in ``lang``."""
        return option_words(message, lang)

    def replay(self, seed: int, players: int, options: dict[str, Any], log: list[Any]) -> State:
        """Rebuild a match from its log."""
        return replay(seed, players, options, log)
