"""Undo: the last decision no longer counts; the events stay (docs/legacy-engine.md, Undo)."""

from __future__ import annotations

import random

from legacy_factories import compose, make_state, play, refused, roll

from companion.legacy import (
    AcceptFailure,
    AnswerPrompt,
    ChoosePrompt,
    DecisionUndone,
    DrawCard,
    ReviseText,
    RollDice,
    SacrificeKeystone,
    State,
    Undo,
    VeilPrompt,
    legal_commands,
    replay,
)


def undo_option(state: State) -> dict[str, object] | None:
    for legal in legal_commands(state):
        if legal.kind == "undo":
            return dict(legal.options)
    return None


def test_undo_reverts_the_last_decision_and_keeps_it_in_the_log() -> None:
    state = play(make_state(), DrawCard(0, "AH"), Undo(0))
    records = list(state.records())
    assert isinstance(records[-1].event, DecisionUndone)
    assert records[-1].event.target_seq == 2
    assert len(records) == 3 and state.undone == frozenset({2})
    assert state.check is None and state.phase == "draw"
    assert state.pile_cards("hearts-low") == make_state().pile_cards("hearts-low")


def test_several_undos_go_further_back() -> None:
    state = compose(make_state())
    state = play(state, Undo(0), Undo(0))
    assert state.step == "answer"
    state = play(state, AnswerPrompt(0, "A better answer."))
    assert state.check is not None and state.check.answer is not None
    assert state.check.answer.value == "A better answer."


def test_undo_options_name_the_decision_it_would_revert() -> None:
    state = compose(make_state())
    assert undo_option(state) == {"target_seq": 5, "event": "stakes-declared"}


def test_nothing_to_undo_at_the_start() -> None:
    state = make_state()
    assert undo_option(state) is None
    refused(state, Undo(0), "nothing-to-undo")


def test_digital_rolls_stay_rolled_and_block_undo_behind_them() -> None:
    state = play(compose(make_state(mode="digital")), RollDice(0), rng=random.Random(2))
    assert undo_option(state) is None
    refused(state, Undo(0), "dice-stay-rolled")


def test_forgiving_undo_and_table_mode_may_undo_a_roll() -> None:
    state = play(
        compose(make_state(mode="digital", forgiving_undo=True)), RollDice(0), rng=random.Random(2)
    )
    assert undo_option(state) == {"target_seq": 7, "event": "dice-rolled"}
    assert play(state, Undo(0)).step == "roll"
    table = play(roll(compose(make_state()), 1, 1, 1, 1), Undo(0))
    assert table.step == "roll" and table.checks_rolled == 0


def test_undo_reaches_back_across_a_round_end() -> None:
    state = roll(compose(make_state()), 1, 1, 1, 1)
    state = play(state, SacrificeKeystone(0, "r1", "Why.", "How."))
    ended = play(roll(state, 1, 1, 1, 1), AcceptFailure(0))
    back = play(ended, Undo(0))
    assert back.phase == "failure" and back.round == 1 and back.rounds_played == 0
    back = play(back, Undo(0), Undo(0))
    assert back.phase == "failure" and {k.id: k.status for k in back.keystones}["r1"] == "kept"


def test_corrections_are_not_undone() -> None:
    state = compose(make_state())
    state = play(state, ReviseText(1, 4, "answer", "Corrected."))
    state = play(state, Undo(0))  # reverts the stakes (seq 5), not the correction (seq 6)
    assert state.step == "stakes"
    assert state.check is not None and state.check.answer is not None
    assert state.check.answer.value == "Corrected."


def test_replay_of_a_log_with_undos_equals_the_stepwise_state() -> None:
    state = compose(make_state())
    state = play(state, Undo(0), Undo(0), AnswerPrompt(0, "Again."))
    assert replay(state.records()) == state


def test_only_the_seat_whose_decision_it_was_may_take_it_back() -> None:
    state = play(make_state(), DrawCard(0, "AH"))
    error = refused(state, Undo(2), "not-your-decision")
    assert "Ali" in str(error)
    assert undo_option(state) == {"target_seq": 2, "event": "card-drawn"}
    (undo,) = [legal for legal in legal_commands(state) if legal.kind == "undo"]
    assert undo.seat == 0


def test_an_x_card_is_never_taken_back() -> None:
    state = play(make_state(), DrawCard(0, "AH"), ChoosePrompt(0, index=0), VeilPrompt(2, 1))
    assert undo_option(state) == {"target_seq": 3, "event": "prompt-chosen"}
    state = play(state, Undo(0))
    assert state.check is not None and state.check.veiled == (1,) and state.step == "choose"
    refused(state, Undo(0), "card-stays-veiled")  # the card stays: its prompt is set aside
    assert undo_option(state) is None


def test_a_roll_taken_back_stays_in_the_check_as_withdrawn() -> None:
    state = play(roll(compose(make_state()), 1, 2, 1, 1), Undo(0))
    assert state.check is not None and state.check.rolls == ()
    (withdrawn,) = state.check.withdrawn
    assert withdrawn.faces == (1, 2, 1, 1) and not withdrawn.success
    state = roll(state, 6, 1, 1, 1)
    assert state.check is not None
    assert [r.faces for r in state.check.rolls] == [(6, 1, 1, 1)]
    assert [r.faces for r in state.check.withdrawn] == [(1, 2, 1, 1)]
    assert replay(state.records()) == state
