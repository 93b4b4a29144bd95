"""Age of Summoners: the bots' score of a seat if the match ended now is the engine's own score,
read from what a seat's view shows, at every turn of seeded random matches."""

from __future__ import annotations

import random

from companion.cardgames.summoners.engine import new, step
from companion.cardgames.summoners.playout import random_action
from companion.cardgames.summoners.scoring import score_seat
from companion.cardgames.summoners.valuation import projected_score
from companion.cardgames.summoners.view import view


def test_the_bots_projected_score_is_the_engines_score() -> None:
    scored = abilities = 0
    for seed in range(24):
        players = 2 + seed % 3
        s = new(players, seed, {})
        rng = random.Random(seed)
        while (ctx := s["await"]) is not None:
            if ctx["phase"] == "main":
                for watcher in (None, ctx["seat"]):
                    for seen in view(s, watcher)["seats"]:
                        score = score_seat(s, seen["seat"])
                        assert projected_score(seen) == score["total"], (seed, seen["seat"])
                        scored += 1
                        abilities += sum(score["abilities"].values()) > 0
            step(s, ctx["seat"], random_action(s, ctx["seat"], rng))
    assert scored > 2000
    assert abilities > 200  # game-end abilities scored often, not just chips and points
