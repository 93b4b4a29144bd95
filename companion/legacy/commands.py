"""The commands a player (or the host acting for a player) may issue; imperative names.

Every command has the ``seat`` of the player issuing it and a stable kebab-case ``kind``, the same
string as the matching ``Legal.kind`` from ``legal_commands``.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .codec import DecodeError, decode_fields, encode
from .errors import N_, RuleError


@dataclass(frozen=True)
class DrawCard:
    """Draw the turn's card; in table mode ``card`` is the card drawn from the real pile."""

    kind: ClassVar[str] = "draw-card"
    seat: int
    card: str | None = None


@dataclass(frozen=True)
class VeilPrompt:
    """Set a prompt of the card aside (X-card); any seat may, at any time before the roll."""

    kind: ClassVar[str] = "veil-prompt"
    seat: int
    index: int


@dataclass(frozen=True)
class ChoosePrompt:
    """Choose the card's prompt ``index``, or write an own ``question`` once all are veiled."""

    kind: ClassVar[str] = "choose-prompt"
    seat: int
    index: int | None = None
    question: str | None = None


@dataclass(frozen=True)
class AnswerPrompt:
    """Answer the chosen prompt."""

    kind: ClassVar[str] = "answer-prompt"
    seat: int
    answer: str


@dataclass(frozen=True)
class DeclareStakes:
    """Say what happens to the Pioneer on success and on failure; required before rolling."""

    kind: ClassVar[str] = "declare-stakes"
    seat: int
    success: str
    failure: str


@dataclass(frozen=True)
class RollDice:
    """Roll the stage's pool; in table mode ``faces`` holds the faces rolled at the table."""

    kind: ClassVar[str] = "roll-dice"
    seat: int
    faces: tuple[int, ...] | None = None


@dataclass(frozen=True)
class NarrateSuccess:
    """Narrate a successful turn 1 or 2; the turn passes to the left."""

    kind: ClassVar[str] = "narrate-success"
    seat: int
    narration: str = ""


@dataclass(frozen=True)
class BuildMark:
    """After a successful turn 3, name and describe the new legacy mark."""

    kind: ClassVar[str] = "build-mark"
    seat: int
    name: str
    description: str = ""
    narration: str = ""


@dataclass(frozen=True)
class RecordLoss:
    """The story destroys the kept keystone ``keystone`` (any kind); it gives one reroll token."""

    kind: ClassVar[str] = "record-loss"
    seat: int
    keystone: str
    narration: str = ""


@dataclass(frozen=True)
class SacrificeKeystone:
    """Give up a keystone of the next allowed kind to reroll, answering both questions."""

    kind: ClassVar[str] = "sacrifice-keystone"
    seat: int
    keystone: str
    why: str
    outcome: str


@dataclass(frozen=True)
class SpendToken:
    """Spend a reroll token gained before this turn to reroll."""

    kind: ClassVar[str] = "spend-token"
    seat: int


@dataclass(frozen=True)
class AcceptFailure:
    """Let the failure stand; the round ends at once."""

    kind: ClassVar[str] = "accept-failure"
    seat: int
    narration: str = ""


@dataclass(frozen=True)
class WriteEpilogue:
    """Write the Pioneer's epilogue once the life is over; anyone may."""

    kind: ClassVar[str] = "write-epilogue"
    seat: int
    epilogue: str


@dataclass(frozen=True)
class ReviseText:
    """Correct the text ``field`` written by event ``target_seq``; anyone may."""

    kind: ClassVar[str] = "revise-text"
    seat: int
    target_seq: int
    field: str
    text: str


@dataclass(frozen=True)
class Undo:
    """Take back the last player decision; only the seat that made it (X-cards stay)."""

    kind: ClassVar[str] = "undo"
    seat: int


Command = (
    DrawCard
    | VeilPrompt
    | ChoosePrompt
    | AnswerPrompt
    | DeclareStakes
    | RollDice
    | NarrateSuccess
    | BuildMark
    | RecordLoss
    | SacrificeKeystone
    | SpendToken
    | AcceptFailure
    | WriteEpilogue
    | ReviseText
    | Undo
)
COMMAND_TYPES: Mapping[str, type[Command]] = {cls.kind: cls for cls in typing.get_args(Command)}


def command_to_dict(command: Command) -> dict[str, Any]:
    """The command as a JSON-ready dict: ``{"type": kind, ...fields}``."""
    fields: dict[str, Any] = encode(command)
    return {"type": command.kind, **fields}


def command_from_dict(data: Mapping[str, Any]) -> Command:
    """The command sent as ``data`` (for instance by the JSON API); RuleError if malformed."""
    fields = dict(data)
    kind = fields.pop("type", None)
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RuleError("bad-command", N_("Unknown command %(kind)r."), "api", kind=kind)
    try:
        command: Command = decode_fields(cls, fields, kind)
    except DecodeError as error:
        raise RuleError(
            "bad-command", N_("Malformed command: %(problem)s."), "api", problem=str(error)
        ) from None
    return command
