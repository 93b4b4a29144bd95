"""Which decision an Undo would take back, whether the rules let it, and who may ask.

Only the seat whose decision it was may take it back (the web layer lets the host act for that
seat). An X-card is never taken back: a veiled prompt stays set aside, so ``PromptVeiled`` is not
a decision Undo reaches, and a card stays drawn once one of its prompts is veiled. When the
veiled prompt was the chosen one, the choice, answer and stakes it set aside are no decisions
to take back either: they went with the prompt.
"""

from __future__ import annotations

from .errors import N_, RuleError
from .events import NOT_DECISIONS, CardDrawn, DiceRolled, PromptVeiled, Recorded
from .model import DECISIONS_KEPT, State


def last_decision(state: State) -> Recorded | None:
    """The newest event that is a player decision and is not undone yet (X-cards are skipped,
    and so are the decisions an X-card set aside with the chosen prompt).

    Read from the newest decisions the state keeps; only when an X-card set aside every one of
    them does it walk back through the log (a long life's log may be tens of thousands of
    corrections, read from the store only when something walks back into them)."""
    check = state.check
    drawn, veil = (check.seq, check.set_aside[-1]) if check and check.set_aside else (0, 0)
    kept = state.decisions
    records = reversed(kept) if kept else ()
    for record in records:
        if record.seq not in state.undone and not drawn < record.seq < veil:
            return record
    if len(kept) < DECISIONS_KEPT:
        return None  # the state holds every decision there is: none is left
    for record in state.newest_records():
        if record.seq in state.undone or isinstance(record.event, NOT_DECISIONS):
            continue
        if isinstance(record.event, PromptVeiled) or drawn < record.seq < veil:
            continue
        return record
    return None


def undoable(state: State) -> Recorded | None:
    """The decision ``Undo`` would revert now, or None if there is none or it may not be."""
    record = last_decision(state)
    if record is None or refusal(state, record) is not None:
        return None
    return record


def refusal(state: State, record: Recorded) -> RuleError | None:
    """Why the rules keep ``record`` whoever asks, or None if it may be taken back."""
    setup = state.setup
    if (
        isinstance(record.event, DiceRolled)
        and setup.mode == "digital"
        and not setup.forgiving_undo
    ):
        return RuleError(
            "dice-stay-rolled",
            N_("Dice rolled by the app stay rolled: a roll cannot be undone in digital mode."),
            "undo",
        )
    if isinstance(record.event, CardDrawn) and _veiled_since(state, record.seq):
        return RuleError(
            "card-stays-veiled",
            N_("The card stays drawn: one of its prompts was set aside with the X-card."),
            "undo",
        )
    return None


def undo_target(state: State, seat: int) -> Recorded:
    """The decision ``seat`` would revert now; RuleError if there is none or it may not be."""
    record = last_decision(state)
    if record is None:
        raise RuleError("nothing-to-undo", N_("There is no decision left to undo."), "undo")
    refused = refusal(state, record)
    if refused is not None:
        raise refused
    owner = record.event.seat  # type: ignore[union-attr]
    if seat != owner:
        raise RuleError(
            "not-your-decision",
            N_("Only %(owner)s or the host may take back %(owner)s's decision."),
            "undo",
            owner=state.setup.players[owner],
        )
    return record


def _veiled_since(state: State, seq: int) -> bool:
    check = state.check
    if check is not None and check.seq == seq:  # the open check's draw: its veils are its own
        return bool(check.veiled)
    for record in state.newest_records():  # newest first: stop at the card, not the log's start
        if record.seq <= seq:
            return False
        if isinstance(record.event, PromptVeiled) and record.seq not in state.undone:
            return True
    return False
