"""The sample life: both languages play through the rules core, legally, to the old-age end."""

from __future__ import annotations

import re
from typing import Any

import pytest

from companion.legacy import State, start, step
from companion.packs.format import CARDS
from companion.packs.registry import get_pack
from companion.samples import (
    UnknownSampleError,
    load_sample,
    sample_commands,
    sample_setup,
)

LANGUAGES = ("ja", "en")
MARKS = {
    "en": [
        "The Tide Bell of Ushio",
        "First Voice",
        "The Great Bell of Sena",
        "The Bell-Watch of the Sena",
        "The Ember Hearth",
    ],
    "ja": ["宇潮の潮鐘", "初声（はつごえ）", "瀬那の大鐘", "瀬那川の鐘番", "遺燼の炉"],
}
SUIT_DICE = {"H": 4, "D": 3, "C": 2, "S": 1}
PILE_RANKS = (("A", "2", "3", "4", "5"), ("6", "7", "8", "9", "10"), ("J", "Q", "K"))
TEXT_FIELDS = ("answer", "success", "failure", "narration", "why", "outcome", "epilogue")


def play(language: str) -> State:
    sample = load_sample(language)
    state, _ = start(sample_setup(sample))
    for command in sample_commands(sample):
        state, _ = step(state, command)
    return state


def of_type(sample: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [command for command in sample["commands"] if command["type"] == kind]


@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_plays_through_the_engine_to_the_old_age_end(language: str) -> None:
    state = play(language)
    assert state.end == "old-age-ended" and state.rounds_played == 12
    assert [str(mark.name) for mark in state.marks] == MARKS[language]
    assert state.epilogue is not None and str(state.epilogue).strip()


@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_has_the_promised_shape(language: str) -> None:
    state = play(language)
    status = {keystone.id: keystone.status for keystone in state.keystones}
    assert [k for k, s in status.items() if s == "sacrificed"] == ["r1", "r2", "r3", "a2"]
    assert [k for k, s in status.items() if s == "lost"] == ["a1"]
    sample = load_sample(language)
    assert len(of_type(sample, "spend-token")) == 1 and state.tokens == ()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_chosen_prompt_exists_in_the_standard_pack(language: str) -> None:
    sample = load_sample(language)
    prompts = get_pack("standard", language).prompts
    commands = sample["commands"]
    for draw, choose in zip(commands, commands[1:], strict=False):
        if draw["type"] == "draw-card":
            assert choose["type"] == "choose-prompt"
            assert choose["index"] in (0, 1) and choose["index"] < len(prompts[draw["card"]])


def test_both_languages_tell_the_same_life() -> None:
    def shape(sample: dict[str, Any]) -> list[tuple[Any, ...]]:
        keep = ("type", "seat", "card", "index", "faces", "keystone")
        return [tuple(command.get(key) for key in keep) for command in sample["commands"]]

    ja, en = load_sample("ja"), load_sample("en")
    assert shape(ja) == shape(en)
    assert [k["id"] for k in ja["setup"]["keystones"]] == [
        k["id"] for k in en["setup"]["keystones"]
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_texts_are_written_in_their_language_with_some_markdown(language: str) -> None:
    sample = load_sample(language)
    texts = [c[f] for c in sample["commands"] for f in TEXT_FIELDS if f in c]
    kana = re.compile(r"[\u3040-\u30ff]")
    for text in texts:
        assert text.strip()
        assert bool(kana.search(text)) == (language == "ja"), text
    joined = "\n".join(texts)
    assert re.search(r"\*[^*\n]+\*", joined) and re.search(r"^- ", joined, re.MULTILINE)


def test_unknown_sample_language_is_refused() -> None:
    with pytest.raises(UnknownSampleError):
        load_sample("fr")


# An oracle independent of the engine: the turn order, piles and dice of section 3 and 4.


def check_sequence(commands: list[dict[str, Any]], players: int) -> list[int]:
    """Walk the commands by the rules of 3.2 and 4.9; return each round's mark count (0 or 1)."""
    drawn: set[str] = set()
    marks: list[int] = []
    first, index = 0, 0
    for suit in "HDCS":
        for _ in range(3):
            index, built = check_round(commands, index, suit, first, players, drawn)
            marks.append(built)
            first = (first + 1) % players
    assert [c["type"] for c in commands[index:]] == ["write-epilogue"]
    return marks


def check_round(
    commands: list[dict[str, Any]],
    index: int,
    suit: str,
    first: int,
    players: int,
    drawn: set[str],
) -> tuple[int, int]:
    for turn in range(3):
        seat = (first + turn) % players
        draw = commands[index]
        assert draw == {"type": "draw-card", "seat": seat, "card": draw["card"]}
        assert draw["card"] not in drawn and draw["card"][-1] == suit
        assert draw["card"][:-1] in PILE_RANKS[turn]
        drawn.add(draw["card"])
        index, passed = check_turn(commands, index + 1, seat, suit)
        if not passed:
            return index, 0
        if turn == 2:
            assert commands[index - 1]["type"] == "build-mark"
    return index, 1


def check_turn(
    commands: list[dict[str, Any]], index: int, seat: int, suit: str
) -> tuple[int, bool]:
    kinds = [c["type"] for c in commands[index : index + 4]]
    assert kinds == ["choose-prompt", "answer-prompt", "declare-stakes", "roll-dice"]
    index += 3
    while True:
        roll = commands[index]
        assert roll["seat"] == seat and len(roll["faces"]) == SUIT_DICE[suit]
        success = any(face >= 5 for face in roll["faces"])
        after = commands[index + 1]
        if success:
            assert after["type"] in ("narrate-success", "build-mark")
            return index + 2, True
        while after["type"] == "record-loss":
            index += 1
            after = commands[index + 1]
        if after["type"] == "accept-failure":
            return index + 2, False
        assert after["type"] in ("sacrifice-keystone", "spend-token")
        index += 2


@pytest.mark.parametrize("language", LANGUAGES)
def test_sample_follows_the_turn_order_piles_and_dice_by_hand(language: str) -> None:
    sample = load_sample(language)
    marks = check_sequence(sample["commands"], len(sample["setup"]["players"]))
    assert marks == [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1]
    assert all(card in CARDS for card in (c["card"] for c in of_type(sample, "draw-card")))
