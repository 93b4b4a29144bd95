"""The events of a chronicle: what happened, past tense, with a stable kebab-case name.

Events are facts, including the outcomes of chance (``PilesShuffled.piles``, ``CardDrawn.card``,
``DiceRolled.faces``), so replaying a log never shuffles or rolls. ``event_to_dict`` and
``event_from_dict`` give the stored JSON form; the registry below is the list of known names.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from .codec import DecodeError, decode_fields, encode
from .errors import EventFormatError
from .setup import Setup

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ChronicleStarted:
    """The setup was accepted; the life begins in Youth, round 1, with the oldest player."""

    kind: ClassVar[str] = "chronicle-started"
    setup: Setup


@dataclass(frozen=True)
class PilesShuffled:
    """Digital mode: the order of every pile, top card first (2.1, D10)."""

    kind: ClassVar[str] = "piles-shuffled"
    piles: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class CardDrawn:
    """The turn's card, taken from the top of its pile or entered from the table deck."""

    kind: ClassVar[str] = "card-drawn"
    seat: int
    card: str


@dataclass(frozen=True)
class PromptVeiled:
    """A prompt of the card was set aside with the X-card; its text is never shown.

    When it was the chosen prompt, the words written for it go with it: ``answer`` and the
    stakes (``success``, ``failure``) as they stood, None for what was not written yet. The
    player chooses again and writes afresh; the set-aside words return to that player's drafts
    and never enter the story. An X-card recorded before words were set aside carries none.
    """

    kind: ClassVar[str] = "prompt-veiled"
    seat: int
    index: int
    answer: str | None = None
    success: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class PromptChosen:
    """One of the card's prompts (``index``), or the player's own ``question`` after a veil."""

    kind: ClassVar[str] = "prompt-chosen"
    seat: int
    index: int | None = None
    question: str | None = None


@dataclass(frozen=True)
class PromptAnswered:
    """The answer to the chosen prompt (3.2 step 3)."""

    kind: ClassVar[str] = "prompt-answered"
    seat: int
    answer: str


@dataclass(frozen=True)
class StakesDeclared:
    """What happens to the Pioneer on success and on failure, said before any roll (3.2 step 4)."""

    kind: ClassVar[str] = "stakes-declared"
    seat: int
    success: str
    failure: str


@dataclass(frozen=True)
class DiceRolled:
    """The faces of one roll of the stage's pool, rolled by the app or entered from the table."""

    kind: ClassVar[str] = "dice-rolled"
    seat: int
    faces: tuple[int, ...]


@dataclass(frozen=True)
class SuccessNarrated:
    """Turn 1 or 2 succeeded and was narrated; the turn passes left (3.2 step 6)."""

    kind: ClassVar[str] = "success-narrated"
    seat: int
    narration: str = ""


@dataclass(frozen=True)
class MarkBuilt:
    """Turn 3 succeeded: a legacy mark is built and the round ends (3.2 step 6, D12)."""

    kind: ClassVar[str] = "mark-built"
    seat: int
    name: str
    description: str = ""
    narration: str = ""


@dataclass(frozen=True)
class KeystoneLost:
    """The story destroyed a keystone; it counts as sacrificed and gives one token (4.6)."""

    kind: ClassVar[str] = "keystone-lost"
    seat: int
    keystone: str
    narration: str = ""


@dataclass(frozen=True)
class KeystoneSacrificed:
    """A keystone was given up to pay for a reroll, with the two answers (4.4, 4.5)."""

    kind: ClassVar[str] = "keystone-sacrificed"
    seat: int
    keystone: str
    why: str
    outcome: str


@dataclass(frozen=True)
class TokenSpent:
    """A reroll token was spent to pay for a reroll (4.7)."""

    kind: ClassVar[str] = "token-spent"
    seat: int


@dataclass(frozen=True)
class FailureAccepted:
    """The failure stands: the round ends at once (3.2 step 7c, 4.3)."""

    kind: ClassVar[str] = "failure-accepted"
    seat: int
    narration: str = ""


@dataclass(frozen=True)
class EpilogueWritten:
    """The group wrote the Pioneer's epilogue after the end (5.3)."""

    kind: ClassVar[str] = "epilogue-written"
    seat: int
    epilogue: str


@dataclass(frozen=True)
class TextRevised:
    """A correction of the text ``field`` written by the event ``target_seq``."""

    kind: ClassVar[str] = "text-revised"
    seat: int
    target_seq: int
    field: str
    text: str


@dataclass(frozen=True)
class DecisionUndone:
    """The decision recorded as event ``target_seq`` no longer counts; the event stays."""

    kind: ClassVar[str] = "decision-undone"
    seat: int
    target_seq: int


Event = (
    ChronicleStarted
    | PilesShuffled
    | CardDrawn
    | PromptVeiled
    | PromptChosen
    | PromptAnswered
    | StakesDeclared
    | DiceRolled
    | SuccessNarrated
    | MarkBuilt
    | KeystoneLost
    | KeystoneSacrificed
    | TokenSpent
    | FailureAccepted
    | EpilogueWritten
    | TextRevised
    | DecisionUndone
)
EVENT_TYPES: Mapping[str, type[Event]] = {cls.kind: cls for cls in typing.get_args(Event)}
SETUP_EVENTS = (ChronicleStarted, PilesShuffled)
# Events that are not player decisions: never the target of an undo.
NOT_DECISIONS = (ChronicleStarted, PilesShuffled, TextRevised, DecisionUndone)


class Recorded(NamedTuple):
    """An event with its position in the chronicle's log (1, 2, 3...)."""

    seq: int
    event: Event


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict: ``{"type": name, "schema": version, ...fields}``."""
    fields: dict[str, Any] = encode(event)
    return {"type": event.kind, "schema": SCHEMA_VERSION, **fields}


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """The event stored as ``data``; EventFormatError if it is unknown or malformed."""
    fields = dict(data)
    name = fields.pop("type", None)
    schema = fields.pop("schema", None)
    cls = EVENT_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise EventFormatError(f"unknown event type {name!r}")
    if isinstance(schema, bool) or not isinstance(schema, int) or not 1 <= schema <= SCHEMA_VERSION:
        raise EventFormatError(f"{name}: unsupported schema version {schema!r}")
    try:
        event: Event = decode_fields(cls, fields, name)
    except DecodeError as error:
        raise EventFormatError(str(error)) from None
    return event
