"""Age of Summoners payments (rule 4.2) are asked one way: ``affordable`` (``can_pay``, what the
legal list offers a summon or a paid ability by, for a cost given as counts) says yes exactly
when ``payments`` finds a payment, and every payment it finds pays the cost; a line-up of spirits
is a value no caller can change."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.lineup import lineup
from companion.cardgames.summoners.memo import Memo, lent
from companion.cardgames.summoners.payment import affordable, payments
from companion.cardgames.summoners.scenario import arrange

counts = st.tuples(*[st.integers(0, 4)] * 5)


@settings(max_examples=3000, deadline=None)
@given(counts, st.integers(0, 3), st.integers(0, 3), counts, st.integers(0, 4))
def test_affordable_says_yes_exactly_when_a_payment_exists(
    req: tuple[int, ...], generic: int, free: int, avail: tuple[int, ...], stones: int
) -> None:
    found = payments(req, generic, free, avail, stones)
    assert affordable(req, generic, free, avail, stones) is bool(found)
    need = sum(req)
    for payment in found:
        *colours, paid_stones = payment
        assert sum(payment) == need - min(free, need) + generic  # the cards the cost takes
        assert all(0 <= n <= have for n, have in zip(colours, avail, strict=True))
        assert 0 <= paid_stones <= stones
        # what the colours leave uncovered is waived, paid in stones or by the generic symbols
        uncovered = sum(max(0, r - n) for r, n in zip(req, colours, strict=True))
        beyond = sum(max(0, n - r) for r, n in zip(req, colours, strict=True))
        assert beyond <= generic
        assert uncovered <= min(free, need) + paid_stones
    assert len(set(found)) == len(found)
    assert set(found) == every_payment(req, generic, free, avail, stones)


def every_payment(
    req: tuple[int, ...], generic: int, free: int, avail: tuple[int, ...], stones: int
) -> set[tuple[int, ...]]:
    """Rule 4.2 counted out by brute force: every count of each colour's mana and of stones that
    spends the cards the cost takes, with no colour beyond its symbols by more than the generic
    symbols cover."""
    need = sum(req)
    cards = need - min(free, need) + generic
    return {
        (*colours, cards - sum(colours))
        for colours in product(*(range(have + 1) for have in avail))
        if 0 <= cards - sum(colours) <= stones
        and sum(max(0, n - r) for r, n in zip(req, colours, strict=True)) <= generic
    }


def test_a_line_up_cannot_be_changed_by_its_callers() -> None:
    s = new(3, 5)
    arrange(s, 0, spirits=["gargoyle", "gargoyle"])
    spirits = lineup(s, 0)
    with pytest.raises(AttributeError):
        spirits.free = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        spirits.counts["gargoyle"] = 0  # type: ignore[index]
    assert lineup(s, 0).counts == spirits.counts == {"gargoyle": 2}


@settings(max_examples=3000, deadline=None)
@given(
    st.tuples(*[st.integers(0, 3)] * 5),
    st.integers(0, 3),
    st.integers(0, 2),
    counts,
    st.integers(0, 4),
    st.booleans(),
)
def test_the_memo_gives_the_payments_worked_out_afresh_in_their_order(
    req: tuple[int, ...],
    generic: int,
    free: int,
    avail: tuple[int, ...],
    stones: int,
    twice: bool,
) -> None:
    afresh = payments(req, generic, free, avail, stones)
    assert list(afresh) == sorted(afresh)
    memo = Memo()
    with lent(memo):
        if twice:  # kept the first time (in the colours' sorted order), read back the second
            payments(req, generic, free, avail, stones)
        assert payments(req, generic, free, avail, stones) == afresh
    assert memo.hits == (memo.misses if twice else 0)  # (costs dearer than any card skip it)
