"""A Hypothesis state machine over random legal command sequences, checking the invariants."""

from __future__ import annotations

import dataclasses
import json
import random

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from legacy_factories import DETOURS, example_command, make_setup

from companion.legacy import (
    PILE_CARDS,
    PILES,
    KeystoneSacrificed,
    PromptChosen,
    Recorded,
    RollDice,
    State,
    event_from_dict,
    event_to_dict,
    legal_commands,
    replay,
    start,
    step,
)
from companion.legacy.cards import MAX_MARKS, ROUNDS_PER_STAGE, STAGES, TURNS_PER_ROUND
from companion.legacy.setup import KINDS

STATE_FIELDS = {f.name for f in dataclasses.fields(State)}


class LegacyMachine(RuleBasedStateMachine):
    """Random lives: Hypothesis picks among ``legal_commands`` and their options."""

    state: State
    records: list[Recorded]

    @initialize(
        mode=st.sampled_from(["table", "digital"]),
        players=st.integers(1, 8),
        counts=st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
        forgiving=st.booleans(),
        seed=st.integers(0, 2**32 - 1),
    )
    def begin(
        self, mode: str, players: int, counts: tuple[int, int, int], forgiving: bool, seed: int
    ) -> None:
        self.rng = random.Random(seed)
        names = tuple(f"P{n}" for n in range(players))
        setup = make_setup(mode=mode, players=names, oldest=seed % players, counts=counts)
        self.state, self.records = start(
            dataclasses.replace(setup, forgiving_undo=forgiving), self.rng
        )

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        """Any legal command, options chosen by Hypothesis."""
        legal = legal_commands(self.state)
        if legal:
            entry = data.draw(st.sampled_from(legal))
            pick = lambda values: data.draw(st.sampled_from(list(values)))  # noqa: E731
            self.apply(example_command(self.state, entry, pick=pick))

    @rule(count=st.integers(1, 60), lucky=st.booleans())
    def advance(self, count: int, lucky: bool) -> None:
        """A stretch of play that moves the life on (no undo, revision, veil or loss).

        ``lucky``: in table mode every die shows 6, so lives also end with eight marks.
        """
        for _ in range(count):
            progress = [e for e in legal_commands(self.state) if e.kind not in DETOURS]
            if not progress:
                return
            entry = self.rng.choice(progress)
            if lucky and entry.kind == "roll-dice" and entry.options["enter_faces"]:
                self.apply(RollDice(self.state.seat, (6,) * entry.options["dice"]))
            else:
                self.apply(example_command(self.state, entry, self.rng.choice))

    def apply(self, command: object) -> None:
        before = self.state
        self.state, records = step(before, command, self.rng)  # type: ignore[arg-type]
        assert len(records) == 1
        for record in records:
            data = json.loads(json.dumps(event_to_dict(record.event)))
            assert event_from_dict(data) == record.event
            if isinstance(record.event, KeystoneSacrificed):
                kind = {k.id: k.kind for k in before.keystones}[record.event.keystone]
                assert kind == before.sacrifice_kind()
                assert before.phase == "failure"
        self.records += records

    @invariant()
    def piles_never_run_dry(self) -> None:
        state = self.state
        for index, pile in enumerate(PILES):
            left, full = len(state.piles[index]), len(PILE_CARDS[pile])
            if index // 3 > state.stage:
                assert left == full
            elif index // 3 == state.stage:
                assert left >= full - state.round
        if state.phase == "draw":
            assert state.pile_cards(state.pile)

    @invariant()
    def turns_and_rounds_keep_their_shape(self) -> None:
        state = self.state
        players = len(state.setup.players)
        assert 1 <= state.turn <= TURNS_PER_ROUND and 1 <= state.round <= ROUNDS_PER_STAGE
        assert state.seat == (state.first_seat + state.turn - 1) % players
        rounds: dict[tuple[int, int], list[int]] = {}
        for point in state.turning_points:
            rounds.setdefault((point.stage, point.round), []).append(point.turn)
        for turns in rounds.values():
            assert turns == list(range(1, len(turns) + 1)) and len(turns) <= TURNS_PER_ROUND
        assert len({(mark.stage, mark.round) for mark in state.marks}) == len(state.marks)
        for mark in state.marks:
            assert rounds[(mark.stage, mark.round)] == [1, 2, 3]

    @invariant()
    def the_life_ends_exactly_when_it_should(self) -> None:
        state = self.state
        played = state.stage * ROUNDS_PER_STAGE + state.round - (state.end is None)
        assert state.rounds_played == played
        if len(state.marks) == MAX_MARKS:
            assert state.end == "eight-marks"
        elif state.rounds_played == len(STAGES) * ROUNDS_PER_STAGE:
            assert state.end == "old-age-ended"
        else:
            assert state.end is None and state.phase != "ended"
        event(f"end: {state.end}")

    @invariant()
    def keystones_and_tokens_add_up(self) -> None:
        state = self.state
        assert len(state.setup.keystones) == len(state.keystones)
        lost = sum(1 for k in state.keystones if k.status == "lost")
        spent = sum(1 for p in state.turning_points for p in p.payments if p.kind == "token")
        assert len(state.tokens) == lost - spent
        assert set(KINDS) >= {k.kind for k in state.keystones}

    @invariant()
    def every_roll_answers_the_prompt_chosen_for_it(self) -> None:
        """The answer and the stakes of a check that was rolled were written after its prompt
        was chosen (an X-card on the chosen prompt sends the player back to write afresh)."""
        undone = self.state.undone
        choices = [
            r for r in self.records if isinstance(r.event, PromptChosen) and r.seq not in undone
        ]
        for point in self.state.turning_points:
            if not point.rolls:
                continue
            rolled = point.rolls[0].seq
            chosen = [r for r in choices if point.seq < r.seq < rolled][-1]
            assert point.answer is not None and point.stakes_success is not None
            assert chosen.seq < point.answer.seq < rolled
            assert chosen.seq < point.stakes_success.seq < rolled
            assert (point.prompt_index, point.question is not None) == (
                chosen.event.index,
                chosen.event.question is not None,
            )

    @invariant()
    def replay_equals_the_stepwise_state(self) -> None:
        assert set(vars(self.state)) == STATE_FIELDS  # no stray field from a copy
        assert replay(self.records) == self.state
        assert list(self.state.records()) == self.records


LegacyMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None)
test_legacy_machine = LegacyMachine.TestCase
