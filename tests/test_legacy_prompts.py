"""Choosing a prompt (3.2 step 3) and the X-card: veiled prompts and an own question."""

from __future__ import annotations

from legacy_factories import PROMPTS, make_state, play, refused

from companion.legacy import (
    AnswerPrompt,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    RollDice,
    State,
    VeilPrompt,
    iter_texts,
    legal_commands,
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
    veiled = play(state, VeilPrompt(1, 0))  # the chosen prompt: choose again, the texts stay
    assert veiled.step == "choose"
    assert veiled.check is not None and veiled.check.answer is not None
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
