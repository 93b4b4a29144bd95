"""A refused action tells nothing about hidden cards: the refusal is the same wherever they lie.

In states met along seeded random matches, every card id the acting seat cannot see is named in
every shape of card action; the refusals, with the card's id blanked out, must all be one text.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.cardgames import CardGameRuleError, get_game
from companion.cardgames.summoners.cards import kind_of_card
from companion.cardgames.traitors_flame.cards import deck_cards

State = dict[str, Any]
Shape = Callable[[str], dict[str, Any]]

SUMMONERS_SHAPES: list[Shape] = [
    *(
        (lambda card, kind=kind: {"type": kind, "card": card})
        for kind in ("play", "summon", "place", "give", "choose", "keep")
    ),
    *(
        (lambda card, zone=zone: {"type": "discard", "zone": zone, "card": card})
        for zone in ("hand", "mana", "stones", "spirits", "deck")
    ),
]


def traitors_shapes(players: int) -> list[Shape]:
    aimed: list[Shape] = [
        (lambda card, target=target: {"type": "play", "card": card, "target": target})
        for target in range(players)
    ]
    return [
        lambda card: {"type": "play", "card": card},
        lambda card: {"type": "draw", "card": card},
        *aimed,
    ]


def walk(key: str, players: int, seed: int, every: int) -> Iterator[State]:
    """Every ``every``-th state of a match played by uniformly random legal actions."""
    game = get_game(key)
    rng = random.Random(seed)
    s = game.new(players, seed, {"max_rounds": 2} if key == "traitors-flame" else {})
    for step in range(2000):
        if game.result(s) is not None:
            return
        seat = next(x for x in range(players) if game.legal_actions(s, x))
        if step % every == 0:
            yield s
        s = game.apply(s, seat, rng.choice(game.legal_actions(s, seat)))


def hidden(key: str, s: State, seat: int, cards: list[str]) -> list[str]:
    """The card ids that appear nowhere in what ``seat`` sees."""
    seen = json.dumps(get_game(key).view(s, seat))
    return [card for card in cards if f'"{card}"' not in seen]


def outcome(key: str, s: State, seat: int, action: dict[str, Any], card: str) -> str:
    try:
        get_game(key).apply(s, seat, action)
    except CardGameRuleError as err:
        return str(err).replace(card, "<card>")
    return "accepted"


def assert_refusals_hide(key: str, s: State, shapes: list[Shape], cards: list[str]) -> None:
    game = get_game(key)
    for seat in range(len(s.get("seats") or s["hands"])):
        if not game.legal_actions(s, seat):
            continue
        unseen = hidden(key, s, seat, cards)
        assert unseen
        for shape in shapes:
            answers = {outcome(key, s, seat, shape(card), card) for card in unseen}
            assert len(answers) == 1 and "accepted" not in answers, (shape("<card>"), answers)


@pytest.mark.parametrize("seed", range(3))
def test_summoners_refusals_do_not_depend_on_hidden_cards(seed: int) -> None:
    cards = sorted(kind_of_card())
    for s in walk("age-of-summoners", 2 + seed, seed, every=20):
        assert_refusals_hide("age-of-summoners", s, SUMMONERS_SHAPES, cards)


def test_summoners_refusals_hide_a_trim_during_anothers_refill() -> None:
    """Trimming to the limit while the active player holds a private refill (D21, 9/9)."""
    met = 0
    cards = sorted(kind_of_card())
    for seed in range(60):
        for s in walk("age-of-summoners", 3, seed, every=1):
            ctx = s["await"]
            if s["turn"].get("drawn") and ctx and ctx["seat"] != s["turn"].get("seat"):
                assert_refusals_hide("age-of-summoners", s, SUMMONERS_SHAPES, cards)
                met += 1
                break
        if met >= 2:
            return
    pytest.skip("no trim during another's refill met")


@pytest.mark.parametrize("seed", range(3))
def test_traitors_flame_refusals_do_not_depend_on_hidden_cards(seed: int) -> None:
    players = 2 + seed
    cards = sorted(set(deck_cards()))
    shapes = traitors_shapes(players)
    for s in walk("traitors-flame", players, seed, every=9):
        assert_refusals_hide("traitors-flame", s, shapes, cards)
