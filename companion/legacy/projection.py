"""``evolve`` and ``replay``: the state as a fold of the log's events.

``evolve`` is total on a valid log: it trusts events (``decide`` checked them) and never raises for
them. It is incremental, one small update per event; only ``DecisionUndone`` refolds the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .cards import MAX_MARKS, PILE_CARDS, PILES, ROUNDS_PER_STAGE, STAGES, pile_index
from .copies import with_changes
from .errors import EventFormatError
from .events import (
    NOT_DECISIONS,
    CardDrawn,
    ChronicleStarted,
    DecisionUndone,
    DiceRolled,
    EpilogueWritten,
    FailureAccepted,
    KeystoneLost,
    KeystoneSacrificed,
    MarkBuilt,
    PilesShuffled,
    PromptAnswered,
    PromptChosen,
    PromptVeiled,
    Recorded,
    StakesDeclared,
    SuccessNarrated,
    TextRevised,
    TokenSpent,
)
from .model import (
    DECISIONS_KEPT,
    Changes,
    KeystoneState,
    Loss,
    Mark,
    Payment,
    Roll,
    State,
    Text,
    Token,
    TurningPoint,
)
from .setup import Setup
from .texts import revise

Applier = Callable[[State, Any, int], Changes]
# Events an undo never reaches: no decisions, and the X-card, which stays.
NOT_UNDOABLE = (*NOT_DECISIONS, PromptVeiled)


def evolve(state: State | None, record: Recorded) -> State:
    """The state after ``record``; ``state`` is None only before ``ChronicleStarted``."""
    event = record.event
    apply = APPLIERS.get(type(event))
    if apply is not None and state is not None:
        changes = apply(state, event, record.seq)
        changes["version"] = record.seq
        changes["log"] = (record, state.log)
        if not isinstance(event, NOT_UNDOABLE):
            changes["decisions"] = (*state.decisions, record)[-DECISIONS_KEPT:]
        if not isinstance(event, TextRevised):
            changes["decided"] = record.seq
        return with_changes(state, **changes)  # one copy of the state per event
    if isinstance(event, ChronicleStarted):
        return _started(event.setup, record)
    if state is None:
        raise EventFormatError("a chronicle's log must begin with chronicle-started")
    return _refold([*state.records(), record])  # DecisionUndone


def replay(records: Iterable[Recorded]) -> State:
    """The state at the end of a log; an undone decision is skipped, never re-rolled."""
    return _refold(list(records))


def _refold(records: list[Recorded]) -> State:
    undone = frozenset(r.event.target_seq for r in records if isinstance(r.event, DecisionUndone))
    state: State | None = None
    for record in records:
        if state is not None and (record.seq in undone or isinstance(record.event, DecisionUndone)):
            changes = _withdrawn(state, record) if record.seq in undone else Changes()
            changes["version"], changes["log"] = record.seq, (record, state.log)
            if not isinstance(record.event, TextRevised):
                changes["decided"] = record.seq
            state = with_changes(state, **changes)
        else:
            state = evolve(state, record)
    if state is None:
        raise EventFormatError("an empty log has no state")
    return with_changes(state, undone=undone)


def _withdrawn(state: State, record: Recorded) -> Changes:
    """A roll taken back stays in its check's history, marked as withdrawn (never erased)."""
    event, check = record.event, state.check
    if not isinstance(event, DiceRolled) or check is None:
        return {}
    success = any(face >= 5 for face in event.faces)
    roll = Roll(event.faces, success, state.phase == "reroll", record.seq)
    return {"check": with_changes(check, withdrawn=(*check.withdrawn, roll))}


def _started(setup: Setup, record: Recorded) -> State:
    return State(
        setup=setup,
        version=record.seq,
        phase="draw",
        stage=0,
        round=1,
        turn=1,
        seat=setup.oldest,
        first_seat=setup.oldest,
        turn_no=1,
        piles=tuple(PILE_CARDS[pile] for pile in PILES),
        shuffled=False,
        keystones=tuple(KeystoneState(keystone) for keystone in setup.keystones),
        decided=record.seq,
        log=(record, None),
    )


def _shuffled(state: State, event: PilesShuffled, seq: int) -> Changes:
    return {"piles": tuple(tuple(event.piles[pile]) for pile in PILES), "shuffled": True}


def _drawn(state: State, event: CardDrawn, seq: int) -> Changes:
    index = pile_index(state.stage, state.turn)
    piles = list(state.piles)
    piles[index] = tuple(card for card in piles[index] if card != event.card)
    check = TurningPoint(
        state.stage, state.round, state.turn, state.seat, PILES[index], event.card, seq
    )
    return {"piles": tuple(piles), "check": check, "phase": "compose"}


def _veiled(state: State, event: PromptVeiled, seq: int) -> Changes:
    check = _check(state)
    veiled = (*check.veiled, event.index)
    if check.prompt_index != event.index:
        return {"check": with_changes(check, veiled=veiled)}
    # The chosen prompt: the choice goes, and with it the words the event set aside (the player
    # chooses, answers and declares the stakes again); undo no longer reaches behind the veil.
    cleared: dict[str, Any] = {"prompt_index": None, "prompt": None}
    texts = 0
    if event.answer is not None and check.answer is not None:
        cleared["answer"], texts = None, 1
    if event.success is not None and check.stakes_success is not None:
        cleared["stakes_success"] = cleared["stakes_failure"] = None
        texts += 2
    check = with_changes(check, veiled=veiled, set_aside=(*check.set_aside, seq), **cleared)
    return {"check": check, "texts_written": state.texts_written - texts}


def _chosen(state: State, event: PromptChosen, seq: int) -> Changes:
    check = _check(state)
    if event.index is None:
        question = Text(event.question or "", seq, "question")
        check = with_changes(check, question=question)
        return {"check": check, "texts_written": state.texts_written + 1}
    prompt = state.setup.prompts[check.card][event.index]
    return {"check": with_changes(check, prompt_index=event.index, prompt=prompt)}


def _answered(state: State, event: PromptAnswered, seq: int) -> Changes:
    check = with_changes(_check(state), answer=Text(event.answer, seq, "answer"))
    return {"check": check, "texts_written": state.texts_written + 1}


def _declared(state: State, event: StakesDeclared, seq: int) -> Changes:
    success = Text(event.success, seq, "success")
    check = with_changes(
        _check(state), stakes_success=success, stakes_failure=Text(event.failure, seq, "failure")
    )
    return {"check": check, "texts_written": state.texts_written + 2}


def _rolled(state: State, event: DiceRolled, seq: int) -> Changes:
    check = _check(state)
    success = any(face >= 5 for face in event.faces)
    reroll = state.phase == "reroll"
    return {
        "check": with_changes(check, rolls=(*check.rolls, Roll(event.faces, success, reroll, seq))),
        "phase": "success" if success else "failure",
        "checks_rolled": state.checks_rolled + (not reroll),
        "rolls": state.rolls + 1,
    }


def _narrated(state: State, event: SuccessNarrated, seq: int) -> Changes:
    turn = state.turn + 1
    return {
        **_close(state, "success", Text(event.narration, seq, "narration")),
        "turn": turn,
        "seat": (state.first_seat + turn - 1) % len(state.setup.players),
        "turn_no": state.turn_no + 1,
        "phase": "draw",
    }


def _mark_built(state: State, event: MarkBuilt, seq: int) -> Changes:
    mark = Mark(
        number=len(state.marks) + 1,
        name=Text(event.name, seq, "name"),
        description=Text(event.description, seq, "description"),
        stage=state.stage,
        round=state.round,
        seat=state.seat,
        age=STAGES[state.stage].age,
        seq=seq,
    )
    marks = (*state.marks, mark)
    narration = Text(event.narration, seq, "narration")
    changes = _close(state, "mark", narration, mark=len(state.marks))
    return {**changes, **_end_round(state, len(marks)), "marks": marks}


def _accepted(state: State, event: FailureAccepted, seq: int) -> Changes:
    narration = Text(event.narration, seq, "narration")
    return {**_close(state, "failure", narration), **_end_round(state, len(state.marks))}


def _close(state: State, outcome: str, narration: Text, mark: int | None = None) -> Changes:
    check = with_changes(_check(state), outcome=outcome, narration=narration, mark=mark)
    return {"check": None, "story": (*state.story, check), "texts_written": state.texts_written + 1}


def _end_round(state: State, marks: int) -> Changes:
    rounds = state.rounds_played + 1
    if marks >= MAX_MARKS:
        return {"rounds_played": rounds, "phase": "ended", "end": "eight-marks"}
    last_round = state.round == ROUNDS_PER_STAGE
    if last_round and state.stage == len(STAGES) - 1:
        return {"rounds_played": rounds, "phase": "ended", "end": "old-age-ended"}
    first = (state.first_seat + 1) % len(state.setup.players)  # 4.9: the turn-2 player
    return {
        "rounds_played": rounds,
        "stage": state.stage + last_round,
        "round": 1 if last_round else state.round + 1,
        "turn": 1,
        "seat": first,
        "first_seat": first,
        "turn_no": state.turn_no + 1,
        "phase": "draw",
    }


def _lost(state: State, event: KeystoneLost, seq: int) -> Changes:
    narration = Text(event.narration, seq, "narration")
    check = _check(state)
    loss = Loss(event.keystone, narration, seq)
    return {
        "keystones": _change_keystone(state, event.keystone, "lost", seq, narration=narration),
        "tokens": (*state.tokens, Token(state.turn_no, event.keystone, seq)),
        "check": with_changes(check, losses=(*check.losses, loss)),
        "texts_written": state.texts_written + 1,
    }


def _sacrificed(state: State, event: KeystoneSacrificed, seq: int) -> Changes:
    why, outcome = Text(event.why, seq, "why"), Text(event.outcome, seq, "outcome")
    keystones = _change_keystone(state, event.keystone, "sacrificed", seq, why=why, outcome=outcome)
    payment = Payment("sacrifice", seq, event.keystone, why, outcome)
    return {**_paid(state, payment, texts=2), "keystones": keystones}


def _token_spent(state: State, event: TokenSpent, seq: int) -> Changes:
    # The oldest token goes first; tokens are in the order gained, so it is a usable one.
    return {**_paid(state, Payment("token", seq), texts=0), "tokens": state.tokens[1:]}


def _paid(state: State, payment: Payment, texts: int) -> Changes:
    check = _check(state)
    return {
        "check": with_changes(check, payments=(*check.payments, payment)),
        "phase": "reroll",
        "texts_written": state.texts_written + texts,
    }


def _change_keystone(
    state: State,
    keystone: str,
    status: str,
    seq: int,
    why: Text | None = None,
    outcome: Text | None = None,
    narration: Text | None = None,
) -> tuple[KeystoneState, ...]:
    return tuple(
        with_changes(
            k,
            status=status,
            stage=state.stage,
            round=state.round,
            seq=seq,
            why=why,
            outcome=outcome,
            narration=narration,
        )
        if k.id == keystone
        else k
        for k in state.keystones
    )


def _epilogue(state: State, event: EpilogueWritten, seq: int) -> Changes:
    epilogue = Text(event.epilogue, seq, "epilogue")
    return {"epilogue": epilogue, "texts_written": state.texts_written + 1}


def _revised(state: State, event: TextRevised, seq: int) -> Changes:
    return revise(state, event.target_seq, event.field, event.text, seq)


def _check(state: State) -> TurningPoint:
    if state.check is None:
        raise EventFormatError(f"no open check at event {state.version + 1}")
    return state.check


APPLIERS: dict[type[Any], Applier] = {
    PilesShuffled: _shuffled,
    CardDrawn: _drawn,
    PromptVeiled: _veiled,
    PromptChosen: _chosen,
    PromptAnswered: _answered,
    StakesDeclared: _declared,
    DiceRolled: _rolled,
    SuccessNarrated: _narrated,
    MarkBuilt: _mark_built,
    KeystoneLost: _lost,
    KeystoneSacrificed: _sacrificed,
    TokenSpent: _token_spent,
    FailureAccepted: _accepted,
    EpilogueWritten: _epilogue,
    TextRevised: _revised,
}
