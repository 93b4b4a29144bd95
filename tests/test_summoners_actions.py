"""Age of Summoners: the seven actions (rule 4.3) and faith (4.4), with the worked examples."""

from __future__ import annotations

from typing import Any

import pytest
from summoners_helpers import State, card_of, do, kinds, printed_start, use_asked

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.cards import kind_of_card
from companion.cardgames.summoners.cards import kinds as kinds_table
from companion.cardgames.summoners.scenario import arrange, stack_deck
from companion.cardgames.summoners.valuation import Eye


def start(players: int = 3) -> State:
    return printed_start(players, 2)


def at_command(s: State, pairing: str, played: str, **zones: Any) -> State:
    """Seat 0 pairs ``pairing`` with ``played`` (both kinds) and waits in Phase II."""
    hand = [played, *zones.pop("hand", [])]
    mana = [*zones.pop("mana", []), pairing]
    arrange(s, 0, hand=hand, mana=mana, **zones)
    return do(s, 0, type="play", card=card_of(s, 0, played))


def acts(s: State) -> list[dict[str, Any]]:
    return [a for a in GAME.legal_actions(s, 0) if a["type"] == "act"]


# --- conquest -----------------------------------------------------------------------------------


def test_example_6_conquest_counts_axes_and_swords_then_steals() -> None:
    s = start()
    s = at_command(s, "belial", "leprechaun", spirits=["nuckelavee", "ankou", "redcap"])
    s["seats"][1]["vp"], s["seats"][2]["vp"] = 0, 4
    assert [a["victim"] for a in acts(s) if a["action"] == "conquest"] == [2]
    s = do(s, 0, type="act", action="conquest", victim=2)
    assert [p["vp"] for p in s["seats"]] == [5, 0, 3]


def test_conquest_takes_from_the_supply_when_nobody_has_vp() -> None:
    s = at_command(start(), "ankou", "leprechaun", spirits=[])
    assert [a["victim"] for a in acts(s) if a["action"] == "conquest"] == [None]
    s = do(s, 0, type="act", action="conquest", victim=None)
    assert [p["vp"] for p in s["seats"]] == [1, 0, 0]


def test_conquest_victim_is_chosen_among_players_with_vp() -> None:
    s = at_command(start(4), "ankou", "leprechaun")
    s["seats"][1]["vp"], s["seats"][3]["vp"] = 2, 5
    assert [a["victim"] for a in acts(s) if a["action"] == "conquest"] == [1, 3]


def test_a_ward_protects_vp_from_conquest() -> None:
    s = start()
    arrange(s, 2, spirits=["tarasque"], vp=6)
    s = at_command(s, "ankou", "leprechaun")
    assert [a["victim"] for a in acts(s) if a["action"] == "conquest"] == [None]


def test_conquest_triggers_stack_per_copy() -> None:
    s = at_command(start(), "ankou", "leprechaun", spirits=["barghest", "barghest"])
    s["seats"][1]["vp"] = 2
    s = do(s, 0, type="act", action="conquest", victim=1)
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["barghest"], "copies": [2]}
    s = use_asked(s)
    axes = 2 * kinds_table()["barghest"]["icons"].count("axe")
    bonus = 2 * kinds_table()["barghest"]["ability"]["effects"][0]["vp"]
    assert s["seats"][1]["vp"] == 1
    assert s["seats"][0]["vp"] == axes + 1 + bonus


# --- research -----------------------------------------------------------------------------------


def test_example_3_research_scores_stones_then_flips() -> None:
    s = at_command(start(), "ankou", "kasha", stones=["selkie", "amabie"])
    flips = [a["flip"] for a in acts(s) if a["action"] == "research"]
    assert flips == ["black", "red"]
    s = do(s, 0, type="act", action="research", flip="red")
    me = s["seats"][0]
    assert me["vp"] == 2 and len(me["stones"]) == 3 and kinds(me["mana"]) == ["ankou"]


def test_research_flip_is_required_when_face_up_mana_exists() -> None:
    s = at_command(start(), "cerberus", "barghest")
    assert all(a["flip"] is not None for a in acts(s) if a["action"] == "research")


# --- alchemy, prayer ----------------------------------------------------------------------------


def test_alchemy_faith_and_a_stone() -> None:
    s = at_command(start(), "ankou", "homunculus")
    s = do(s, 0, type="act", action="alchemy", choice="faith")
    me = s["seats"][0]
    assert me["faith"] == 2 and len(me["stones"]) == 1


def test_prayer_draws_two() -> None:
    s = at_command(start(), "kasha", "cerberus", hand=["ankou"])
    s = do(s, 0, type="act", action="prayer", choice="draw")
    assert len(s["seats"][0]["hand"]) == 3


def test_prayer_refill_discards_any_number_then_draws_to_five() -> None:
    s = at_command(start(), "kasha", "cerberus", hand=["ankou", "redcap", "kelpie"])
    s = do(s, 0, type="act", action="prayer", choice="refill")
    assert s["await"]["phase"] == "prayer-discard"
    assert {"type": "done"} in GAME.legal_actions(s, 0)
    s = do(s, 0, type="discard", zone="hand", card=card_of(s, 0, "ankou"))
    s = do(s, 0, type="discard", zone="hand", card=card_of(s, 0, "redcap"))
    s = do(s, 0, type="done")
    hand = s["seats"][0]["hand"]
    assert len(hand) == 5 and "kelpie" in kinds(hand) and "ankou" not in kinds(hand)


def test_prayer_refill_never_draws_down() -> None:
    hand = ["ankou", "redcap", "kelpie", "amabie", "selkie", "kobold"]
    s = at_command(start(), "kasha", "cerberus", hand=hand)
    s = do(s, 0, type="act", action="prayer", choice="refill")
    s = do(s, 0, type="done")
    assert len(s["seats"][0]["hand"]) == 6


# --- festival -----------------------------------------------------------------------------------


def test_example_4_case_1_nobody_lower_keeps_one() -> None:
    s = start()
    s = at_command(s, "kodama", "kelpie", faith=2)
    s["seats"][1]["faith"], s["seats"][2]["faith"] = 3, 3
    stack_deck(s, ["ankou", "selkie"])
    s = do(s, 0, type="act", action="festival")
    assert s["seats"][0]["faith"] == 3 and s["await"]["phase"] == "festival"
    s = do(s, 0, type="choose", card=card_of_reveal(s, "selkie"))
    assert kinds(s["seats"][0]["mana"])[-1] == "selkie"
    assert kind_of_card()[s["discard"][-1]] == "ankou"


def card_of_reveal(s: State, kind: str) -> str:
    return next(c for c in s["turn"]["reveal"] if kind_of_card()[c] == kind)


def test_example_4_case_2_a_lower_player_gives_both() -> None:
    s = at_command(start(), "kodama", "kelpie", faith=2)
    s["seats"][1]["faith"], s["seats"][2]["faith"] = 2, 4
    stack_deck(s, ["ankou", "selkie"])
    s = do(s, 0, type="act", action="festival")
    assert s["await"]["phase"] == "keep"
    assert kinds(s["seats"][0]["mana"])[-2:] == ["ankou", "selkie"]


def test_faith_never_exceeds_ten() -> None:
    s = at_command(start(), "kodama", "kelpie", faith=10)
    s = do(s, 0, type="act", action="festival")
    assert s["seats"][0]["faith"] == 10


@pytest.mark.parametrize(("before", "after"), [(8, 10), (9, 9), (10, 10)])
def test_a_gain_that_would_pass_ten_faith_does_not_happen(before: int, after: int) -> None:
    """4.4: 「１１以上を得るような効果は、ないものとして処理します」: Vodyanoy's "gain 2 faith"
    at 9 leaves 9 (it is not cut down to 1), and the ability event says it gave none."""
    s = at_command(start(), "kodama", "kelpie", hand=["vodyanoy"], faith=before,
                   mana=["selkie", "amabie", "kelpie"])  # fmt: skip
    s = do(s, 0, type="summon", card=card_of(s, 0, "vodyanoy"))
    while s["await"]["phase"] == "pay":
        s = do(s, 0, **GAME.legal_actions(s, 0)[0])
    s = use_asked(s)
    assert s["seats"][0]["faith"] == after
    (ability,) = [e for e in s["events"] if e["type"] == "ability" and e["kind"] == "vodyanoy"]
    assert ability["faith"] == after - before


def test_copies_gain_faith_one_by_one_so_only_the_gain_past_ten_is_void() -> None:
    s = at_command(start(), "selkie", "amabie", spirits=["amabie", "amabie"], faith=9)
    s = use_asked(do(s, 0, type="act", action="pilgrimage", choice="vp"))
    assert s["seats"][0]["faith"] == 10  # 9 + 1, and the second copy's +1 would make 11
    assert s["seats"][0]["vp"] == 9 + 2  # the VP of both copies still come


def test_the_heuristic_sees_a_void_faith_gain_as_worth_nothing() -> None:
    s = at_command(start(), "kodama", "kelpie", faith=9)
    eye = Eye(GAME.view(s, 0))
    vodyanoy = kinds_table()["vodyanoy"]["ability"]["effects"]
    assert eye.faith_gain(2) == 0 and eye.effect_value(vodyanoy) == 0
    assert eye.faith_gain(1, copies=2) == 1
    s["seats"][0]["faith"] = 8
    assert Eye(GAME.view(s, 0)).effect_value(vodyanoy) > 0


# --- inquisition --------------------------------------------------------------------------------


def test_example_5_inquisition_four_players() -> None:
    s = start(4)
    arrange(s, 1, faith=3)
    arrange(s, 2, faith=5)
    arrange(s, 3, faith=1, hand=[])
    s = at_command(s, "kelpie", "kasha", faith=5, hand=[])
    stack_deck(s, ["ankou", "redcap", "amabie"])
    s = do(s, 0, type="act", action="inquisition")
    assert kinds(s["seats"][0]["hand"]) == ["ankou", "redcap"]
    assert s["await"] == {"seat": 1, "phase": "give", "to": 0}
    assert GAME.legal_actions(s, 0) == [] and GAME.legal_actions(s, 2) == []
    gift = s["seats"][1]["hand"][0]
    s = do(s, 1, type="give", card=gift)
    hand = s["seats"][0]["hand"]
    assert len(hand) == 4 and gift in hand and kind_of_card()[hand[-1]] == "amabie"
    assert len(s["seats"][2]["hand"]) == 6 and s["seats"][3]["hand"] == []


def test_inquisition_draws_three_with_fewer_players() -> None:
    s = at_command(start(3), "kelpie", "kasha", faith=1, hand=[])
    s = do(s, 0, type="act", action="inquisition")
    assert len(s["seats"][0]["hand"]) == 3


def test_inquisition_equal_faith_spirit() -> None:
    s = start(3)
    arrange(s, 1, faith=5)
    arrange(s, 2, faith=4)
    s = at_command(s, "selkie", "kasha", faith=4, hand=[])
    s = do(s, 0, type="act", action="inquisition")
    assert s["await"]["phase"] == "keep"
    s = start(3)
    arrange(s, 1, faith=5)
    arrange(s, 2, faith=4)
    s = at_command(s, "selkie", "kasha", faith=4, hand=[], spirits=["kasha"])
    s = use_asked(do(s, 0, type="act", action="inquisition"))
    assert s["await"] == {"seat": 2, "phase": "give", "to": 0}


# --- pilgrimage ---------------------------------------------------------------------------------


def test_pilgrimage_scores_faith_without_losing_it() -> None:
    s = at_command(start(), "selkie", "kelpie", faith=4)
    s = do(s, 0, type="act", action="pilgrimage", choice="vp")
    assert s["seats"][0]["vp"] == 4 and s["seats"][0]["faith"] == 4


@pytest.mark.parametrize("faith", [3, 10])
def test_pilgrimage_card_and_faith(faith: int) -> None:
    s = at_command(start(), "selkie", "kelpie", faith=faith, hand=[])
    s = do(s, 0, type="act", action="pilgrimage", choice="faith")
    assert s["seats"][0]["faith"] == min(10, faith + 1) and len(s["seats"][0]["hand"]) == 1
