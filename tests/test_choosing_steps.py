"""Choosing step by step: each game names the steps of its actions (ja and en), and the table
groups its choices level by level so a phone shows a few buttons at a time."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app
from flask import Flask, get_template_attribute
from flask_babel import force_locale

from companion.cardgames.summoners import GAME as SUMMONERS
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.scenario import arrange
from companion.cardgames.traitors_flame import GAME as TRAITORS_FLAME
from companion.cardgames.traitors_flame import engine as flame_engine
from companion.cardgames.traitors_flame.engine import DECK
from companion.web.boards import summoners as summoners_board
from companion.web.boards import traitors_flame as flame_board
from companion.web.boards.summoners.steps import steps as summoners_steps
from companion.web.boards.traitors_flame import words as flame_words
from companion.web.boards.traitors_flame.steps import steps as flame_steps
from companion.web.tables.choosing import Choice, Step, tree, with_steps

NAMES = ("Ann", "Bo", "Cy")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    return make_app(Path(tmp_path_factory.mktemp("steps")))


@pytest.fixture
def in_lang(app: Flask) -> Iterator[Any]:
    with app.test_request_context():
        yield force_locale


def card(prefix: str) -> str:
    return next(c for c in DECK if c.startswith(prefix))


SUMMONER_CASES = [
    ({"type": "summon", "card": "belial-1"}, "Summon a spirit", "精霊を呼び出す"),
    ({"type": "place", "card": "belial-1"}, "Place a card as mana first", "先にカードを魔力として置く"),
    ({"type": "paid", "kind": "belial"}, "Use a spirit's ability", "精霊の能力を使う"),
    ({"type": "act", "action": "conquest", "victim": 1}, "Conquest", "征服"),
    ({"type": "discard", "zone": "hand", "card": "belial-1"}, "Discard from your hand", "手札から捨てる"),
    ({"type": "discard", "zone": "stones"}, "Discard mana or a stone", "魔力か賢者の石を捨てる"),
]  # fmt: skip


@pytest.mark.parametrize(("action", "en", "ja"), SUMMONER_CASES)
def test_summoners_steps_name_what_comes_first(
    in_lang: Any, action: dict[str, Any], en: str, ja: str
) -> None:
    for lang, head in (("en", en), ("ja", ja)):
        with in_lang(lang):
            assert summoners_steps(action, "the label", {}, NAMES) == (head, "the label")


def test_summoners_action_heads_are_the_boards_own_action_names(in_lang: Any) -> None:
    with in_lang("ja"):
        head = summoners_steps({"type": "act", "action": "research", "flip": None}, "x", {})[0]
        assert head == summoners_board.action_name("research")


@pytest.mark.parametrize("action", [{"type": "play", "card": "belial-1"}, {"type": "declare"}])
def test_summoners_single_choices_are_one_step(in_lang: Any, action: dict[str, Any]) -> None:
    with in_lang("en"):
        assert summoners_steps(action, "Declare", {}) == ("Declare",)


def test_flame_steps_go_card_then_target_then_the_full_choice(in_lang: Any) -> None:
    sword = card("swordsman")
    action = {"type": "play", "card": sword, "target": 1, "take": "flame"}
    view = {"seat": 0}
    with in_lang("en"):
        name = flame_words.card_name(sword)
        assert flame_steps(action, "L", view, NAMES) == (f"Play {name}", "On Bo", "L")
        assert flame_steps({**action, "target": 0}, "L", view, NAMES)[1] == "On yourself"
        assert flame_steps({"type": "draw"}, "Draw", view, NAMES) == ("Draw",)
    with in_lang("ja"):
        name = flame_words.card_name(sword)
        assert name.startswith("「")
        assert flame_steps(action, "L", view, NAMES) == (f"{name}を使う", "対象：Bo", "L")
        assert flame_steps({**action, "target": 0}, "L", view, NAMES)[1] == "対象：自分"


def test_flame_card_without_a_target_has_no_target_step(in_lang: Any) -> None:
    with in_lang("en"):
        path = flame_steps({"type": "play", "card": card("saint")}, "L", {"seat": 0}, NAMES)
        assert path == (f"Play {flame_words.card_name(card('saint'))}", "L")


def paying(stones: int, mana: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Seat 0 of a 2-player match summoning Nightmare (3 black + 2 any) out of a row of ``mana``
    kinds and ``stones`` stones: (the state, seat 0's view) at the payment."""
    state = new(2, 3, {"start": 0})
    arrange(
        state, 0, hand=["nightmare", "belial"], mana=mana, stones=["kelpie", "rusalka"][:stones]
    )
    belial = next(c for c in state["seats"][0]["hand"] if c.startswith("belial"))
    state = SUMMONERS.apply(state, 0, {"type": "play", "card": belial})
    summon = next(a for a in SUMMONERS.legal_actions(state, 0) if a["type"] == "summon")
    state = SUMMONERS.apply(state, 0, summon)
    assert state["await"]["phase"] == "pay"
    return state, SUMMONERS.view(state, 0)


WIDE_ROW = ["ankou", "ankou", "asmodai", "giant", "dryad", "redcap", "kasha", "kobold", "sphinx",
            "amabie", "selkie"]  # fmt: skip


def levels(steps: tuple[Step, ...]) -> list[tuple[Step, ...]]:
    """Every level of a tree of steps, the top one first."""
    found = [steps]
    for step in steps:
        found += levels(step.children)
    return found


@pytest.mark.parametrize(("lang", "stones"), [("en", 2), ("ja", 2), ("en", 0), ("ja", 0)])
def test_a_long_payment_list_is_paid_in_a_few_short_steps(
    in_lang: Any, lang: str, stones: int
) -> None:
    state, view = paying(stones, WIDE_ROW)
    with in_lang(lang):
        flat = [
            (a, summoners_board.label(a, view, NAMES)) for a in SUMMONERS.legal_actions(state, 0)
        ]
        chosen = with_steps("age-of-summoners", flat, view, NAMES)
        macro = get_template_attribute("tables/_steps.html", "step_list")
        html = str(macro(chosen.steps, len(chosen) == 1))
    assert html.count("<button") == len(flat) and "primary" not in html
    assert len(flat) > 12  # more than twice what a level shows
    assert max(len(level) for level in levels(chosen.steps)) <= 6
    assert sorted(s.label for s in leaves(chosen.steps)) == sorted(label for _, label in flat)
    assert list(chosen) == flat  # the flat list keeps the engine's order
    first = chosen.steps[0]
    if stones:  # the fewest stones come first: nothing puts the costliest payment forward
        assert first.label in ("Pay without philosopher's stones", "賢者の石を使わずに支払う")
        stone_counts = [min(a["pay"].get("stone", 0) for a in _actions(s)) for s in chosen.steps]
        assert stone_counts == sorted(stone_counts)


def _actions(step: Step) -> list[dict[str, Any]]:
    return [s.action for s in leaves((step,)) if s.action is not None]


def test_a_few_payments_are_one_level_of_buttons(in_lang: Any) -> None:
    state, view = paying(1, ["ankou", "ankou", "asmodai", "giant", "dryad"])
    with in_lang("en"):
        flat = [
            (a, summoners_board.label(a, view, NAMES)) for a in SUMMONERS.legal_actions(state, 0)
        ]
        chosen = with_steps("age-of-summoners", flat, view, NAMES)
    assert 1 < len(flat) <= 6
    assert [s.label for s in chosen.steps] == sorted(
        (label for _, label in flat), key=lambda t: "stone" in t
    )
    assert all(s.action is not None for s in chosen.steps)


def leaves(steps: tuple[Step, ...]) -> list[Step]:
    found = []
    for step in steps:
        found += [step] if step.action is not None else leaves(step.children)
    return found


def test_tree_groups_shared_steps_and_lone_choices_stand_alone() -> None:
    choices = [
        Choice({"n": 1}, "Summon A", ("Summon", "Summon A")),
        Choice({"n": 2}, "Summon B", ("Summon", "Summon B")),
        Choice({"n": 3}, "Research: flip black", ("Research", "Research: flip black")),
        Choice({"n": 4}, "Festival", ("Festival",)),
    ]
    top = tree(choices)
    assert [(s.label, s.action) for s in top] == [
        ("Summon", None),
        ("Research: flip black", {"n": 3}),
        ("Festival", {"n": 4}),
    ]
    assert [s.label for s in top[0].children] == ["Summon A", "Summon B"]
    assert top[0].children[0].key == "Summon › Summon A"


def test_a_level_with_one_group_opens_straight_onto_it() -> None:
    choices = [Choice({"n": i}, f"Pay {i}", ("Play X", "On Bo", f"Pay {i}")) for i in range(3)]
    assert [s.label for s in tree(choices)] == ["Pay 0", "Pay 1", "Pay 2"]


@pytest.fixture(scope="module")
def crowded_summoners() -> tuple[dict[str, Any], int]:
    """A 4-player match played at random until one seat has 20 or more choices in phase II."""
    for seed in range(60):
        state, rng = new(4, seed, {"start": 0, "catch_up": False}), random.Random(seed)
        for _ in range(300):
            if state["result"] is not None:
                break
            seat = state["await"]["seat"]
            legal = SUMMONERS.legal_actions(state, seat)
            if len(legal) >= 20 and state["await"]["phase"] == "main":
                return state, seat
            state = SUMMONERS.apply(state, seat, rng.choice(legal))
    raise AssertionError("no crowded turn found")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_crowded_turn_shows_fewer_buttons_first_and_every_choice_once(
    in_lang: Any, lang: str, crowded_summoners: tuple[dict[str, Any], int]
) -> None:
    state, seat = crowded_summoners
    view = SUMMONERS.view(state, seat)
    with in_lang(lang):
        labelled = [
            (a, summoners_board.label(a, view, NAMES)) for a in SUMMONERS.legal_actions(state, seat)
        ]
        flat = list({label: (a, label) for a, label in labelled}.values())
        chosen = with_steps("age-of-summoners", flat, view, NAMES)
    assert len(chosen) == len(flat)
    assert len(chosen.steps) < len(flat)
    assert sorted(s.label for s in leaves(chosen.steps)) == sorted(label for _, label in flat)
    assert list(chosen) == flat


def test_a_flame_turn_groups_plays_by_card_then_target(in_lang: Any) -> None:
    state, seat = crowded_flame()
    view = TRAITORS_FLAME.view(state, seat)
    with in_lang("en"):
        flat = [
            (a, flame_board.label(a, view, NAMES))
            for a in TRAITORS_FLAME.legal_actions(state, seat)
        ]
        flat = list({label: (a, label) for a, label in flat}.values())
        chosen = with_steps("traitors-flame", flat, view, NAMES)
    assert len(chosen.steps) < len(flat)
    assert sorted(s.label for s in leaves(chosen.steps)) == sorted(label for _, label in flat)
    cards = [s for s in chosen.steps if s.children]
    assert cards and all(s.label.startswith("Play ") for s in cards)
    assert any(c.label.startswith("On ") for s in cards for c in s.children)


def crowded_flame() -> tuple[dict[str, Any], int]:
    """A 3-player Traitor's Flame match where the seat holding Night may play a card on others
    in several ways."""
    for seed in range(200):
        state = flame_engine.new(3, seed, {})
        rng = random.Random(seed)
        for _ in range(40):
            if state["result"] is not None:
                break
            seat = state["night"]
            legal = TRAITORS_FLAME.legal_actions(state, seat)
            targeted = {a["card"] for a in legal if "target" in a}
            if len(legal) >= 8 and targeted:
                return state, seat
            state = TRAITORS_FLAME.apply(state, seat, rng.choice(legal))
    raise AssertionError("no crowded turn found")
