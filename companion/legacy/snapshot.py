"""A state as JSON and back, so a long chronicle is restored from a snapshot, not replayed.

``encode_state`` gives every field of the state but its log; ``decode_state`` type-checks the
data as an event is checked, and gives the state the log it is handed (usually deferred: the
events behind a snapshot are read only when something walks back that far). A snapshot says
nothing about which rules wrote it: its keeper stores it under the rules core's own version and
never reads one written by other rules.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from .codec import DecodeError, encode
from .errors import EventFormatError
from .events import Recorded, event_from_dict, event_to_dict
from .model import Log, State

# Fields kept in their own way: the log is the events themselves, the undone set is a list,
# the newest decisions are events as the log stores them, each with its seq.
_SPECIAL = ("log", "undone", "decisions")


def encode_state(state: State) -> dict[str, Any]:
    """The state as JSON-ready data, without its log."""
    data = {
        f.name: encode(getattr(state, f.name))
        for f in dataclasses.fields(state)
        if f.name not in _SPECIAL
    }
    data["undone"] = sorted(state.undone)
    data["decisions"] = [[r.seq, event_to_dict(r.event)] for r in state.decisions]
    return data


def decode_state(data: Mapping[str, Any], log: Log) -> State:
    """The state ``encode_state`` gave, holding ``log``; EventFormatError if it is not one."""
    if not isinstance(data, Mapping):
        raise EventFormatError("a snapshot must be an object")
    fields = _state_fields()
    special = {"undone", "decisions"}
    if set(data) != set(fields) | special:
        odd = sorted(set(data) ^ (set(fields) | special))
        raise EventFormatError(f"a snapshot's fields do not match the state's: {odd}")
    try:
        values = {name: read(data[name]) for name, read in fields.items()}
        undone = frozenset(_reader(tuple[int, ...])(data["undone"]))
        decisions = tuple(_decision(item) for item in _checked(data["decisions"], list))
    except (DecodeError, TypeError, ValueError) as error:
        raise EventFormatError(f"a snapshot does not read as a state: {error}") from None
    return State(**values, decisions=decisions, undone=undone, log=log)


def _decision(item: Any) -> Recorded:
    """One of the newest decisions as ``encode_state`` wrote it: its seq and its event."""
    seq, event = _checked(item, list)
    return Recorded(_scalar(seq, int), event_from_dict(_checked(event, dict)))


# Readers compiled once per type: a snapshot holds thousands of values, and working out what
# each type hint means for each value (as ``codec.decode`` does for one event) costs more than
# reading the value. They check what ``codec.decode`` checks.
Reader = Callable[[Any], Any]
_READERS: dict[Any, Reader] = {}
_FIELDS: dict[str, Reader] = {}


def _state_fields() -> dict[str, Reader]:
    if not _FIELDS:
        hints = typing.get_type_hints(State)
        for f in dataclasses.fields(State):
            if f.name not in _SPECIAL:
                _FIELDS[f.name] = _reader(hints[f.name])
    return _FIELDS


def _reader(hint: Any) -> Reader:
    reader = _READERS.get(hint)
    if reader is None:
        reader = _READERS[hint] = _compile(hint)
    return reader


def _compile(hint: Any) -> Reader:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        read = _reader(inner)
        return lambda value: None if value is None else read(value)
    if origin is tuple:
        inner = typing.get_args(hint)[0]
        if inner in (str, int):  # a text's earlier versions, its revisions: many, all plain
            return lambda value: _plain_tuple(value, inner)
        item = _reader(inner)
        return lambda value: tuple(item(entry) for entry in _checked(value, list))
    if origin in (Mapping, dict):
        item = _reader(typing.get_args(hint)[1])
        return lambda value: {_key(k): item(v) for k, v in _checked(value, dict).items()}
    if dataclasses.is_dataclass(hint):
        return _dataclass_reader(typing.cast(type[Any], hint))
    if hint in (str, int, bool):
        return lambda value: _scalar(value, hint)
    raise TypeError(f"no reader for {hint!r}")


def _dataclass_reader(cls: type[Any]) -> Reader:
    hints = typing.get_type_hints(cls)
    fields = [
        (f.name, f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        for f in dataclasses.fields(cls)
    ]
    readers: dict[str, Reader] = {}

    def read(value: Any) -> Any:
        if not readers:  # filled on first use: a dataclass may hold itself
            readers.update((name, _reader(hints[name])) for name, _ in fields)
        data = _checked(value, dict)
        if not set(data) <= readers.keys():
            raise DecodeError(
                f"{cls.__name__}: unknown fields {sorted(set(data) - readers.keys())}"
            )
        missing = [name for name, required in fields if required and name not in data]
        if missing:
            raise DecodeError(f"{cls.__name__}: missing field {missing[0]!r}")
        return cls(**{name: readers[name](item) for name, item in data.items()})

    return read


def _checked(value: Any, kind: type[Any]) -> Any:
    if not isinstance(value, kind):
        raise DecodeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _key(value: Any) -> str:
    return typing.cast(str, _checked(value, str))


def _plain_tuple(value: Any, hint: type[Any]) -> tuple[Any, ...]:
    """A list of ``hint`` values (str or int, never a bool) as a tuple, checked in one pass."""
    if isinstance(value, list) and set(map(type, value)) <= {hint}:  # one pass, in C
        return tuple(value)
    return tuple(_scalar(item, hint) for item in _checked(value, list))  # raises where it fails


def _scalar(value: Any, hint: type[Any]) -> Any:
    if isinstance(value, hint) and (hint is bool or not isinstance(value, bool)):
        return value
    raise DecodeError(f"expected {hint.__name__}, got {value!r}")
