"""Traitor's Flame card set: the design brief's constraints, data-driven text, faces and backs."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest
from traitors_flame_text import effect_text, text_languages, text_mismatches

from companion.base import languages
from companion.cardgames.traitors_flame import cards
from companion.web.boards.traitors_flame import svg

CHARS = cards.characters()


def test_the_set_meets_the_brief():
    assert cards.check_set() == []


def test_sixty_cards_and_the_specials():
    assert len(cards.all_cards()) == 60 and len(cards.deck_cards()) == 58
    kinds = cards.kinds()
    assert (kinds["night"]["value"], kinds["dawn"]["value"], kinds["flame"]["value"]) == (2, 4, 3)
    assert len(cards.flame_ids()) == 14
    assert not any(k["usable"] for k in kinds.values() if k.get("special"))


def test_copies_colours_and_values():
    assert sorted(k["copies"] for k in CHARS) == [3] * 6 + [4] * 4 + [5] * 2
    by_colour = {c: sum(k["copies"] for k in CHARS if k["colour"] == c) for c in cards.COLOURS}
    assert by_colour == {"red": 15, "blue": 15, "white": 14}
    assert {k["value"] for k in CHARS} <= set(range(-4, 3))
    assert cards.mean_value(CHARS, usable=False) - cards.mean_value(CHARS, usable=True) >= 1.5


def test_the_four_known_kinds():
    by_name = {k["name_ja"]: k for k in CHARS}
    assert not by_name["叛炎の聖女"]["usable"] and not by_name["王の右手"]["usable"]
    assert by_name["真義の剣士"]["target_rule"] == "any"
    assert [b["block"] for b in by_name["忘却の道化師"]["effect"]] == ["REVERSE", "DRAW"]
    assert 2 <= sum(not k["usable"] for k in CHARS) <= 4


def test_every_kind_has_both_names_text_and_flavour():
    for k in CHARS:
        for field in ("name_ja", "name_en", "text_ja", "text_en", "flavour_ja", "flavour_en"):
            assert k[field].strip(), (k["id"], field)


def test_the_rules_texts_in_the_data_say_what_the_blocks_do():
    kinds = list(cards.kinds().values())
    assert all(text_languages(k) == ["en", "ja"] for k in kinds)
    assert text_mismatches(CHARS) == []
    changed = [dict(k) for k in CHARS]
    changed[0]["text_ja"] = changed[0]["text_ja"] + "！"
    assert text_mismatches(changed) == [
        f"{CHARS[0]['id']}: text_ja differs from the text built from its blocks"
    ]


def test_effects_use_only_the_closed_block_list():
    for k in CHARS:
        for block in k["effect"]:
            assert block["block"] in cards.BLOCKS
            assert set(block.get("if", {})) <= set(cards.CONDITIONS)


def test_check_set_notices_a_broken_set(monkeypatch):
    broken = [dict(k) for k in CHARS]
    broken[0] = dict(broken[0], value=5)
    saint = next(i for i, k in enumerate(broken) if k["id"] == "saint")
    broken[saint] = dict(broken[saint], usable=True, effect=[{"block": "DRAW", "n": 1}])
    monkeypatch.setattr(cards, "characters", lambda: broken)
    problems = cards.check_set()
    assert any("values" in p for p in problems)
    assert "saint must exist and be unusable" in problems


def test_generated_text_joins_blocks_and_conditions():
    hound = cards.kinds()["hound"]
    assert effect_text(hound, "en").startswith("Choose another player. If they hold 2 or more")
    assert "見て、" in effect_text(cards.kinds()["seer"], "ja")
    assert "、、" not in "".join(effect_text(k, "ja") for k in CHARS)


@pytest.mark.parametrize("kind", sorted(cards.kinds()))
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_faces_are_svg_with_value_name_and_text(kind, lang):
    k = cards.kinds()[kind]
    face = svg.front(kind, lang)
    root = ET.fromstring(face)
    assert root.tag.endswith("svg")
    shown = "".join(root.itertext())
    assert f"{k['value']:+d}" in shown and k[f"name_{lang}"] in shown
    assert k[f"text_{lang}"].replace(" ", "") in shown.replace(" ", "")


def test_face_accepts_a_card_id():
    assert svg.front("jester-3", "ja") == svg.front("jester", "ja")


def test_special_backs_are_distinct_and_character_backs_identical():
    character_backs = {svg.back(k["id"]) for k in CHARS} | {svg.back("swordsman-2")}
    assert len(character_backs) == 1
    specials = {svg.back(s) for s in ("flame", "night", "dawn")}
    assert len(specials) == 3 and not specials & character_backs
    for back in specials | character_backs:
        ET.fromstring(back)
    # a back never names the character on its front
    assert not any(k["name_en"] in next(iter(character_backs)) for k in CHARS)


def test_the_engine_package_holds_no_presentation() -> None:
    import ast
    from pathlib import Path

    package = Path(cards.__file__).parent
    imported = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
    assert not imported & {"flask", "flask_babel", "markupsafe", "jinja2"}
    assert not (package / "board.py").exists() and not (package / "svg.py").exists()


def test_card_text_breaks_into_lines_where_its_language_breaks_them(monkeypatch):
    text = cards.kinds()["hound"]["text_en"]
    lines = svg.text_lines(text, "en")
    assert " ".join(lines) == text and len(lines) > 1 and all(len(li) <= 36 for li in lines)
    ja = cards.kinds()["hound"]["text_ja"]
    assert "".join(svg.text_lines(ja, "ja")) == ja
    by_characters = dataclasses.replace(languages.TABLE["en"], wrap="characters")
    monkeypatch.setitem(languages.TABLE, "en", by_characters)
    lines = svg.text_lines(text, "en")
    assert "".join(lines) == text and len(lines[0]) == 17
