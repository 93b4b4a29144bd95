"""The digest's worked examples (section 6), step by step in table mode."""

from __future__ import annotations

from legacy_factories import compose, lose_round, make_state, play, refused, roll

from companion.legacy import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RecordLoss,
    RollDice,
    SacrificeKeystone,
    SpendToken,
    State,
    VeilPrompt,
    legal_commands,
)

ALI, BRIANNA, CARDON = 0, 1, 2


def turn(state: State, seat: int, card: str, faces: tuple[int, ...]) -> State:
    """``seat`` draws ``card``, chooses and answers a prompt, declares stakes and rolls."""
    assert state.seat == seat and state.phase == "draw"
    return play(
        state,
        DrawCard(seat, card),
        ChoosePrompt(seat, index=1),
        AnswerPrompt(seat, "The answer to the prompt."),
        DeclareStakes(seat, "What success means.", "What failure costs."),
        RollDice(seat, faces),
    )


def prime_round_two() -> State:
    """Up to Prime round 2: the resource is gone, and Ali drew from the middle pile in round 1."""
    state = make_state(oldest=CARDON, counts=(1, 2, 2))
    state = roll(compose(state), 1, 1, 1, 1)  # Hearts round 1: Cardon pays with the resource
    state = roll(play(state, SacrificeKeystone(CARDON, "r1", "Why.", "How.")), 1, 1, 1, 1)
    state = play(state, AcceptFailure(CARDON))
    state = lose_round(lose_round(state))  # Hearts rounds 2 and 3: Ali, then Brianna
    state = play(turn(state, CARDON, "AD", (6, 1, 1)), NarrateSuccess(CARDON))
    state = play(turn(state, ALI, "6D", (5, 1, 1)), NarrateSuccess(ALI))
    return play(turn(state, BRIANNA, "JD", (1, 1, 1)), AcceptFailure(BRIANNA))


def example_one() -> State:
    state = prime_round_two()
    assert (state.stage_key, state.round, state.first_seat, state.dice) == ("prime", 2, ALI, 3)
    state = turn(state, ALI, "4D", (4, 5, 5))
    assert state.phase == "success"
    state = play(state, NarrateSuccess(ALI, "How the Pioneer managed it."))
    state = turn(state, BRIANNA, "8D", (2, 3, 4))
    assert state.phase == "failure" and state.pile == "diamonds-middle"
    sacrifice = legal_commands(state)[0]
    assert sacrifice.options == {"kind": "attachment", "keystones": ("a1", "a2")}
    state = play(state, SacrificeKeystone(BRIANNA, "a2", "Why it was needed.", "How it ended."))
    state = play(state, RollDice(BRIANNA, (1, 5, 6)))
    assert state.phase == "success"
    state = play(state, NarrateSuccess(BRIANNA, "What the success means."))
    state = turn(state, CARDON, "QD", (1, 2, 4))
    assert state.phase == "failure"
    return play(state, AcceptFailure(CARDON, "What the failure means."))


def test_example_1_prime_round_two() -> None:
    state = example_one()
    outcomes = [(tp.seat, tp.pile, tp.outcome) for tp in state.story[-3:]]
    assert outcomes == [
        (ALI, "diamonds-low", "success"),
        (BRIANNA, "diamonds-middle", "success"),
        (CARDON, "diamonds-face", "failure"),
    ]
    assert [r.faces for r in state.story[-2].rolls] == [(2, 3, 4), (1, 5, 6)]
    assert state.marks == ()
    assert {k.id: k.status for k in state.keystones}["a2"] == "sacrificed"
    assert (state.stage_key, state.round, state.first_seat) == ("prime", 3, BRIANNA)


def test_example_2_maturity_rounds_one_and_two() -> None:
    state = example_one()
    state = play(turn(state, BRIANNA, "2D", (6, 1, 1)), NarrateSuccess(BRIANNA))
    state = play(turn(state, CARDON, "9D", (6, 1, 1)), NarrateSuccess(CARDON))
    state = play(turn(state, ALI, "KD", (1, 1, 1)), AcceptFailure(ALI))
    assert (state.stage_key, state.round, state.first_seat, state.dice) == (
        "maturity",
        1,
        CARDON,
        2,
    )
    state = play(turn(state, CARDON, "3C", (2, 4)), AcceptFailure(CARDON))
    assert (state.round, state.first_seat) == (2, ALI)  # Ali would have drawn from 6-10
    assert state.pile_cards("clubs-middle") == ("6C", "7C", "8C", "9C", "10C")
    state = play(turn(state, ALI, "AC", (6, 6)), NarrateSuccess(ALI))
    state = play(turn(state, BRIANNA, "7C", (1, 5)), NarrateSuccess(BRIANNA))
    state = turn(state, CARDON, "KC", (5, 2))
    state = play(state, BuildMark(CARDON, "The Harbour Wall", "Stones set by three hands."))
    (mark,) = state.marks
    assert (mark.seat, mark.stage, mark.round, mark.name.value) == (
        CARDON,
        2,
        2,
        "The Harbour Wall",
    )
    assert (state.stage_key, state.round, state.first_seat) == ("maturity", 3, BRIANNA)


def test_example_3_narrative_loss_and_a_token_in_old_age() -> None:
    state = make_state(oldest=BRIANNA, counts=(0, 0, 2))
    for _ in range(9):
        state = lose_round(state)
    assert (state.stage_key, state.round, state.first_seat, state.dice) == (
        "old-age",
        1,
        BRIANNA,
        1,
    )
    state = turn(state, BRIANNA, "5S", (3,))
    state = play(state, SacrificeKeystone(BRIANNA, "c1", "Why it was needed.", "How it ended."))
    state = play(state, RollDice(BRIANNA, (2,)))
    assert state.phase == "failure"
    state = play(state, RecordLoss(BRIANNA, "c2", "The failure shatters the last creed."))
    refused(state, SpendToken(BRIANNA), "token-too-new")
    state = play(state, AcceptFailure(BRIANNA, "The round ends."))
    assert [k.status for k in state.keystones] == ["sacrificed", "lost"]
    assert len(state.tokens) == 1 and state.usable_tokens() == 1
    assert (state.round, state.first_seat) == (2, CARDON)
    state = turn(state, CARDON, "AS", (4,))
    assert [legal.kind for legal in legal_commands(state)][:2] == ["spend-token", "accept-failure"]


def test_example_1_with_an_x_card_on_the_prompt_brianna_answered() -> None:
    """Example 1 again, but Cardon taps the X-card on the prompt Brianna chose and answered:
    she chooses the other prompt (「そこから〈問いかけ〉を1つ選び、回答します。」), answers it
    and declares the stakes afresh before the 2, 3, 4 she rolls."""
    state = prime_round_two()
    state = play(turn(state, ALI, "4D", (4, 5, 5)), NarrateSuccess(ALI))
    state = play(
        state,
        DrawCard(BRIANNA, "8D"),
        ChoosePrompt(BRIANNA, index=0),
        AnswerPrompt(BRIANNA, "Written for the prompt Cardon cannot face."),
        DeclareStakes(BRIANNA, "Stakes for that prompt.", "Its failure."),
        VeilPrompt(CARDON, 0),
    )
    assert state.step == "choose"
    kinds = [legal.kind for legal in legal_commands(state)]
    assert kinds == ["choose-prompt", "veil-prompt", "revise-text"]  # no undo behind the veil
    state = play(state, ChoosePrompt(BRIANNA, index=1))
    assert state.step == "answer"
    state = play(
        state,
        AnswerPrompt(BRIANNA, "The answer to the other prompt."),
        DeclareStakes(BRIANNA, "What success means now.", "What failure costs now."),
        RollDice(BRIANNA, (2, 3, 4)),
        SacrificeKeystone(BRIANNA, "a2", "Why it was needed.", "How it ended."),
        RollDice(BRIANNA, (1, 5, 6)),
        NarrateSuccess(BRIANNA, "What the success means."),
    )
    point = state.story[-1]
    assert (point.seat, point.card, point.veiled, point.prompt_index) == (BRIANNA, "8D", (0,), 1)
    assert [str(point.answer), str(point.stakes_success), str(point.stakes_failure)] == [
        "The answer to the other prompt.",
        "What success means now.",
        "What failure costs now.",
    ]
    assert [r.faces for r in point.rolls] == [(2, 3, 4), (1, 5, 6)]
