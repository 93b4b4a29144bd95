"""Which decision an Undo would take back, and whether the rules let it."""

from __future__ import annotations

from .errors import N_, RuleError
from .events import NOT_DECISIONS, DiceRolled, Recorded
from .model import State


def last_decision(state: State) -> Recorded | None:
    """The newest event that is a player decision and is not undone yet."""
    for record in state.newest_records():
        if record.seq not in state.undone and not isinstance(record.event, NOT_DECISIONS):
            return record
    return None


def undoable(state: State) -> Recorded | None:
    """The decision ``Undo`` would revert now, or None if there is none or it may not be."""
    record = last_decision(state)
    if record is None or _stays(state, record):
        return None
    return record


def undo_target(state: State) -> Recorded:
    """The decision ``Undo`` would revert now; RuleError if there is none or it may not be."""
    record = last_decision(state)
    if record is None:
        raise RuleError("nothing-to-undo", N_("There is no decision left to undo."), "undo")
    if _stays(state, record):
        raise RuleError(
            "dice-stay-rolled",
            N_("Dice rolled by the app stay rolled: a roll cannot be undone in digital mode."),
            "undo",
        )
    return record


def _stays(state: State, record: Recorded) -> bool:
    """Dice rolled by the app may not be rolled again, unless the group chose forgiving undo."""
    setup = state.setup
    return (
        isinstance(record.event, DiceRolled)
        and setup.mode == "digital"
        and not setup.forgiving_undo
    )
