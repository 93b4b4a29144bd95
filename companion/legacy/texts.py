"""Finding and revising the texts players wrote (ReviseText), keeping every earlier version."""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from .copies import with_changes
from .errors import N_
from .model import Changes, KeystoneState, Mark, State, Text, TurningPoint

T = TypeVar("T")

# The revisable fields; a required one may not be revised to a blank text.
REQUIRED_FIELDS = {
    "question": N_("Write your own question, or choose one of the card's prompts."),
    "answer": N_("Answer the chosen prompt before going on."),
    "success": N_("Say what happens to the Pioneer on success before rolling."),
    "failure": N_("Say what happens to the Pioneer on failure before rolling."),
    "why": N_("Answer why this sacrifice was necessary."),
    "outcome": N_("Answer what came of the sacrifice and how it turned out."),
    "name": N_("Give the legacy mark a name."),
    "epilogue": N_("Write the epilogue, or leave it unwritten."),
}
OPTIONAL_FIELDS = ("narration", "description")
FIELDS = (*REQUIRED_FIELDS, *OPTIONAL_FIELDS)


def iter_texts(state: State) -> Iterator[Text]:
    """Every text in the state: the story, the keystones, the marks and the epilogue."""
    for point in state.turning_points:
        yield from _point_texts(point)
    for keystone in state.keystones:
        yield from _keystone_texts(keystone)
    for mark in state.marks:
        yield from _mark_texts(mark)
    yield from _present(state.epilogue)


def _point_texts(point: TurningPoint) -> Iterator[Text]:
    yield from _present(point.question, point.answer, point.stakes_success, point.stakes_failure)
    for payment in point.payments:
        yield from _present(payment.why, payment.outcome)
    for loss in point.losses:
        yield loss.narration
    yield from _present(point.narration)


def _keystone_texts(keystone: KeystoneState) -> Iterator[Text]:
    return _present(keystone.why, keystone.outcome, keystone.narration)


def _mark_texts(mark: Mark) -> Iterator[Text]:
    return iter((mark.name, mark.description))


def _present(*texts: Text | None) -> Iterator[Text]:
    return (text for text in texts if text is not None)


def find_text(state: State, seq: int, field: str) -> Text | None:
    """The text ``field`` written by event ``seq``, or None."""
    for text in iter_texts(state):
        if text.seq == seq and text.field == field:
            return text
    return None


def revise(state: State, seq: int, field: str, value: str, revision: int) -> Changes:
    """The changes that set every copy of text (``seq``, ``field``) to ``value``."""

    def change(text: Text) -> Text:
        if text.seq != seq or text.field != field:
            return text
        earlier = (*text.earlier, text.value)
        return with_changes(
            text, value=value, earlier=earlier, revisions=(*text.revisions, revision)
        )

    def holds(texts: Iterator[Text]) -> bool:
        return any(text.seq == seq and text.field == field for text in texts)

    def each(items: tuple[T, ...], texts: Callable[[T], Iterator[Text]]) -> tuple[T, ...]:
        return tuple(_map_texts(item, change) if holds(texts(item)) else item for item in items)

    check = state.check
    return {
        "story": _revise_story(state.story, seq, lambda items: each(items, _point_texts)),
        "check": None if check is None else each((check,), _point_texts)[0],
        "keystones": each(state.keystones, _keystone_texts),
        "marks": each(state.marks, _mark_texts),
        "epilogue": _map_texts(state.epilogue, change),
    }


def _revise_story(
    story: tuple[T, ...], seq: int, each: Callable[[tuple[T, ...]], tuple[T, ...]]
) -> tuple[T, ...]:
    """Revise only the turning point whose events include ``seq``: its card was drawn at or
    before ``seq``, and the next one after it (a corrected chronicle can be thousands of events)."""
    starts = [point.seq for point in story]  # type: ignore[attr-defined]
    index = bisect.bisect_right(starts, seq) - 1
    if index < 0:
        return story
    return (*story[:index], *each(story[index : index + 1]), *story[index + 1 :])


def _map_texts(value: Any, change: Callable[[Text], Text]) -> Any:
    """``value`` with ``change`` applied to every Text inside it (a slow, generic walk)."""
    if isinstance(value, Text):
        return change(value)
    if isinstance(value, tuple):
        return tuple(_map_texts(item, change) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _map_texts(getattr(value, f.name), change) for f in _fields(value)}
        return dataclasses.replace(value, **changes)
    return value


def _fields(value: Any) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(value) if f.init)
