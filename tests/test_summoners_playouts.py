"""Age of Summoners: seeded random playouts end without error, conserving all 110 cards."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.cardgames.summoners.bots import random_bot
from companion.cardgames.summoners.cards import card_ids
from companion.cardgames.summoners.engine import new, step
from companion.cardgames.summoners.legal import PHASES, legal_actions
from companion.cardgames.summoners.playout import random_action
from companion.cardgames.summoners.state import all_cards

ALL = Counter(card_ids())


def playout(seed: int) -> dict[str, int]:
    """One random match through the engine's own path, checked at every step."""
    players = 2 + seed % 3
    rng = random.Random(seed)
    s = new(players, seed, {})
    steps = 0
    while s["result"] is None:
        seat = s["await"]["seat"]
        legal = legal_actions(s, seat)
        assert legal, s["await"]
        assert all(not legal_actions(s, other) for other in range(players) if other != seat)
        step(s, seat, random_bot({}, legal, rng))
        assert Counter(all_cards(s)) == ALL, seed
        steps += 1
    result = s["result"]
    totals = result["totals"]
    assert result["winner"] in range(players) and len(totals) == players, seed
    assert totals[result["winner"]] == max(totals), seed
    return {"steps": steps, "reason": result["reason"], "rule99": s["rule99"]}


def test_200_random_playouts() -> None:
    results = [playout(seed) for seed in range(1, 201)]
    assert {r["reason"] for r in results} == {"declared"}  # no match runs into the turn cap


@pytest.mark.slow
def test_10000_random_playouts() -> None:
    """Every match ends by a declaration (none reaches the turn cap), each checked at every step
    by ``playout``; the longest stays far below the cap's moves."""
    reasons: Counter[str] = Counter()
    longest = 0
    for seed in range(1, 10_001):
        found = playout(seed)
        reasons[found["reason"]] += 1
        longest = max(longest, found["steps"])
    assert reasons == {"declared": 10_000}, reasons
    assert 0 < longest < 2_000, longest


def test_random_action_is_the_random_bots_pick() -> None:
    """Simulations pick with ``random_action``: the same action the random bot picks from the
    listed legal actions, drawing the same numbers, in every phase of a match."""
    phases: Counter[str] = Counter()
    for players in (2, 3, 4):
        for seed in range(40):
            fast, listed = random.Random(seed), random.Random(seed)
            s = new(players, seed, {"catch_up": seed % 2 == 0})
            while s["result"] is None:
                seat = s["await"]["seat"]
                phases[s["await"]["phase"]] += 1
                action = random_action(s, seat, fast)
                assert action == random_bot({}, legal_actions(s, seat), listed), (seed, s["await"])
                assert fast.getstate() == listed.getstate()
                step(s, seat, action)
    assert set(phases) == set(PHASES), phases  # every kind of decision was met
    assert min(phases.values()) >= 5, phases


def test_random_action_refuses_a_seat_that_is_not_to_act() -> None:
    s = new(3, 5, {})
    seat = s["await"]["seat"]
    with pytest.raises(ValueError, match="no choice"):
        random_action(s, (seat + 1) % 3, random.Random(1))
