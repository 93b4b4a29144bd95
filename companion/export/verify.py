"""Check an imported log against the rules: every event must be what ``decide`` produces.

``evolve`` trusts its events, so a log from a file is not simply replayed. Each event is turned
back into the command that made it and decided again against the state so far: the rules core
refuses what it would have refused at the table, and the event it produces must equal the one in
the file. Chance is not re-drawn: a digital draw is the top of the recorded shuffle, and digital
dice are read back from the event.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import Any

from ..legacy import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    CardDrawn,
    ChoosePrompt,
    ChronicleStarted,
    DecisionUndone,
    DeclareStakes,
    DiceRolled,
    DrawCard,
    EpilogueWritten,
    Event,
    FailureAccepted,
    KeystoneLost,
    KeystoneSacrificed,
    MarkBuilt,
    NarrateSuccess,
    PilesShuffled,
    PromptAnswered,
    PromptChosen,
    PromptVeiled,
    Recorded,
    RecordLoss,
    ReviseText,
    RollDice,
    RuleError,
    SacrificeKeystone,
    SpendToken,
    StakesDeclared,
    State,
    SuccessNarrated,
    TextRevised,
    TokenSpent,
    Undo,
    VeilPrompt,
    WriteEpilogue,
    decide,
    evolve,
    validate_setup,
)
from ..legacy.cards import PILE_CARDS
from .errors import N_, BackupError

# Replaying a hostile log (thousands of corrections, then undos that refold them all) can take
# minutes; an import gives up after this long rather than hold a server thread.
CHECK_SECONDS = 15.0

COMMAND_FOR: dict[type[Any], type[Any]] = {
    CardDrawn: DrawCard,
    PromptVeiled: VeilPrompt,
    PromptChosen: ChoosePrompt,
    PromptAnswered: AnswerPrompt,
    StakesDeclared: DeclareStakes,
    DiceRolled: RollDice,
    SuccessNarrated: NarrateSuccess,
    MarkBuilt: BuildMark,
    KeystoneLost: RecordLoss,
    KeystoneSacrificed: SacrificeKeystone,
    TokenSpent: SpendToken,
    FailureAccepted: AcceptFailure,
    EpilogueWritten: WriteEpilogue,
    TextRevised: ReviseText,
    DecisionUndone: Undo,
}


class _RecordedDice(random.Random):
    """A die that shows the faces recorded in the event, in order, and refuses impossible ones."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self._faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        if not self._faces:
            raise _Mismatch
        face = self._faces.pop(0)
        if not a <= face <= b:
            raise _Mismatch
        return face


class _Mismatch(Exception):
    """The event is not what the rules produce."""


def verified_state(events: Sequence[Event], seconds: float = CHECK_SECONDS) -> State:
    """The state at the end of ``events`` (seq 1, 2, ...), every event checked by the rules core.

    Raises BackupError naming the first event the rules refuse, or when checking takes longer
    than ``seconds``.
    """
    deadline = time.monotonic() + seconds
    state = _started(events[0])
    for seq, event in enumerate(events[1:], start=2):
        state = _checked(state, seq, event)
        if time.monotonic() > deadline:
            raise BackupError(
                "too-slow",
                N_("Checking this log took longer than %(seconds)d seconds (at event %(seq)d)."),
                seconds=seconds,
                seq=seq,
            )
    return state


def _started(first: Event) -> State:
    if not isinstance(first, ChronicleStarted):
        raise BackupError(
            "not-started",
            N_("The log must begin with chronicle-started, not %(type)s."),
            type=first.kind,
        )
    try:
        validate_setup(first.setup)
    except RuleError as err:
        raise BackupError(
            "bad-setup", N_("The chronicle's setup is refused: %(problem)s"), err, problem=str(err)
        ) from None
    return evolve(None, Recorded(1, first))


def _checked(state: State, seq: int, event: Event) -> State:
    if isinstance(event, ChronicleStarted):
        raise _misplaced(seq, event)
    if isinstance(event, PilesShuffled):
        _check_shuffle(state, seq, event)
    elif state.setup.mode == "digital" and not state.shuffled:
        raise _misplaced(seq, event)
    else:
        _check_decision(state, seq, event)
    return evolve(state, Recorded(seq, event))


def _check_shuffle(state: State, seq: int, event: PilesShuffled) -> None:
    if seq != 2 or state.setup.mode != "digital":
        raise _misplaced(seq, event)
    piles = event.piles
    if set(piles) != set(PILE_CARDS) or any(
        sorted(piles[pile]) != sorted(cards) for pile, cards in PILE_CARDS.items()
    ):
        raise BackupError(
            "bad-shuffle",
            N_("Event %(seq)d (piles-shuffled) is not a shuffle of the twelve piles."),
            seq=seq,
        )


def _check_decision(state: State, seq: int, event: Event) -> None:
    command, dice = _command_for(state, event)
    try:
        decided = decide(state, command, dice)
    except RuleError as err:
        raise BackupError(
            "refused",
            N_("Event %(seq)d (%(type)s) is refused by the rules: %(problem)s"),
            err,
            seq=seq,
            type=event.kind,
            problem=str(err),
        ) from None
    except (_Mismatch, AssertionError, LookupError, TypeError, ValueError):
        decided = []
    if decided != [event] and not _veiled_before_words_were_kept(decided, event):
        raise BackupError(
            "mismatch",
            N_("Event %(seq)d (%(type)s) is not what the rules produce at that point of the life."),
            seq=seq,
            type=event.kind,
        )


def _veiled_before_words_were_kept(decided: list[Event], event: Event) -> bool:
    """An X-card recorded before the words of the chosen prompt went with it carries none; it
    replays as it was played (the answer stays), so the rest of its log still checks."""
    if not isinstance(event, PromptVeiled) or (event.answer, event.success) != (None, None):
        return False
    (made,) = decided or [event]
    return isinstance(made, PromptVeiled) and (made.seat, made.index) == (event.seat, event.index)


def _command_for(state: State, event: Event) -> tuple[Any, random.Random | None]:
    cls = COMMAND_FOR[type(event)]
    fields = {f.name: getattr(event, f.name) for f in dataclasses.fields(cls)}
    digital = state.setup.mode == "digital"
    dice = None
    if digital and isinstance(event, CardDrawn):
        fields["card"] = None
    if digital and isinstance(event, DiceRolled):
        fields["faces"], dice = None, _RecordedDice(event.faces)
    return cls(**fields), dice


def _misplaced(seq: int, event: Event) -> BackupError:
    return BackupError(
        "misplaced",
        N_("Event %(seq)d (%(type)s) cannot come at that point of a log."),
        seq=seq,
        type=event.kind,
    )
