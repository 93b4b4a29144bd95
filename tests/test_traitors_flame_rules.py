"""Traitor's Flame: scenario tests for every rule and edge of the digest, from built states."""

from __future__ import annotations

import pytest

from companion.cardgames.traitors_flame import effects, engine, moves
from companion.cardgames.traitors_flame.cards import FLAME_TOTAL
from companion.cardgames.traitors_flame.moves import FLAMES, KIND
from companion.cardgames.traitors_flame.scenario import make_state

DRAW = {"type": "draw"}
F3 = ["flame", "flame", "flame"]


def play(st, seat, card, **choices):
    return engine.apply(st, seat, {"type": "play", "card": card, **choices})


def events(st, kind):
    return [e for e in st["events"] if e["type"] == kind]


# --- setup (2.1, 2.2) ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_new_round_deals_nothing_but_night_to_the_start_player(players):
    st = engine.new(players, 11, {})
    assert st["hands"] == [[] for _ in range(players)]
    assert st["night"] == st["first"] == st["start"] and st["dawn"] is None
    assert len(st["deck"]) == 58 and st["deck"][-1] not in FLAMES
    assert sum(c in FLAMES for c in st["deck"]) == FLAME_TOTAL
    assert st["direction"] == 1 and st["totals"] == [0] * players


def test_host_may_choose_the_start_player():
    assert engine.new(4, 1, {"start": 2})["night"] == 2


def test_reshuffles_until_no_flame_on_top():
    reshuffled = [
        s for s in range(200) if events(engine.new(2, s, {}), "round-started")[0]["shuffles"] > 1
    ]
    assert reshuffled, "some seed must need a second shuffle"
    for seed in reshuffled:
        assert engine.new(2, seed, {})["deck"][-1] not in FLAMES
    # rejection sampling: about 14/58 of first shuffles put a Flame on top
    assert 0.15 < len(reshuffled) / 200 < 0.33


def test_every_round_reshuffles_all_58_cards():
    st = make_state(2, hands=[["flame", "flame"], F3], deck=["spy"], night=0)
    st = engine.apply(st, 0, DRAW)  # Night reaches seat 1 holding 3 Flames
    assert st["round"] == 2
    assert len(st["deck"]) == 58 and st["played"] == [] and st["hands"] == [[], []]
    assert st["deck"][-1] not in FLAMES


# --- turns (3) --------------------------------------------------------------------------------


def test_draw_passes_night_on_and_takes_before_dawn():
    st = make_state(3, deck=["spy"], night=0)
    st = engine.apply(st, 0, DRAW)
    assert st["hands"][0] == ["spy-1"]
    assert st["night"] == 1 and st["dawn"] == 0
    st = engine.apply(st, 1, DRAW)
    assert st["night"] == 2 and st["dawn"] == 1


def test_only_unusable_cards_means_the_player_must_draw():
    st = make_state(3, hands=[["saint", "queen", "right-hand", "flame"], [], []])
    assert engine.legal_actions(st, 0) == [DRAW]


def test_no_one_else_may_act():
    st = make_state(3)
    assert engine.legal_actions(st, 1) == []


# --- the Flame condition (4.3) --------------------------------------------------------------


def test_round_ends_when_night_reaches_three_flames():
    st = make_state(3, hands=[[], F3 + ["saint"], ["queen"]], deck=["spy"], night=0, dawn=2)
    st = engine.apply(st, 0, DRAW)
    (summary,) = st["rounds"]
    assert summary["ended_by"] == "flame" and summary["ender"] == 1
    # seat 1: 3 Flames + Saint + Night; seat 0 drew the Spy (-1) and took Before-Dawn (+4)
    assert summary["raw"] == [-1 + 4, 9 + 2 + 2, 1]
    assert st["totals"] == [3, 13, 1]
    assert st["night"] == 2 and st["start"] == 2  # next round starts after the ender


def test_three_flames_in_your_own_turn_do_nothing():
    st = make_state(3, hands=[["flame", "flame"], [], []], deck=["flame"], night=0)
    st = engine.apply(st, 0, DRAW)
    assert st["flames"][0] == 3 and st["rounds"] == [] and st["night"] == 1


def test_losing_a_flame_before_night_arrives_keeps_the_round_going():
    st = make_state(3, hands=[["swordsman"], F3, []], night=0)
    st = play(st, 0, "swordsman-1", target=1, take="flame")
    assert st["flames"] == [1, 2, 0] and st["rounds"] == [] and st["night"] == 1


def test_night_check_counts_flames_only_not_markers():
    st = make_state(2, hands=[[], ["flame", "flame", "saint"]], deck=["spy"], night=0, dawn=1)
    st = engine.apply(st, 0, DRAW)
    assert st["rounds"] == [] and st["night"] == 1


# --- deck running out (4.7) -------------------------------------------------------------------


def test_drawing_the_last_card_ends_the_round_without_a_hand_off():
    st = make_state(3, hands=[[], ["queen"], []], deck=["saint"], fill=False, night=1, dawn=0)
    st = engine.apply(st, 1, DRAW)
    (summary,) = st["rounds"]
    assert summary["ended_by"] == "deck" and summary["ender"] == 1
    # seat 1 keeps Night (+2); Before-Dawn stays with seat 0 (+4)
    assert summary["raw"] == [4, 1 + 2 + 2, 0]
    assert st["start"] == 2


def test_deck_emptied_mid_effect_cancels_the_rest():
    st = make_state(2, hands=[["pilgrim"], []], deck=["saint"], fill=False, night=0, dawn=1)
    st = play(st, 0, "pilgrim-1")  # Draw 2, but only one card is left
    (summary,) = st["rounds"]
    assert summary["ended_by"] == "deck" and summary["ender"] == 0
    assert summary["hands"][0]["kinds"] == ["saint"]
    assert len(events(st, "drew")) == 1


def test_blocks_after_the_deck_runs_out_do_not_resolve(monkeypatch):
    st = make_state(3, hands=[["queen"], [], []], deck=["saint"], fill=False)
    # no card of the set draws before another block: give the Queen such an effect
    draw_then_reverse = effects.program([{"block": "DRAW", "n": 1}, {"block": "REVERSE"}])
    monkeypatch.setitem(effects._PROGRAMS, "queen-1", draw_then_reverse)
    action = {"type": "play", "card": "queen-1"}
    assert effects.run_card(st, 0, "queen-1", action, moves.sink(st)) is True
    assert st["direction"] == 1 and st["hands"][0] == ["queen-1", "saint-1"]


def test_jester_emptying_the_deck_keeps_its_reversal_for_the_next_round():
    st = make_state(3, hands=[["jester"], [], []], deck=["saint"], fill=False, night=0, dawn=2)
    st = play(st, 0, "jester-1")
    assert st["rounds"][0]["ended_by"] == "deck"
    assert st["direction"] == -1 and st["start"] == 2  # the seat after 0, counterclockwise


def test_before_dawn_still_on_the_table_scores_for_no_one():
    st = make_state(2, deck=["saint"], fill=False, night=0, dawn=None)
    st = engine.apply(st, 0, DRAW)
    assert st["rounds"][0]["raw"] == [2 + 2, 0]


# --- direction, reverse and skip (4.6) ------------------------------------------------------


def test_jester_reverses_then_draws():
    st = make_state(4, hands=[["jester"], [], [], []], deck=["queen"], night=0)
    st = play(st, 0, "jester-1")
    assert st["direction"] == -1 and st["night"] == 3 and st["dawn"] == 0
    assert st["hands"][0] == ["queen-1"]


def test_jester_with_two_players_just_draws_and_passes():
    st = make_state(2, hands=[["jester"], []], deck=["queen"], night=0)
    st = play(st, 0, "jester-1")
    assert st["direction"] == -1 and st["night"] == 1 and st["hands"][0] == ["queen-1"]


def test_skip_passes_night_over_a_three_flame_player_unchecked():
    st = make_state(4, hands=[["bellringer"], F3, [], []], night=0)
    st = play(st, 0, "bellringer-1")
    assert st["rounds"] == [] and st["night"] == 2 and st["dawn"] == 0
    assert events(st, "skipped")[-1]["seat"] == 1 and st["skip"] is False


def test_skip_with_two_players_gives_another_turn_and_checks_it():
    st = make_state(2, hands=[["bellringer", "spy"], []], night=0)
    st = play(st, 0, "bellringer-1")
    assert st["night"] == 0 and st["dawn"] == 0 and st["rounds"] == []
    st = make_state(2, hands=[["bellringer"] + F3, []], night=0)
    st = play(st, 0, "bellringer-1")
    assert st["rounds"][0]["ended_by"] == "flame" and st["rounds"][0]["ender"] == 0


def test_skip_follows_a_reversed_direction():
    st = make_state(4, hands=[["bellringer"], [], [], []], night=0, direction=-1)
    st = play(st, 0, "bellringer-1")
    assert st["night"] == 2


# --- character effects (4.4, 4.5, section 8) ------------------------------------------------


def test_swordsman_may_target_yourself_harmlessly():
    st = make_state(3, hands=[["swordsman", "flame", "spy"], [], []])
    assert {"type": "play", "card": "swordsman-1", "target": 0} in engine.legal_actions(st, 0)
    after = play(st, 0, "swordsman-1", target=0)
    assert sorted(after["hands"][0]) == ["flame-01", "spy-1"]


def test_swordsman_offers_only_the_possible_choices():
    st = make_state(3, hands=[["swordsman"], F3, []])
    plays = [a for a in engine.legal_actions(st, 0) if a.get("target") == 1]
    assert [a["take"] for a in plays] == ["flame"]
    st = make_state(3, hands=[["swordsman"], [], []])
    assert {"type": "play", "card": "swordsman-1", "target": 2} in engine.legal_actions(st, 0)


def test_swordsman_takes_a_random_non_flame_recorded_in_the_state():
    st = make_state(3, hands=[["swordsman"], ["saint", "queen", "flame"], []])
    st = play(st, 0, "swordsman-1", target=1, take="non_flame")
    (took,) = events(st, "took")
    assert took["private"]["card"] in ("saint-1", "queen-1") and not took["flame"]
    assert took["private"]["card"] in st["hands"][0] and st["flames"][1] == 1


def test_hound_needs_two_flames_in_the_target_hand():
    st = make_state(3, hands=[["hound", "right-hand"], ["flame"], []])
    assert {"type": "play", "card": "hound-1", "target": 1} in engine.legal_actions(st, 0)
    after = play(st, 0, "hound-1", target=1)
    assert after["hands"][1] == ["flame-01"] and after["hands"][0] == ["right-hand-1"]
    st = make_state(3, hands=[["hound", "right-hand"], ["flame", "flame"], []])
    after = play(st, 0, "hound-1", target=1, give="right-hand-1")
    assert after["flames"] == [1, 1, 0] and "right-hand-1" in after["hands"][1]


def test_cupbearer_gives_a_non_flame_then_draws():
    st = make_state(3, hands=[["cupbearer", "flame", "right-hand"], [], []], deck=["queen"])
    gives = {a.get("give") for a in engine.legal_actions(st, 0) if a.get("card") == "cupbearer-1"}
    assert gives == {"right-hand-1"}
    st = play(st, 0, "cupbearer-1", target=2, give="right-hand-1")
    assert st["hands"][2] == ["right-hand-1"] and sorted(st["hands"][0]) == ["flame-01", "queen-1"]


def test_seer_peeks_privately_and_buries_the_top_card():
    st = make_state(3, hands=[["seer"], [], []], deck=["flame", "spy", "queen"])
    st = play(st, 0, "seer-1")
    assert st["deck"][0] == "flame-01" and st["deck"][-1] == "spy-1"
    assert st["known"][0] == ["flame-01", "spy-1"] and st["known"][1] == []


def test_archivist_buries_a_chosen_card_then_draws():
    st = make_state(3, hands=[["archivist", "right-hand"], [], []], deck=["queen"])
    st = play(st, 0, "archivist-1", bottom="right-hand-1")
    assert st["deck"][0] == "right-hand-1" and st["hands"][0] == ["queen-1"]
    assert len(st["deck"]) == 58 - 2 - 1 + 1


def test_spy_looks_at_a_hand_then_draws():
    st = make_state(3, hands=[["spy"], ["saint", "flame"], []], deck=["queen"])
    st = play(st, 0, "spy-1", target=1)
    assert st["known"][0] == ["saint-1"] and st["hands"][0] == ["queen-1"]


def test_a_card_whose_effect_does_nothing_may_still_be_played():
    st = make_state(3, hands=[["cupbearer"], [], []], deck=["queen"])
    assert {"type": "play", "card": "cupbearer-1", "target": 1} in engine.legal_actions(st, 0)


# --- scoring and the match (5) --------------------------------------------------------------


def test_a_negative_round_counts_zero():
    hands = [["right-hand", "right-hand"], F3, []]
    st = make_state(3, hands=hands, deck=["spy", "queen"], night=2, totals=[5, 0, 0])
    st = engine.apply(st, 2, DRAW)  # Night to seat 0, who holds no Flames: play on
    assert st["rounds"] == []
    st = engine.apply(st, 0, DRAW)  # Night reaches seat 1 with 3 Flames
    summary = st["rounds"][0]
    assert summary["raw"][0] == -8 + 1 + 4 and summary["scores"][0] == 0
    assert st["totals"][0] == 5


def test_reaching_20_wins_the_match():
    st = make_state(3, hands=[[], F3, []], deck=["spy"], totals=[0, 9, 15])
    st = engine.apply(st, 0, DRAW)
    assert st["result"] == {
        "winner": 1,
        "totals": [3, 20, 15],
        "rounds": 1,
        "order": [2, 0, 1],
        "capped": False,
    }
    assert engine.legal_actions(st, st["night"]) == []


def test_highest_total_wins_when_several_pass_20():
    st = make_state(3, hands=[[], F3, ["saint"]], deck=["spy"], totals=[25, 18, 19])
    st = engine.apply(st, 0, DRAW)
    assert st["totals"] == [28, 29, 21] and st["result"]["winner"] == 1


def test_tie_goes_to_whoever_plays_sooner_from_the_next_start():
    # digest example 4: C (seat 2) ended the round; A and B tie on 22; A comes first
    st = make_state(3, hands=[[], [], F3], deck=["spy"], night=1, totals=[22, 22 - 4 + 1, 19 - 11])
    st = engine.apply(st, 1, DRAW)
    assert st["totals"] == [22, 22, 19] and st["result"]["order"] == [0, 1, 2]
    assert st["result"]["winner"] == 0
    # if A (seat 0) had ended it, the order is B, C, A and B wins
    st = make_state(3, hands=[F3, [], []], deck=["spy"], night=2, totals=[22 - 11, 22, 19 - 3])
    st = engine.apply(st, 2, DRAW)
    assert st["totals"] == [22, 22, 19] and st["result"]["winner"] == 1


def test_tie_order_follows_a_reversed_direction():
    st = make_state(3, hands=[[], [], F3], deck=["spy"], night=0, direction=-1, totals=[17, 20, 5])
    st = engine.apply(st, 0, DRAW)  # counterclockwise: 0 -> 2
    assert st["totals"][:2] == [20, 20]
    assert st["result"]["order"] == [1, 0, 2] and st["result"]["winner"] == 1


def test_next_round_keeps_the_direction_and_starts_after_the_ender():
    st = make_state(4, hands=[[], [], [], F3], deck=["spy"], night=0, direction=-1)
    st = engine.apply(st, 0, DRAW)
    assert st["round"] == 2 and st["direction"] == -1 and st["night"] == 2 and st["start"] == 2
    assert st["hands"] == [[], [], [], []] and st["dawn"] is None


def test_safety_cap_ends_the_match_and_says_so():
    st = make_state(2, hands=[[], F3], deck=["spy"], options={"max_rounds": 1})
    st = engine.apply(st, 0, DRAW)
    assert st["result"]["capped"] is True and st["result"]["winner"] == 1


def test_every_kind_text_is_interpreted_not_coded():
    usable = [k for k in KIND.values() if k["usable"]]
    assert all(k["effect"] for k in usable)


def test_digest_example_1_three_players_flame_end():
    """Example 1 from step 4, with real cards for the placeholders (B draws a −1 Spy, not a 0)."""
    hands = [["seer"], ["flame", "right-hand", "bellringer", "swordsman"], F3 + ["cupbearer"]]
    st = make_state(3, hands=hands, deck=["flame", "archivist", "spy"], night=1, dawn=0)
    st = play(st, 1, "swordsman-1", target=2, take="flame")  # step 5
    assert st["flames"] == [0, 2, 2] and (st["night"], st["dawn"]) == (2, 1)  # step 6
    st = engine.apply(st, 2, DRAW)  # step 7: the public Flame on top
    assert st["flames"][2] == 3 and (st["night"], st["dawn"]) == (0, 2)
    st = engine.apply(st, 0, DRAW)  # step 8
    assert st["rounds"] == [] and (st["night"], st["dawn"]) == (1, 0)
    st = engine.apply(st, 1, DRAW)  # step 9: Night reaches C with 3 Flames
    (summary,) = st["rounds"]
    assert summary["ender"] == 2 and summary["ended_by"] == "flame"
    assert summary["raw"] == [-2 - 3, 4 + 6 - 4 - 3 - 1, 9 + 2 - 2]  # step 10
    assert summary["scores"] == [0, 2, 9]
    assert st["start"] == 0 and st["direction"] == 1  # step 11: A starts, still clockwise
