"""Exact chances: one check (4.1), and finishing the round when paying for every reroll possible."""

from __future__ import annotations

import functools
from fractions import Fraction

from .cards import STAGES, TURNS_PER_ROUND
from .model import State

ONE = Fraction(1)


def p_success(dice: int) -> Fraction:
    """The chance that ``dice`` six-sided dice show at least one 5 or 6: 1 - (2/3)^n."""
    return ONE - Fraction(2, 3) ** dice


def p_finish(state: State) -> Fraction:
    """The chance the round's remaining checks all succeed, from the current check on.

    The player is assumed to pay for a reroll after every failure while able: with a keystone
    (the sacrifice order does not change the count) or a token. A token gained in this turn is
    only usable from the next turn (D6). 0 once the life is over.
    """
    if state.end is not None:
        return Fraction(0)
    p = p_success(STAGES[state.stage].dice)
    now = state.usable_tokens() + len(state.kept())
    later = len(state.tokens) - state.usable_tokens()
    remaining = TURNS_PER_ROUND - state.turn + 1
    if state.phase == "success":
        return _finish(p, remaining - 1, now + later)
    if state.phase == "failure":
        return _after_failure(p, remaining, now, later)
    return _current(p, remaining, now, later)


def _current(p: Fraction, remaining: int, now: int, later: int) -> Fraction:
    """The current check is still to roll; ``now`` payments usable in it, ``later`` after."""
    miss = ONE - p
    return sum(
        (miss**used * p * _finish(p, remaining - 1, now - used + later) for used in range(now + 1)),
        Fraction(0),
    )


def _after_failure(p: Fraction, remaining: int, now: int, later: int) -> Fraction:
    """The current check just failed: each reroll must be paid for."""
    if now == 0:
        return Fraction(0)
    return _current(p, remaining, now - 1, later)


@functools.cache
def _finish(p: Fraction, remaining: int, payments: int) -> Fraction:
    """``remaining`` fresh checks, ``payments`` rerolls usable in any of them."""
    if remaining == 0:
        return ONE
    return _current(p, remaining, payments, 0)
