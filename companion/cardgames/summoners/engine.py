"""Age of Summoners rules entry points (new, legal_actions, apply, step) and its ``CardGame``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from companion.cardgames import Bot, CardGameRuleError, GameOption, rules_markdown

from .actions import HANDLERS
from .flow import advance, start_turn
from .legal import check, legal_actions
from .options import OPTIONS
from .scoring import standings
from .state import Action, State, copy_state, new_state
from .view import view

KEY = "age-of-summoners"
# Change whenever a rule change makes a recorded match replay differently (docs/cardgames.md).
ENGINE_VERSION = 1


def new(players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
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


def step(s: State, seat: int, action: Action) -> None:
    """Carry out a legal action on ``s`` in place (the fast path bots and playouts use)."""
    ctx = s["await"]
    if ctx is None:
        raise CardGameRuleError("Nobody is to act now.", "not-your-turn")
    copy = action.copy()
    if "pay" in action:
        copy["pay"] = dict(action["pay"])
    s["log"].append([seat, copy])
    s["await"] = None
    HANDLERS[action["type"]](s, seat, action, ctx)
    advance(s)


def apply(state: State, seat: int, action: Action) -> State:
    """The state after ``seat`` takes ``action``; the given state is never changed."""
    check(state, seat, action)
    s = copy_state(state)
    step(s, seat, action)
    return s


def replay(seed: int, players: int, options: Mapping[str, Any], log: list[Any]) -> State:
    """Rebuild a match from its seed, options and action log."""
    s = new(players, seed, options)
    for seat, action in log:
        s = apply(s, seat, action)
    return s


def result(state: State) -> dict[str, Any] | None:
    """None while the match runs; then totals, breakdowns, the winner and why it ended (5.3-5.4)."""
    return state["result"]


class SummonersGame:
    """Age of Summoners as the ``CardGame`` the registry holds (``GAME``)."""

    key = KEY
    min_players = 2
    max_players = 4
    engine_version = ENGINE_VERSION
    options: Sequence[GameOption] = OPTIONS

    def new(self, players: int, seed: int, options: Mapping[str, Any]) -> State:
        """A fresh match."""
        return new(players, seed, options)

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

    def log(self, state: State) -> list[tuple[int, Action]]:
        """The moves played so far."""
        return [(seat, action) for seat, action in state["log"]]

    def standings(self, state: State) -> list[dict[str, Any]]:
        """Every seat's score as it stands now, from public facts only."""
        return standings(state)

    def bots(self) -> Mapping[str, Bot[Action]]:
        """Random, heuristic and search bots."""
        from .bots import BOTS

        # The bots read actions as plain dicts; each returns one of the legal actions it is given.
        return cast(Mapping[str, Bot[Action]], BOTS)

    def rules(self, lang: str) -> str:
        """The rules page's Markdown."""
        return rules_markdown(__package__ or "", lang)

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
        """Bot matches and the balance figures (simulate.py)."""
        from .simulate import simulate

        return simulate(games, players, bots, seed=seed, workers=workers, options=options)

    def report(self, summary: dict[str, Any]) -> str:
        """A simulation summary as text."""
        from .simulate import format_table

        return format_table(summary)
