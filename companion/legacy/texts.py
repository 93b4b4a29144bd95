"""Finding and revising the texts players wrote (ReviseText), keeping every earlier version."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from .copies import with_changes
from .errors import N_
from .model import Changes, State, Text

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
    for part in (state.story, state.check, state.keystones, state.marks, state.epilogue):
        yield from _texts_in(part)


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

    return {
        "story": _map_texts(state.story, change),
        "check": _map_texts(state.check, change),
        "keystones": _map_texts(state.keystones, change),
        "marks": _map_texts(state.marks, change),
        "epilogue": _map_texts(state.epilogue, change),
    }


def _texts_in(value: Any) -> Iterator[Text]:
    if isinstance(value, Text):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _texts_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _texts_in(getattr(value, f.name))


def _map_texts(value: Any, change: Any) -> Any:
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
