"""Traitor's Flame: seeded random playouts with every bot kind, conservation, JSON and replay."""

from __future__ import annotations

import json
import random

import pytest

from companion.cardgames import get_game
from companion.cardgames.traitors_flame import cards, engine
from companion.cardgames.traitors_flame.bots import DRAW, decide
from companion.cardgames.traitors_flame.moves import FLAMES
from companion.cardgames.traitors_flame.search import search_bot
from companion.cardgames.traitors_flame.view import observe_view

GAME = get_game("traitors-flame")
ALL = set(cards.all_cards())


def never_bot(kind: str):
    """The heuristic that never plays ``kind``, through the view (more shapes of play)."""

    def bot(view, legal, rng):
        action = decide(observe_view(view), rng, never=frozenset({kind}))
        return action if action in legal else DRAW

    return bot


def bot_for(name: str):
    if name == "search":
        return lambda view, legal, rng: search_bot(view, legal, rng, rollouts=12)
    if name.startswith("never-"):
        return never_bot(name.removeprefix("never-"))
    return GAME.bots()[name]


def check_invariants(st: dict) -> None:
    """60 cards: 58 in deck, hands and played row, plus Night and Before-Dawn as markers."""
    placed = st["deck"] + st["played"] + [c for h in st["hands"] for c in h]
    assert len(placed) == 58 and len(set(placed)) == 58
    assert set(placed) | {"night", "dawn"} == ALL
    assert st["night"] in range(st["players"])
    assert st["dawn"] is None or st["dawn"] in range(st["players"])
    assert st["flames"] == [sum(c in FLAMES for c in h) for h in st["hands"]]
    assert not any(c in FLAMES for c in st["played"])


def run_match(players: int, seed: int, names: list[str], check=check_invariants) -> dict:
    st = GAME.new(players, seed, {"max_rounds": 100})
    rng = random.Random(seed)
    bots = [bot_for(names[s % len(names)]) for s in range(players)]
    check(st)
    while GAME.result(st) is None:
        seat = st["night"]
        legal = GAME.legal_actions(st, seat)
        action = bots[seat](GAME.view(st, seat), legal, rng)
        assert action in legal
        st = GAME.apply(st, seat, action)
        check(st)
    return st


LINEUPS = [
    ["random"],
    ["heuristic"],
    ["heuristic", "random"],
    ["never-swordsman", "heuristic", "never-jester"],
    ["random", "never-hound", "heuristic", "never-seer"],
]


def playouts(games: int) -> None:
    for g in range(games):
        players = 2 + g % 5
        names = ["search", "heuristic"] if g % 50 == 0 else LINEUPS[g % len(LINEUPS)]
        st = run_match(players, g, names)
        res = st["result"]
        assert res["winner"] in range(players) and not res["capped"]
        assert max(res["totals"]) >= 20


def test_300_seeded_playouts_with_every_bot_kind():
    playouts(300)


@pytest.mark.slow
def test_10000_seeded_playouts_with_every_bot_kind():
    playouts(10_000)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_state_is_json_and_replays_from_seed_and_log(players):
    st = run_match(players, 100 + players, ["heuristic", "random"])
    assert json.loads(json.dumps(st)) == st
    again = engine.replay(st["seed"], players, st["options"], st["log"])
    assert again == st
    assert (
        engine.replay(st["seed"], players, st["options"], json.loads(json.dumps(st["log"]))) == st
    )


def test_replay_matches_every_intermediate_state():
    st = GAME.new(3, 5, {})
    rng = random.Random(5)
    states = [st]
    for _ in range(60):
        if st["result"] is not None:
            break
        seat = st["night"]
        st = GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat)))
        states.append(st)
    for k, expected in enumerate(states):
        assert engine.replay(5, 3, {}, st["log"][:k]) == expected


def test_random_action_samples_only_legal_actions():
    rng = random.Random(3)
    for seed in range(40):
        st = engine.new(2 + seed % 5, seed, {})
        while st["result"] is None:
            seat = st["night"]
            action = engine.random_action(st, seat, rng)
            assert action in engine.legal_actions(st, seat)
            st = engine.apply(st, seat, action)


def test_random_action_is_uniform_over_legal_actions():
    st = engine.new(3, 2, {})
    for _ in range(12):
        st = engine.apply(st, st["night"], {"type": "draw"})
    seat = st["night"]
    legal = engine.legal_actions(st, seat)
    assert len(legal) > 3
    rng = random.Random(9)
    picks = [engine.random_action(st, seat, rng) for _ in range(300 * len(legal))]
    counts = [picks.count(a) for a in legal]
    assert min(counts) > 200 and max(counts) < 400


class _Slot(random.Random):
    """A generator whose one draw lands in the middle of slot ``i`` of ``n``."""

    def __init__(self, i: int, n: int) -> None:
        super().__init__(0)
        self.value = (i + 0.5) / n

    def random(self) -> float:
        return self.value


# what only a recorded state keeps: the log, the story's events and what each seat knows
RECORD_ONLY = {"quiet", "log", "events", "round_events", "known"}


@pytest.mark.slow
def test_fast_play_is_the_public_play_over_thousands_of_seeded_matches():
    """Quiet ``step`` with ``random_action`` against ``legal_actions`` and ``apply``: every slot of
    the draw picks the same action, both list the same legal actions, and both states agree on every
    rule fact after each move."""
    slots = 0
    for g in range(2000):
        players = 2 + g % 5
        public = engine.new(players, 9000 + g, {})
        fast = engine.new(players, 9000 + g, {}, quiet=True)
        rng = random.Random(g)
        while public["result"] is None:
            seat = public["night"]
            assert fast["night"] == seat and fast["result"] is None
            legal = engine.legal_actions(public, seat)
            assert engine.legal_actions(fast, seat) == legal
            for i, expected in enumerate(legal):
                assert engine.random_action(fast, seat, _Slot(i, len(legal))) == expected
            slots += len(legal)
            action = engine.random_action(fast, seat, rng)
            public = engine.apply(public, seat, action)
            engine.step(fast, seat, action)
            assert {k: v for k, v in fast.items() if k not in RECORD_ONLY} == {
                k: v for k, v in public.items() if k not in RECORD_ONLY
            }
        assert fast["result"] == public["result"]
    assert slots > 400_000
