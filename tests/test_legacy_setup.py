"""Setup validation (rules 1.4, 1.7, 2.2, 2.3, D1, D2, D14)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from legacy_factories import PROMPTS, make_setup, make_state

from companion.legacy import (
    ChronicleStarted,
    Keystone,
    PilesShuffled,
    RuleError,
    new_chronicle,
    placeholder_keystones,
    validate_setup,
)


def refused_setup(code: str, **overrides: object) -> RuleError:
    with pytest.raises(RuleError) as caught:
        validate_setup(make_setup(**overrides))
    assert caught.value.code == code, str(caught.value)
    return caught.value


def test_a_valid_setup_passes() -> None:
    validate_setup(make_setup())


def test_default_keystones_are_three_of_each_kind_in_sacrifice_order() -> None:
    keystones = placeholder_keystones()
    assert [k.kind for k in keystones] == ["resource"] * 3 + ["attachment"] * 3 + ["creed"] * 3
    assert len({k.id for k in keystones}) == 9


@pytest.mark.parametrize("counts", [(0, 0, 0), (6, 6, 6), (0, 6, 1)])
def test_each_keystone_count_may_be_0_to_6(counts: tuple[int, int, int]) -> None:
    validate_setup(make_setup(counts=counts))


def test_seven_keystones_of_one_kind_are_refused() -> None:
    error = refused_setup("keystone-count", counts=(3, 7, 3))
    assert error.rule == "D1"
    assert str(error) == "The Pioneer may have at most 6 keystones of one kind, not 7."


@pytest.mark.parametrize("players", [("Solo",), tuple(f"P{n}" for n in range(8))])
def test_one_to_eight_players(players: tuple[str, ...]) -> None:
    validate_setup(make_setup(players=players))


@pytest.mark.parametrize("players", [(), tuple(f"P{n}" for n in range(9))])
def test_zero_or_nine_players_are_refused(players: tuple[str, ...]) -> None:
    assert refused_setup("player-count", players=players).rule == "1.7"


def test_the_oldest_must_be_one_of_the_players() -> None:
    refused_setup("bad-oldest", oldest=3)
    refused_setup("bad-oldest", oldest=-1)


def test_names_must_not_be_blank() -> None:
    refused_setup("text-required", pioneer="  ")
    refused_setup("text-required", players=("Ali", ""))
    refused_setup("text-required", keystones=(Keystone("k", "creed", " "),))


def test_two_players_with_the_same_name_are_refused() -> None:
    refused_setup("duplicate-player", players=("Ali", "ali "))


def test_keystones_need_unique_ids_and_a_known_kind() -> None:
    refused_setup("duplicate-keystone", keystones=(Keystone("k", "creed", "A"),) * 2)
    refused_setup("bad-keystone-kind", keystones=(Keystone("k", "dream", "A"),))


def test_language_and_mode_are_checked() -> None:
    validate_setup(make_setup(language="ja", mode="digital"))
    refused_setup("bad-setup", language="fr")
    refused_setup("bad-setup", mode="online")


def test_the_pack_must_cover_every_card_with_one_to_four_prompts() -> None:
    missing = {card: texts for card, texts in PROMPTS.items() if card != "KS"}
    assert "KS" in str(refused_setup("bad-pack", prompts=missing))
    refused_setup("bad-pack", prompts={**PROMPTS, "ZZ": ("?",)})
    refused_setup("bad-pack", prompts={**PROMPTS, "AH": ()})
    refused_setup("bad-pack", prompts={**PROMPTS, "AH": ("1", "2", "3", "4", "5")})
    refused_setup("text-required", prompts={**PROMPTS, "AH": ("",)})
    validate_setup(make_setup(prompts={**PROMPTS, "AH": ("1", "2", "3", "4")}))


def test_texts_longer_than_20000_characters_are_refused() -> None:
    validate_setup(make_setup(concept="x" * 20_000))
    error = refused_setup("text-too-long", concept="x" * 20_001)
    assert str(error) == "This text has 20001 characters; the limit is 20000."


def test_table_mode_starts_with_the_setup_only_and_digital_mode_records_the_shuffle() -> None:
    table = new_chronicle(make_setup())
    assert [type(e) for e in table] == [ChronicleStarted]
    digital = new_chronicle(make_setup(mode="digital"), random.Random(1))
    assert [type(e) for e in digital] == [ChronicleStarted, PilesShuffled]
    with pytest.raises(RuleError):
        new_chronicle(replace(make_setup(), players=()))


def test_the_oldest_player_takes_the_first_turn_of_youth() -> None:
    state = make_state(oldest=2)
    assert (state.stage_key, state.round, state.turn) == ("youth", 1, 1)
    assert state.seat == state.first_seat == 2
    assert state.phase == "draw" and state.pile == "hearts-low"
