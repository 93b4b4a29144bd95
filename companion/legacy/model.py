"""The state of a chronicle: frozen dataclasses of tuples, rebuilt by ``evolve`` from events.

Every text a player wrote is a ``Text`` carrying the ``seq`` of the event that wrote it and the
``field`` name, which is what ``ReviseText`` targets; ``earlier`` keeps the versions it replaced.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias, TypedDict

from .cards import PILES, STAGES, Stage, pile_index
from .events import Recorded
from .setup import KINDS, Keystone, Setup

# How many of the newest decisions a state keeps at hand (``State.decisions``): more than one
# turning point's choices, answers and stakes that an X-card may set aside at once.
DECISIONS_KEPT = 16
PHASES = ("draw", "compose", "success", "failure", "reroll", "ended")
END_REASONS = ("eight-marks", "old-age-ended")
# The log as a persistent linked list, newest first: appending is O(1) and shares the past.
# Its oldest part may be deferred: read only when something walks back that far.
Log: TypeAlias = "tuple[Recorded, Log] | DeferredLog | None"


class DeferredLog:
    """The oldest part of a log, read by ``read`` the first time something walks back into it.

    A state restored from a snapshot starts with its whole past deferred: most of what a state is
    asked never needs the events behind it. ``read`` runs once, whichever thread asks first."""

    def __init__(self, read: Callable[[], Log]) -> None:
        self._read: Callable[[], Log] | None = read
        self._log: Log = None
        self._lock = threading.Lock()

    def get(self) -> Log:
        """The log this part stands for."""
        with self._lock:
            if self._read is not None:
                self._log = self._read()
                self._read = None
        return self._log


@dataclass(frozen=True)
class Text:
    """A text a player wrote: its latest ``value`` and the earlier versions, oldest first."""

    value: str
    seq: int
    field: str
    earlier: tuple[str, ...] = ()
    revisions: tuple[int, ...] = ()  # the seq of each TextRevised, in order

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Roll:
    """One roll of the pool; ``reroll`` is true for a roll paid by a sacrifice or a token."""

    faces: tuple[int, ...]
    success: bool
    reroll: bool
    seq: int


@dataclass(frozen=True)
class Payment:
    """What paid for a reroll: a sacrificed keystone with its two answers, or a token."""

    kind: str  # "sacrifice" | "token"
    seq: int
    keystone: str | None = None
    why: Text | None = None
    outcome: Text | None = None


@dataclass(frozen=True)
class Loss:
    """A keystone destroyed by the story during this check (4.6)."""

    keystone: str
    narration: Text
    seq: int


@dataclass(frozen=True)
class TurningPoint:
    """One check, from the card drawn to its outcome: one entry of the story (1.6)."""

    stage: int
    round: int
    turn: int
    seat: int
    pile: str
    card: str
    seq: int  # the CardDrawn event
    veiled: tuple[int, ...] = ()
    set_aside: tuple[int, ...] = ()  # the veils that set aside the chosen prompt (their seqs)
    prompt_index: int | None = None
    prompt: str | None = None  # the chosen prompt's text, from the setup's pack snapshot
    question: Text | None = None  # the player's own question, after a veil
    answer: Text | None = None
    stakes_success: Text | None = None
    stakes_failure: Text | None = None
    rolls: tuple[Roll, ...] = ()
    withdrawn: tuple[Roll, ...] = ()  # rolls taken back by Undo: kept in the story as corrections
    payments: tuple[Payment, ...] = ()
    losses: tuple[Loss, ...] = ()
    outcome: str | None = None  # "success" | "failure" | "mark", once the check is closed
    narration: Text | None = None
    mark: int | None = None  # index in State.marks when outcome is "mark"


@dataclass(frozen=True)
class Mark:
    """A legacy mark (4.2, D12): never lost."""

    number: int
    name: Text
    description: Text
    stage: int
    round: int
    seat: int
    age: str  # the stage's suggested human age, as a hint for the narration
    seq: int


@dataclass(frozen=True)
class KeystoneState:
    """A keystone and what became of it: kept, sacrificed (with both answers) or lost."""

    keystone: Keystone
    status: str = "kept"  # "kept" | "sacrificed" | "lost"
    stage: int | None = None
    round: int | None = None
    seq: int | None = None
    why: Text | None = None
    outcome: Text | None = None
    narration: Text | None = None

    @property
    def id(self) -> str:
        return self.keystone.id

    @property
    def kind(self) -> str:
        return self.keystone.kind


@dataclass(frozen=True)
class Token:
    """A reroll token; usable from the turn after ``gained_turn`` (D6)."""

    gained_turn: int
    keystone: str
    seq: int


@dataclass(frozen=True)
class State:
    """The whole chronicle at one point of its log."""

    setup: Setup
    version: int  # seq of the last event applied
    phase: str
    stage: int  # 0..3, index in cards.STAGES
    round: int  # 1..3 within the stage
    turn: int  # 1..3 within the round
    seat: int  # whose turn it is
    first_seat: int  # who took (or takes) turn 1 of this round
    turn_no: int  # turns begun since the start, 1-based: the clock for tokens
    piles: tuple[tuple[str, ...], ...]  # in cards.PILES order; top card first when shuffled
    shuffled: bool
    keystones: tuple[KeystoneState, ...]
    tokens: tuple[Token, ...] = ()
    marks: tuple[Mark, ...] = ()
    check: TurningPoint | None = None  # the open check, from its card to its outcome
    story: tuple[TurningPoint, ...] = ()  # closed checks, oldest first
    epilogue: Text | None = None
    end: str | None = None  # "eight-marks" | "old-age-ended"
    checks_rolled: int = 0
    rolls: int = 0
    rounds_played: int = 0
    texts_written: int = 0
    # The newest decisions not taken back, oldest first (at most DECISIONS_KEPT): what an undo
    # would reach, read without walking back through the log (a long life's corrections).
    decisions: tuple[Recorded, ...] = ()
    # The seq of the newest event that is not a text's correction (an undo and an X-card count):
    # a page starts its forms afresh when it changes, read without walking back the corrections.
    decided: int = 0
    undone: frozenset[int] = frozenset()
    log: Log = field(default=None, compare=False, repr=False)

    @property
    def ended(self) -> bool:
        return self.end is not None

    @property
    def stage_info(self) -> Stage:
        return STAGES[self.stage]

    @property
    def stage_key(self) -> str:
        return STAGES[self.stage].key

    @property
    def dice(self) -> int:
        return STAGES[self.stage].dice

    @property
    def pile(self) -> str:
        """The pile the current turn draws from."""
        return PILES[pile_index(self.stage, self.turn)]

    @property
    def player(self) -> str:
        return self.setup.players[self.seat]

    @property
    def step(self) -> str:
        """The phase, refined: compose is choose, answer, stakes or roll; success on turn 3 is mark."""
        if self.phase == "compose" and self.check is not None:
            return _compose_step(self.check)
        if self.phase == "success" and self.turn == 3:
            return "mark"
        return self.phase

    @property
    def turning_points(self) -> tuple[TurningPoint, ...]:
        """The story including the open check."""
        return self.story if self.check is None else (*self.story, self.check)

    def pile_cards(self, pile: str) -> tuple[str, ...]:
        """The cards still in ``pile``, top first in digital mode."""
        return self.piles[PILES.index(pile)]

    def kept(self) -> tuple[KeystoneState, ...]:
        return tuple(k for k in self.keystones if k.status == "kept")

    def sacrifice_kind(self) -> str | None:
        """The kind a sacrifice must take now: resources, then attachments, then creeds (4.4)."""
        for kind in KINDS:
            if any(k.status == "kept" and k.keystone.kind == kind for k in self.keystones):
                return kind
        return None

    def usable_tokens(self) -> int:
        """Tokens that may be spent in the current turn (gained in an earlier turn, D6)."""
        return sum(1 for token in self.tokens if token.gained_turn < self.turn_no)

    def records(self) -> Iterator[Recorded]:
        """Every event of the log, oldest first (undone ones included)."""
        return reversed(list(_newest_first(self.log)))

    def newest_records(self) -> Iterator[Recorded]:
        """Every event of the log, newest first."""
        return _newest_first(self.log)


class Changes(TypedDict, total=False):
    """New values for some fields of ``State``: what applying one event changes."""

    version: int
    phase: str
    stage: int
    round: int
    turn: int
    seat: int
    first_seat: int
    turn_no: int
    piles: tuple[tuple[str, ...], ...]
    shuffled: bool
    keystones: tuple[KeystoneState, ...]
    tokens: tuple[Token, ...]
    marks: tuple[Mark, ...]
    check: TurningPoint | None
    story: tuple[TurningPoint, ...]
    epilogue: Text | None
    end: str | None
    checks_rolled: int
    rolls: int
    rounds_played: int
    texts_written: int
    decisions: tuple[Recorded, ...]
    decided: int
    undone: frozenset[int]
    log: Log


def _compose_step(check: TurningPoint) -> str:
    if check.prompt_index is None and check.question is None:
        return "choose"
    if check.answer is None:
        return "answer"
    if check.stakes_success is None:
        return "stakes"
    return "roll"


def _newest_first(log: Log) -> Iterator[Recorded]:
    while log is not None:
        if isinstance(log, DeferredLog):
            log = log.get()
            continue
        record, log = log
        yield record
