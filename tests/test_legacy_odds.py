"""Exact odds (4.1): one check, and finishing a round when paying for every reroll possible."""

from __future__ import annotations

from fractions import Fraction

import pytest
from legacy_factories import compose, lose_round, make_state, play, roll

from companion.legacy import (
    STAGES,
    AcceptFailure,
    NarrateSuccess,
    RecordLoss,
    SacrificeKeystone,
    State,
    p_finish,
    p_success,
)


def at_stage(stage: int, counts: tuple[int, int, int] = (0, 0, 0)) -> State:
    state = make_state(counts=counts)
    for _ in range(stage * 3):
        state = lose_round(state)
    return state


def percent(value: Fraction, places: int) -> float:
    return round(float(value) * 100, places)


@pytest.mark.parametrize(
    ("dice", "exact", "shown"),
    [
        (4, Fraction(65, 81), 80.25),
        (3, Fraction(19, 27), 70.37),
        (2, Fraction(5, 9), 55.56),
        (1, Fraction(1, 3), 33.33),
    ],
)
def test_one_check_succeeds_on_any_five_or_six(dice: int, exact: Fraction, shown: float) -> None:
    assert p_success(dice) == exact
    assert percent(exact, 2) == shown


@pytest.mark.parametrize(("stage", "shown"), [(0, 51.7), (1, 34.8), (2, 17.1), (3, 3.7)])
def test_three_successes_in_a_row_without_rerolls(stage: int, shown: float) -> None:
    state = at_stage(stage)
    assert p_finish(state) == p_success(STAGES[stage].dice) ** 3
    assert percent(p_finish(state), 1) == shown


def test_the_expected_marks_without_sacrifices_and_the_chance_of_none() -> None:
    rounds = [p_success(stage.dice) ** 3 for stage in STAGES]
    assert round(float(3 * sum(rounds)), 2) == 3.22
    none = Fraction(1)
    for chance in rounds:
        none *= (1 - chance) ** 3
    assert round(float(none) * 100, 1) == 1.6


def exact_finish(p: Fraction, checks: int, payments: int) -> Fraction:
    """An independent recursion: roll; on failure pay and roll again while able."""
    if checks == 0:
        return Fraction(1)
    win = p * exact_finish(p, checks - 1, payments)
    retry = (1 - p) * exact_finish_after_failure(p, checks, payments)
    return win + retry


def exact_finish_after_failure(p: Fraction, checks: int, payments: int) -> Fraction:
    return exact_finish(p, checks, payments - 1) if payments else Fraction(0)


@pytest.mark.parametrize("keystones", [(1, 0, 0), (3, 3, 3), (0, 2, 6)])
def test_keystones_pay_for_rerolls_in_any_check_of_the_round(
    keystones: tuple[int, int, int],
) -> None:
    state = at_stage(3, keystones)
    assert p_finish(state) == exact_finish(Fraction(1, 3), 3, sum(keystones))


def test_after_a_failure_only_paid_rerolls_remain() -> None:
    state = roll(compose(make_state(counts=(1, 0, 0))), 1, 1, 1, 1)
    p = p_success(4)
    assert p_finish(state) == p * exact_finish(p, 2, 0)
    state = play(state, SacrificeKeystone(0, "r1", "Why.", "How."))
    assert p_finish(state) == exact_finish(p, 3, 0)
    state = roll(state, 1, 1, 1, 1)
    assert p_finish(state) == 0


def test_a_token_gained_this_turn_counts_only_from_the_next_check() -> None:
    state = roll(compose(make_state(counts=(0, 0, 1))), 1, 1, 1, 1)
    state = play(state, RecordLoss(0, "c1"))
    assert p_finish(state) == 0  # the new token cannot pay for this reroll
    success = roll(compose(make_state(counts=(0, 0, 1))), 6, 1, 1, 1)
    success = play(success, RecordLoss(0, "c1"))
    assert p_finish(success) == exact_finish(p_success(4), 2, 1)
    next_turn = play(success, NarrateSuccess(0))
    assert p_finish(next_turn) == exact_finish(p_success(4), 2, 1)


def test_a_finished_life_has_no_chance_left() -> None:
    state = make_state()
    for _ in range(11):
        state = lose_round(state)
    state = roll(compose(state), 1)
    state = play(state, AcceptFailure(state.seat))
    assert state.ended and p_finish(state) == 0
