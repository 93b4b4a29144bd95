"""Cards, piles and stages (rules 1.1, 1.2, 3.1)."""

from __future__ import annotations

import random
from collections import Counter

from companion.legacy import CARDS, PILE_CARDS, PILES, STAGES, shuffle_piles
from companion.legacy.cards import pile_index, pile_of


def test_a_deck_of_52_cards_without_jokers_in_12_piles() -> None:
    assert len(CARDS) == len(set(CARDS)) == 52
    assert len(PILES) == 12
    assert sorted(card for pile in PILES for card in PILE_CARDS[pile]) == sorted(CARDS)


def test_each_suit_splits_into_low_middle_and_face_piles() -> None:
    assert PILE_CARDS["hearts-low"] == ("AH", "2H", "3H", "4H", "5H")
    assert PILE_CARDS["diamonds-middle"] == ("6D", "7D", "8D", "9D", "10D")
    assert PILE_CARDS["spades-face"] == ("JS", "QS", "KS")
    assert Counter(len(PILE_CARDS[pile]) for pile in PILES) == {5: 8, 3: 4}


def test_stages_run_hearts_diamonds_clubs_spades_with_4_3_2_1_dice() -> None:
    assert [(s.key, s.suit, s.dice, s.age) for s in STAGES] == [
        ("youth", "hearts", 4, "20-32"),
        ("prime", "diamonds", 3, "33-48"),
        ("maturity", "clubs", 2, "49-62"),
        ("old-age", "spades", 1, "63+"),
    ]


def test_turns_1_2_3_draw_from_the_low_middle_and_face_piles() -> None:
    assert [PILES[pile_index(1, turn)] for turn in (1, 2, 3)] == [
        "diamonds-low",
        "diamonds-middle",
        "diamonds-face",
    ]


def test_pile_of_a_card_and_of_a_non_card() -> None:
    assert pile_of("10C") == "clubs-middle"
    assert pile_of("QH") == "hearts-face"
    assert pile_of("1H") is None
    assert pile_of("AX") is None


def test_shuffling_permutes_each_pile_separately_and_depends_only_on_the_seed() -> None:
    piles = shuffle_piles(random.Random(7))
    assert piles == shuffle_piles(random.Random(7))
    assert piles != shuffle_piles(random.Random(8))
    for pile in PILES:
        assert sorted(piles[pile]) == sorted(PILE_CARDS[pile])
