"""``legal_commands`` and ``decide`` agree: listed kinds are accepted, the others refused."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from legacy_factories import (
    compose,
    example_command,
    make_state,
    random_game,
    refused,
    sample_command,
)

from companion.legacy import COMMAND_TYPES, RuleError, State, decide, legal_commands


def assert_agreement(state: State, rng: random.Random) -> None:
    legal = legal_commands(state)
    listed = {entry.kind for entry in legal}
    assert len(listed) == len(legal), "a kind is listed once"
    players = len(state.setup.players)
    for entry in legal:
        decide(state, example_command(state, entry, pick=rng.choice), rng)
        if entry.seat is not None and players > 1:
            other = (entry.seat + 1) % players
            command = example_command(state, entry, pick=rng.choice)
            code = "not-your-decision" if entry.kind == "undo" else "not-your-turn"
            refused(state, type(command)(**{**vars(command), "seat": other}), code)
    for kind in COMMAND_TYPES:
        if kind not in listed:
            for seat in range(players):
                try:
                    decide(state, sample_command(state, kind, seat), rng)
                except RuleError:
                    continue
                raise AssertionError(f"{kind} from seat {seat} accepted but not listed")


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    mode=st.sampled_from(["table", "digital"]),
    players=st.integers(1, 5),
    counts=st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)),
    forgiving=st.booleans(),
)
def test_legal_commands_agree_with_decide_over_whole_lives(
    seed: int, mode: str, players: int, counts: tuple[int, int, int], forgiving: bool
) -> None:
    rng = random.Random(seed)
    for state, _ in random_game(rng, mode, players, counts, forgiving, detours=0.2):
        assert_agreement(state, rng)


def test_a_fresh_chronicle_offers_only_the_draw() -> None:
    (draw,) = legal_commands(make_state())
    assert (draw.kind, draw.seat) == ("draw-card", 0)
    assert draw.options == {"pile": "hearts-low", "cards": ("AH", "2H", "3H", "4H", "5H")}
    (digital,) = legal_commands(make_state(mode="digital"))
    assert digital.options == {"pile": "hearts-low"}


def test_the_roll_says_how_many_dice_and_whether_faces_are_entered() -> None:
    roll = [e for e in legal_commands(compose(make_state())) if e.kind == "roll-dice"]
    assert roll[0].options == {"dice": 4, "enter_faces": True}
