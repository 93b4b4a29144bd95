"""Traitor's Flame replays bit for bit: digests of seeded random play pinned against the engine.

A stored match replays from its seed and action list, so any change to states, views, legal
actions, events, results or the draws taken from the seeded generator must change
``engine_version``. These digests catch such a change (the rules code may get faster, never
different); update them only together with ``ENGINE_VERSION``, or when a view gains a key (a
new digest taken on the code that still gives the old one, so that nothing else changed).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from companion.cardgames.traitors_flame import GAME, engine
from companion.cardgames.traitors_flame.search import search_bot
from companion.cardgames.traitors_flame.simulate import simulate
from companion.cardgames.traitors_flame.view import observe


def _feed(h: Any, value: Any) -> None:
    h.update(json.dumps(value, sort_keys=True).encode())


def api_digest(games: int, version: int) -> str:
    """Every state, legal-action list and seat view along seeded random matches via ``GAME``."""
    h = hashlib.sha256()
    for g in range(games):
        players = 2 + g % 5
        st = GAME.new(players, 1000 + g, {"max_rounds": 100} if g % 3 else {}, version)
        rng = random.Random(g)
        _feed(h, st)
        while GAME.result(st) is None:
            seat = st["night"]
            legal = GAME.legal_actions(st, seat)
            _feed(h, legal)
            _feed(h, [GAME.view(st, s) for s in (None, *range(players))])  # whole views
            st = GAME.apply(st, seat, rng.choice(legal))
            _feed(h, st)
        _feed(h, [GAME.log(st), GAME.result(st), GAME.standings(st)])
    return h.hexdigest()


def step_digest(games: int, version: int) -> str:
    """Every quiet state along seeded ``random_action`` playouts through ``step``."""
    h = hashlib.sha256()
    for g in range(games):
        st = engine.new(2 + g % 5, 5000 + g, {}, quiet=True, version=version)
        rng = random.Random(g)
        while st["result"] is None:
            seat = st["night"]
            action = engine.random_action(st, seat, rng)
            _feed(h, action)
            engine.step(st, seat, action)
            _feed(h, st)
    return h.hexdigest()


def bots_digest() -> str:
    """Heuristic matches (quiet ``step``) and search decisions (rollouts on sampled worlds)."""
    h = hashlib.sha256()
    for players in (2, 4, 6):
        _feed(h, simulate(6, players, ["heuristic", "random"], seed=players))
    rng = random.Random(3)
    for players in (2, 3, 5):
        st = engine.new(players, 70 + players, {})
        for _ in range(12):
            seat = st["night"]
            legal = engine.legal_actions(st, seat)
            action = search_bot(GAME.view(st, seat), legal, rng, rollouts=8)
            _feed(h, [action, observe(st, seat)])
            st = engine.apply(st, seat, action)
            if st["result"] is not None:
                break
    _feed(h, rng.random())
    return h.hexdigest()


# Per engine version: version 1's are those taken before version 2 existed (its matches replay
# from the seed as they always did); version 2 records its chance and burns no draw.
API_DIGESTS = {
    1: "758633185490fd39a1c905952fae4d89169a4aa1b4ecb5140889d5139c637001",
    2: "62839c25d80569c58bb6cccebfda33d83d92488f2f181bf723f3f09d59ce75f1",
}
STEP_DIGESTS = {
    1: "ebf42a44406e7ad554771f7f62e65c5d2ed76af38765b294b59c47a85e20ee2d",
    2: "9fcdc5a4e7ddb7c5e9771a02285df432c74a3b9adfde2c4991ae0f4f000ec19f",
}


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
def test_public_api_play_is_unchanged(version: int) -> None:
    assert tuple(GAME.versions) == tuple(API_DIGESTS), "a new engine version needs a new digest"
    assert api_digest(24, version) == API_DIGESTS[version]


@pytest.mark.parametrize("version", [1, 2])
def test_quiet_random_playouts_are_unchanged(version: int) -> None:
    assert tuple(GAME.versions) == tuple(STEP_DIGESTS), "a new engine version needs a new digest"
    assert step_digest(150, version) == STEP_DIGESTS[version]


def test_bot_play_is_unchanged() -> None:
    """Simulations and the bots play the current version (taken anew with version 2)."""
    assert bots_digest() == "7c0ad1b41292df92cf6ab20e8669ca2fc5d1058e5a7a2e67b6276ece237fbdcd"


class _Fixed(random.Random):
    """A generator whose one draw lands in the middle of slot ``i`` of ``n``."""

    def __init__(self, i: int, n: int) -> None:
        super().__init__(0)
        self.value = (i + 0.5) / n

    def random(self) -> float:
        return self.value


def test_random_action_picks_each_legal_action_by_its_slot() -> None:
    """``random_action`` maps the draw onto ``legal_actions`` in order, for every slot."""
    checked = 0
    for g in range(30):
        players = 2 + g % 5
        st = engine.new(players, 300 + g, {})
        rng = random.Random(g)
        while st["result"] is None:
            seat = st["night"]
            legal = engine.legal_actions(st, seat)
            for i in range(len(legal)):
                assert engine.random_action(st, seat, _Fixed(i, len(legal))) == legal[i]
            checked += len(legal)
            st = engine.apply(st, seat, rng.choice(legal))
    assert checked > 5000
