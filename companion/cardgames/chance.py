"""Chance as a match records it: each outcome an engine draws, kept with the move that drew it.

Under the engine versions that record chance, a state carries ``drawn``, the outcomes the
``new`` or ``apply`` that made it drew (``{"kind": ..., "value": ...}``: a deck's order, a start
player, a card taken at random). The shell stores them with that move, and a replay hands them
back as ``outcomes``: the engine then checks each one (it must be one the rules could have
drawn there) and uses it, drawing nothing, so a change to how often the code draws changes no
stored match. States without ``drawn`` (earlier versions, bots' sampled worlds) draw from their
seed as they always did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
# One outcome as stored: {"kind": str, "value": JSON}. It names hidden cards: server-side only.
Outcome = dict[str, Any]


class ChanceRecordError(ValueError):
    """Recorded outcomes the rules could not have drawn here: the record is damaged."""


def start(drawn: list[Outcome] | None, outcomes: Sequence[Any] | None) -> list[Any] | None:
    """The script of recorded outcomes a ``new`` or ``apply`` consumes (None: draw from the
    seed). ``drawn`` is the state's outcome list (None: a version that records no chance, whose
    record must then hold none)."""
    if outcomes is None:
        return None
    if not isinstance(outcomes, list):
        raise ChanceRecordError(f"recorded outcomes are not a list: {outcomes!r:.80}")
    if drawn is None:
        if outcomes:
            raise ChanceRecordError("outcomes recorded under rules that record none")
        return None
    return list(outcomes)


def draw(
    drawn: list[Outcome] | None,
    script: list[Any] | None,
    kind: str,
    drawing: Callable[[], T],
    sound: Callable[[Any], bool],
) -> T:
    """One outcome of ``kind``: the next recorded one (``script``), checked by ``sound``, or else
    ``drawing()``; kept in ``drawn`` when the state records chance."""
    if script is None:
        value: Any = drawing()
    else:
        if not script:
            raise ChanceRecordError(f"no recorded outcome for a {kind}")
        entry = script.pop(0)
        if not isinstance(entry, dict) or entry.get("kind") != kind or "value" not in entry:
            raise ChanceRecordError(f"recorded outcome {entry!r:.80} is not a {kind}")
        value = entry["value"]
        if not sound(value):
            raise ChanceRecordError(f"recorded {kind} {value!r:.80} is not one the rules can draw")
    if drawn is not None:
        drawn.append({"kind": kind, "value": value})
    return value  # type: ignore[no-any-return]


def finish(script: list[Any] | None) -> None:
    """Refuse a record holding more outcomes than the move drew."""
    if script:
        raise ChanceRecordError(f"{len(script)} recorded outcome(s) the move did not draw")


def is_order_of(cards: Sequence[str]) -> Callable[[Any], bool]:
    """Whether a value is an order of exactly ``cards`` (a list of the same ids)."""
    wanted = sorted(cards)

    def sound(value: Any) -> bool:
        return (
            isinstance(value, list)
            and all(isinstance(card, str) for card in value)
            and sorted(value) == wanted
        )

    return sound


def is_seat(players: int) -> Callable[[Any], bool]:
    """Whether a value is a seat of a table of ``players``."""
    return lambda value: type(value) is int and 0 <= value < players
