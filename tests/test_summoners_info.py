"""Age of Summoners: hidden information (4.6, D21), refused actions, replay and events in words."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from summoners_helpers import speaking

from companion.cardgames import CardGameRuleError, get_game
from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.bots import random_bot
from companion.cardgames.summoners.cards import kind_of_card
from companion.cardgames.summoners.engine import replay
from companion.cardgames.summoners.view import view
from companion.web.boards.summoners.log import describe

State = dict[str, Any]


def random_states(games: int, seed: int = 0) -> list[State]:
    """States met along random matches (every step), through the public apply."""
    states = []
    for g in range(games):
        rng = random.Random(seed + g)
        s = GAME.new(2 + g % 3, seed + g, {})
        while GAME.result(s) is None:
            states.append(s)
            seat = s["await"]["seat"]
            s = GAME.apply(s, seat, random_bot({}, GAME.legal_actions(s, seat), rng))
        states.append(s)
    return states


@pytest.fixture(scope="module")
def states() -> list[State]:
    return random_states(12)


def hidden_from(s: State, seat: int | None) -> list[str]:
    """Card ids ``seat`` may not see: other hands, every stone, deck, discard, others' refill."""
    hidden = list(s["deck"]) + list(s["discard"])
    for i, p in enumerate(s["seats"]):
        hidden += p["stones"]
        if i != seat:
            hidden += p["hand"]
    if s["turn"].get("seat") != seat:
        hidden += s["turn"].get("drawn", [])
    return hidden


def _no_leaks(states: list[State]) -> None:
    for s in states:
        for seat in [None, *range(s["players"])]:
            text = json.dumps(view(s, seat), ensure_ascii=False)
            leaks = [c for c in hidden_from(s, seat) if f'"{c}"' in text]
            assert not leaks, (seat, leaks)


def test_views_never_show_hidden_card_ids(states: list[State]) -> None:
    _no_leaks(states[::5])


def _in_play(s: State) -> str:
    """What the turn, the wait and the steps to come hold: cards someone is being shown."""
    return json.dumps([s["turn"], s["await"], s["todo"]])


def _twins(s: State, rng: random.Random) -> list[tuple[State, list[int | None]]]:
    """Copies of ``s`` that differ in where two hidden cards of different kinds lie, each with the
    viewers who may not tell the two apart: a hand card swapped with a deck card (every viewer but
    the hand's owner), a stone or a discarded card swapped with a deck card (every viewer)."""
    kind = kind_of_card()
    shown = _in_play(s)
    everyone: list[int | None] = [None, *range(s["players"])]

    def swap(place: list[str], owner: int | None) -> tuple[State, list[int | None]] | None:
        twin = copy.deepcopy(s)
        ours = [i for i, c in enumerate(place) if f'"{c}"' not in shown]
        if not ours or not s["deck"]:
            return None
        i = rng.choice(ours)
        others = [j for j, c in enumerate(s["deck"]) if kind[c] != kind[place[i]]]
        if not others:
            return None
        j = rng.choice(others)
        target = twin["deck"] if place is s["deck"] else _same_place(twin, s, place)
        target[i], twin["deck"][j] = s["deck"][j], place[i]
        return twin, [v for v in everyone if v != owner]

    found = [swap(s["discard"], None)]
    for seat, p in enumerate(s["seats"]):
        found += [swap(p["hand"], seat), swap(p["stones"], None)]
    return [f for f in found if f is not None]


def _same_place(twin: State, s: State, place: list[str]) -> list[str]:
    if place is s["discard"]:
        return twin["discard"]
    for seat, p in enumerate(s["seats"]):
        for key in ("hand", "stones"):
            if p[key] is place:
                return twin["seats"][seat][key]
    raise AssertionError("not a place of the state")


def test_a_view_is_the_same_whatever_hidden_card_lies_where(states: list[State]) -> None:
    """Whole views, not only card ids: two states that differ only in where hidden cards lie
    look the same to every viewer who may not see them (a kind, a count or an order that
    leaked would show), and the hand's owner does see the difference."""
    rng = random.Random(4)
    compared = told = 0
    for s in states[::10]:
        for twin, blind in _twins(s, rng):
            for seat in blind:
                assert view(twin, seat) == view(s, seat), (seat, s["turn_number"])
                compared += 1
            for seat in set(range(s["players"])) - set(blind):
                assert view(twin, seat) != view(s, seat)
                told += 1
    assert compared > 300 and told > 30, (compared, told)


@pytest.mark.slow
def test_views_never_show_hidden_card_ids_at_any_step() -> None:
    _no_leaks(random_states(60, seed=1000))


def test_own_hand_is_shown_and_stones_are_counts_even_for_the_owner(states: list[State]) -> None:
    s = states[40]
    for seat in range(s["players"]):
        v = view(s, seat)
        mine = v["seats"][seat]
        assert [c["id"] for c in mine["hand"]] == s["seats"][seat]["hand"]
        assert all(p["hand"] is None for p in v["seats"] if p["seat"] != seat)
        assert all(isinstance(p["stones"], int) for p in v["seats"])


def test_private_event_parts_reach_only_their_seats(states: list[State]) -> None:
    s = states[-1]
    for seat in [None, *range(s["players"])]:
        shown = view(s, seat)["events"]
        for raw, seen in zip(s["events"], shown, strict=True):
            private = raw.get("private")
            assert "private" not in seen
            if private and seat not in private["seats"]:
                assert set(seen) == set(raw) - {"private"}


def running(states: list[State]) -> list[State]:
    return [s for s in states if s["await"] is not None]


def test_pending_choices_go_to_the_right_seat_only(states: list[State]) -> None:
    for s in running(states)[::7]:
        waiting = s["await"]["seat"]
        for seat in range(s["players"]):
            legal = GAME.legal_actions(s, seat)
            pending = view(s, seat)["pending"]
            assert bool(legal) == (seat == waiting) == (pending is not None)
            if pending:
                assert pending["actions"] == legal


def test_views_and_states_are_json(states: list[State]) -> None:
    for s in states[::25]:
        assert json.loads(json.dumps(s)) == s
        json.dumps(view(s, None))


def _unchanged(s: State, seat: int, action: Any, code: str) -> None:
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(CardGameRuleError) as err:
        GAME.apply(s, seat, action)
    assert err.value.code == code, err.value
    assert json.dumps(s, sort_keys=True) == before


def test_illegal_actions_are_refused_and_change_nothing(states: list[State]) -> None:
    for s in running(states)[::11]:
        seat = s["await"]["seat"]
        other = (seat + 1) % s["players"]
        legal = GAME.legal_actions(s, seat)
        _unchanged(s, other, legal[0], "not-your-turn")
        _unchanged(s, seat, {"type": "teleport"}, "unknown-action")
        weird = {"type": "pay", "pay": {1: 2, "red": [1]}}
        _unchanged(s, seat, weird, "cannot-pay" if legal[0]["type"] == "pay" else "unknown-action")
        _unchanged(s, seat, "play", "unknown-action")
        if s["seats"][other]["hand"]:
            stranger = s["seats"][other]["hand"][0]
            playing = any(a["type"] == "play" for a in legal)
            code = "card-not-in-hand" if playing else "unknown-action"
            _unchanged(s, seat, {"type": "play", "card": stranger}, code)
    finished = states[-1]
    _unchanged(finished, 0, {"type": "pass"}, "match-over")


def test_a_bad_payment_is_refused() -> None:
    for s in random_states(6, seed=50):
        if s["await"] and s["await"]["phase"] == "pay":
            _unchanged(s, s["await"]["seat"], {"type": "pay", "pay": {"stone": 99}}, "cannot-pay")
            return
    pytest.skip("no payment choice met")


def test_apply_never_mutates_its_input() -> None:
    rng = random.Random(3)
    s = GAME.new(3, 3, {})
    for _ in range(80):
        seat = s["await"]["seat"]
        before = json.dumps(s, sort_keys=True)
        nxt = GAME.apply(s, seat, random_bot({}, GAME.legal_actions(s, seat), rng))
        assert json.dumps(s, sort_keys=True) == before
        s = nxt


def test_replay_equals_the_state(states: list[State]) -> None:
    for s in (states[-1], states[len(states) // 2]):
        again = replay(s["seed"], s["players"], s["options"], s["log"])
        assert again == s
    assert get_game("age-of-summoners") is GAME


def test_every_event_has_a_sentence_in_both_languages(states: list[State]) -> None:
    types = set()
    for s in states[-1:]:
        for seat in (None, 0):
            for event in view(s, seat)["events"]:
                types.add(event["type"])
                for lang in ("en", "ja"):
                    with speaking(lang):
                        text = describe(event)
                    assert text and "{" not in text and text != event["type"]
                    if lang == "ja":  # set in Japanese throughout: full-width brackets
                        assert not re.search(r"[()A-Za-z]", text), text
    assert {"setup", "turn", "command", "assisted", "game-end"} <= types


def test_game_object_shape() -> None:
    assert GAME.key == "age-of-summoners"
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    assert set(GAME.bots()) == {"random", "heuristic", "search"}
