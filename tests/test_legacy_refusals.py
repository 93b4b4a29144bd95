"""Illegal commands are refused with a RuleError a player understands; nothing happens."""

from __future__ import annotations

import random

import pytest
from legacy_factories import compose, lose_round, make_state, play, refused, roll

from companion.legacy import (
    AcceptFailure,
    DrawCard,
    NarrateSuccess,
    RecordLoss,
    RollDice,
    RuleError,
    SacrificeKeystone,
    SpendToken,
    Undo,
    WriteEpilogue,
    decide,
)
from companion.legacy.errors import N_


def test_rule_errors_are_value_errors_with_a_code_a_template_and_a_rule() -> None:
    error = RuleError("x", N_("It is %(player)s's turn."), "4.11", player="Ali")
    assert isinstance(error, ValueError)
    assert (error.code, error.rule, error.params) == ("x", "4.11", {"player": "Ali"})
    assert error.message == "It is %(player)s's turn."
    assert str(error) == "It is Ali's turn."


def test_a_command_from_the_wrong_player() -> None:
    error = refused(make_state(), DrawCard(1, "AH"), "not-your-turn")
    assert str(error) == "It is Ali's turn, not Brianna's."
    assert error.rule == "4.11"


def test_a_seat_that_does_not_exist() -> None:
    refused(make_state(), DrawCard(3, "AH"), "unknown-seat")
    refused(make_state(), Undo(-1), "unknown-seat")


def test_a_roll_before_the_stakes() -> None:
    state = play(make_state(), DrawCard(0, "AH"))
    refused(state, RollDice(0, (6, 6, 6, 6)), "prompt-not-chosen")


def test_a_creed_while_a_resource_remains() -> None:
    state = roll(compose(make_state()), 1, 1, 1, 1)
    refused(state, SacrificeKeystone(0, "c1", "Why.", "How."), "sacrifice-order")


def test_a_token_in_the_turn_it_was_gained() -> None:
    state = play(roll(compose(make_state()), 1, 1, 1, 1), RecordLoss(0, "r1"))
    refused(state, SpendToken(0), "token-too-new")


@pytest.mark.parametrize(
    ("faces", "code"),
    [
        ((7, 1, 1, 1), "bad-face"),
        ((0, 1, 1, 1), "bad-face"),
        ((True, 1, 1, 1), "bad-face"),
        ((6, 6, 6), "dice-count"),
        ((6, 6, 6, 6, 6), "dice-count"),
        (None, "dice-count"),
    ],
)
def test_faces_that_are_no_roll_of_the_pool(faces: tuple[int, ...] | None, code: str) -> None:
    refused(compose(make_state()), RollDice(0, faces), code)


def test_a_seven_names_the_die() -> None:
    error = refused(compose(make_state()), RollDice(0, (7, 1, 1, 1)), "bad-face")
    assert str(error) == "7 is not a face of a six-sided die."


def test_a_card_not_in_the_pile() -> None:
    state = make_state()
    refused(state, DrawCard(0, "6H"), "card-not-in-pile")  # a middle-pile card on turn 1
    refused(state, DrawCard(0, "AD"), "card-not-in-pile")  # another suit
    refused(state, DrawCard(0, "1H"), "unknown-card")
    refused(state, DrawCard(0), "card-required")


def test_a_card_drawn_already_is_no_longer_in_its_pile() -> None:
    state = lose_round(make_state())  # drew the first card, AH
    assert "AH" not in state.pile_cards("hearts-low")
    refused(state, DrawCard(1, "AH"), "card-not-in-pile")


def test_digital_mode_refuses_entered_cards_and_faces() -> None:
    state = make_state(mode="digital")
    refused(state, DrawCard(0, "AH"), "card-not-entered")
    state = compose(state)
    refused(state, RollDice(0, (6, 6, 6, 6)), "faces-not-entered")


def test_commands_after_the_end() -> None:
    state = make_state()
    for _ in range(12):
        state = lose_round(state)
    error = refused(state, DrawCard(state.seat, "AS"), "game-ended")
    assert error.rule == "5.1"
    refused(state, AcceptFailure(state.seat), "game-ended")


def test_undo_of_a_roll_in_digital_mode() -> None:
    state = play(compose(make_state(mode="digital")), RollDice(0), rng=random.Random(1))
    error = refused(state, Undo(1), "dice-stay-rolled")
    assert "stay rolled" in str(error)


def test_the_epilogue_waits_for_the_end_and_is_written_once() -> None:
    state = make_state()
    refused(state, WriteEpilogue(0, "Too soon."), "epilogue-too-early")
    for _ in range(12):
        state = lose_round(state)
    refused(state, WriteEpilogue(1, ""), "text-required")
    state = play(state, WriteEpilogue(1, "She is remembered."))
    assert state.epilogue is not None and state.epilogue.value == "She is remembered."
    refused(state, WriteEpilogue(2, "Again."), "epilogue-written")


def test_a_text_longer_than_20000_characters() -> None:
    state = roll(compose(make_state()), 6, 1, 1, 1)
    refused(state, NarrateSuccess(0, "x" * 20_001), "text-too-long")
    play(state, NarrateSuccess(0, "x" * 20_000))


def test_a_refused_command_leaves_the_log_as_it_was() -> None:
    state = compose(make_state())
    with pytest.raises(RuleError):
        decide(state, RollDice(1, (6, 6, 6, 6)))
    assert state.version == 5 and len(list(state.records())) == 5


def test_a_seat_must_be_a_plain_integer() -> None:
    state = make_state(oldest=1)
    refused(state, DrawCard(True, "AH"), "unknown-seat")  # type: ignore[arg-type]
