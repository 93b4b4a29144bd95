"""Age of Summoners: seeded random playouts end without error, conserving all 110 cards."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.cardgames.summoners.bots import random_bot
from companion.cardgames.summoners.cards import card_ids
from companion.cardgames.summoners.engine import new, step
from companion.cardgames.summoners.legal import legal_actions
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
    return {"steps": steps, "cap": s["result"]["reason"] == "cap", "rule99": s["rule99"]}


def test_200_random_playouts() -> None:
    results = [playout(seed) for seed in range(1, 201)]
    assert sum(r["cap"] for r in results) == 0


@pytest.mark.slow
def test_10000_random_playouts() -> None:
    results = [playout(seed) for seed in range(1, 10_001)]
    assert len(results) == 10_000
