"""Finding and revising the texts players wrote (ReviseText), keeping every earlier version."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import Any

from .copies import with_changes
from .errors import N_
from .model import Changes, KeystoneState, Loss, Mark, Payment, State, Text, TurningPoint

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


# Where the texts of a state live: each kind of record's fields, in the order they are read,
# each a Text ("text") or a tuple of records that hold texts of their own ("records").
_HOLDS: dict[type[Any], tuple[tuple[str, str], ...]] = {
    TurningPoint: (
        ("question", "text"),
        ("answer", "text"),
        ("stakes_success", "text"),
        ("stakes_failure", "text"),
        ("payments", "records"),
        ("losses", "records"),
        ("narration", "text"),
    ),
    Payment: (("why", "text"), ("outcome", "text")),
    Loss: (("narration", "text"),),
    KeystoneState: (("why", "text"), ("outcome", "text"), ("narration", "text")),
    Mark: (("name", "text"), ("description", "text")),
}


def iter_texts(state: State) -> Iterator[Text]:
    """Every text in the state: the story, the keystones, the marks and the epilogue."""
    for point in state.turning_points:
        yield from texts_of(point)
    for keystone in state.keystones:
        yield from texts_of(keystone)
    for mark in state.marks:
        yield from texts_of(mark)
    if state.epilogue is not None:
        yield state.epilogue


def texts_of(record: Any) -> Iterator[Text]:
    """The texts a turning point, payment, loss, keystone or mark holds, in reading order."""
    for name, kind in _HOLDS[type(record)]:
        value = getattr(record, name)
        if kind == "records":
            for item in value:
                yield from texts_of(item)
        elif value is not None:
            yield value


def find_text(state: State, seq: int, field: str) -> Text | None:
    """The text ``field`` written by event ``seq``, or None."""
    for text in iter_texts(state):
        if text.seq == seq and text.field == field:
            return text
    return None


def revise(state: State, seq: int, field: str, value: str, revision: int) -> Changes:
    """The changes that set every copy of text (``seq``, ``field``) to ``value``.

    Only the records that can hold it are looked at: the turning point whose events include
    ``seq`` (its card was drawn at or before ``seq``, the next one's after), the keystones, the
    marks and the epilogue; a chronicle corrected thousands of times stays as fast to replay.
    """

    def change(text: Text) -> Text:
        if text.seq != seq or text.field != field:
            return text
        earlier = (*text.earlier, text.value)
        return with_changes(
            text, value=value, earlier=earlier, revisions=(*text.revisions, revision)
        )

    changes: Changes = {}
    story = state.story
    index = bisect.bisect_right(story, seq, key=lambda point: point.seq) - 1
    if index >= 0:
        point = _revised(story[index], change)
        if point is not story[index]:
            changes["story"] = (*story[:index], point, *story[index + 1 :])
    if state.check is not None and state.check.seq <= seq:
        check = _revised(state.check, change)
        if check is not state.check:
            changes["check"] = check
    for name in ("keystones", "marks"):
        # A keystone's texts are written by the event that sacrificed or lost it, a mark's by
        # the one that built it: only a record of that seq can hold the text.
        records = getattr(state, name)
        revised = tuple(_revised(r, change) if r.seq == seq else r for r in records)
        if any(new is not old for new, old in zip(revised, records, strict=True)):
            changes[name] = revised
    if state.epilogue is not None:
        epilogue = change(state.epilogue)
        if epilogue is not state.epilogue:
            changes["epilogue"] = epilogue
    return changes


def _revised(record: Any, change: Callable[[Text], Text]) -> Any:
    """``record`` with ``change`` applied to each text it holds; itself when none changes."""
    updates: dict[str, Any] = {}
    for name, kind in _HOLDS[type(record)]:
        value = getattr(record, name)
        if kind == "records":
            items = tuple(_revised(item, change) for item in value)
            if any(new is not old for new, old in zip(items, value, strict=True)):
                updates[name] = items
        elif value is not None:
            text = change(value)
            if text is not value:
                updates[name] = text
    return with_changes(record, **updates) if updates else record
