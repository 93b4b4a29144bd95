"""Age of Summoners: the named spirits behave as the original's rulings say (4.9, 4.10)."""

from __future__ import annotations

import pytest
from summoners_helpers import State, card_of, do, kinds, printed_start

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.cards import check_set
from companion.cardgames.summoners.cards import kinds as kinds_table
from companion.cardgames.summoners.scenario import arrange, stack_deck


def start(players: int = 3) -> State:
    return printed_start(players, 6)


def play(s: State, kind: str) -> State:
    return do(s, 0, type="play", card=card_of(s, 0, kind))


def summon(s: State, kind: str) -> State:
    s = do(s, 0, type="summon", card=card_of(s, 0, kind))
    while s["await"] and s["await"]["phase"] == "pay":
        s = do(s, 0, **GAME.legal_actions(s, 0)[0])
    return s


def test_leprechauns_resolve_together_as_one_step() -> None:
    s = start()
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["leprechaun"] * 3)
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    steps = [e for e in s["events"] if e["type"] == "ability"]
    assert len(steps) == 1 and steps[0]["kind"] == "leprechaun" and steps[0]["times"] == 3
    assert s["seats"][0]["vp"] == 3


def _assist(s: State, kept: str) -> State:
    return do(s, 0, type="keep", card=next(c for c in s["turn"]["drawn"] if kept in c))


def test_cerberus_rewards_the_card_sent_right_not_the_one_kept() -> None:
    for kept, sent, vp in (("ankou", "selkie", 1), ("selkie", "ankou", 0)):
        s = start()
        arrange(s, 0, hand=["kelpie"], mana=["selkie"], spirits=["cerberus"], faith=0)
        stack_deck(s, [kept, sent])
        s = play(s, "kelpie")
        s = do(s, 0, type="act", action="pilgrimage", choice="vp")
        s = _assist(s, kept)
        assert s["seats"][0]["vp"] == vp
        assert kinds(s["seats"][2]["mana"])[-1] == sent


def test_belial_pays_with_stones_once_per_turn_per_copy() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"], stones=["ankou"] * 4, spirits=["belial"])
    s = play(s, "kelpie")
    assert {"type": "paid", "kind": "belial"} in GAME.legal_actions(s, 0)
    s = do(s, 0, type="paid", kind="belial")
    if s["await"]["phase"] == "pay":
        s = do(s, 0, type="pay", pay={"stone": 2})
    assert s["seats"][0]["vp"] == 2 and s["await"]["phase"] == "main"
    assert not [a for a in GAME.legal_actions(s, 0) if a["type"] == "paid"]
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"], stones=["ankou"] * 4,
            spirits=["belial", "belial"])  # fmt: skip
    s = play(s, "kelpie")
    s = do(s, 0, type="paid", kind="belial")
    s = do(s, 0, type="pay", pay={"stone": 2}) if s["await"]["phase"] == "pay" else s
    assert [a for a in GAME.legal_actions(s, 0) if a["type"] == "paid"]


def test_baltanders_places_a_hand_card_as_mana_then_summons() -> None:
    s = start()
    arrange(s, 0, hand=["amabie", "ankou", "kasha"], mana=["cerberus", "redcap"],
            spirits=["baltanders"])  # fmt: skip
    s = play(s, "amabie")
    places = [a for a in GAME.legal_actions(s, 0) if a["type"] == "place"]
    assert {"type": "place", "card": card_of(s, 0, "ankou")} in places
    s = do(s, 0, type="place", card=card_of(s, 0, "ankou"))
    assert s["await"]["phase"] == "summon"
    assert {a["type"] for a in GAME.legal_actions(s, 0)} == {"summon"}
    s = summon(s, "kasha")
    assert kinds(s["seats"][0]["spirits"]) == ["baltanders", "kasha"]


def test_nightmare_trims_everyone_including_the_summoner() -> None:
    s = start()
    mana = ["ankou", "ankou", "ankou", "barghest", "barghest", "barghest", "belial", "kelpie"]
    arrange(s, 0, hand=["nightmare", "selkie", "amabie", "kobold", "sphinx", "giant", "redcap",
                        "kasha"], mana=mana)  # fmt: skip
    arrange(s, 1, hand=["kelpie"] * 3 + ["rusalka"] * 4)
    arrange(s, 2, hand=["cerberus"], mana=["dryad"] * 4 + ["kodama"] * 4, stones=["brownie"])
    s = play(s, "selkie")
    s = summon(s, "nightmare")
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["nightmare"], "copies": [1]}
    s = do(s, 0, type="optional", kind="nightmare", use=True)
    while s["await"]["phase"] == "trim":
        seat = s["await"]["seat"]
        s = do(s, seat, **GAME.legal_actions(s, seat)[-1])
    assert s["await"] == {"seat": 0, "phase": "keep"}
    for p in s["seats"]:
        assert len(p["hand"]) <= 6 and len(p["mana"]) + len(p["stones"]) <= 7
    assert len(s["seats"][2]["mana"]) + len(s["seats"][2]["stones"]) == 7


def test_nightmare_can_be_declined() -> None:
    s = start()
    arrange(s, 0, hand=["nightmare", "selkie"], mana=["ankou", "barghest", "belial"] * 2)
    s = play(s, "selkie")
    s = summon(s, "nightmare")
    s = do(s, 0, type="optional", kind="nightmare", use=False)
    assert s["await"] == {"seat": 0, "phase": "keep"}


def test_example_8_sphinx_with_five_shields() -> None:
    s = start()
    arrange(s, 0, hand=["sphinx", "ankou"], mana=["gargoyle"] * 3 + ["ankou"] * 3,
            spirits=["cerberus", "tarasque", "kodama"])  # fmt: skip
    stack_deck(s, ["redcap", "kasha", "selkie", "amabie", "kobold"])
    s = play(s, "ankou")
    s = summon(s, "sphinx")
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["sphinx"], "copies": [1]}
    s = do(s, 0, type="optional", kind="sphinx", use=True)
    me = s["seats"][0]
    assert kinds(me["hand"]) == ["redcap", "kasha", "selkie"]
    assert kinds(me["mana"])[-2:] == ["amabie", "kobold"]


def asks(s: State) -> list[dict[str, object]]:
    return [a for a in GAME.legal_actions(s, 0) if a["type"] == "optional"]


def test_kobolds_stones_are_offered_not_forced() -> None:
    """4.9: 「能力を使用するかどうかは、任意です。」 An ability that moves cards asks first."""
    for use, stones in ((True, 2), (False, 0)):
        s = start()
        arrange(s, 0, hand=["kobold", "ankou"], mana=["gargoyle", "ankou", "ankou"])
        s = play(s, "ankou")
        s = summon(s, "kobold")
        assert asks(s) == [
            {"type": "optional", "kind": "kobold", "use": True},
            {"type": "optional", "kind": "kobold", "use": False},
        ]
        deck = len(s["deck"])
        s = do(s, 0, type="optional", kind="kobold", use=use)
        assert s["await"] == {"seat": 0, "phase": "keep"}  # the refill took its two cards
        assert len(s["seats"][0]["stones"]) == stones and len(s["deck"]) == deck - stones - 2
        declined = {"type": "declined", "turn": 1, "seat": 0, "kind": "kobold"}
        assert (declined in s["events"]) is not use


def test_kodama_asks_at_the_end_of_a_turn_with_three_cards_or_fewer() -> None:
    s = start()
    arrange(s, 0, hand=["cerberus", "ankou", "ankou"], mana=["kasha"],
            spirits=["kodama", "kelpie"], faith=3)  # fmt: skip
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    s = _assist(s, kinds_of_drawn(s)[0])
    assert len(s["seats"][0]["hand"]) == 5  # Kodama does not ask
    assert s["await"]["phase"] == "play" and s["seats"][0]["faith"] == 4  # Kelpie just applies
    s = start()
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["kodama"])
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    s = _assist(s, kinds_of_drawn(s)[0])
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["kodama"], "copies": [1]}
    declined = do(s, 0, type="optional", kind="kodama", use=False)
    used = do(s, 0, type="optional", kind="kodama", use=True)
    assert (len(declined["seats"][0]["hand"]), len(used["seats"][0]["hand"])) == (3, 4)


def kinds_of_drawn(s: State) -> list[str]:
    return kinds(s["turn"]["drawn"])


def test_brownie_and_basilisk_on_research_are_ordered_by_their_owner() -> None:
    """4.9 and D18: simultaneous abilities resolve in any order the player likes; after a
    research Brownie's draw and Basilisk's stone both take the deck's top card, so the player
    chooses which comes first (or declines either)."""
    results = {}
    for first in ("brownie", "basilisk"):
        s = start()
        arrange(s, 0, hand=["kasha"], mana=["belial"], spirits=["brownie", "basilisk"])
        stack_deck(s, ["chimera", "sphinx"])
        s = play(s, "kasha")  # Belial's 1 + Kasha's 3 = 4: research
        s = do(s, 0, type="act", action="research", flip="red")
        assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["brownie", "basilisk"],
                              "copies": [1, 1]}  # fmt: skip
        assert len(asks(s)) == 4
        s = do(s, 0, type="optional", kind=first, use=True)
        second = "basilisk" if first == "brownie" else "brownie"
        assert s["await"]["kinds"] == [second]
        s = do(s, 0, type="optional", kind=second, use=True)
        me = s["seats"][0]
        results[first] = (kinds(me["hand"])[-1], kinds(me["stones"])[-1])
    assert results == {"brownie": ("chimera", "sphinx"), "basilisk": ("sphinx", "chimera")}


def test_abilities_that_only_add_vp_or_faith_apply_without_asking() -> None:
    s = start()
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["leprechaun", "dryad"])
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    assert s["seats"][0]["vp"] == 1  # Leprechaun at once; Dryad (mana from the deck) asks
    assert s["await"]["kinds"] == ["dryad"]
    s = do(s, 0, type="optional", kind="dryad", use=False)
    assert s["seats"][0]["vp"] == 1 and len(s["seats"][0]["mana"]) == 2


def test_the_card_data_asks_exactly_for_the_abilities_that_move_cards() -> None:
    asked = {k for k, spec in kinds_table().items() if spec["ability"].get("optional")}
    assert asked == {"nightmare", "dryad", "kodama", "brownie", "sphinx", "basilisk", "kobold"}
    broken = dict(kinds_table()["kobold"])
    broken["ability"] = {k: v for k, v in broken["ability"].items() if k != "optional"}
    with pytest.raises(ValueError, match="optional exactly when it moves cards"):
        check_set([broken if k["id"] == "kobold" else k for k in kinds_table().values()])
