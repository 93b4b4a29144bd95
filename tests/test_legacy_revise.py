"""ReviseText: corrections of earlier texts, with their history (1.6)."""

from __future__ import annotations

import pytest
from legacy_factories import compose, lose_round, make_state, play, refused, roll, win_round

from companion.legacy import (
    AcceptFailure,
    NarrateSuccess,
    RecordLoss,
    ReviseText,
    SacrificeKeystone,
    State,
    WriteEpilogue,
    find_text,
    iter_texts,
)


def revised(state: State, seq: int, field: str, text: str = "Revised.") -> State:
    return play(state, ReviseText(2, seq, field, text))


def test_a_revision_shows_the_latest_text_and_keeps_the_earlier_ones() -> None:
    state = compose(make_state())  # answer written by seq 4, stakes by seq 5
    state = revised(state, 4, "answer", "Second.")
    state = revised(state, 4, "answer", "Third.")
    assert state.check is not None and state.check.answer is not None
    answer = state.check.answer
    assert (answer.value, answer.earlier, answer.revisions) == (
        "Third.",
        ("An answer.", "Second."),
        (6, 7),
    )
    assert str(answer) == "Third."
    state = revised(state, 5, "failure", "It shatters.")
    assert state.check.stakes_failure is not None
    assert state.check.stakes_failure.value == "It shatters."
    assert state.check.stakes_success is not None
    assert state.check.stakes_success.value == "It holds."


def test_every_kind_of_text_can_be_revised_in_the_closed_story_too() -> None:
    state = roll(compose(make_state()), 1, 1, 1, 1)
    state = play(state, SacrificeKeystone(0, "r1", "Why.", "How."))
    state = roll(state, 1, 1, 1, 1)
    state = play(state, RecordLoss(0, "c1", "Lost."), AcceptFailure(0, "It broke."))
    state = win_round(state)
    for _ in range(10):
        state = lose_round(state)
    state = play(state, WriteEpilogue(0, "The end."))
    fields = {text.field for text in iter_texts(state)}
    assert fields == {
        "answer",
        "success",
        "failure",
        "why",
        "outcome",
        "narration",
        "name",
        "description",
    } | {"epilogue"}
    for text in list(iter_texts(state)):
        state = revised(state, text.seq, text.field, f"New {text.field}.")
    assert all(text.value.startswith("New ") for text in iter_texts(state))
    keystone = {k.id: k for k in state.keystones}["r1"]
    assert keystone.why is not None and keystone.why.value == "New why."
    assert state.story[0].payments[0].why == keystone.why  # both copies revised
    assert state.marks[0].name.value == "New name."


def test_revising_an_unknown_text_or_blanking_a_required_one_is_refused() -> None:
    state = compose(make_state())
    refused(state, ReviseText(0, 99, "answer", "x"), "no-such-text")
    refused(state, ReviseText(0, 4, "success", "x"), "no-such-text")
    refused(state, ReviseText(0, 4, "pioneer", "x"), "no-such-text")
    refused(state, ReviseText(0, 4, "answer", " "), "text-required")
    refused(state, ReviseText(0, 4, "answer", "x" * 20_001), "text-too-long")


def test_an_optional_text_may_be_revised_to_blank_or_from_blank() -> None:
    state = play(roll(compose(make_state()), 6, 6, 6, 6), NarrateSuccess(0))
    narration = find_text(state, 7, "narration")
    assert narration is not None and narration.value == ""
    state = revised(state, 7, "narration", "What really happened.")
    assert state.story[0].narration is not None
    assert state.story[0].narration.value == "What really happened."


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_anyone_at_the_table_may_revise(seat: int) -> None:
    state = play(compose(make_state()), ReviseText(seat, 4, "answer", "Fixed."))
    assert find_text(state, 4, "answer") is not None


def test_revisions_are_allowed_after_the_end() -> None:
    state = make_state()
    for _ in range(7):
        state = win_round(state)
    state = play(win_round(state), WriteEpilogue(1, "Eight marks."))
    state = revised(state, state.marks[7].seq, "name", "The Last Mark")
    assert state.marks[7].name.value == "The Last Mark"
    assert state.epilogue is not None
    state = revised(state, state.epilogue.seq, "epilogue", "Eight marks, and a quiet harbour.")
    assert state.epilogue is not None and state.epilogue.earlier == ("Eight marks.",)
