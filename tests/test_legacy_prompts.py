"""Choosing a prompt (3.2 step 3) and the X-card: veiled prompts and an own question."""

from __future__ import annotations

import random

from legacy_factories import PROMPTS, make_state, play, refused

from companion.legacy import (
    AnswerPrompt,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    PromptVeiled,
    Recorded,
    RollDice,
    State,
    Undo,
    VeilPrompt,
    event_from_dict,
    evolve,
    iter_texts,
    legal_commands,
    replay,
)


def drawn(card: str = "2H") -> State:
    return play(make_state(), DrawCard(0, card))


def options(state: State, kind: str) -> dict[str, object]:
    (legal,) = [legal for legal in legal_commands(state) if legal.kind == kind]
    return dict(legal.options)


def test_the_player_chooses_one_of_the_cards_prompts() -> None:
    state = drawn()
    assert options(state, "choose-prompt") == {"indices": (0, 1), "own_question": False}
    state = play(state, ChoosePrompt(0, index=1))
    assert state.check is not None
    assert (state.check.prompt_index, state.check.prompt) == (1, PROMPTS["2H"][1])
    refused(state, ChoosePrompt(0, index=0), "prompt-not-answered")


def test_a_prompt_must_exist_and_be_chosen_before_answering() -> None:
    state = drawn()
    refused(state, ChoosePrompt(0, index=2), "unknown-prompt")
    refused(state, ChoosePrompt(0, index=True), "unknown-prompt")  # type: ignore[arg-type]
    refused(state, ChoosePrompt(0), "choose-one")
    refused(state, ChoosePrompt(0, index=0, question="Both?"), "choose-one")
    refused(state, AnswerPrompt(0, "Too soon."), "prompt-not-chosen")


def test_the_answer_and_both_stakes_come_before_the_roll() -> None:
    state = play(drawn(), ChoosePrompt(0, index=0))
    refused(state, AnswerPrompt(0, " "), "text-required")
    refused(state, DeclareStakes(0, "Early.", "Stakes."), "prompt-not-answered")
    state = play(state, AnswerPrompt(0, "An answer."))
    error = refused(state, RollDice(0, (6, 6, 6, 6)), "stakes-not-declared")
    assert error.rule == "3.2.4"
    refused(state, DeclareStakes(0, "", "It breaks."), "text-required")
    refused(state, DeclareStakes(0, "It holds.", ""), "text-required")


def test_anyone_may_veil_a_prompt_and_its_text_never_enters_the_story() -> None:
    state = play(drawn(), VeilPrompt(2, 0))  # Cardon taps the X-card on Ali's turn
    assert state.check is not None and state.check.veiled == (0,)
    assert options(state, "choose-prompt") == {"indices": (1,), "own_question": False}
    assert options(state, "veil-prompt") == {"indices": (1,)}
    refused(state, ChoosePrompt(0, question="Mine?"), "question-needs-veil")
    refused(state, ChoosePrompt(0, index=0), "prompt-veiled")
    refused(state, VeilPrompt(1, 0), "prompt-veiled")
    state = play(state, ChoosePrompt(0, index=1), AnswerPrompt(0, "An answer."))
    texts = [text.value for text in iter_texts(state)]
    assert PROMPTS["2H"][0] not in repr(state.check) and PROMPTS["2H"][0] not in texts


def test_veiling_the_chosen_prompt_before_the_answer_clears_the_choice() -> None:
    state = play(drawn(), ChoosePrompt(0, index=0), VeilPrompt(1, 0))
    assert state.check is not None
    assert (state.check.prompt_index, state.check.prompt, state.step) == (None, None, "choose")
    state = play(state, ChoosePrompt(0, index=1), AnswerPrompt(0, "An answer."))
    assert state.step == "stakes"


def test_any_seat_may_veil_at_any_time_before_the_roll_but_not_after() -> None:
    state = play(drawn(), ChoosePrompt(0, index=0), AnswerPrompt(0, "An answer."))
    state = play(state, DeclareStakes(0, "It holds.", "It breaks."))
    assert state.step == "roll"
    assert options(state, "veil-prompt") == {"indices": (0, 1)}
    veiled = play(state, VeilPrompt(2, 1))
    assert veiled.check is not None and veiled.check.veiled == (1,) and veiled.step == "roll"
    veiled = play(state, VeilPrompt(1, 0))  # the chosen prompt: choose and write again
    assert veiled.step == "choose"
    assert veiled.check is not None and veiled.check.answer is None
    rolled = play(state, RollDice(0, (6, 1, 1, 1)))
    assert "veil-prompt" not in [legal.kind for legal in legal_commands(rolled)]
    refused(rolled, VeilPrompt(1, 1), "success-not-narrated")


def test_an_own_question_is_allowed_only_after_a_veil() -> None:
    state = drawn()
    refused(state, ChoosePrompt(0, question="Mine?"), "question-needs-veil")
    state = play(state, VeilPrompt(0, 0), VeilPrompt(0, 1))
    assert options(state, "choose-prompt") == {"indices": (), "own_question": True}
    assert "veil-prompt" not in [legal.kind for legal in legal_commands(state)]
    refused(state, ChoosePrompt(0, question=" "), "text-required")
    state = play(state, ChoosePrompt(0, question="What did the sea take?"))
    assert state.check is not None and state.check.question is not None
    assert state.check.question.value == "What did the sea take?"
    assert state.step == "answer"


def written_for_q1(seed: int = 1) -> State:
    """Digital mode, three players: Ali chooses the first prompt and answers it."""
    state = play(make_state(seed, mode="digital"), DrawCard(0), rng=random.Random(seed))
    return play(state, ChoosePrompt(0, index=0), AnswerPrompt(0, "answer to q1"))


def test_a_prompt_chosen_after_an_x_card_gets_its_own_answer() -> None:
    state = play(written_for_q1(), VeilPrompt(1, 0))
    assert state.step == "choose" and state.check is not None and state.check.answer is None
    veil = state.log[0].event  # type: ignore[index]
    assert veil == PromptVeiled(1, 0, answer="answer to q1")
    state = play(state, ChoosePrompt(0, index=1))
    assert state.step == "answer"
    assert [legal.kind for legal in legal_commands(state)][0] == "answer-prompt"
    refused(state, DeclareStakes(0, "It holds.", "It breaks."), "prompt-not-answered")
    state = play(state, AnswerPrompt(0, "answer to q2"), DeclareStakes(0, "Holds.", "Breaks."))
    state = play(state, RollDice(0), rng=random.Random(3))
    (point,) = state.turning_points
    assert (point.prompt_index, str(point.answer)) == (1, "answer to q2")
    assert "answer to q1" not in [text.value for text in iter_texts(state)]


def test_declared_stakes_go_with_the_veiled_prompt_and_are_declared_afresh() -> None:
    state = play(written_for_q1(2), DeclareStakes(0, "Old success.", "Old failure."))
    assert state.step == "roll" and state.texts_written == 3
    state = play(state, VeilPrompt(2, 0))
    veil = state.log[0].event  # type: ignore[index]
    assert (veil.answer, veil.success, veil.failure) == (
        "answer to q1",
        "Old success.",
        "Old failure.",
    )
    assert state.check is not None and state.check.set_aside == (state.version,)
    assert (state.check.answer, state.check.stakes_success, state.check.stakes_failure) == (
        None,
        None,
        None,
    )
    assert state.texts_written == 0
    assert "revise-text" not in [legal.kind for legal in legal_commands(state)]
    state = play(state, ChoosePrompt(0, index=1), AnswerPrompt(0, "answer to q2"))
    assert state.step == "stakes"
    refused(state, RollDice(0), "stakes-not-declared", random.Random(1))
    state = play(state, DeclareStakes(0, "New success.", "New failure."))
    state = play(state, RollDice(0), rng=random.Random(1))
    point = state.turning_points[-1]
    assert [str(point.answer), str(point.stakes_success)] == ["answer to q2", "New success."]


def test_undo_stops_at_the_words_set_aside_with_the_prompt() -> None:
    state = play(written_for_q1(), VeilPrompt(1, 0))
    undo = [legal for legal in legal_commands(state) if legal.kind == "undo"]
    assert undo == []  # the answer went with the prompt, and the card stays drawn
    refused(state, Undo(0), "card-stays-veiled")
    chosen = play(state, ChoosePrompt(0, index=1))
    back = play(chosen, Undo(0))
    assert back.step == "choose" and back.check is not None and back.check.answer is None
    assert back.check.set_aside == state.check.set_aside  # type: ignore[union-attr]
    refused(back, Undo(0), "card-stays-veiled")
    assert replay(back.records()) == back


def test_a_veil_recorded_before_words_were_set_aside_replays_as_it_was_played() -> None:
    """An X-card stored without set-aside words (the engine before they were kept) leaves the
    answer where it was: the chronicle reads as it did when it was played."""
    state = written_for_q1()
    stored = {"type": "prompt-veiled", "schema": 1, "seat": 1, "index": 0}
    old = event_from_dict(stored)
    assert old == PromptVeiled(1, 0)
    state = evolve(state, Recorded(state.version + 1, old))
    assert state.check is not None and str(state.check.answer) == "answer to q1"
    assert play(state, ChoosePrompt(0, index=1)).step == "stakes"
