"""Age of Summoners: the bots choose legal actions from the view; the simulator reports."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.cardgames.summoners import GAME, search
from companion.cardgames.summoners.scoring import final_result
from companion.cardgames.summoners.simulate import format_table, play_match, simulate
from companion.cardgames.summoners.view import view


def test_every_bot_returns_a_listed_action() -> None:
    rng = random.Random(1)
    for name, bot in GAME.bots().items():
        s = GAME.new(3, 11, {})
        for _ in range(60 if name == "search" else 250):
            if GAME.result(s) is not None:
                break
            seat = s["await"]["seat"]
            legal = GAME.legal_actions(s, seat)
            action = bot(view(s, seat), legal, rng)
            assert action in legal, (name, action)
            s = GAME.apply(s, seat, action)


def test_heuristic_beats_random_heads_up() -> None:
    wins = 0
    for seed in range(20):
        bots = ["heuristic", "random"] if seed % 2 == 0 else ["random", "heuristic"]
        s = play_match(2, seed, bots)
        wins += bots[final_result(s)["winner"]] == "heuristic"
    assert wins >= 18


def test_search_bot_spends_at_most_its_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search's work is a count (its time is measured by bench/bench_summoners.py)."""
    calls: list[int] = []
    real = search.rollout

    def counted(*args: Any, **kwargs: Any) -> None:
        calls[-1] += 1
        real(*args, **kwargs)

    monkeypatch.setattr(search, "rollout", counted)
    rng = random.Random(2)
    s = GAME.new(4, 21, {})
    while GAME.result(s) is None and len(calls) < 6:
        seat = s["await"]["seat"]
        legal = GAME.legal_actions(s, seat)
        v = view(s, seat)
        late = max(p["vp"] for p in s["seats"]) >= 20
        if late and s["await"]["phase"] in ("play", "main") and len(legal) > 1:
            calls.append(0)
            assert GAME.bots()["search"](v, legal, rng) in legal
        s = GAME.apply(s, seat, GAME.bots()["heuristic"](v, legal, rng))
    assert calls and max(calls) <= search.ROLLOUTS and any(calls)


def test_simulate_reports_the_brief_figures() -> None:
    report = simulate(6, 3, ["heuristic", "random"], seed=5)
    assert report["games"] == 6 and len(report["seat_win"]) == 3
    assert abs(sum(report["seat_win"]) - 1) < 1e-9
    assert set(report["choice_share"]) == {
        "summon", "conquest", "research", "alchemy", "prayer", "festival", "inquisition",
        "pilgrimage",
    }  # fmt: skip
    assert len(report["kinds"]) == 30 and set(report["bot_win"]) == {"heuristic", "random"}
    table = format_table(report)
    assert "Phase II choices" in table and "gargoyle" in table


def test_heuristic_declares_with_a_smaller_lead_once_a_match_runs_long() -> None:
    from companion.cardgames.summoners.bots import LONG_MATCH, score_declare
    from companion.cardgames.summoners.scenario import arrange
    from companion.cardgames.summoners.valuation import Eye

    s = GAME.new(3, 4, {"start": 0, "catch_up": False})
    for seat, vp in enumerate((33, 30, 30)):
        arrange(s, seat, spirits=[], vp=vp)
    declare, keep_going = {"type": "declare"}, {"type": "pass"}
    for turns, wanted in ((LONG_MATCH - 6, keep_going), (LONG_MATCH + 4, declare)):
        for p in s["seats"]:
            p["turns"] = turns
        eye = Eye(view(s, 0))
        best = max((declare, keep_going), key=lambda a: score_declare(eye, a))
        assert best == wanted, turns


def test_heuristic_spends_any_mana_once_the_supply_runs_dry() -> None:
    """A payment is worth spending out of a short row only when the deck nearly ran out."""
    from companion.cardgames.summoners.scenario import arrange
    from companion.cardgames.summoners.valuation import Eye

    s = GAME.new(4, 7, {"start": 0})
    arrange(s, 0, mana=["selkie", "selkie", "kelpie", "amabie"], stones=[])
    assert Eye(view(s, 0)).relief(2) == 0.0
    s["seats"][1]["hand"].extend(s["deck"][10:])
    del s["deck"][10:]
    eye = Eye(view(s, 0))
    assert eye.laps_of_supply() < eye.K["relief_dry"]
    assert eye.relief(2) == pytest.approx(2 * eye.K["relief"])
