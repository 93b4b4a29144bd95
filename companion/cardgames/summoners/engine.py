"""Age of Summoners rules entry points: new, legal_actions, apply, step, replay, result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.cardgames import CardGameRuleError, chance

from .actions import HANDLERS
from .flow import advance, start_turn
from .legal import check
from .records import Result
from .refusals import BAD_PLAYERS, NOBODY_TO_ACT
from .state import MAX_PLAYERS, MIN_PLAYERS, Action, State, copy_state, new_state
from .versions import ENGINE_VERSION, VERSIONS

KEY = "age-of-summoners"
__all__ = ["ENGINE_VERSION", "VERSIONS", "KEY", "apply", "new", "replay", "result", "step"]


def new(
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    version: int = ENGINE_VERSION,
    outcomes: Sequence[Any] | None = None,
) -> State:
    """A fresh match for 2-4 players under the rules of engine ``version`` (versions.py); the
    start player comes from the seed unless given. ``outcomes``: the deal's recorded chance."""
    if version not in VERSIONS:
        raise ValueError(f"no engine version {version!r}: {VERSIONS}")
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise CardGameRuleError(
            "bad-players",
            BAD_PLAYERS,
            least=MIN_PLAYERS,
            most=MAX_PLAYERS,
            players=players,
        )
    s = new_state(players, seed, options or {}, version, outcomes)
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
    if "drawn" in s:  # what this move draws, not what the one before did
        s["drawn"] = []
    HANDLERS[action["type"]](s, seat, action, ctx)
    advance(s)


def apply(state: State, seat: int, action: Action, outcomes: Sequence[Any] | None = None) -> State:
    """The state after ``seat`` takes ``action``; the given state is never changed.

    ``outcomes``: a replay's recorded chance for this move (what the ``drawn`` of the state it
    made held), used instead of drawing; ChanceRecordError when they are not what this move
    draws. None: chance is drawn from the seed."""
    check(state, seat, action)
    s = copy_state(state)
    script = chance.start(s.get("drawn"), outcomes)
    if script is not None:
        s["script"] = script
    step(s, seat, action)
    chance.finish(s.pop("script", None))
    return s


def replay(
    seed: int,
    players: int,
    options: Mapping[str, Any],
    log: list[Any],
    version: int = ENGINE_VERSION,
) -> State:
    """Rebuild a match from its seed, options, action log and engine version."""
    s = new(players, seed, options, version)
    for seat, action in log:
        s = apply(s, seat, action)
    return s


def result(state: State) -> Result | None:
    """None while the match runs; then totals, breakdowns, the winner and why it ended (5.3-5.4)."""
    return state["result"]
