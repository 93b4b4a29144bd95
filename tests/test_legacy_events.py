"""Events and commands as JSON: the stored form, its registry and its schema version."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from legacy_factories import make_setup, make_state, sample_command

from companion.legacy import (
    COMMAND_TYPES,
    EVENT_TYPES,
    SCHEMA_VERSION,
    CardDrawn,
    ChronicleStarted,
    DiceRolled,
    Event,
    EventFormatError,
    PilesShuffled,
    PromptChosen,
    RollDice,
    RuleError,
    command_from_dict,
    command_to_dict,
    event_from_dict,
    event_to_dict,
    shuffle_piles,
)
from companion.legacy import events as events_module


def round_trip(event: Event) -> Event:
    return event_from_dict(json.loads(json.dumps(event_to_dict(event), ensure_ascii=False)))


def test_every_event_has_a_unique_kebab_case_name_in_the_registry() -> None:
    assert len(EVENT_TYPES) == 17
    for name, cls in EVENT_TYPES.items():
        assert name == cls.kind and name == name.lower() and " " not in name
    assert EVENT_TYPES["dice-rolled"] is DiceRolled


def test_the_setup_round_trips_whole_with_its_prompt_snapshot() -> None:
    setup = make_setup(people="Human", lines="No drowning.", veils="Storms", language="ja")
    event = ChronicleStarted(setup)
    assert round_trip(event) == event
    assert event_to_dict(event)["setup"]["prompts"]["AH"] == [
        "AH: first prompt",
        "AH: second prompt",
    ]


def test_the_shuffle_and_chance_outcomes_round_trip() -> None:
    for event in (
        PilesShuffled(shuffle_piles(random.Random(4))),
        CardDrawn(1, "10D"),
        DiceRolled(0, (1, 6, 5)),
        PromptChosen(2, question="幼い日の海は何色だった？"),
    ):
        assert round_trip(event) == event


def test_a_stored_event_says_its_type_and_schema() -> None:
    assert event_to_dict(DiceRolled(0, (2, 5))) == {
        "type": "dice-rolled",
        "schema": SCHEMA_VERSION,
        "seat": 0,
        "faces": [2, 5],
    }


@pytest.mark.parametrize(
    "data",
    [
        {"type": "dice-exploded", "schema": 1, "seat": 0},
        {"type": "dice-rolled", "schema": SCHEMA_VERSION + 1, "seat": 0, "faces": [1]},
        {"type": "dice-rolled", "seat": 0, "faces": [1]},
        {"type": "dice-rolled", "schema": 1, "faces": [1]},
        {"type": "dice-rolled", "schema": 1, "seat": 0, "faces": ["1"]},
        {"type": "dice-rolled", "schema": 1, "seat": 0, "faces": [1], "extra": 1},
        {"type": "card-drawn", "schema": 1, "seat": True, "card": "AH"},
        {"type": "chronicle-started", "schema": 1, "setup": {"pioneer": "K"}},
    ],
)
def test_unknown_or_malformed_events_raise_event_format_error(data: dict[str, Any]) -> None:
    with pytest.raises(EventFormatError):
        event_from_dict(data)


def test_every_command_round_trips_through_json() -> None:
    state = make_state()
    for kind, cls in COMMAND_TYPES.items():
        command = sample_command(state, kind, 1)
        assert type(command) is cls
        data = json.loads(json.dumps(command_to_dict(command)))
        assert data["type"] == kind
        assert command_from_dict(data) == command


def test_optional_command_fields_may_be_left_out() -> None:
    assert command_from_dict({"type": "roll-dice", "seat": 0}) == RollDice(0)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "flip-table", "seat": 0},
        {"seat": 0},
        {"type": "roll-dice", "seat": "0"},
        {"type": "roll-dice", "seat": 0, "faces": [1, "6"]},
        {"type": "sacrifice-keystone", "seat": 0, "keystone": "r1"},
    ],
)
def test_malformed_commands_are_rule_errors(data: dict[str, Any]) -> None:
    with pytest.raises(RuleError) as caught:
        command_from_dict(data)
    assert caught.value.code == "bad-command"


def test_setup_and_not_decision_events_are_listed() -> None:
    assert ChronicleStarted in events_module.NOT_DECISIONS
    assert DiceRolled not in events_module.NOT_DECISIONS
