"""The JSON backup of a chronicle: the whole event log with its metadata, and its import.

A backup is ``{"format": "ijinsho-chronicle", "format_version": 3, "chronicle": {...},
"events": [{"seq": 1, "event": {...}}, ...], "withdrawn": [...]}``: the stored event dicts in
order, nothing volatile (no timestamps, no ids, no links), keys sorted, so export -> import ->
export is byte-identical. ``withdrawn`` (new in version 3) lists, for a reader of the file, the
rolls taken back by an undo (the events say so too): an import checks it against the events.
An import is parsed, upgraded and checked by the rules core before anything is written, and is
then written in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlite_utils import Database

from companion.store import events as store
from companion.streams import chronicle_limits, chronicles
from companion.text import json_input
from companion.text.story import withdrawn_rolls

from ..legacy import SCHEMA_VERSION, Event, EventFormatError, State, event_from_dict, event_to_dict
from .errors import N_, BackupError, shown
from .verify import verified_state

FORMAT = "ijinsho-chronicle"
FORMAT_VERSION = 3
# An import takes what a chronicle may hold (chronicle_limits.py, where the numbers live):
# these are the defaults; ``import_limits()`` gives the settings' own.
MAX_EVENTS = chronicle_limits.from_settings({}).events
MAX_BYTES = chronicle_limits.backup_bytes(chronicle_limits.from_settings({}))
MAX_TITLE = 200
MAX_DEPTH = 32  # a backup nests about ten levels deep
TOP_FIELDS = {"format", "format_version", "chronicle", "events", "withdrawn"}
CHRONICLE_FIELDS = {"kind": str, "title": str, "language": str, "version": int, "event_schema": int}


@dataclass(frozen=True)
class Backup:
    """A backup that passed every check: what an import writes."""

    title: str
    language: str
    events: list[dict[str, Any]]
    state: State


def may_back_up(role: str, state: State) -> bool:
    """Whether a link may take the backup: it holds the shuffled piles, hidden until the end."""
    return role == "host" or state.setup.mode == "table" or state.ended


def export_backup(db: Database, stream_id: str) -> str:
    """The chronicle's backup as JSON text (UTF-8, sorted keys, one field per line)."""
    chronicle = chronicles.load(db, stream_id)  # the replayed state, cached by the server
    header = replace(store.get_stream(db, stream_id), version=chronicle.version)
    stored = store.load_events(db, stream_id, upto=chronicle.version)
    return dump(backup_document(header, stored, chronicle.state))


def backup_document(
    header: store.Stream, stored: list[store.StoredEvent], state: State | None
) -> dict[str, Any]:
    """The backup as plain data, in the current format version (``state`` is its replay; a
    stream that is not a chronicle has none, and so no rolls taken back)."""
    first = stored[0].data if stored else {}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "chronicle": {
            "kind": header.kind,
            "title": header.title,
            "language": first.get("setup", {}).get("language", ""),
            "version": header.version,
            "event_schema": SCHEMA_VERSION,
        },
        "events": [{"seq": e.seq, "event": e.data} for e in stored],
        "withdrawn": withdrawn_list(state) if state is not None else [],
    }


def withdrawn_list(state: State) -> list[dict[str, Any]]:
    """The rolls taken back, each with the card drawn for its turning point, in order."""
    return [
        {
            "turning_point": tp.seq,
            "card": tp.card,
            "seq": roll.seq,
            "faces": list(roll.faces),
            "success": roll.success,
            "reroll": roll.reroll,
        }
        for tp, roll in withdrawn_rolls(state)
    ]


def dump(document: Mapping[str, Any]) -> str:
    """The one stable text form of a backup document.

    Characters a chronicle stored before the app refused them at input (controls, U+FFFE/FFFF,
    lone surrogates) are left out, so the file is valid UTF-8 and imports again.
    """
    from .typeset import printable_data

    text = json.dumps(printable_data(document), ensure_ascii=False, sort_keys=True, indent=1)
    return text + "\n"


def import_limits() -> tuple[int, int]:
    """The largest backup file an import takes, in bytes, and the most events it may hold:
    those of a chronicle at its limits under the current settings."""
    limits = chronicle_limits.from_settings()
    return chronicle_limits.backup_bytes(limits), limits.events


def import_backup(db: Database, data: bytes) -> chronicles.Created:
    """Check ``data`` completely, then create the chronicle and its links; BackupError if refused."""
    backup = read_backup(data)
    try:
        return chronicles.create_from_events(
            db, backup.events, backup.title, backup.language, backup.state
        )
    except store.StreamFullError as err:
        if err.what == "events":
            message = N_("The backup holds more events than a chronicle may: at most %(limit)d.")
            raise BackupError("too-many-events", message, limit=err.limit) from None
        message = N_("The backup's texts take more than a chronicle may: at most %(megabytes)d MB.")
        megabytes = max(1, err.limit // chronicle_limits.MiB)
        raise BackupError("too-large", message, megabytes=megabytes) from None


def read_backup(data: bytes) -> Backup:
    """Parse, upgrade and check a backup file without touching any database."""
    document = upgrade(parse(data))
    meta = _chronicle_meta(document)
    events = _events(document)
    if meta["version"] != len(events):
        raise BackupError(
            "bad-meta",
            N_("The backup says it holds %(count)d events, but it holds %(held)d."),
            count=meta["version"],
            held=len(events),
        )
    state = verified_state(events)
    _check_withdrawn(document, state)
    if meta["language"] != state.setup.language:
        raise BackupError(
            "bad-meta",
            N_("The backup says its language is %(value)s but the chronicle's is %(language)s."),
            value=shown(meta["language"]),
            language=state.setup.language,
        )
    title = meta["title"].strip() or chronicles.title_of(state.setup)
    return Backup(title, state.setup.language, [event_to_dict(e) for e in events], state)


def parse(data: bytes) -> dict[str, Any]:
    """The JSON object in ``data``; BackupError for too large, not UTF-8, not JSON, not ours."""
    max_bytes, _events = import_limits()
    if len(data) > max_bytes:
        raise BackupError(
            "too-large",
            N_("The file has %(size)d bytes; a backup may have at most %(limit)d."),
            size=len(data),
            limit=max_bytes,
        )
    most = chronicle_limits.backup_values(chronicle_limits.from_settings())
    if json_input.values_over(data, most):
        raise BackupError(
            "too-many-values",
            N_(
                "The file holds more values than the backup of a full chronicle could"
                " (at most %(limit)d): it is not a chronicle backup, or it was changed."
            ),
            limit=most,
        )
    text = _decoded(data)
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise BackupError(
            "not-json",
            N_("The file is not JSON: %(problem)s at line %(line)d, column %(column)d."),
            problem=err.msg,
            line=err.lineno,
            column=err.colno,
        ) from None
    except (RecursionError, ValueError):
        raise BackupError(
            "not-json", N_("The file holds JSON that no backup holds (NaN, or nesting too deep).")
        ) from None
    try:
        json_input.check(document, MAX_DEPTH)
    except json_input.JsonInputError as err:
        raise BackupError(err.code, err.message, **err.params) from None
    return _ours(document)


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise BackupError(
            "not-utf8",
            N_("The file is not UTF-8 text (the byte at position %(position)d is not)."),
            position=err.start,
        ) from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def _ours(document: Any) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise BackupError(
            "foreign", N_("The file is JSON, but not a chronicle backup: it is not an object.")
        )
    if "format" not in document:
        raise BackupError(
            "foreign",
            N_(
                "This JSON file is not a chronicle backup: it does not say what it holds."
                " Choose a file saved with the “JSON backup” button of a chronicle."
            ),
        )
    if document["format"] != FORMAT:
        raise BackupError(
            "foreign",
            N_(
                "This file says it holds %(format)s, not an Ijinshō chronicle."
                " Choose a file saved with the “JSON backup” button of a chronicle."
            ),
            format=shown(document["format"]),
        )
    version = document.get("format_version")
    if version is None:
        raise BackupError(
            "bad-version",
            N_(
                "The backup does not say which version of the format it uses, so it cannot be read."
            ),
        )
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise BackupError(
            "bad-version",
            N_(
                "Backup format version %(version)s is unknown: this companion reads 1 to %(current)d."
            ),
            version=shown(version),
            current=FORMAT_VERSION,
        )
    return document


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """The document in the current format version, upgraded step by step from older ones."""
    while document["format_version"] < FORMAT_VERSION:
        document = UPGRADES[document["format_version"]](document)
    return document


def _upgrade_1(document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 held ``title`` and a bare list of event dicts: no seq, no chronicle metadata."""
    _only_fields(document, {"format", "format_version", "title", "events"}, "")
    title = _typed(document.get("title"), str, "title")
    events = _typed(document.get("events"), list, "events")
    first = events[0] if events and isinstance(events[0], dict) else {}
    setup: dict[str, Any] = first["setup"] if isinstance(first.get("setup"), dict) else {}
    return {
        "format": FORMAT,
        "format_version": 2,
        "chronicle": {
            "kind": chronicles.KIND,
            "title": title,
            "language": setup.get("language", ""),
            "version": len(events),
            "event_schema": 1,
        },
        "events": [{"seq": seq, "event": event} for seq, event in enumerate(events, start=1)],
    }


def _upgrade_2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 2 had no ``withdrawn`` list; the import works the rolls taken back out of the
    events, and the next export writes the list."""
    _only_fields(document, TOP_FIELDS - {"withdrawn"}, "")
    return {**document, "format_version": 3}


UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _upgrade_1, 2: _upgrade_2}


def _chronicle_meta(document: dict[str, Any]) -> dict[str, Any]:
    _only_fields(document, TOP_FIELDS, "")
    meta: dict[str, Any] = _typed(document.get("chronicle"), dict, "chronicle")
    _only_fields(meta, set(CHRONICLE_FIELDS), "chronicle.")
    for name, kind in CHRONICLE_FIELDS.items():
        _typed(meta.get(name), kind, f"chronicle.{name}")
    if meta["kind"] != chronicles.KIND:
        raise BackupError(
            "foreign",
            N_("This backup holds a %(kind)s, not a chronicle of Ijinshō."),
            kind=shown(meta["kind"]),
        )
    if len(meta["title"]) > MAX_TITLE:
        raise BackupError(
            "too-long",
            N_("The title has %(length)d characters; the limit is %(limit)d."),
            length=len(meta["title"]),
            limit=MAX_TITLE,
        )
    return meta


def _check_withdrawn(document: dict[str, Any], state: State) -> None:
    """The optional list of withdrawn rolls must say what the events say."""
    if "withdrawn" not in document:
        return
    listed = _typed(document["withdrawn"], list, "withdrawn")
    if json.dumps(listed, sort_keys=True) != json.dumps(withdrawn_list(state), sort_keys=True):
        raise BackupError(
            "bad-withdrawn",
            N_(
                "The backup's list of withdrawn rolls does not match its events:"
                " the file was changed by hand or is damaged."
            ),
        )


def _events(document: dict[str, Any]) -> list[Event]:
    entries = _typed(document.get("events"), list, "events")
    if not entries:
        raise BackupError("no-events", N_("The backup holds no events."))
    _bytes, max_events = import_limits()
    if len(entries) > max_events:
        raise BackupError(
            "too-many-events",
            N_("The backup holds %(count)d events; at most %(limit)d are accepted."),
            count=len(entries),
            limit=max_events,
        )
    return [_event(entry, expected) for expected, entry in enumerate(entries, start=1)]


def _event(entry: Any, expected: int) -> Event:
    where = f"events[{expected - 1}]"
    entry = _typed(entry, dict, where)
    _only_fields(entry, {"seq", "event"}, where + ".")
    seq = _typed(entry.get("seq"), int, f"{where}.seq")
    if seq != expected:
        raise BackupError(
            "broken-sequence",
            N_("Event number %(index)d has seq %(seq)d, not %(index)d: the sequence is broken."),
            index=expected,
            seq=seq,
        )
    data = _typed(entry.get("event"), dict, f"{where}.event")
    try:
        return event_from_dict(data)
    except (EventFormatError, TypeError) as err:
        raise BackupError(
            "bad-event", N_("Event %(seq)d cannot be read: %(problem)s."), seq=seq, problem=str(err)
        ) from None


TYPE_NAMES = {
    str: N_("a text"),
    int: N_("a whole number"),
    list: N_("a list"),
    dict: N_("an object"),
}


def _typed(value: Any, kind: type, field: str) -> Any:
    if type(value) is not kind:
        raise BackupError(
            "bad-field",
            N_("The backup's %(field)s should be %(expected)s, not %(value)s."),
            field=field,
            expected=TYPE_NAMES[kind],
            value=shown(value),
        )
    return value


def _only_fields(data: Mapping[str, Any], allowed: set[str], prefix: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise BackupError(
            "unknown-field",
            N_("The backup has a field this version does not know: %(field)s."),
            field=prefix + shown(unknown[0]),
        )
