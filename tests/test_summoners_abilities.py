"""Age of Summoners: the named spirits behave as the original's rulings say (4.9, 4.10)."""

from __future__ import annotations

from summoners_helpers import State, card_of, do, kinds, printed_start, use_asked

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.cards import kinds as kinds_table
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.scenario import arrange, begin_turn, stack_deck
from companion.cardgames.summoners.versions import RULES, rules_for


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
    """レプラコーン：「複数枚出している時は、一度に能力を処理して構いません。」 The copies are
    asked once and resolve as one step; each is an ability of its own (「能力は累積します」),
    so some of them may be used."""
    s = start()
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["leprechaun"] * 3)
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["leprechaun"], "copies": [3]}
    assert asks(s) == [
        {"type": "optional", "kind": "leprechaun", "use": True},
        {"type": "optional", "kind": "leprechaun", "use": True, "copies": 1},
        {"type": "optional", "kind": "leprechaun", "use": True, "copies": 2},
        {"type": "optional", "kind": "leprechaun", "use": False},
    ]
    every = use_asked(s)
    steps = [e for e in every["events"] if e["type"] == "ability"]
    assert len(steps) == 1 and steps[0]["kind"] == "leprechaun" and steps[0]["times"] == 3
    assert every["seats"][0]["vp"] == 3
    two = do(s, 0, type="optional", kind="leprechaun", use=True, copies=2)
    assert [e["times"] for e in two["events"] if e["type"] == "ability"] == [2]
    assert two["seats"][0]["vp"] == 2


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
        asked = s["await"]["phase"] == "optional" and s["await"]["kinds"] == ["cerberus"]
        assert asked == bool(vp)  # asked only when the card sent right numbers 4 or more
        s = use_asked(s)
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
    assert len(s["seats"][0]["hand"]) == 5  # too many cards: Kodama does not act, nor ask
    assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["kelpie"], "copies": [1]}
    s = use_asked(s)
    assert s["await"]["phase"] == "play" and s["seats"][0]["faith"] == 4
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


def test_every_ability_is_optional_as_printed() -> None:
    """10. 精霊の能力について: 「能力を使用するかどうかは、任意です。ただし、弱く使うこと（カードを
    ２枚引くところを１枚に留めるなど）は出来ません。」 Abilities that only give VP are asked too:
    Leprechaun's VP and Dryad's mana come in one ask, each used or declined whole (Dryad's
    ask holds no "use part of it")."""
    s = start()
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["leprechaun", "dryad"])
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    assert s["seats"][0]["vp"] == 0 and s["await"]["kinds"] == ["leprechaun", "dryad"]
    assert all("copies" not in a for a in asks(s))  # one copy each: nothing to use in part
    s = do(s, 0, type="optional", kind="leprechaun", use=False)
    assert s["seats"][0]["vp"] == 0 and s["await"]["kinds"] == ["dryad"]
    s = do(s, 0, type="optional", kind="dryad", use=True)
    assert s["seats"][0]["vp"] == 1 and len(s["seats"][0]["mana"]) == 3


def test_a_table_may_use_every_ability_without_being_asked() -> None:
    s = new(3, 6, {"start": 0, "always_use": True})
    arrange(s, 0, hand=["cerberus"], mana=["kasha"], spirits=["leprechaun", "dryad"])
    s = play(s, "cerberus")
    s = do(s, 0, type="act", action="prayer", choice="draw")
    assert s["await"]["phase"] == "keep"  # nothing asked: both used in card-code order
    assert s["seats"][0]["vp"] == 2 and len(s["seats"][0]["mana"]) == 3


def test_what_each_engine_version_asks() -> None:
    """Version 1 asked only Nightmare; version 2 the abilities that move cards; version 3 every
    ability that acts by itself, unless the table uses them all unasked."""
    triggered = {"on-action", "on-summon", "on-assist", "end-of-turn", "inquisition-equal"}
    every = {k for k, spec in kinds_table().items() if spec["ability"]["hook"] in triggered}
    assert RULES[1].asked == {"nightmare"}
    assert RULES[2].asked == {"nightmare", "dryad", "kodama", "brownie", "sphinx", "basilisk",
                              "kobold"}  # fmt: skip
    assert RULES[3].asked == every and len(every) == 20 and "kasha" in every
    assert rules_for(3, {"always_use": True}).asked == set()
    assert rules_for(2, {"always_use": True}) == RULES[2]  # an option version 2 did not know


def test_a_gain_declined_leaves_room_for_a_later_one_at_the_faith_cap() -> None:
    """4.4: 「信仰はどのプレイヤーも１０までしか所有できません。１１以上を得るような効果は、ないもの
    として処理します。」 and 10: 「能力を使用するかどうかは、任意です。」 At faith 8, Firebird's +1
    makes 9, and a later Vodyanoy's +2 would make 11, so it does not happen; declining Firebird
    keeps 8, and Vodyanoy then reaches 10. So Firebird asks, though it only gives VP and faith."""
    reached = {}
    for use in (True, False):
        s = start()
        arrange(s, 0, hand=["leprechaun"], mana=["ankou"], spirits=["firebird"], faith=8)
        s = play(s, "leprechaun")  # 1 + 2 = 3: conquest
        s = do(s, 0, type="act", action="conquest", victim=None)
        assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["firebird"],
                              "copies": [1]}  # fmt: skip
        s = do(s, 0, type="optional", kind="firebird", use=use)
        faith = s["seats"][0]["faith"]
        begin_turn(s, 0)
        arrange(s, 0, hand=["vodyanoy", "ankou"], mana=["selkie", "selkie", "ankou"])
        s = play(s, "ankou")
        s = summon(s, "vodyanoy")
        s = use_asked(s)
        reached[use] = (faith, s["seats"][0]["faith"])
    assert reached == {True: (9, 9), False: (8, 10)}


def test_copies_may_be_used_in_part_at_the_faith_cap() -> None:
    """Two Amabies at faith 8: both make 10 (the VP of both come); one makes 9. Copies resolve
    one at a time (「能力の処理が重なった時は任意の順番（望むならば同時でも）で解決して構いません」),
    so a copy's gain past 10 is void alone, never its pair's."""
    ends = {}
    for copies in (None, 1):
        s = start()
        arrange(s, 0, hand=["amabie"], mana=["selkie"], spirits=["amabie", "amabie"], faith=9)
        s = play(s, "amabie")  # 5 + 5 = 10: pilgrimage
        s = do(s, 0, type="act", action="pilgrimage", choice="faith")
        extra = {} if copies is None else {"copies": copies}
        s = do(s, 0, type="optional", kind="amabie", use=True, **extra)
        ends[copies] = (s["seats"][0]["faith"], s["seats"][0]["vp"])
    # the pilgrimage's own +1 faith first (9 -> 10): then every Amabie's +1 is void, VP stay
    assert ends == {None: (10, 2), 1: (10, 1)}


def test_kasha_asks_whether_players_of_equal_faith_give_too() -> None:
    """10: every ability is optional; Kasha moves cards (a player of equal faith gives one), so
    it asks once the inquisition's cards are drawn, before anyone gives; lower faith gives
    either way (6. ⑧異端審問)."""
    for use, givers in ((True, [1, 2]), (False, [1])):
        s = start()
        arrange(s, 1, faith=2)
        arrange(s, 2, faith=4)
        arrange(s, 0, hand=["kasha"], mana=["selkie"], spirits=["kasha"], faith=4)
        s = play(s, "kasha")  # 5 + 3 = 8: inquisition
        s = do(s, 0, type="act", action="inquisition")
        assert len(s["seats"][0]["hand"]) == 3  # drawn first
        assert s["await"] == {"seat": 0, "phase": "optional", "kinds": ["kasha"], "copies": [1]}
        s = do(s, 0, type="optional", kind="kasha", use=use)
        gave = []
        while s["await"]["phase"] == "give":
            giver = s["await"]["seat"]
            gave.append(giver)
            s = do(s, giver, type="give", card=s["seats"][giver]["hand"][0])
        assert gave == givers
    s = start()
    arrange(s, 1, faith=2)
    arrange(s, 0, hand=["kasha"], mana=["selkie"], spirits=["kasha"], faith=4)
    s = do(play(s, "kasha"), 0, type="act", action="inquisition")
    assert s["await"] == {"seat": 1, "phase": "give", "to": 0}  # nobody of equal faith: no ask


def test_a_payment_may_leave_a_cost_reduction_unused() -> None:
    """Gargoyle's reduction is an ability too, optional like any (10), and cannot be used in
    part (「弱く使うこと…は出来ません」): a payment uses it whole or pays the full cost; a table
    that uses every ability unasked pays the reduced cost only."""
    for options, costs in (({}, [1, 2]), ({"always_use": True}, [1])):
        s = new(3, 6, {"start": 0, **options})
        arrange(s, 0, hand=["kasha", "ankou"], mana=["redcap", "ankou", "ankou"],
                spirits=["gargoyle"])  # fmt: skip
        s = play(s, "ankou")
        s = do(s, 0, type="summon", card=card_of(s, 0, "kasha"))
        pays = [a["pay"] for a in GAME.legal_actions(s, 0) if a["type"] == "pay"]
        assert sorted({sum(p.values()) for p in pays}) == costs
        if options:
            continue
        full = next(p for p in pays if sum(p.values()) == 2)  # Kasha costs red + any
        s = do(s, 0, type="pay", pay=full)
        assert len(s["seats"][0]["mana"]) == 2  # two of the four paid
