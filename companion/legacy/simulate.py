"""Play many whole lives through ``decide`` and ``evolve``, as players would, and count the marks.

Every game issues the commands a table would issue (draw, choose, answer, stakes, roll, narrate,
sacrifice...), so the figures measure the rules engine itself, not a model of it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .cards import CARDS, MAX_MARKS
from .chronicle import shuffle_piles
from .commands import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    Command,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RollDice,
    SacrificeKeystone,
)
from .engine import decide
from .events import ChronicleStarted, PilesShuffled, Recorded
from .legal import legal_commands
from .model import State
from .projection import evolve
from .setup import DEFAULT_COUNTS, KINDS, Setup, placeholder_keystones, validate_setup

POLICIES = ("never", "always")
Progress = Callable[[int, int], None]


def simulation_setup(players: int, keystones: tuple[int, int, int]) -> Setup:
    """A digital-mode setup with placeholder names and a one-prompt pack."""
    return Setup(
        pioneer="Simulated Pioneer",
        concept="",
        players=tuple(f"Player {n}" for n in range(1, players + 1)),
        oldest=0,
        keystones=placeholder_keystones(keystones),
        prompts={card: ("?",) for card in CARDS},
        pack_name="simulation",
    )


def simulate(
    games: int,
    seed: int | None,
    players: int = 3,
    keystones: tuple[int, int, int] = DEFAULT_COUNTS,
    policy: str = "never",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play ``games`` lives; ``policy`` "never" accepts every failure, "always" sacrifices first.

    ``progress(done, games)`` is called about a hundred times along the way.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: use one of {POLICIES}")
    rng = random.Random(seed)
    setup = simulation_setup(players, keystones)
    validate_setup(setup)
    every = max(1, games // 100)
    tally = Tally()
    started = time.perf_counter()
    for done in range(1, games + 1):
        tally.add(play_life(setup, rng, policy))  # keep figures, not states: no GC pressure
        if progress is not None and (done % every == 0 or done == games):
            progress(done, games)
    result = tally.summary(time.perf_counter() - started)
    result.update(seed=seed, players=players, keystones=list(keystones), policy=policy)
    return result


def play_life(setup: Setup, rng: random.Random, policy: str) -> State:
    """One whole life of a digital-mode ``setup``, already validated; the final state."""
    state = evolve(None, Recorded(1, ChronicleStarted(setup)))
    state = evolve(state, Recorded(2, PilesShuffled(shuffle_piles(rng))))
    while state.end is None:
        for event in decide(state, next_command(state, policy), rng):
            state = evolve(state, Recorded(state.version + 1, event))
    return state


def next_command(state: State, policy: str) -> Command:
    """What a simulated player does at this step of the turn."""
    seat, step = state.seat, state.step
    if step == "draw":
        return DrawCard(seat)
    if step == "choose":
        return ChoosePrompt(seat, index=0)
    if step == "answer":
        return AnswerPrompt(seat, "An answer.")
    if step == "stakes":
        return DeclareStakes(seat, "It works out.", "It goes wrong.")
    if step in ("roll", "reroll"):
        return RollDice(seat)
    if step == "success":
        return NarrateSuccess(seat)
    if step == "mark":
        return BuildMark(seat, f"Mark {len(state.marks) + 1}")
    return _after_failure(state, policy)


def _after_failure(state: State, policy: str) -> Command:
    if policy == "always":
        for legal in legal_commands(state):
            if legal.kind == "sacrifice-keystone":
                keystone = legal.options["keystones"][0]
                return SacrificeKeystone(state.seat, keystone, "It had to be.", "It was gone.")
    return AcceptFailure(state.seat)


@dataclass
class Tally:
    """Running totals over finished lives."""

    games: int = 0
    marks: list[int] = field(default_factory=lambda: [0] * (MAX_MARKS + 1))
    rounds: int = 0
    checks: int = 0
    rolls: int = 0
    sacrifices: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def add(self, state: State) -> None:
        """Count one finished life."""
        self.games += 1
        self.marks[len(state.marks)] += 1
        self.rounds += state.rounds_played
        self.checks += state.checks_rolled
        self.rolls += state.rolls
        for keystone in state.keystones:
            if keystone.status == "sacrificed":
                self.sacrifices[keystone.kind] += 1

    def summary(self, seconds: float) -> dict[str, Any]:
        """The figures, as documented in ``docs/legacy-engine.md``."""
        games = self.games or 1  # an empty run reports zeros, not a division error
        histogram = {str(marks): count for marks, count in enumerate(self.marks)}
        return {
            "games": self.games,
            "mean_marks": sum(m * c for m, c in enumerate(self.marks)) / games,
            "marks_histogram": histogram,
            "p_full_legacy": self.marks[MAX_MARKS] / games,
            "p_no_marks": self.marks[0] / games,
            "mean_rounds": self.rounds / games,
            "mean_checks": self.checks / games,
            "mean_rolls": self.rolls / games,
            "sacrifices": dict(self.sacrifices),
            "mean_sacrifices": {kind: n / games for kind, n in self.sacrifices.items()},
            "seconds": seconds,
            "games_per_second": self.games / seconds if seconds > 0 else 0.0,
        }


def format_table(result: dict[str, Any]) -> str:
    """The result as aligned text lines, for ``companion simulate`` without ``--json``."""
    rows = [
        ("games", f"{result['games']}"),
        ("policy", f"{result.get('policy', '-')}"),
        ("mean marks", f"{result['mean_marks']:.3f}"),
        ("full legacy (8 marks)", f"{result['p_full_legacy']:.2%}"),
        ("no marks", f"{result['p_no_marks']:.2%}"),
        ("mean rounds", f"{result['mean_rounds']:.2f}"),
        ("mean checks", f"{result['mean_checks']:.2f}"),
    ]
    rows += [(f"sacrificed {kind}s", f"{n:.2f}") for kind, n in result["mean_sacrifices"].items()]
    rows += [(f"{marks} marks", f"{count}") for marks, count in result["marks_histogram"].items()]
    rows += [("games per second", f"{result['games_per_second']:.0f}")]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)
