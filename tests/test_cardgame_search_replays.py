"""Search bots count their work in rollouts, not seconds: a seeded bot match replays exactly.

Each match is played twice from the same seed, the second time on a clock that races ahead
(every reading 10 s after the last), as on a loaded machine; both give the same moves."""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import pytest

from companion.cardgames import get_game
from companion.cardgames.summoners.search import ENDGAME_TURNS, SEARCHED
from companion.cardgames.summoners.valuation import Eye

SEARCHED_DECISIONS = 4


def _racing_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count(step=10.0)
    for name in ("perf_counter", "monotonic", "time"):
        monkeypatch.setattr(time, name, lambda: float(next(ticks)))


def _searched(game: str, view: dict[str, Any], legal: list[Any]) -> bool:
    """Whether the search bot really searches here (Age of Summoners searches its endgame)."""
    if len(legal) < 2:
        return False
    if game == "traitors-flame":
        return True
    pending = view["pending"] or {}
    return pending.get("phase") in SEARCHED and Eye(view).turns_left <= ENDGAME_TURNS


def _play(game: str, seed: int) -> list[tuple[int, Any]]:
    """A 2-seat match of search bots until it has searched a few times; the moves played."""
    g = get_game(game)
    bot = g.bots()["search"]
    rng = random.Random(f"search-replay:{seed}")
    state = g.new(2, seed, {})
    searched = 0
    while searched < SEARCHED_DECISIONS and g.result(state) is None:
        seat = next(s for s in range(2) if g.legal_actions(state, s))
        legal = g.legal_actions(state, seat)
        view = g.view(state, seat)
        searched += _searched(game, view, legal)
        state = g.apply(state, seat, bot(view, legal, rng))
    assert searched == SEARCHED_DECISIONS
    return g.log(state)


@pytest.mark.parametrize("game", ["traitors-flame", "age-of-summoners"])
def test_a_seeded_search_match_replays_on_any_clock(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calm = _play(game, 3)
    _racing_clock(monkeypatch)
    assert _play(game, 3) == calm
