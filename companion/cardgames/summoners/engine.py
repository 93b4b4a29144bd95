"""Age of Summoners rules entry points: new, legal_actions, apply, step, replay, result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.cardgames import CardGameRuleError

from .actions import HANDLERS
from .flow import advance, start_turn
from .legal import check
from .records import Result
from .refusals import BAD_PLAYERS, NOBODY_TO_ACT
from .state import MAX_PLAYERS, MIN_PLAYERS, Action, State, copy_state, new_state

KEY = "age-of-summoners"
# Change whenever a rule change makes a recorded match replay differently (docs/cardgames.md).
ENGINE_VERSION = 2


def new(players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
    """A fresh match for 2-4 players; the start player comes from the seed unless given."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CardGameRuleError(
            "bad-players",
            BAD_PLAYERS,
            least=MIN_PLAYERS,
            most=MAX_PLAYERS,
            players=players,
        )
    s = new_state(players, seed, options or {})
    start_turn(s, s["start"])
    return s


def step(s: State, seat: int, action: Action) -> None:
    """Carry out a legal action on ``s`` in place (the fast path bots and playouts use)."""
    ctx = s["await"]
    if ctx is None:
        raise CardGameRuleError("not-your-turn", NOBODY_TO_ACT)
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


def result(state: State) -> Result | None:
    """None while the match runs; then totals, breakdowns, the winner and why it ended (5.3-5.4)."""
    return state["result"]
