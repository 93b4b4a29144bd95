"""The round and turn procedure (3.1, 3.2, 4.1-4.3, 4.9-4.11) and the end of the life (5.1)."""

from __future__ import annotations

import random

import pytest
from legacy_factories import compose, lose_round, make_state, play, refused, roll, win_round

from companion.legacy import (
    PILE_CARDS,
    AcceptFailure,
    BuildMark,
    DrawCard,
    NarrateSuccess,
    RollDice,
    SacrificeKeystone,
    State,
    legal_commands,
)


def seats_of_round(state: State) -> list[int]:
    """Play a round of three successes; the seat of each turn."""
    seats = []
    for turn in (1, 2, 3):
        seats.append(state.seat)
        state = roll(compose(state), *[6] * state.dice)
        if turn < 3:
            state = play(state, NarrateSuccess(state.seat))
    return seats


def test_a_check_goes_draw_choose_answer_stakes_roll() -> None:
    state = make_state()
    steps = [state.step]
    state = play(state, DrawCard(0, "3H"))
    steps.append(state.step)
    state = compose(make_state(), "3H")
    assert steps == ["draw", "choose"]
    assert state.step == "roll" and state.phase == "compose"
    check = state.check
    assert check is not None
    assert (check.stage, check.round, check.turn, check.seat) == (0, 1, 1, 0)
    assert (check.pile, check.card, check.prompt_index) == ("hearts-low", "3H", 0)
    assert check.prompt == "3H: first prompt"
    assert (check.answer and check.answer.value) == "An answer."
    assert (check.stakes_success and check.stakes_success.value) == "It holds."
    assert (check.stakes_failure and check.stakes_failure.value) == "It breaks."


@pytest.mark.parametrize(
    ("faces", "success"),
    [((5, 1, 1, 1), True), ((1, 2, 3, 6), True), ((4, 4, 4, 4), False), ((1, 1, 1, 1), False)],
)
def test_a_check_succeeds_on_any_five_or_six(faces: tuple[int, ...], success: bool) -> None:
    state = roll(compose(make_state()), *faces)
    assert state.phase == ("success" if success else "failure")
    assert state.check is not None and state.check.rolls[0].success is success


def test_success_passes_the_turn_left_to_the_middle_then_the_face_pile() -> None:
    state = roll(compose(make_state()), 6, 1, 1, 1)
    state = play(state, NarrateSuccess(0, "She made it."))
    assert (state.turn, state.seat, state.pile, state.phase) == (2, 1, "hearts-middle", "draw")
    assert state.story[-1].outcome == "success"
    assert state.story[-1].narration is not None
    assert state.story[-1].narration.value == "She made it."
    state = play(roll(compose(state), 5, 1, 1, 1), NarrateSuccess(1))
    assert (state.turn, state.seat, state.pile) == (3, 2, "hearts-face")


def test_three_successes_build_one_named_legacy_mark_and_end_the_round() -> None:
    state = make_state()
    for _ in range(2):
        state = play(roll(compose(state), 6, 6, 6, 6), NarrateSuccess(state.seat))
    state = roll(compose(state), 1, 1, 1, 5)
    assert state.step == "mark"
    refused(state, NarrateSuccess(2), "mark-not-built")
    refused(state, BuildMark(2, " "), "text-required")
    state = play(state, BuildMark(2, "The Lamp", "A lamp that never goes out.", "It shone."))
    (mark,) = state.marks
    assert (mark.name.value, mark.description.value) == ("The Lamp", "A lamp that never goes out.")
    assert (mark.number, mark.stage, mark.round, mark.seat, mark.age) == (1, 0, 1, 2, "20-32")
    assert state.story[-1].outcome == "mark" and state.story[-1].mark == 0
    assert (state.round, state.turn, state.seat, state.phase) == (2, 1, 1, "draw")


def test_an_accepted_failure_ends_the_round_at_once_and_draws_no_more_cards() -> None:
    state = roll(compose(make_state()), 1, 2, 3, 4)
    state = play(state, AcceptFailure(0, "It broke."))
    assert state.story[-1].outcome == "failure"
    assert (state.round, state.turn, state.phase, state.rounds_played) == (2, 1, "draw", 1)
    assert state.pile_cards("hearts-middle") == PILE_CARDS["hearts-middle"]
    assert state.pile_cards("hearts-face") == PILE_CARDS["hearts-face"]
    assert len(state.pile_cards("hearts-low")) == 4


@pytest.mark.parametrize(
    ("players", "oldest", "expected"),
    [
        (("Solo",), 0, [0, 0, 0]),
        (("A", "B"), 0, [0, 1, 0]),
        (("A", "B"), 1, [1, 0, 1]),
        (("A", "B", "C"), 1, [1, 2, 0]),
        (("A", "B", "C", "D", "E"), 3, [3, 4, 0]),
    ],
)
def test_turn_order_inside_a_round(
    players: tuple[str, ...], oldest: int, expected: list[int]
) -> None:
    assert seats_of_round(make_state(players=players, oldest=oldest)) == expected


@pytest.mark.parametrize("players", [("Solo",), ("A", "B"), ("A", "B", "C"), tuple("ABCDEFGH")])
def test_the_first_player_moves_one_seat_left_every_round_across_stages(
    players: tuple[str, ...],
) -> None:
    state = make_state(players=players)
    firsts = []
    for rounds in range(12):
        firsts.append(state.first_seat)
        state = win_round(state) if rounds % 2 else lose_round(state)
    assert firsts == [n % len(players) for n in range(12)]


def test_the_next_first_player_is_who_would_have_drawn_from_the_middle_pile() -> None:
    state = lose_round(make_state(oldest=2))  # Cardon fails on turn 1; Ali would draw turn 2
    assert state.first_seat == state.seat == 0


def test_three_rounds_per_stage_then_the_next_suit_with_one_die_fewer() -> None:
    state = make_state()
    seen = []
    for _ in range(11):
        seen.append((state.stage_key, state.round, state.dice))
        state = lose_round(state)
    seen.append((state.stage_key, state.round, state.dice))
    assert seen[2:4] == [("youth", 3, 4), ("prime", 1, 3)]
    assert seen[-1] == ("old-age", 3, 1)
    assert state.pile == "spades-low"


def test_the_life_ends_when_the_third_round_of_old_age_ends() -> None:
    state = make_state()
    for _ in range(11):
        state = lose_round(state)
    assert not state.ended
    state = lose_round(state)
    assert state.ended and state.end == "old-age-ended" and state.phase == "ended"
    assert state.rounds_played == 12
    assert [legal.kind for legal in legal_commands(state)] == [
        "write-epilogue",
        "revise-text",
        "undo",
    ]


def test_the_life_ends_the_moment_the_eighth_mark_is_built() -> None:
    state = make_state()
    for _ in range(7):
        state = win_round(state)
    assert not state.ended and (state.stage_key, state.round) == ("maturity", 2)
    state = win_round(state)
    assert state.end == "eight-marks" and len(state.marks) == 8
    assert state.rounds_played == 8


def test_a_face_pile_is_emptied_exactly_by_three_marks_in_a_stage() -> None:
    state = make_state()
    for _ in range(3):
        state = win_round(state)
    assert state.pile_cards("hearts-face") == ()
    assert len(state.pile_cards("hearts-low")) == len(state.pile_cards("hearts-middle")) == 2
    assert state.stage_key == "prime"


def test_digital_mode_draws_the_top_card_and_the_app_rolls() -> None:
    state = make_state(seed=3, mode="digital")
    top = state.pile_cards("hearts-low")[0]
    rng = random.Random(5)
    state = compose(state)
    assert state.check is not None and state.check.card == top
    state = play(state, RollDice(0), rng=rng)
    rolled = state.check.rolls[0].faces if state.check else ()
    assert len(rolled) == 4 and all(1 <= face <= 6 for face in rolled)
    expected = random.Random(5)
    assert rolled == tuple(expected.randint(1, 6) for _ in range(4))


def test_counters_count_checks_rolls_and_rounds() -> None:
    state = roll(compose(make_state()), 1, 1, 1, 1)
    state = play(state, SacrificeKeystone(0, "r1", "Why.", "Outcome."))
    state = play(roll(state, 1, 1, 1, 1), AcceptFailure(0))
    assert (state.checks_rolled, state.rolls, state.rounds_played) == (1, 2, 1)
