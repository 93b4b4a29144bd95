"""Frozen dataclasses to JSON-ready dicts and back, driven by their type hints.

Only the shapes the rules core uses are supported: str, int, bool, None unions, ``tuple[X, ...]``,
``Mapping[str, X]`` and nested dataclasses. Decoding checks every type, so a command from the JSON
API or an event from the store is either exactly right or refused.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any


class DecodeError(ValueError):
    """A value that does not fit the declared type; the message says where."""


def encode(value: Any) -> Any:
    """A JSON-ready copy of ``value``: dataclasses become dicts, tuples become lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {key: encode(item) for key, item in value.items()}
    return value


def decode_fields(cls: type[Any], data: Mapping[str, Any], where: str) -> Any:
    """An instance of dataclass ``cls`` built from ``data``, every field type-checked."""
    hints = _hints(cls)
    unknown = sorted(set(data) - set(hints))
    if unknown:
        raise DecodeError(f"{where}: unknown field {unknown[0]!r}")
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = decode(data[f.name], hints[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING:
            raise DecodeError(f"{where}: missing field {f.name!r}")
    return cls(**values)


def decode(value: Any, hint: Any, where: str) -> Any:
    """``value`` (parsed JSON) checked against ``hint`` and converted to it."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return _decode_union(value, typing.get_args(hint), where)
    if origin is tuple:
        return _decode_tuple(value, typing.get_args(hint)[0], where)
    if origin in (Mapping, dict):
        return _decode_mapping(value, typing.get_args(hint)[1], where)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise DecodeError(f"{where}: expected an object, got {value!r}")
        return decode_fields(typing.cast(type[Any], hint), value, where)
    return _decode_scalar(value, hint, where)


def _decode_union(value: Any, options: tuple[Any, ...], where: str) -> Any:
    if value is None and type(None) in options:
        return None
    (hint,) = [option for option in options if option is not type(None)]
    return decode(value, hint, where)


def _decode_tuple(value: Any, item: Any, where: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise DecodeError(f"{where}: expected a list, got {value!r}")
    return tuple(decode(entry, item, f"{where}[{n}]") for n, entry in enumerate(value))


def _decode_mapping(value: Any, item: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise DecodeError(f"{where}: expected an object, got {value!r}")
    return {key: decode(entry, item, f"{where}[{key!r}]") for key, entry in value.items()}


def _decode_scalar(value: Any, hint: Any, where: str) -> Any:
    if hint is bool and isinstance(value, bool):
        return value
    if hint in (int, str) and isinstance(value, hint) and not isinstance(value, bool):
        return value
    raise DecodeError(f"{where}: expected {getattr(hint, '__name__', hint)}, got {value!r}")


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    # get_type_hints evaluates string annotations each call; a log of thousands of events
    # decodes the same few classes over and over. The cache only ever holds the event and
    # command classes, so it stays small.
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints
