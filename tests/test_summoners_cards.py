"""Age of Summoners: the spirit set follows the design brief (rules digest 1.6, 8.1-8.4)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from summoners_helpers import speaking

from companion.cardgames.summoners import cards
from companion.cardgames.summoners.cards import ACTIONS, COLOURS, card_ids, kinds
from companion.web.boards.summoners.svg import back_svg, card_svg

NAMED = {
    "gargoyle": "ガーゴイル",
    "cerberus": "ケルベロス",
    "asmodai": "アスモダイ",
    "belial": "ベリアル",
    "leprechaun": "レプラコーン",
    "baltanders": "バルトアンデルス",
    "giant": "ジャイアント",
    "chimera": "キメラ",
    "nightmare": "ナイトメア",
    "sphinx": "スフィンクス",
}


def test_thirty_kinds_and_110_cards() -> None:
    assert len(kinds()) == 30
    assert len(card_ids()) == 110 == len(set(card_ids()))
    assert Counter(s["copies"] for s in kinds().values()) == {4: 25, 2: 5}


def test_each_colour_has_22_cards_of_its_number() -> None:
    per_colour = Counter()
    for card in card_ids():
        per_colour[(cards.colour_of_card()[card], cards.number_of_card()[card])] += 1
    assert per_colour == {(c, i + 1): 22 for i, c in enumerate(COLOURS)}


def test_axes_only_black_swords_only_red_and_common_icons_spread() -> None:
    specs = list(kinds().values())
    assert all(s["colour"] == "black" for s in specs if "axe" in s["icons"])
    assert all(s["colour"] == "red" for s in specs if "sword" in s["icons"])
    for icon in ("armour", "shield", "staff"):
        assert sum(icon in s["icons"] for s in specs) >= 4
    assert all(len(s["icons"]) <= 2 for s in specs)


def test_costs_points_and_one_ability_each() -> None:
    for spec in kinds().values():
        rare = spec["copies"] == 2
        assert 1 <= len(spec["cost"]) <= (6 if rare else 5)
        assert spec["colour"] in spec["cost"]
        assert 0 <= spec["points"] <= (4 if rare else 3)
        assert isinstance(spec["ability"], dict) and spec["ability"]["hook"] in cards.HOOKS
        for field in ("name_ja", "name_en", "text_ja", "text_en", "flavour_ja", "flavour_en"):
            assert spec[field].strip(), (spec["id"], field)


def test_the_ten_named_spirits_have_their_required_hooks() -> None:
    table = kinds()
    assert {k: table[k]["name_ja"] for k in NAMED} == NAMED
    hooks = {k: table[k]["ability"]["hook"] for k in NAMED}
    assert hooks == {
        "gargoyle": "discount",
        "cerberus": "on-assist",
        "asmodai": "zero-played",
        "belial": "paid",
        "leprechaun": "on-action",
        "baltanders": "place-on-summon",
        "giant": "self-discount",
        "chimera": "end-game",
        "nightmare": "on-summon",
        "sphinx": "on-summon",
    }
    assert table["chimera"]["ability"] == {"hook": "end-game", "score": "icon-sets", "points": 7}
    assert table["nightmare"]["ability"]["effects"] == [{"trim": {"hand": 6, "mana": 7}}]
    assert table["sphinx"]["ability"]["effects"] == [
        {"cards-per-icon": {"icon": "shield", "hand": 3}}
    ]


def test_original_names_are_new() -> None:
    originals = [k for k in kinds() if k not in NAMED]
    assert len(originals) == 20
    names = {kinds()[k]["name_en"] for k in originals}
    assert len(names) == 20 and not names & {kinds()[k]["name_en"] for k in NAMED}


def test_every_action_has_a_spirit_that_improves_it() -> None:
    improved = set()
    for spec in kinds().values():
        ability = spec["ability"]
        improved.update(ability.get("actions", []))
        if ability["hook"] == "inquisition-equal" or ability.get("against") == "inquisition":
            improved.add("inquisition")
        if ability["hook"] in ("zero-played",):
            improved.add("conquest")
    assert improved >= set(ACTIONS)


def test_a_malformed_set_is_rejected() -> None:
    specs = [dict(s) for s in kinds().values()]
    specs[0] = {**specs[0], "icons": ["sword"]}
    with pytest.raises(ValueError, match="swords only on red"):
        cards.check_set(specs)


@pytest.mark.parametrize("state", ["hand", "spirit", "mana"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_card_faces_are_well_formed_svg(state: str, lang: str) -> None:
    with speaking(lang):
        for kind in kinds():
            root = ET.fromstring(card_svg(kind, state))
            assert root.tag.endswith("svg")
    hand = card_svg("sphinx", "hand")
    assert "Sphinx" in hand and "Points" in hand
    assert 'viewBox="0 0 280 200"' in card_svg("sphinx-1", "mana")
    with speaking("ja"):
        assert "珪砂" in card_svg("sphinx", "mana") and "得点" in card_svg("sphinx", "hand")


def test_stone_shows_the_back() -> None:
    stone = back_svg(sideways=True)
    assert "Philosopher" in stone and 'viewBox="0 0 280 200"' in stone
    assert not any(spec["name_en"] in stone for spec in kinds().values())
    with speaking("ja"):
        assert "カードの裏" in back_svg(False)


def test_rules_text_states_the_numbers_in_the_data() -> None:
    for spec in kinds().values():
        for effect in spec["ability"].get("effects", []):
            if "vp" in effect:
                assert f"{effect['vp']} VP" in spec["text_en"], spec["id"]
                assert f"勝利点{effect['vp']}" in spec["text_ja"], spec["id"]
            if "faith" in effect:
                assert f"{effect['faith']} faith" in spec["text_en"], spec["id"]
                assert f"信仰{effect['faith']}" in spec["text_ja"], spec["id"]
