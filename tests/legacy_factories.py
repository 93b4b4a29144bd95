"""Factories and helpers for the legacy rules core's tests: setups, states, whole checks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from companion.legacy import (
    CARDS,
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    Command,
    DeclareStakes,
    DrawCard,
    Legal,
    NarrateSuccess,
    RecordLoss,
    ReviseText,
    RollDice,
    RuleError,
    SacrificeKeystone,
    SpendToken,
    State,
    Undo,
    VeilPrompt,
    WriteEpilogue,
    decide,
    iter_texts,
    legal_commands,
    placeholder_keystones,
    start,
    step,
)
from companion.legacy.setup import Setup

PLAYERS = ("Ali", "Brianna", "Cardon")
PROMPTS = {card: (f"{card}: first prompt", f"{card}: second prompt") for card in CARDS}


def make_setup(**overrides: Any) -> Setup:
    """A valid table-mode setup: three players, Ali the oldest, 3/3/3 keystones."""
    counts = overrides.pop("counts", (3, 3, 3))
    fields: dict[str, Any] = {
        "pioneer": "Kaya",
        "concept": "A lighthouse keeper who never learned to swim",
        "players": PLAYERS,
        "oldest": 0,
        "keystones": placeholder_keystones(counts),
        "prompts": PROMPTS,
        "mode": "table",
    }
    fields.update(overrides)
    return Setup(**fields)


def make_state(seed: int = 0, **overrides: Any) -> State:
    """A fresh chronicle's state for ``make_setup(**overrides)``."""
    state, _ = start(make_setup(**overrides), random.Random(seed))
    return state


def play(state: State, *commands: Command, rng: random.Random | None = None) -> State:
    """The state after each command in turn (they must all be legal)."""
    for command in commands:
        state, _ = step(state, command, rng)
    return state


def compose(state: State, card: str | None = None) -> State:
    """Draw (the given card, or the pile's first in table mode), choose prompt 0, answer, stakes."""
    seat = state.seat
    if state.setup.mode == "table":
        card = card or state.pile_cards(state.pile)[0]
    return play(
        state,
        DrawCard(seat, card),
        ChoosePrompt(seat, index=0),
        AnswerPrompt(seat, "An answer."),
        DeclareStakes(seat, "It holds.", "It breaks."),
    )


def roll(state: State, *faces: int) -> State:
    """Table mode: roll the given faces."""
    return play(state, RollDice(state.seat, faces))


def lose_round(state: State) -> State:
    """Table mode: the round's first check fails and the failure is accepted."""
    state = roll(compose(state), *[1] * state.dice)
    return play(state, AcceptFailure(state.seat))


def win_round(state: State) -> State:
    """Table mode: three successful checks and a legacy mark."""
    for _ in range(2):
        state = roll(compose(state), *[6] * state.dice)
        state = play(state, NarrateSuccess(state.seat))
    state = roll(compose(state), *[6] * state.dice)
    return play(state, BuildMark(state.seat, f"Mark {len(state.marks) + 1}"))


def refused(
    state: State, command: Command, code: str, rng: random.Random | None = None
) -> RuleError:
    """Assert ``decide`` refuses ``command`` with ``code``, producing no event."""
    before = state
    with pytest.raises(RuleError) as caught:
        decide(state, command, rng or random.Random(0))
    assert caught.value.code == code, str(caught.value)
    assert state == before
    return caught.value


def example_command(state: State, legal: Legal, pick: Any = None) -> Command:
    """A command of ``legal``'s kind that ``decide`` should accept; ``pick`` chooses among options.

    ``pick(values)`` returns one of a non-empty sequence; by default the first.
    """
    choose = pick or (lambda values: values[0])
    seat = state.seat if legal.seat is None else legal.seat
    options = legal.options
    kind = legal.kind
    if kind == "draw-card":
        return DrawCard(seat, choose(options["cards"]) if "cards" in options else None)
    if kind == "choose-prompt":
        if options["indices"] and (not options["own_question"] or choose((True, False))):
            return ChoosePrompt(seat, index=choose(options["indices"]))
        return ChoosePrompt(seat, question="My own question?")
    if kind == "veil-prompt":
        return VeilPrompt(seat, choose(options["indices"]))
    if kind == "roll-dice":
        faces = tuple(choose(range(1, 7)) for _ in range(options["dice"]))
        return RollDice(seat, faces if options["enter_faces"] else None)
    if kind == "sacrifice-keystone":
        return SacrificeKeystone(seat, choose(options["keystones"]), "Needed.", "Gone.")
    if kind == "record-loss":
        return RecordLoss(seat, choose(options["keystones"]), "Lost in the story.")
    if kind == "revise-text":
        text = choose(list(iter_texts(state)))
        return ReviseText(seat, text.seq, text.field, text.value + " (revised)")
    return simple_command(kind, seat)


def simple_command(kind: str, seat: int) -> Command:
    """A command of ``kind`` whose arguments need no options."""
    if kind == "answer-prompt":
        return AnswerPrompt(seat, "An answer.")
    if kind == "declare-stakes":
        return DeclareStakes(seat, "It holds.", "It breaks.")
    if kind == "narrate-success":
        return NarrateSuccess(seat, "It held.")
    if kind == "build-mark":
        return BuildMark(seat, "A mark", "Its description.", "How it was built.")
    if kind == "accept-failure":
        return AcceptFailure(seat, "It broke.")
    if kind == "write-epilogue":
        return WriteEpilogue(seat, "And so it ended.")
    return {"spend-token": SpendToken, "undo": Undo}[kind](seat)


def sample_command(state: State, kind: str, seat: int) -> Command:
    """A plausible command of ``kind`` from ``seat``, whether or not it is legal now."""
    keystone = state.setup.keystones[0].id if state.setup.keystones else "r1"
    if kind == "draw-card":
        cards = state.pile_cards(state.pile) if state.setup.mode == "table" else (None,)
        return DrawCard(seat, (cards or ("AH",))[0])
    if kind == "choose-prompt":
        return ChoosePrompt(seat, index=0)
    if kind == "veil-prompt":
        return VeilPrompt(seat, 0)
    if kind == "roll-dice":
        return RollDice(seat, (6,) * state.dice if state.setup.mode == "table" else None)
    if kind == "sacrifice-keystone":
        return SacrificeKeystone(seat, keystone, "Needed.", "Gone.")
    if kind == "record-loss":
        return RecordLoss(seat, keystone, "Lost.")
    if kind == "revise-text":
        return ReviseText(seat, state.version, "answer", "Revised.")
    return simple_command(kind, seat)


def random_game(
    rng: random.Random,
    mode: str = "table",
    players: int = 3,
    counts: tuple[int, int, int] = (3, 3, 3),
    forgiving_undo: bool = False,
    detours: float = 0.1,
) -> Iterator[tuple[State, Command]]:
    """A whole life of random legal commands: each state with the command played from it.

    ``detours`` is the chance of picking an undo, a revision or a veil instead of progress.
    """
    names = tuple(f"P{n}" for n in range(players))
    setup = make_setup(mode=mode, players=names, oldest=rng.randrange(players), counts=counts)
    state, _ = start(replace(setup, forgiving_undo=forgiving_undo), rng)
    while state.end is None or state.epilogue is None:
        legal = legal_commands(state)
        progress = [entry for entry in legal if entry.kind not in DETOURS]
        choices = legal if rng.random() < detours or not progress else progress
        command = example_command(state, rng.choice(choices), pick=rng.choice)
        yield state, command
        state, _ = step(state, command, rng)
    yield state, simple_command("undo", 0)


DETOURS = ("undo", "revise-text", "veil-prompt", "record-loss")
