"""Age of Summoners: set-up, Phase I (command number, pairing card) and summoning, as scenarios."""

from __future__ import annotations

import random
from typing import Any

import pytest
from summoners_helpers import State, card_of, do, kinds, printed_start, speaking

from companion.cardgames import CardGameRuleError
from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.bots import heuristic_bot
from companion.cardgames.summoners.cards import kind_of_card, number_of_action
from companion.cardgames.summoners.cards import kinds as kinds_table
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.payment import pending_payments, summon_payments
from companion.cardgames.summoners.scenario import arrange, stack_deck
from companion.cardgames.summoners.view import view
from companion.web.boards.summoners.log import describe


def start(players: int = 3, seed: int = 1) -> State:
    return printed_start(players, seed)


def play(s: State, seat: int, kind: str) -> State:
    return do(s, seat, type="play", card=card_of(s, seat, kind))


def drive_to(s: State, seat: int, phase: str = "play", limit: int = 200) -> State:
    """Let heuristic bots play until ``seat`` must choose in ``phase``."""
    rng = random.Random(0)
    for _ in range(limit):
        ctx = s["await"]
        if ctx["seat"] == seat and ctx["phase"] == phase:
            return s
        actor = ctx["seat"]
        legal = GAME.legal_actions(s, actor)
        s = GAME.apply(s, actor, heuristic_bot(view(s, actor), legal, rng))
    raise AssertionError("phase not reached")


# --- set-up (rule 2) ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_deals_six_cards_two_mana_and_one_faith(players: int) -> None:
    s = new(players, 5, {})
    assert len(s["deck"]) == 110 - 8 * players
    for p in s["seats"]:
        assert len(p["hand"]) == 6 and len(p["mana"]) == 2 and p["faith"] == 1
        assert p["pairing"] == p["mana"][1]
    assert s["await"] == {"seat": s["start"], "phase": "play"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_later_players_start_with_catch_up_chips(players: int) -> None:
    s = new(players, 5, {"start": 1, "catch_up": True})
    by_place = [s["seats"][(1 + place) % players]["vp"] for place in range(players)]
    assert by_place == [0, 2, 3, 4][:players]
    told = [(e["seat"], e["vp"]) for e in s["events"] if e["type"] == "catch-up"]
    assert told == [((1 + place) % players, place + 1) for place in range(1, players)]
    first = next(e for e in s["events"] if e["type"] == "catch-up")
    assert describe(first).endswith("starts with 2 VP.")
    with speaking("ja"):
        assert "勝利点2点" in describe(first)


@pytest.mark.parametrize("options", [{}, {"catch_up": False}])
def test_the_printed_set_up_gives_no_vp_chips(options: dict[str, Any]) -> None:
    """「各プレイヤーにサマリー１枚、信仰チップ１ポイント、山札から手札を６枚ずつ配ります」: the
    catch-up chips are a house rule, off unless a table asks for them."""
    s = new(4, 5, options)
    assert [p["vp"] for p in s["seats"]] == [0, 0, 0, 0]
    assert not [e for e in s["events"] if e["type"] == "catch-up"]
    assert {o["key"]: o["default"] for o in GAME.options}["catch_up"] is False


def test_start_player_comes_from_the_seed_or_the_options() -> None:
    starts = {new(4, seed, {})["start"] for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert new(3, 9, {"start": 2})["start"] == 2


@pytest.mark.parametrize("players", [1, 5, "3"])
def test_player_count_is_two_to_four(players: Any) -> None:
    with pytest.raises(CardGameRuleError) as err:
        new(players, 1, {})
    assert err.value.code == "bad-players"


# --- Phase I: the command number (3, 4.1) -------------------------------------------------------


def test_example_1_command_number_and_alchemy() -> None:
    s = start()
    arrange(s, 0, hand=["homunculus", "kelpie"], mana=["asmodai"])
    stack_deck(s, ["selkie", "kobold"])
    s = play(s, 0, "homunculus")
    assert s["turn"]["base"] == 5
    command = view(s, 0)["command"]
    assert command["number"] == 5 and command["pairing"]["kind"] == "asmodai"
    assert {"type": "act", "action": "alchemy", "choice": "draw"} in GAME.legal_actions(s, 0)
    s = do(s, 0, type="act", action="alchemy", choice="draw")
    me = s["seats"][0]
    assert kinds(me["hand"]) == ["kelpie", "selkie"]
    assert kinds(me["stones"]) == ["kobold"]
    assert kinds(me["mana"]) == ["asmodai", "homunculus"]
    assert s["await"]["phase"] == "keep"


def test_example_9_first_lap_pairs_and_assists() -> None:
    s = start(3, seed=4)
    second = [p["mana"][1] for p in s["seats"]]
    s = drive_to(s, 0, "keep")
    assert s["turn"]["pairing_card"] == second[0]
    assisted = s["turn"]["drawn"][1]
    s = do(s, 0, type="keep", card=s["turn"]["drawn"][0])
    assert s["seats"][2]["pairing"] == assisted and s["seats"][2]["mana"][-1] == assisted
    s = drive_to(s, 1, "main")
    assert s["turn"]["pairing_card"] == second[1]
    s = drive_to(s, 1, "keep")
    from_p2 = s["turn"]["drawn"][1]
    s = do(s, 1, type="keep", card=s["turn"]["drawn"][0])
    assert s["seats"][0]["pairing"] == from_p2
    s = drive_to(s, 2, "main")
    assert s["turn"]["pairing_card"] == assisted
    s = drive_to(s, 0, "main")
    assert s["turn"]["pairing_card"] == from_p2


def test_pairing_falls_back_to_the_rightmost_face_up_mana() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie", "asmodai"], pairing=0)
    gone = s["seats"][0]["mana"].pop(0)
    s["discard"].append(gone)
    s = play(s, 0, "kelpie")
    assert kind_of_card()[s["turn"]["pairing_card"]] == "asmodai"
    assert s["turn"]["base"] == 1 + 5


def test_no_face_up_mana_pairs_with_zero_and_stones_never_pair() -> None:
    s = start()
    arrange(s, 0, hand=["kasha"], mana=[], stones=["selkie", "amabie"], pairing=None)
    s = play(s, 0, "kasha")
    assert s["turn"]["pairing_card"] is None and s["turn"]["base"] == 3


def test_pairing_is_used_up_in_phase_one() -> None:
    s = start()
    s = play(s, 0, kinds(s["seats"][0]["hand"])[0])
    assert s["seats"][0]["pairing"] is None


def test_empty_hand_plays_the_top_card_of_the_deck() -> None:
    s = start()
    arrange(s, 0, hand=[], mana=["ankou"])
    stack_deck(s, ["selkie"])
    assert GAME.legal_actions(s, 0) == [{"type": "play-top"}]
    s = do(s, 0, type="play-top")
    assert kinds(s["seats"][0]["mana"]) == ["ankou", "selkie"]
    assert s["turn"]["base"] == 6


def test_asmodai_zeroes_only_the_card_played_from_hand() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["cerberus"], spirits=["asmodai"])
    s = play(s, 0, "kelpie")
    actions = {a.get("action") for a in GAME.legal_actions(s, 0) if a["type"] == "act"}
    assert {"inquisition", "conquest"} <= actions and "pilgrimage" not in actions
    s = do(s, 0, type="act", action="conquest", victim=None)
    event = next(e for e in reversed(s["events"]) if e["type"] == "action")
    assert event["number"] == 3 and event["via"] == "zero-played"


def test_asmodai_never_changes_the_pairing_number() -> None:
    s = start()
    arrange(s, 0, hand=["barghest"], mana=["kelpie"], spirits=["asmodai"])
    s = play(s, 0, "barghest")
    actions = {a.get("action") for a in GAME.legal_actions(s, 0) if a["type"] == "act"}
    assert actions == {"prayer", "alchemy"}


def test_sandman_shifts_the_command_number() -> None:
    shift = kinds_table()["sandman"]["ability"]["amount"]
    s = start()
    arrange(s, 0, hand=["dryad"], mana=["basilisk"], spirits=["sandman"])
    s = play(s, 0, "dryad")
    actions = {a.get("action") for a in GAME.legal_actions(s, 0) if a["type"] == "act"}
    assert actions == {number_of_action(n) for n in range(6 - shift, 7 + shift)}


# --- Phase II: summoning (4.2) ------------------------------------------------------------------


def test_example_2_stone_and_red_mana_pay_a_cost() -> None:
    cost = kinds_table()["kelpie"]["cost"]
    generic = cost.count("any")
    blues = ["selkie"] * (len(cost) - generic - 1)
    mana = [*blues, *["ankou"] * (generic - 1), "dryad"]
    s = start()
    arrange(s, 0, hand=["kelpie", "redcap"], mana=mana, stones=["amabie"])
    s = play(s, 0, "redcap")
    assert {"type": "summon", "card": card_of(s, 0, "kelpie")} in GAME.legal_actions(s, 0)
    s = do(s, 0, type="summon", card=card_of(s, 0, "kelpie"))
    assert s["await"]["phase"] == "pay"
    pay = {"blue": len(blues), "red": 1, "stone": 1, "black": generic - 1}
    pay = {k: v for k, v in pay.items() if v}
    assert {"type": "pay", "pay": pay} in GAME.legal_actions(s, 0)
    discard = len(s["discard"])
    s = do(s, 0, type="pay", pay=pay)
    me = s["seats"][0]
    assert kinds(me["spirits"]) == ["kelpie"] and me["stones"] == []
    assert kinds(me["mana"]) == ["dryad"] and len(s["discard"]) == discard + len(cost)
    assert s["await"]["phase"] == "keep"


def test_the_payments_kept_while_choosing_are_the_ones_worked_out_afresh() -> None:
    """A seat asked to pay keeps its choices in the state; at every such moment of many random
    matches (summons and paid abilities, every player count) they equal a fresh count."""
    asked = 0
    for players in (2, 3, 4):
        for seed in range(12):
            rng = random.Random(seed)
            s = new(players, seed, {})
            while s["result"] is None:
                seat = s["await"]["seat"]
                if s["await"]["phase"] == "pay":
                    kept = s["turn"]["paying"]["options"]
                    fresh = {k: v for k, v in s["turn"]["paying"].items() if k != "options"}
                    again = {**s, "turn": {**s["turn"], "paying": fresh}}
                    assert pending_payments(s, seat) == pending_payments(again, seat)
                    assert [tuple(p) for p in kept] == list(pending_payments(again, seat))
                    asked += 1
                s = GAME.apply(s, seat, rng.choice(GAME.legal_actions(s, seat)))
    assert asked > 100


def test_a_spirit_that_cannot_be_paid_is_not_offered_or_accepted() -> None:
    s = start()
    arrange(s, 0, hand=["chimera", "kelpie"], mana=["ankou"], stones=[])
    s = play(s, 0, "kelpie")
    assert not [a for a in GAME.legal_actions(s, 0) if a["type"] == "summon"]
    with pytest.raises(CardGameRuleError) as err:
        do(s, 0, type="summon", card=card_of(s, 0, "chimera"))
    assert err.value.code == "cannot-pay"


def _smallest_payment(s: State, seat: int, kind: str) -> int:
    return min(sum(p) for p in summon_payments(s, seat, kind))


def test_gargoyle_reduces_coloured_symbols_but_never_the_generic() -> None:
    cost = kinds_table()["kasha"]["cost"]
    generic = cost.count("any")
    s = start()
    arrange(s, 0, hand=["kasha"], mana=["cerberus", "redcap", "firebird", "tarasque", "ankou"])
    for gargoyles in range(4):
        arrange(s, 0, spirits=["gargoyle"] * gargoyles)
        expected = generic + max(0, len(cost) - generic - gargoyles)
        assert _smallest_payment(s, 0, "kasha") == expected


def test_giant_discount_only_without_a_giant_in_play() -> None:
    spec = kinds_table()["giant"]
    full = len(spec["cost"])
    greens = spec["cost"].count("green")
    s = start()
    # One green short of the full cost, and no stones.
    mana = ["dryad", "kodama", "brownie", "leprechaun", "baltanders"][: greens - 1] + ["ankou"]
    arrange(s, 0, hand=["giant"], mana=mana, spirits=[])
    assert _smallest_payment(s, 0, "giant") == full - spec["ability"]["amount"]
    arrange(s, 0, spirits=["giant"])
    assert not summon_payments(s, 0, "giant")
    arrange(s, 0, spirits=["giant", "gargoyle"])  # Gargoyle's own reduction still applies
    assert _smallest_payment(s, 0, "giant") == full - 1


def test_one_summon_then_the_refill() -> None:
    s = start()
    arrange(s, 0, hand=["redcap", "kasha", "amabie"], mana=["cerberus", "firebird", "kelpie"])
    s = play(s, 0, "amabie")
    s = do(s, 0, type="summon", card=card_of(s, 0, "redcap"))
    if s["await"]["phase"] == "pay":
        s = do(s, 0, **GAME.legal_actions(s, 0)[0])
    assert s["await"]["phase"] == "keep"
    assert not [a for a in GAME.legal_actions(s, 0) if a["type"] == "summon"]


def test_there_is_always_an_action_no_pass() -> None:
    for seed in range(30):
        s = new(2 + seed % 3, seed, {})
        s = drive_to(s, s["start"], "main")
        legal = GAME.legal_actions(s, s["start"])
        assert any(a["type"] == "act" for a in legal)
        assert not any(a["type"] in ("pass", "done") for a in legal)
