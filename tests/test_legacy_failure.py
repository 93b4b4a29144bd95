"""Failure: sacrifices (4.4, 4.5), reroll tokens (4.7, D5-D7), narrative loss (4.6, D8)."""

from __future__ import annotations

from legacy_factories import compose, lose_round, make_state, play, refused, roll

from companion.legacy import (
    AcceptFailure,
    DeclareStakes,
    NarrateSuccess,
    RecordLoss,
    RollDice,
    SacrificeKeystone,
    SpendToken,
    State,
    legal_commands,
)


def failed(state: State | None = None, **overrides: object) -> State:
    """The first check of a round, failed."""
    state = state or make_state(**overrides)  # type: ignore[arg-type]
    return roll(compose(state), *[1] * state.dice)


def kinds(state: State) -> list[str]:
    return [legal.kind for legal in legal_commands(state)]


def sacrifice(state: State, keystone: str) -> State:
    return play(state, SacrificeKeystone(state.seat, keystone, "It had to be.", "It burned."))


def test_a_failure_offers_sacrifice_token_or_accept() -> None:
    state = failed()
    assert kinds(state) == [
        "sacrifice-keystone",
        "accept-failure",
        "record-loss",
        "revise-text",
        "undo",  # table mode: a typed roll may be undone
    ]
    sacrifice_legal = legal_commands(state)[0]
    assert sacrifice_legal.options == {"kind": "resource", "keystones": ("r1", "r2", "r3")}


def test_resources_go_before_attachments_and_attachments_before_creeds() -> None:
    state = failed()
    error = refused(state, SacrificeKeystone(0, "c1", "Why.", "How."), "sacrifice-order")
    assert error.rule == "4.4"
    assert str(error) == "Resources must all be gone before an attachment or a creed is sacrificed."
    refused(state, SacrificeKeystone(0, "a2", "Why.", "How."), "sacrifice-order")
    for keystone in ("r2", "r3", "r1"):  # the player picks which within the allowed kind
        state = play(sacrifice(state, keystone), RollDice(0, (1, 1, 1, 1)))
    refused(state, SacrificeKeystone(0, "c1", "Why.", "How."), "sacrifice-order")
    state = play(sacrifice(state, "a3"), RollDice(0, (1, 1, 1, 1)))
    assert legal_commands(state)[0].options == {"kind": "attachment", "keystones": ("a1", "a2")}


def test_a_sacrifice_needs_both_answers() -> None:
    state = failed()
    refused(state, SacrificeKeystone(0, "r1", "", "It burned."), "text-required")
    refused(state, SacrificeKeystone(0, "r1", "It had to be.", "   "), "text-required")


def test_a_sacrifice_pays_for_a_reroll_with_the_same_stakes() -> None:
    state = sacrifice(failed(), "r2")
    assert state.phase == "reroll" and state.step == "reroll"
    assert kinds(state) == ["roll-dice", "revise-text", "undo"]
    refused(state, DeclareStakes(0, "New.", "Stakes."), "reroll-pending")
    state = roll(state, 2, 5, 1, 1)
    check = state.check
    assert check is not None and [r.reroll for r in check.rolls] == [False, True]
    assert state.phase == "success"
    assert check.stakes_success is not None and check.stakes_success.value == "It holds."
    (payment,) = check.payments
    assert (payment.kind, payment.keystone) == ("sacrifice", "r2")
    assert payment.why is not None and payment.why.value == "It had to be."
    kept = {k.id: k for k in state.keystones}
    assert (kept["r2"].status, kept["r2"].stage, kept["r2"].round) == ("sacrificed", 0, 1)
    assert kept["r2"].outcome is not None and kept["r2"].outcome.value == "It burned."


def test_sacrifices_may_repeat_while_keystones_remain() -> None:
    state = failed(counts=(1, 1, 0))
    state = roll(sacrifice(state, "r1"), 1, 1, 1, 1)
    state = roll(sacrifice(state, "a1"), 1, 1, 1, 1)
    assert "sacrifice-keystone" not in kinds(state)
    refused(state, SacrificeKeystone(0, "a1", "Why.", "How."), "keystone-gone")
    refused(state, SacrificeKeystone(0, "zz", "Why.", "How."), "unknown-keystone")
    state = play(state, AcceptFailure(0, "Nothing more to give."))
    assert state.rounds_played == 1 and state.story[-1].outcome == "failure"
    assert len(state.story[-1].rolls) == 3


def test_a_narrative_loss_takes_any_kind_and_gives_one_token() -> None:
    state = failed()
    state = play(state, RecordLoss(0, "c2", "The creed shattered."))
    lost = {k.id: k for k in state.keystones}["c2"]
    assert lost.status == "lost"
    assert lost.narration is not None and lost.narration.value == "The creed shattered."
    (token,) = state.tokens
    assert (token.gained_turn, token.keystone) == (state.turn_no, "c2")
    assert state.check is not None and state.check.losses[0].keystone == "c2"
    assert state.phase == "failure"  # the loss is part of narrating the result


def test_a_lost_keystone_counts_as_sacrificed_for_the_order() -> None:
    state = failed(counts=(1, 1, 1))
    state = play(state, RecordLoss(0, "r1"))
    assert legal_commands(state)[0].options == {"kind": "attachment", "keystones": ("a1",)}


def test_a_loss_may_be_recorded_after_a_success_but_not_before_the_roll() -> None:
    state = compose(make_state())
    refused(state, RecordLoss(0, "r1"), "dice-not-rolled")
    state = roll(state, 6, 6, 6, 6)
    state = play(state, RecordLoss(0, "a1", "Success has a price."))
    assert state.phase == "success" and len(state.tokens) == 1
    refused(sacrifice_paid(), RecordLoss(0, "r2"), "reroll-pending")


def sacrifice_paid() -> State:
    return sacrifice(failed(), "r1")


def test_a_token_is_not_usable_in_the_turn_it_was_gained() -> None:
    state = play(failed(), RecordLoss(0, "c1"))
    assert "spend-token" not in kinds(state)
    error = refused(state, SpendToken(0), "token-too-new")
    assert error.rule == "D6"
    state = play(state, AcceptFailure(0))
    state = failed(state)
    assert legal_commands(state)[1].kind == "spend-token"
    state = play(state, SpendToken(state.seat))
    assert state.phase == "reroll" and state.tokens == ()
    assert state.check is not None and state.check.payments[0].kind == "token"


def test_a_token_gained_on_turn_one_is_usable_on_turn_two_of_the_same_round() -> None:
    state = roll(compose(make_state()), 6, 6, 6, 6)
    state = play(state, RecordLoss(0, "r1"), NarrateSuccess(0))
    state = failed(state)
    assert state.turn == 2 and state.usable_tokens() == 1


def test_without_a_token_spending_one_is_refused() -> None:
    assert str(refused(failed(), SpendToken(0), "no-token")) == "The Pioneer has no reroll token."


def test_tokens_and_sacrifices_mix_in_one_check() -> None:
    state = play(failed(), RecordLoss(0, "c1"), AcceptFailure(0))
    state = failed(state)
    state = roll(play(state, SpendToken(state.seat)), 1, 1, 1, 1)
    state = roll(sacrifice(state, "r1"), 1, 1, 1, 1)
    assert state.check is not None
    assert [p.kind for p in state.check.payments] == ["token", "sacrifice"]


def test_tokens_last_and_accumulate() -> None:
    state = play(failed(), RecordLoss(0, "c1"), RecordLoss(0, "c2"), AcceptFailure(0))
    for _ in range(3):
        state = lose_round(state)
    assert len(state.tokens) == 2 and state.usable_tokens() == 2


def test_a_reroll_rolls_the_whole_pool_again() -> None:
    state = sacrifice(failed(), "r1")
    refused(state, RollDice(0, (6,)), "dice-count")
    assert roll(state, 1, 1, 1, 5).phase == "success"


def test_successes_won_by_rerolls_count_towards_a_mark() -> None:
    state = make_state()
    for turn in (1, 2, 3):
        state = sacrifice(failed(state), f"r{turn}")
        state = roll(state, 6, 1, 1, 1)
        if turn < 3:
            state = play(state, NarrateSuccess(state.seat))
    assert state.step == "mark"
