"""Traitor's Flame: views never leak another seat's non-Flame cards (no id, and whole views the same
whichever hidden card lies where); refused actions change nothing."""

from __future__ import annotations

import copy
import json
import random

import pytest

from companion.cardgames import CardGameRuleError, get_game
from companion.cardgames.traitors_flame import engine
from companion.cardgames.traitors_flame.moves import FLAMES, KIND
from companion.cardgames.traitors_flame.scenario import make_state

GAME = get_game("traitors-flame")


def texts(view: dict) -> tuple[str, str]:
    return json.dumps(view), json.dumps(view, ensure_ascii=False)


class Witness:
    """Tracks, independently of the engine, every card a seat could know this round."""

    def __init__(self, players: int) -> None:
        self.round = 0
        self.known: list[set[str]] = [set() for _ in range(players)]

    def before(self, st: dict, seat: int, action: dict) -> None:
        if st["round"] != self.round:
            self.round, self.known = st["round"], [set() for _ in self.known]
        kind = KIND[action["card"]] if action["type"] == "play" else None
        for block in kind["effect"] if kind else []:
            if block["block"] == "LOOK_HAND" and action.get("target") is not None:
                self.known[seat] |= set(st["hands"][action["target"]])
            if block["block"] == "PEEK":
                self.known[seat] |= set(st["deck"][-block["n"] :])

    def after(self, st: dict) -> None:
        if st["round"] != self.round:
            self.round, self.known = st["round"], [set() for _ in self.known]
        for seat, hand in enumerate(st["hands"]):
            self.known[seat] |= set(hand)

    def check(self, st: dict) -> None:
        for seat in range(st["players"]):
            ascii_text, _ = texts(GAME.view(st, seat))
            for other, hand in enumerate(st["hands"]):
                for card in hand:
                    if other == seat or card in FLAMES or card in self.known[seat]:
                        continue
                    assert f'"{card}"' not in ascii_text, (seat, card)
        spectator, _ = texts(GAME.view(st, None))
        for hand in st["hands"]:
            for card in hand:
                if card not in FLAMES:
                    assert f'"{card}"' not in spectator, card


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_views_hide_other_hands_throughout_random_matches(players):
    for seed in range(24 // players + 4):
        st = GAME.new(players, seed, {})
        rng = random.Random(seed)
        witness = Witness(players)
        witness.after(st)
        while st["result"] is None:
            seat = st["night"]
            action = rng.choice(GAME.legal_actions(st, seat))
            witness.before(st, seat, action)
            st = GAME.apply(st, seat, action)
            witness.after(st)
            witness.check(st)


def _blind_twin(st: dict, witness: Witness, rng: random.Random) -> tuple[dict, list] | None:
    """A copy of ``st`` in which a card of one hand and a card of the deck, of different kinds
    and neither a Flame, trade places; with the viewers who know neither card (the spectator
    among them): to them the two states must look the same."""
    holders = [s for s, hand in enumerate(st["hands"]) if any(c not in FLAMES for c in hand)]
    deck = [j for j, c in enumerate(st["deck"]) if c not in FLAMES]
    if not holders or not deck:
        return None
    owner = rng.choice(holders)
    i = rng.choice([i for i, c in enumerate(st["hands"][owner]) if c not in FLAMES])
    card = st["hands"][owner][i]
    deck = [j for j in deck if KIND[st["deck"][j]]["id"] != KIND[card]["id"]]
    if not deck:
        return None
    j = rng.choice(deck)
    twin = copy.deepcopy(st)
    twin["hands"][owner][i], twin["deck"][j] = st["deck"][j], card
    moved = {card, st["deck"][j]}
    blind = [None] + [
        s for s in range(st["players"]) if s != owner and not moved & witness.known[s]
    ]
    return twin, blind


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_view_is_the_same_whatever_hidden_card_lies_where(players):
    """Whole views, not only ids and names: a seat that knows neither of two hidden cards sees
    the same view whichever of them lies in the hand and which in the deck (a kind, a value or
    a count that leaked would show); the hand's owner sees the difference."""
    compared = told = 0
    for seed in range(6):
        st = GAME.new(players, 50 + seed, {})
        rng = random.Random(seed)
        witness = Witness(players)
        witness.after(st)
        while st["result"] is None:
            found = _blind_twin(st, witness, rng)
            if found is not None:
                twin, blind = found
                for seat in blind:
                    assert GAME.view(twin, seat) == GAME.view(st, seat), (seed, seat)
                    compared += 1
                for seat in set(range(players)) - set(blind):
                    told += GAME.view(twin, seat) != GAME.view(st, seat)
            seat = st["night"]
            action = rng.choice(GAME.legal_actions(st, seat))
            witness.before(st, seat, action)
            st = GAME.apply(st, seat, action)
            witness.after(st)
    assert compared > 200 and told > 50, (compared, told)


def test_view_holds_no_secrets_of_the_server():
    st = GAME.new(3, 1, {})
    view = GAME.view(st, 0)
    assert not {"seed", "rng", "log", "deck_order"} & set(view)
    assert "deck" in view and set(view["deck"]) == {"count", "top_is_flame", "flames"}


def test_view_shows_what_the_table_needs():
    st = make_state(3, hands=[["jester", "flame"], ["flame", "saint"], []], dawn=2)
    view = GAME.view(st, 0)
    assert view["current"] == 0 and view["night"] == 0 and view["dawn"] == 2
    assert view["hands"][1] == {
        "seat": 1,
        "count": 2,
        "flames": 1,
        "night": False,
        "dawn": False,
        "total": 0,
        "at_risk": False,
        "known": [],
    }
    assert [c["id"] for c in view["hands"][0]["cards"]] == ["jester-1", "flame-01"]
    jester = {"id": "jester-1", "kind": "jester", "colour": "white", "value": -2, "usable": True}
    assert view["hands"][0]["cards"][0] == jester  # names and texts are the board's card data
    worth = sum(KIND[c]["value"] for c in ("jester-1", "flame-01", "night"))
    assert view["hands"][0]["worth"] == worth
    assert "worth" not in view["hands"][1]
    assert view["next"] == {"seat": 1, "skipped": None} and view["order"] == [0, 1, 2]
    skipping = GAME.view({**st, "skip": True, "direction": -1}, None)
    assert skipping["next"] == {"seat": 1, "skipped": 2} and skipping["order"] == [0, 2, 1]
    assert view["pending"]["actions"] == GAME.legal_actions(st, 0)
    assert GAME.view(st, 1)["pending"] is None and GAME.view(st, None)["pending"] is None
    assert view["deck"]["flames"] == 12 and view["direction"] == 1


def test_the_view_says_what_each_legal_play_would_do():
    st = make_state(3, hands=[["hound", "queen"], ["flame", "flame", "spy"], ["spy"]], night=0)
    pending = GAME.view(st, 0)["pending"]
    actions, outcomes = pending["actions"], pending["outcomes"]
    assert len(outcomes) == len(actions) and outcomes[actions.index({"type": "draw"})] == []
    both = {"type": "play", "card": "hound-1", "target": 1, "give": "queen-1"}
    steps = [{"block": "TAKE", "take": "flame"}, {"block": "GIVE", "card": "queen-1"}]
    assert outcomes[actions.index(both)] == steps
    assert outcomes[actions.index({"type": "play", "card": "hound-1", "target": 2})] == []


def test_private_event_details_reach_only_their_seats():
    st = make_state(3, hands=[["cupbearer", "right-hand"], [], []], deck=["queen"])
    st = GAME.apply(
        st, 0, {"type": "play", "card": "cupbearer-1", "target": 1, "give": "right-hand-1"}
    )
    gave = [e for e in GAME.view(st, 1)["events"] if e["type"] == "gave"]
    assert gave[0]["card"] == "right-hand-1"
    for seat in (2, None):
        gave = [e for e in GAME.view(st, seat)["events"] if e["type"] == "gave"]
        assert "card" not in gave[0] and gave[0]["flame"] is False
    assert "right-hand-1" not in json.dumps(GAME.view(st, 2))


def test_others_forget_a_hand_they_saw_once_a_hidden_card_leaves_it():
    hands = [["spy"], ["cupbearer", "saint", "queen"], ["swordsman"]]
    st = make_state(3, hands=hands, deck=["spy", "right-hand", "seer"])
    st = GAME.apply(st, 0, {"type": "play", "card": "spy-1", "target": 1})
    assert {c["id"] for c in GAME.view(st, 0)["hands"][1]["known"]} == {
        "cupbearer-1",
        "saint-1",
        "queen-1",
    }
    st = GAME.apply(st, 1, {"type": "play", "card": "cupbearer-1", "target": 2, "give": "saint-1"})
    assert GAME.view(st, 0)["hands"][1]["known"] == []  # which card went is unknown to seat 0


def test_peeked_cards_stay_known_to_the_peeker_only():
    st = make_state(3, hands=[["seer"], [], []], deck=["spy", "flame", "queen"])
    st = GAME.apply(st, 0, {"type": "play", "card": "seer-1"})
    assert [k["card"]["id"] for k in GAME.view(st, 0)["known_deck"]] == ["flame-01", "spy-1"]
    assert GAME.view(st, 1)["known_deck"] == []
    st = GAME.apply(st, 1, {"type": "draw"})  # seat 1 draws the Flame seat 0 saw
    assert GAME.view(st, 0)["known_deck"][-1]["position"] == len(st["deck"]) - 1


# --- refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "action", "code"),
    [
        (1, {"type": "draw"}, "not-your-turn"),
        (7, {"type": "draw"}, "bad-seat"),
        (False, {"type": "draw"}, "bad-seat"),
        (0, {"type": "pass"}, "unknown-action"),
        (0, {"type": "draw", "extra": 1}, "bad-choice"),
        (0, {"type": "play", "card": "spy-3"}, "card-not-in-hand"),
        (0, {"type": "play", "card": "saint-1"}, "card-unusable"),
        (0, {"type": "play", "card": "flame-01"}, "card-unusable"),
        (0, {"type": "play", "card": "cupbearer-1", "target": 0}, "bad-target"),
        (0, {"type": "play", "card": "cupbearer-1", "target": 5}, "bad-target"),
        (0, {"type": "play", "card": "swordsman-1", "target": 1, "take": "flame"}, "bad-choice"),
        (0, {"type": "play", "card": "cupbearer-1", "target": 1, "give": "flame-01"}, "bad-choice"),
        (0, {"type": "play", "card": "cupbearer-1", "target": 1}, "bad-choice"),
        (0, "draw", "unknown-action"),
    ],
)
def test_illegal_actions_are_refused_and_change_nothing(seat, action, code):
    hands = [["cupbearer", "swordsman", "saint", "flame"], ["queen"], []]
    st = make_state(3, hands=hands)
    before = copy.deepcopy(st)
    with pytest.raises(CardGameRuleError) as err:
        GAME.apply(st, seat, action)
    assert err.value.code == code and str(err.value)
    assert st == before


def test_a_finished_match_refuses_everything():
    st = make_state(2, hands=[[], ["flame"] * 3], deck=["spy"], totals=[0, 15])
    st = GAME.apply(st, 0, {"type": "draw"})
    assert GAME.result(st) is not None
    with pytest.raises(CardGameRuleError) as err:
        GAME.apply(st, st["night"], {"type": "draw"})
    assert err.value.code == "match-over"


def test_apply_never_mutates_its_input():
    st = GAME.new(4, 8, {})
    rng = random.Random(8)
    for _ in range(80):
        if st["result"] is not None:
            break
        frozen = json.dumps(st, sort_keys=True)
        seat = st["night"]
        nxt = GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat)))
        assert json.dumps(st, sort_keys=True) == frozen
        st = nxt


def test_bad_player_counts_are_refused():
    for players in (1, 7, "3"):
        with pytest.raises(CardGameRuleError):
            engine.new(players, 1, {})  # type: ignore[arg-type]
