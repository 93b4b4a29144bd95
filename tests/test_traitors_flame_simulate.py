"""Traitor's Flame simulation report, its table, and the event sentences of the game log."""

from __future__ import annotations

import json
import random
import re

import pytest
from flask_babel import force_locale

from companion.cardgames import get_game
from companion.cardgames.traitors_flame.scenario import make_state
from companion.cardgames.traitors_flame.simulate import (
    bot_names,
    format_table,
    never_plays,
    simulate,
)
from companion.web.boards.traitors_flame import describe

GAME = get_game("traitors-flame")


def test_report_has_the_figures_of_the_brief():
    report = simulate(30, 3, "heuristic,random", seed=1)
    assert json.loads(json.dumps(report)) == report
    assert report["games"] == 30 and report["capped"] == []
    assert report["rounds_per_game"] >= 1
    assert set(report["turns_per_round"]) == {"mean", "median"}
    assert report["ended_by"]["flame"] + report["ended_by"]["deck"] == pytest.approx(1)
    assert sum(report["win_rate_by_seat"]) == pytest.approx(1)
    assert sum(report["win_rate_by_offset_from_first"]) == pytest.approx(1)
    assert report["first_player_win_rate"] == report["win_rate_by_offset_from_first"][0]
    assert set(report["win_rate_by_bot"]) == {"heuristic", "random"}
    swordsman = report["kinds"]["swordsman"]
    assert 0 <= swordsman["play_rate"]["heuristic"] <= 1
    assert "play_rate" not in report["kinds"]["saint"]
    assert report["kinds"]["flame"]["held_per_round"] > 0


def test_simulate_is_deterministic_for_a_seed():
    assert simulate(10, 4, ["heuristic"], seed=3) == simulate(10, 4, ["heuristic"], seed=3)


def test_format_table_shows_every_kind():
    table = format_table(simulate(10, 2, "random", seed=2))
    assert "rounds/game" in table and "swordsman" in table and "queen" in table


def test_unknown_bots_are_refused():
    assert bot_names("random, never-jester") == ["random", "never-jester"]
    with pytest.raises(ValueError):
        bot_names("random,cheater")
    with pytest.raises(ValueError):
        bot_names("never-saint")  # the Saint cannot be played anyway


def test_never_plays_reports_every_usable_kind():
    gaps = never_plays(4, 2, seed=1)
    assert all(-0.5 <= gap <= 0.5 for gap in gaps.values())  # a win rate, less 1/2
    assert set(gaps) == {
        "cupbearer",
        "swordsman",
        "hound",
        "seer",
        "spy",
        "archivist",
        "jester",
        "bellringer",
        "pilgrim",
    }


def test_a_never_bot_never_plays_its_kind():
    report = simulate(6, 3, "never-swordsman,heuristic", seed=2)
    rates = report["kinds"]["swordsman"]["play_rate"]
    assert rates["never-swordsman"] == 0 and rates["heuristic"] > 0


def test_simulate_with_the_search_bot_uses_views():
    report = simulate(1, 2, "search,heuristic", seed=4, search_rollouts=12)
    assert report["games"] == 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_event_reads_as_a_sentence(app, lang):
    st = make_state(3, hands=[["cupbearer", "right-hand"], ["flame"] * 3, []], deck=["spy"])
    st = GAME.apply(
        st, 0, {"type": "play", "card": "cupbearer-1", "target": 2, "give": "right-hand-1"}
    )
    for seat in (0, 1, 2, None):
        for event in GAME.view(st, seat)["events"] + [e for e in st["events"]]:
            with app.test_request_context(), force_locale(lang):
                sentence = describe(event)
            assert sentence and "{" not in sentence and event["type"] != sentence


def test_sentences_show_private_cards_only_when_the_view_has_them(app):
    st = make_state(3, hands=[["cupbearer", "right-hand"], [], []], deck=["spy"])
    st = GAME.apply(
        st, 0, {"type": "play", "card": "cupbearer-1", "target": 2, "give": "right-hand-1"}
    )
    log = {seat: [describe(e) for e in GAME.view(st, seat)["events"]] for seat in (1, 2)}
    assert "Seat 1 gave The King's Right Hand to Seat 3." in log[2]
    assert "Seat 1 gave a non-Flame card to Seat 3." in log[1]
    with app.test_request_context(), force_locale("ja"):
        ja = [describe(e, names=["アン", "ベン", "カイ"]) for e in GAME.view(st, 2)["events"]]
    assert "アンがカイに「王の右手」を渡した。" in ja


def test_every_log_line_of_random_matches_is_japanese_in_japanese(app):
    """Names, cards and numbers in Japanese sentences, with full-width brackets, in every
    event random matches produce (the public log and a seat's own)."""
    names = ["アン", "ベン", "カイ", "ダナ"]
    types = set()
    with app.test_request_context(), force_locale("ja"):
        for seed in range(6):
            rng = random.Random(seed)
            st = GAME.new(4, seed, {})
            while GAME.result(st) is None:
                seat, legal = next((p, a) for p in range(4) if (a := GAME.legal_actions(st, p)))
                st = GAME.apply(st, seat, rng.choice(legal))
            for viewer in (None, 0):
                for event in GAME.view(st, viewer)["events"]:
                    types.add(event["type"])
                    line = describe(event, names)
                    assert line and not re.search(r"[()A-Za-z{}]", line), (event, line)
    assert {"played", "drew", "round-ended"} <= types


def test_the_round_end_sentence_says_how_many_flames_the_engine_ends_a_round_on(app, monkeypatch):
    from companion.cardgames.traitors_flame import engine

    monkeypatch.setattr(engine, "FLAME_END", 4)
    st = make_state(2, hands=[[], ["flame"] * 4], deck=["spy"], totals=[0, 15])
    st = GAME.apply(st, 0, {"type": "draw"})
    ended = [e for e in GAME.view(st, None)["events"] if e["type"] == "round-ended"]
    with app.test_request_context(), force_locale("en"):
        assert "(Night reached 4 Flames); Seat 2 ended it" in describe(ended[0])
    with app.test_request_context(), force_locale("ja"):
        assert "炎4枚に「夜」が到達" in describe(ended[0])
