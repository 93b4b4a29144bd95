"""Starting a life, and the incremental path: decide a command, then evolve by its events."""

from __future__ import annotations

import random

from .cards import PILE_CARDS, PILES
from .commands import Command
from .engine import decide
from .events import ChronicleStarted, Event, PilesShuffled, Recorded
from .model import State
from .projection import evolve, replay
from .setup import Setup, validate_setup


def new_chronicle(setup: Setup, rng: random.Random | None = None) -> list[Event]:
    """The events that start a life: ChronicleStarted, then PilesShuffled in digital mode."""
    validate_setup(setup)
    if setup.mode == "table":
        return [ChronicleStarted(setup)]
    if rng is None:
        raise ValueError("digital mode needs a random.Random to shuffle the piles")
    return [ChronicleStarted(setup), PilesShuffled(shuffle_piles(rng))]


def shuffle_piles(rng: random.Random) -> dict[str, tuple[str, ...]]:
    """Each of the twelve piles shuffled on its own (2.1)."""
    piles = {}
    for pile in PILES:
        cards = list(PILE_CARDS[pile])
        rng.shuffle(cards)
        piles[pile] = tuple(cards)
    return piles


def start(setup: Setup, rng: random.Random | None = None) -> tuple[State, list[Recorded]]:
    """A new chronicle's state and its first records, numbered from 1."""
    records = [Recorded(n, event) for n, event in enumerate(new_chronicle(setup, rng), 1)]
    return replay(records), records


def step(
    state: State, command: Command, rng: random.Random | None = None
) -> tuple[State, list[Recorded]]:
    """Decide ``command`` and evolve the state by its events, numbered after ``state.version``."""
    records = []
    for event in decide(state, command, rng):
        record = Recorded(state.version + 1, event)
        state = evolve(state, record)
        records.append(record)
    return state, records
