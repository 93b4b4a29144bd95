"""Age of Summoners: the refill and assist, the end declaration, scoring, ties and exhaustion."""

from __future__ import annotations

from summoners_helpers import State, card_of, do, kinds, printed_start, use_asked

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.abilities import end_game_points
from companion.cardgames.summoners.cards import ICONS, card_ids, kind_of_card
from companion.cardgames.summoners.cards import kinds as kinds_table
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.lineup import icon_counts
from companion.cardgames.summoners.scenario import arrange, begin_turn, stack_deck
from companion.cardgames.summoners.scoring import final_result
from companion.cardgames.summoners.state import all_cards


def start(players: int = 3) -> State:
    return printed_start(players, 3)


def pilgrimage_turn(s: State, seat: int, keep: int = 0, declare: bool | None = None) -> State:
    """One quick turn for ``seat``: play Kelpie on Selkie (10), pilgrimage for VP, keep one."""
    arrange(s, seat, hand=["kelpie", *kinds(s["seats"][seat]["hand"])[:2]], mana=["selkie"])
    s = do(s, seat, type="play", card=card_of(s, seat, "kelpie"))
    s = do(s, seat, type="act", action="pilgrimage", choice="vp")
    s = do(s, seat, type="keep", card=s["turn"]["drawn"][keep])
    if s["await"] and s["await"]["phase"] == "declare":
        s = do(s, seat, type="declare" if declare else "pass")
    return s


# --- Phase III: keep one, assist the other (rule 3, 4.5) ----------------------------------------


def test_keep_one_and_assist_the_other_to_the_right() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    stack_deck(s, ["ankou", "sphinx"])
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="vp")
    assert s["await"] == {"seat": 0, "phase": "keep"}
    assert GAME.legal_actions(s, 1) == [] and GAME.legal_actions(s, 2) == []
    assert [a["type"] for a in GAME.legal_actions(s, 0)] == ["keep", "keep"]
    s = do(s, 0, type="keep", card=next(c for c in s["turn"]["drawn"] if "sphinx" in c))
    assert "sphinx" in kinds(s["seats"][0]["hand"])
    assert kinds(s["seats"][2]["mana"])[-1] == "ankou"
    assert kind_of_card()[s["seats"][2]["pairing"]] == "ankou"
    assert s["await"] == {"seat": 1, "phase": "play"}


def test_the_view_says_where_an_assist_goes_and_who_gave_it() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    stack_deck(s, ["ankou", "sphinx"])
    before = GAME.view(s, 1)
    right = before["seats"][0]["assists_to"]
    assert before["seats"][right]["pairing_from"] is None  # an initial mana card
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="vp")
    s = do(s, 0, type="keep", card=next(c for c in s["turn"]["drawn"] if "sphinx" in c))
    assert kind_of_card()[s["seats"][right]["pairing"]] == "ankou"
    for viewer in (None, 0, 1, 2):
        seats = GAME.view(s, viewer)["seats"]
        assert seats[right]["pairing_from"] == 0
        assert [x["pairing_from"] for i, x in enumerate(seats) if i != right] == [None, None]


def test_the_view_counts_stones_as_mana_as_the_limits_do() -> None:
    s = start()
    arrange(s, 1, mana=["selkie", "kelpie"], stones=["ankou", "sphinx"])
    assert [seat["mana_total"] for seat in GAME.view(s, 0)["seats"]][1] == 4


def test_with_only_one_card_left_keep_it_and_assist_nothing() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    stack_deck(s, ["ankou"])
    s["seats"][1]["spirits"] += s["deck"][:-1] + s["discard"]
    del s["deck"][:-1]
    s["discard"] = []
    pairing = s["seats"][2]["pairing"]
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="vp")
    assert s["await"]["phase"] != "keep"
    assert "ankou" in kinds(s["seats"][0]["hand"])
    assert s["seats"][2]["pairing"] == pairing


# --- the end (rule 5) ---------------------------------------------------------------------------


def test_declaration_needs_30_vp_or_10_spirits_and_is_optional() -> None:
    s = start()
    s["seats"][0]["vp"] = 20
    s = pilgrimage_turn(s, 0)
    assert s["await"]["seat"] == 1 and s["declarer"] is None
    s["seats"][1]["vp"] = 29
    arrange(s, 1, faith=1)
    s = pilgrimage_turn(s, 1, declare=False)
    assert s["declarer"] is None
    arrange(s, 2, spirits=["ankou"] * 4 + ["redcap"] * 4 + ["kelpie", "selkie"])
    arrange(s, 2, hand=["kelpie"], mana=["selkie"])
    s = do(s, 2, type="play", card=card_of(s, 2, "kelpie"))
    s = use_asked(do(s, 2, type="act", action="pilgrimage", choice="vp"))
    s = use_asked(do(s, 2, type="keep", card=s["turn"]["drawn"][0]))
    assert GAME.legal_actions(s, 2) == [{"type": "declare"}, {"type": "pass"}]


def test_example_10_final_lap_and_tie_rule() -> None:
    s = new(4, 8, {"start": 0})
    s = pilgrimage_turn(s, 0)
    s["seats"][1]["vp"] = 31
    s = pilgrimage_turn(s, 1, declare=True)
    assert s["declarer"] == 1
    order = []
    while s["result"] is None:
        seat = s["await"]["seat"]
        order.append(seat)
        s["seats"][seat]["vp"] = 0 if seat != 1 else s["seats"][seat]["vp"]
        s = pilgrimage_turn(s, seat)
        if s["result"] is None:
            assert not any(
                a["type"] == "declare" for a in GAME.legal_actions(s, s["await"]["seat"])
            )
    assert order == [2, 3, 0, 1]
    assert [p["turns"] for p in s["seats"]] == [2, 2, 1, 1]
    for seat, total in enumerate([44, 44, 40, 44]):
        arrange(s, seat, spirits=[])
        s["seats"][seat]["vp"] = total
    result = final_result(s)
    assert result["totals"] == [44, 44, 40, 44]
    assert result["winner"] == 3 and result["tied"] == [0, 1, 3]
    s["result"] = result
    tie = GAME.view(s, None)["tie_break"]
    assert tie == {"anchor": 1, "order": [2, 3, 0, 1], "ranking": [3, 0, 1, 2]}


def test_the_declarer_wins_when_alone_on_top() -> None:
    s = start()
    s["declarer"] = 1
    for seat, vp in enumerate([10, 12, 11]):
        arrange(s, seat, spirits=[])
        s["seats"][seat]["vp"] = vp
    assert final_result(s, "declared")["winner"] == 1


def test_score_is_chips_plus_points_plus_game_end_abilities() -> None:
    s = start()
    team = ["ankou", "ankou", "nuckelavee", "giant"]
    arrange(s, 0, spirits=team, vp=7)
    result = final_result(s)["breakdown"][0]
    table = kinds_table()
    ankou = table["ankou"]["ability"]
    axes = sum(table[k]["icons"].count("axe") for k in team)
    assert result["chips"] == 7
    assert result["points"] == sum(table[k]["points"] for k in team)
    assert result["abilities"] == {"ankou": 2 * (axes // ankou["per"]) * ankou["points"]}
    assert result["total"] == 7 + result["points"] + result["abilities"]["ankou"]


def test_example_7_chimera_scores_seven_per_complete_icon_set() -> None:
    s = start()
    team = ["chimera", "cerberus", "tarasque", "vodyanoy", "dryad", "nuckelavee"]
    arrange(s, 0, spirits=team)
    icons = icon_counts(s, 0)
    assert [icons[i] for i in ICONS] == [2, 3, 2, 2, 2]
    assert end_game_points(s, 0) == {"chimera": 14}
    arrange(s, 0, spirits=[*team, "chimera"])
    assert end_game_points(s, 0) == {"chimera": 28}


def test_melusine_scores_one_point_for_every_two_faith_each_copy() -> None:
    """「ゲーム終了時：あなたの信仰2ごとに1点。」: an odd faith rounds down; each copy scores."""
    s = start()
    for faith, one, both in ((0, 0, 0), (1, 0, 0), (7, 3, 6), (10, 5, 10)):
        arrange(s, 0, spirits=["melusine"], faith=faith)
        assert end_game_points(s, 0) == {"melusine": one}
        arrange(s, 0, spirits=["melusine", "melusine"], faith=faith)
        assert end_game_points(s, 0) == {"melusine": both}
        assert final_result(s)["breakdown"][0]["total"] == 2 * 3 + both


def test_the_safety_cap_ends_a_match() -> None:
    s = new(2, 4, {"start": 0, "turn_cap": 1})
    s = pilgrimage_turn(s, 0)
    s = pilgrimage_turn(s, 1)
    assert GAME.result(s) is s["result"] and s["result"]["reason"] == "cap"
    # no declarer: a tie is counted from the player who took the last turn
    assert GAME.view(s, 0)["tie_break"]["anchor"] == 1
    assert GAME.view(s, 0)["tie_break"]["order"] == [0, 1]
    assert GAME.view(s, 0)["turn_cap"] == 1 and new(2, 4, {})["options"] == {}
    assert GAME.view(new(2, 4, {}), 0)["turn_cap"] == 80


# --- deck and discard exhaustion (4.7) ----------------------------------------------------------


def test_an_empty_deck_reshuffles_the_discard_pile_when_a_card_is_needed() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    s["discard"] += s["deck"]
    s["deck"] = []
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="faith")
    assert s["reshuffles"] == 1 and len(s["seats"][0]["hand"]) == 1
    assert sorted(all_cards(s)) == sorted(card_ids())


def _exhaust(s: State) -> State:
    """Every card outside the deck and discard: seat 1 holds 12 cards, seat 2 has 12 mana."""
    rest = s["deck"] + s["discard"]
    s["deck"], s["discard"] = [], []
    s["seats"][1]["hand"] += rest[:6]
    s["seats"][2]["mana"] += rest[6:16]
    s["seats"][0]["spirits"] += rest[16:]
    return s


def test_the_nine_nine_rule_when_deck_and_discard_are_empty() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    s = _exhaust(s)
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="faith")
    assert s["rule99"] == 1
    assert s["await"] == {"seat": 1, "phase": "trim", "hand": 9, "mana": 9}
    for _ in range(3):
        s = do(s, 1, **GAME.legal_actions(s, 1)[0])
    assert s["await"]["seat"] == 2
    legal = GAME.legal_actions(s, 2)
    assert {a["zone"] for a in legal} == {"mana"}
    for _ in range(3):
        s = do(s, 2, **GAME.legal_actions(s, 2)[0])
    assert len(s["seats"][1]["hand"]) == 9 and len(s["seats"][2]["mana"]) == 9
    assert len(s["seats"][0]["hand"]) == 1
    assert sorted(all_cards(s)) == sorted(card_ids())


def test_no_card_even_after_the_nine_nine_rule_skips_the_draw() -> None:
    s = start()
    arrange(s, 0, hand=["kelpie"], mana=["selkie"])
    rest = s["deck"] + s["discard"]
    s["deck"], s["discard"] = [], []
    s["seats"][1]["spirits"] += rest[::2]
    s["seats"][2]["spirits"] += rest[1::2]
    s = do(s, 0, type="play", card=card_of(s, 0, "kelpie"))
    s = do(s, 0, type="act", action="pilgrimage", choice="faith")
    assert s["seats"][0]["hand"] == [] and s["await"] == {"seat": 1, "phase": "play"}


def test_begin_turn_helper_restarts_phase_one() -> None:
    s = begin_turn(start(), 2)
    assert s["await"] == {"seat": 2, "phase": "play"}
