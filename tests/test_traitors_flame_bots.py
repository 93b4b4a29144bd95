"""Traitor's Flame bots: legal, view-only, fast enough, and stronger level by level."""

from __future__ import annotations

import random

import pytest

from companion.cardgames import get_game
from companion.cardgames.traitors_flame import engine, search
from companion.cardgames.traitors_flame.bots import decide
from companion.cardgames.traitors_flame.moves import FLAMES
from companion.cardgames.traitors_flame.scenario import make_state
from companion.cardgames.traitors_flame.search import sample_world, search_bot
from companion.cardgames.traitors_flame.simulate import simulate
from companion.cardgames.traitors_flame.view import observe, observe_view

GAME = get_game("traitors-flame")


def positions(count: int, players: int = 4, seed: int = 0):
    """States met in seeded random play (not finished)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        st = GAME.new(players, rng.randrange(10**6), {})
        while st["result"] is None and len(out) < count:
            seat = st["night"]
            out.append(st)
            st = GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat)))
    return out


def test_registry_has_three_levels():
    assert set(GAME.bots()) == {"random", "heuristic", "search"}


@pytest.mark.parametrize("players", [2, 3, 6])
def test_fast_observation_equals_the_one_from_the_view(players):
    for st in positions(150, players, seed=players):
        for seat in range(players):
            assert observe(st, seat) == observe_view(GAME.view(st, seat))


def test_heuristic_only_proposes_legal_actions():
    rng = random.Random(1)
    for st in positions(400, 5):
        seat = st["night"]
        assert decide(observe(st, seat), rng) in GAME.legal_actions(st, seat)


def test_heuristic_takes_a_flame_from_the_player_night_would_reach():
    st = make_state(2, hands=[["swordsman", "spy"], ["flame"] * 3], totals=[0, 12])
    action = GAME.bots()["heuristic"](GAME.view(st, 0), GAME.legal_actions(st, 0), random.Random())
    assert action == {"type": "play", "card": "swordsman-1", "target": 1, "take": "flame"}


def test_heuristic_draws_a_flame_on_top_rather_than_burying_it():
    st = make_state(3, hands=[["seer", "flame", "flame"], [], []], deck=["flame"])
    action = GAME.bots()["heuristic"](GAME.view(st, 0), GAME.legal_actions(st, 0), random.Random())
    assert action == {"type": "draw"}


def test_heuristic_with_three_flames_in_two_player_rings_the_bell():
    st = make_state(2, hands=[["bellringer"] + ["flame"] * 3, []], totals=[5, 5])
    action = GAME.bots()["heuristic"](GAME.view(st, 0), GAME.legal_actions(st, 0), random.Random())
    assert action == {"type": "play", "card": "bellringer-1"}


def test_sampled_worlds_agree_with_the_view():
    rng = random.Random(4)
    for st in positions(120, 4, seed=9):
        seat = st["night"]
        obs = observe_view(GAME.view(st, seat))
        world = sample_world(obs, rng)
        assert world["hands"][seat] == st["hands"][seat]
        assert [len(h) for h in world["hands"]] == [len(h) for h in st["hands"]]
        assert world["flames"] == st["flames"]
        assert [sum(c in FLAMES for c in h) for h in world["hands"]] == st["flames"]
        assert len(world["deck"]) == len(st["deck"])
        assert (world["deck"][-1] in FLAMES) == (st["deck"][-1] in FLAMES)
        placed = world["deck"] + world["played"] + [c for h in world["hands"] for c in h]
        assert len(set(placed)) == 58
        for pos, card in obs["deck_known"].items():
            assert world["deck"][-1 - pos] == card


def test_search_moves_are_legal_and_spend_at_most_their_rollouts(monkeypatch):
    """The search's work is a count (its time is measured by bench/bench_traitors_flame.py)."""
    calls = []
    real = search.rollout

    def counted(*args, **kwargs):
        calls[-1] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "rollout", counted)
    rng = random.Random(2)
    for st in positions(12, 6, seed=3)[::3] + positions(12, 2, seed=4)[::3]:
        seat = st["night"]
        legal = GAME.legal_actions(st, seat)
        calls.append(0)
        action = GAME.bots()["search"](GAME.view(st, seat), legal, rng)
        assert action in legal
        assert calls[-1] <= max(search.ROLLOUTS, search.MIN_SAMPLES * search.TOP)
    assert any(calls)


def test_search_never_reads_the_hidden_state():
    """Two states that look the same to the seat get the same move from the same rng."""
    st = make_state(3, hands=[["swordsman", "spy"], ["saint", "flame"], ["queen"]])
    other = make_state(3, hands=[["swordsman", "spy"], ["queen", "flame"], ["saint"]])
    assert GAME.view(st, 0)["hands"][1:] == GAME.view(other, 0)["hands"][1:]
    moves = [
        search_bot(GAME.view(s, 0), GAME.legal_actions(s, 0), random.Random(7), rollouts=12)
        for s in (st, other)
    ]
    assert moves[0] == moves[1]


def test_heuristic_beats_random_heads_up():
    report = simulate(200, 2, "heuristic,random", seed=1)
    assert report["win_rate_by_bot"]["heuristic"] > 0.7


def test_engine_step_and_apply_agree():
    rng = random.Random(6)
    for st in positions(200, 3, seed=6):
        seat = st["night"]
        action = rng.choice(GAME.legal_actions(st, seat))
        fast = engine.copy_state(st)
        engine.step(fast, seat, dict(action))
        assert fast == GAME.apply(st, seat, action)
