"""``decide``: check a command against the rules and say which event it produces.

``decide`` never changes anything: it raises ``RuleError`` or returns the one event the command
produces. Chance is drawn only here, from the injected ``random.Random``, and its outcome goes into
the event.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .cards import pile_index, pile_of
from .commands import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    Command,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RecordLoss,
    ReviseText,
    RollDice,
    SacrificeKeystone,
    SpendToken,
    Undo,
    VeilPrompt,
    WriteEpilogue,
)
from .errors import N_, RuleError
from .events import (
    CardDrawn,
    DecisionUndone,
    DiceRolled,
    EpilogueWritten,
    Event,
    FailureAccepted,
    KeystoneLost,
    KeystoneSacrificed,
    MarkBuilt,
    PromptAnswered,
    PromptChosen,
    PromptVeiled,
    StakesDeclared,
    SuccessNarrated,
    TextRevised,
    TokenSpent,
)
from .model import KeystoneState, State, Text, TurningPoint
from .setup import check_text
from .texts import FIELDS, REQUIRED_FIELDS, find_text
from .undo import undo_target

Decider = Callable[[State, Any, "random.Random | None"], Event]

# What the game waits for at each step, said when a command comes at the wrong moment.
EXPECTED = {
    "draw": ("card-not-drawn", N_("First draw this turn's card."), "3.2.2"),
    "choose": ("prompt-not-chosen", N_("First choose one of the card's prompts."), "3.2.3"),
    "answer": ("prompt-not-answered", N_("First answer the chosen prompt."), "3.2.3"),
    "stakes": (
        "stakes-not-declared",
        N_("Before rolling, say what happens to the Pioneer on success and on failure."),
        "3.2.4",
    ),
    "roll": ("dice-not-rolled", N_("The stakes are declared: roll the dice."), "3.2.5"),
    "success": (
        "success-not-narrated",
        N_("The check succeeded: narrate it, and the turn passes to the left."),
        "3.2.6",
    ),
    "mark": ("mark-not-built", N_("The third check succeeded: name the legacy mark."), "3.2.6"),
    "failure": (
        "failure-pending",
        N_("The check failed: sacrifice a keystone, spend a reroll token or accept the failure."),
        "3.2.7",
    ),
    "reroll": ("reroll-pending", N_("The reroll is paid for: roll the dice again."), "3.2.7"),
}
ORDER_MESSAGES = {
    "resource": N_("Resources must all be gone before an attachment or a creed is sacrificed."),
    "attachment": N_("Attachments must all be gone before a creed is sacrificed."),
}


def decide(state: State, command: Command, rng: random.Random | None = None) -> list[Event]:
    """The events ``command`` produces in ``state``; RuleError if the rules refuse it."""
    decider = DECIDERS.get(type(command))
    if decider is None:
        raise TypeError(f"not a command: {command!r}")
    _check_moment(state, command)
    return [decider(state, command, rng)]


def _check_moment(state: State, command: Command) -> None:
    kind = type(command)
    if state.end is not None and kind not in AFTER_END:
        raise RuleError(
            "game-ended",
            N_("The Pioneer's life is over: only the epilogue, corrections and undo remain."),
            "5.1",
        )
    seat = command.seat
    if type(seat) is not int or seat != state.seat or kind in ANYONE:
        _check_actor(state, command)
    steps = STEPS.get(kind)
    if steps is not None:
        step = state.step
        if step not in steps:
            code, message, rule = EXPECTED[step]
            raise RuleError(code, message, rule)


def _check_actor(state: State, command: Command) -> None:
    seat = command.seat
    players = state.setup.players
    if type(seat) is not int or not 0 <= seat < len(players):
        raise RuleError(
            "unknown-seat", N_("There is no seat %(seat)r at this table."), "D14", seat=seat
        )
    if type(command) not in ANYONE:
        raise RuleError(
            "not-your-turn",
            N_("It is %(player)s's turn, not %(actor)s's."),
            "4.11",
            player=state.player,
            actor=players[seat],
        )


def _draw(state: State, command: DrawCard, rng: random.Random | None) -> Event:
    cards = state.piles[pile_index(state.stage, state.turn)]
    if not cards:
        raise AssertionError(f"pile {state.pile} ran dry (4.10)")
    if state.setup.mode == "digital":
        return CardDrawn(command.seat, _top_card(state, command, cards))
    return CardDrawn(command.seat, _entered_card(state, command, cards))


def _top_card(state: State, command: DrawCard, cards: tuple[str, ...]) -> str:
    if command.card is not None:
        raise RuleError(
            "card-not-entered", N_("In digital mode the app draws the card; enter none."), "D10"
        )
    if not state.shuffled:
        raise AssertionError("digital mode draws before the piles were shuffled")
    return cards[0]


def _entered_card(state: State, command: DrawCard, cards: tuple[str, ...]) -> str:
    card = command.card
    if card is None:
        raise RuleError("card-required", N_("Enter the card drawn from the pile."), "3.2.2")
    if not isinstance(card, str) or pile_of(card) is None:
        raise RuleError(
            "unknown-card",
            N_("%(card)r is not a card: write the rank then the suit, as in AH, 10D or KS."),
            "1.1",
            card=card,
        )
    if card not in cards:
        raise RuleError(
            "card-not-in-pile",
            N_("%(card)s is not among the cards left in the pile this turn draws from."),
            "3.2.2",
            card=card,
        )
    return card


def _veil(state: State, command: VeilPrompt, rng: random.Random | None) -> Event:
    check = _open_check(state)
    _check_prompt_index(state, check, command.index)
    if command.index != check.prompt_index:
        return PromptVeiled(command.seat, command.index)
    # The chosen prompt: what was written for it is set aside with it (3.2.3: the new prompt is
    # answered, and its stakes declared, afresh).
    return PromptVeiled(
        command.seat,
        command.index,
        answer=_value(check.answer),
        success=_value(check.stakes_success),
        failure=_value(check.stakes_failure),
    )


def _value(text: Text | None) -> str | None:
    return None if text is None else text.value


def _choose(state: State, command: ChoosePrompt, rng: random.Random | None) -> Event:
    check = _open_check(state)
    if (command.index is None) == (command.question is None):
        raise RuleError(
            "choose-one",
            N_("Choose one of the card's prompts or write your own question, not both."),
            "3.2.3",
        )
    if command.index is not None:
        _check_prompt_index(state, check, command.index)
        return PromptChosen(command.seat, index=command.index)
    if len(set(check.veiled)) < len(state.setup.prompts[check.card]):
        raise RuleError(
            "question-needs-veil",
            N_(
                "Write your own question only once every prompt of the card is set aside with the X-card."
            ),
            "3.2.3",
        )
    question = check_text(command.question, REQUIRED_FIELDS["question"])
    return PromptChosen(command.seat, question=question)


def _check_prompt_index(state: State, check: TurningPoint, index: object) -> None:
    count = len(state.setup.prompts[check.card])
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
        raise RuleError(
            "unknown-prompt",
            N_("Card %(card)s has no prompt number %(index)r."),
            "3.2.3",
            card=check.card,
            index=index,
        )
    if index in check.veiled:
        raise RuleError("prompt-veiled", N_("This prompt is veiled with the X-card."), "3.2.3")


def _answer(state: State, command: AnswerPrompt, rng: random.Random | None) -> Event:
    return PromptAnswered(command.seat, check_text(command.answer, REQUIRED_FIELDS["answer"]))


def _stakes(state: State, command: DeclareStakes, rng: random.Random | None) -> Event:
    success = check_text(command.success, REQUIRED_FIELDS["success"])
    failure = check_text(command.failure, REQUIRED_FIELDS["failure"])
    return StakesDeclared(command.seat, success, failure)


def _roll(state: State, command: RollDice, rng: random.Random | None) -> Event:
    dice = state.dice
    if state.setup.mode == "table":
        return DiceRolled(command.seat, _entered_faces(command.faces, dice))
    if command.faces is not None:
        raise RuleError(
            "faces-not-entered", N_("In digital mode the app rolls; enter no faces."), "D9"
        )
    if rng is None:
        raise ValueError("digital mode needs a random.Random to roll the dice")
    return DiceRolled(command.seat, tuple([rng.randint(1, 6) for _ in range(dice)]))


def _entered_faces(faces: object, dice: int) -> tuple[int, ...]:
    if not isinstance(faces, tuple | list) or len(faces) != dice:
        raise RuleError(
            "dice-count",
            N_("This stage rolls %(dice)d dice: enter exactly %(dice)d faces."),
            "1.2",
            dice=dice,
        )
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise RuleError(
                "bad-face", N_("%(face)r is not a face of a six-sided die."), "1.3", face=face
            )
    return tuple(faces)


def _narrate(state: State, command: NarrateSuccess, rng: random.Random | None) -> Event:
    return SuccessNarrated(command.seat, check_text(command.narration))


def _build(state: State, command: BuildMark, rng: random.Random | None) -> Event:
    name = check_text(command.name, REQUIRED_FIELDS["name"])
    description = check_text(command.description)
    return MarkBuilt(command.seat, name, description, check_text(command.narration))


def _lose(state: State, command: RecordLoss, rng: random.Random | None) -> Event:
    _kept(state, command.keystone)
    return KeystoneLost(command.seat, command.keystone, check_text(command.narration))


def _sacrifice(state: State, command: SacrificeKeystone, rng: random.Random | None) -> Event:
    keystone = _kept(state, command.keystone)
    allowed = state.sacrifice_kind() or keystone.kind
    if keystone.kind != allowed:
        raise RuleError("sacrifice-order", ORDER_MESSAGES[allowed], "4.4", keystone=keystone.id)
    why = check_text(command.why, REQUIRED_FIELDS["why"])
    outcome = check_text(command.outcome, REQUIRED_FIELDS["outcome"])
    return KeystoneSacrificed(command.seat, keystone.id, why, outcome)


def _kept(state: State, keystone_id: str) -> KeystoneState:
    for keystone in state.keystones:
        if keystone.id == keystone_id:
            if keystone.status != "kept":
                raise RuleError(
                    "keystone-gone",
                    N_("%(name)s is already gone."),
                    "4.4",
                    name=keystone.keystone.name,
                )
            return keystone
    raise RuleError(
        "unknown-keystone", N_("The Pioneer has no keystone %(id)r."), "1.5", id=keystone_id
    )


def _spend(state: State, command: SpendToken, rng: random.Random | None) -> Event:
    if state.usable_tokens():
        return TokenSpent(command.seat)
    if state.tokens:
        raise RuleError(
            "token-too-new",
            N_("A reroll token can be spent from the turn after the one it was gained in."),
            "D6",
        )
    raise RuleError("no-token", N_("The Pioneer has no reroll token."), "4.7")


def _accept(state: State, command: AcceptFailure, rng: random.Random | None) -> Event:
    return FailureAccepted(command.seat, check_text(command.narration))


def _epilogue(state: State, command: WriteEpilogue, rng: random.Random | None) -> Event:
    if state.end is None:
        raise RuleError(
            "epilogue-too-early", N_("The epilogue is written once the life is over."), "5.3"
        )
    if state.epilogue is not None:
        raise RuleError(
            "epilogue-written", N_("The epilogue is written already: revise it instead."), "5.3"
        )
    return EpilogueWritten(command.seat, check_text(command.epilogue, REQUIRED_FIELDS["epilogue"]))


def _revise(state: State, command: ReviseText, rng: random.Random | None) -> Event:
    text = None
    if command.field in FIELDS and isinstance(command.target_seq, int):
        text = find_text(state, command.target_seq, command.field)
    if text is None:
        raise RuleError(
            "no-such-text",
            N_("There is no text %(field)r written by event %(seq)r to revise."),
            "1.6",
            field=command.field,
            seq=command.target_seq,
        )
    value = check_text(command.text, REQUIRED_FIELDS.get(command.field))
    return TextRevised(command.seat, command.target_seq, command.field, value)


def _undo(state: State, command: Undo, rng: random.Random | None) -> Event:
    return DecisionUndone(command.seat, undo_target(state, command.seat).seq)


def _open_check(state: State) -> TurningPoint:
    if state.check is None:
        raise AssertionError("a compose step without an open check")
    return state.check


DECIDERS: dict[type[Any], Decider] = {
    DrawCard: _draw,
    VeilPrompt: _veil,
    ChoosePrompt: _choose,
    AnswerPrompt: _answer,
    DeclareStakes: _stakes,
    RollDice: _roll,
    NarrateSuccess: _narrate,
    BuildMark: _build,
    RecordLoss: _lose,
    SacrificeKeystone: _sacrifice,
    SpendToken: _spend,
    AcceptFailure: _accept,
    WriteEpilogue: _epilogue,
    ReviseText: _revise,
    Undo: _undo,
}
# The steps (State.step) at which each command may come; absent: at any step.
STEPS: dict[type[Any], frozenset[str]] = {
    DrawCard: frozenset({"draw"}),
    VeilPrompt: frozenset({"choose", "answer", "stakes", "roll"}),  # any time before the roll
    ChoosePrompt: frozenset({"choose"}),
    AnswerPrompt: frozenset({"answer"}),
    DeclareStakes: frozenset({"stakes"}),
    RollDice: frozenset({"roll", "reroll"}),
    NarrateSuccess: frozenset({"success"}),
    BuildMark: frozenset({"mark"}),
    RecordLoss: frozenset({"success", "mark", "failure"}),
    SacrificeKeystone: frozenset({"failure"}),
    SpendToken: frozenset({"failure"}),
    AcceptFailure: frozenset({"failure"}),
}
ANYONE = frozenset({VeilPrompt, WriteEpilogue, ReviseText, Undo})  # any seat may issue these
AFTER_END = frozenset({WriteEpilogue, ReviseText, Undo})
