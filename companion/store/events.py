"""Append-only event store shared by every game kind.

Events are JSON objects with a ``type``; each stream (a chronicle or a card-game match) has its
own gap-free sequence starting at 1. A stream's version is the seq of its last event.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.store.signal import changed
from companion.store.sql import (
    Database,
    for_update,
    insert,
    insert_many,
    is_unique_violation,
    now,
    write_transaction,
)


class StoreError(ValueError):
    """A request the store cannot carry out."""


class StaleVersionError(StoreError):
    """Someone appended first: the caller's expected version is behind."""

    def __init__(self, stream_id: str, expected: int, current: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {current}, not {expected}: someone moved first"
        )
        self.expected = expected
        self.current = current


class UnknownStreamError(StoreError, LookupError):
    """No stream has that id."""


class StreamFullError(StoreError):
    """The append would take the stream past one of its limits (``what``: events or bytes)."""

    def __init__(self, stream_id: str, what: str, limit: int) -> None:
        super().__init__(f"stream {stream_id!r} may hold at most {limit} {what}")
        self.what = what
        self.limit = limit


@dataclass(frozen=True)
class Limits:
    """The most a stream may hold: events, and bytes of their stored JSON (UTF-8)."""

    events: int
    nbytes: int


class DamagedEventError(StoreError):
    """A stored event is not a JSON object: ``readable`` holds the events stored before it."""

    def __init__(self, stream_id: str, seq: int, readable: list[StoredEvent]) -> None:
        super().__init__(f"stream {stream_id!r}: event {seq} is not a JSON object")
        self.stream_id = stream_id
        self.seq = seq
        self.readable = readable


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: its sequence number, type and JSON object."""

    seq: int
    type: str
    data: dict[str, Any]
    created: str
    size: int = 0  # the characters of its stored JSON text


@dataclass(frozen=True)
class Stream:
    """A stream's header row."""

    id: str
    kind: str
    title: str
    version: int
    created: str
    updated: str
    meta: dict[str, Any]
    nbytes: int = 0  # the UTF-8 bytes of its events' stored JSON, together
    # What a watcher sees besides the version (a chronicle's phase), as its last append left it;
    # None for a stream that has not said.
    status: dict[str, Any] | None = None


# The columns of a stream's header, in ``Stream``'s order, for queries that join the table as s.
STREAM_COLUMNS = (
    "s.id, s.kind, s.title, s.version, s.created, s.updated, s.meta, s.nbytes, s.status"
)


def stream_from_row(row: Sequence[Any]) -> Stream:
    """The header read from the ``STREAM_COLUMNS`` of a row."""
    sid, kind, title, version, created, updated, meta, nbytes, status = row
    return Stream(
        sid,
        kind,
        title,
        version,
        created,
        updated,
        json.loads(meta or "{}"),
        int(nbytes or 0),
        json.loads(status) if status else None,
    )


def new_id() -> str:
    """A fresh, unguessable stream id (not a capability: it grants nothing)."""
    return secrets.token_hex(8)


def create_stream(
    db: Database,
    kind: str,
    events: Sequence[Mapping[str, Any]],
    title: str = "",
    meta: Mapping[str, Any] | None = None,
    stream_id: str | None = None,
    within: Callable[[Database, str], None] | None = None,
    status: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
) -> str:
    """Create a stream with its first events in one transaction; returns the stream id.

    ``within(db, stream_id)`` runs inside the same transaction (to issue the stream's links), so
    a failure leaves nothing behind. Past ``limits``, StreamFullError and nothing is written.
    """
    sid = stream_id or new_id()
    stamp = now()
    batch = [(event, _data(event)) for event in events]
    if limits is not None:
        _check_limits(sid, 0, 0, batch, limits)
    with write_transaction(db):
        insert(
            db,
            "streams",
            {
                "id": sid,
                "kind": kind,
                "title": title,
                "version": 0,
                "created": stamp,
                "updated": stamp,
                "meta": json.dumps(dict(meta or {}), ensure_ascii=False),
                "nbytes": 0,
            },
        )
        _insert_events(db, sid, 0, batch, stamp, status)
        if within is not None:
            within(db, sid)
    return sid


def append(
    db: Database,
    stream_id: str,
    expected_version: int,
    events: Iterable[Mapping[str, Any]],
    status: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    actor: str | None = None,
) -> int:
    """Append events atomically if the stream is at ``expected_version``; return the new version
    (``append_sized`` also says how many bytes the stream holds then)."""
    return append_sized(db, stream_id, expected_version, events, status, limits, actor)[0]


def append_sized(
    db: Database,
    stream_id: str,
    expected_version: int,
    events: Iterable[Mapping[str, Any]],
    status: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
    actor: str | None = None,
    then: Callable[[], None] | None = None,
) -> tuple[int, int]:
    """Append events atomically if the stream is at ``expected_version``; return the new version
    and the bytes of stored JSON the stream then holds.

    ``actor`` names who sent them (a link's role, ``host`` or ``seat:<n>``), kept beside each.

    The stream's row is locked while its version is checked (SQLite: the write lock of BEGIN
    IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE), so a racing append waits, then sees the new
    version and is refused. The primary key on ``(stream_id, seq)`` refuses a duplicate anyway.
    ``status`` replaces what watchers see besides the version; past ``limits`` the append is
    refused with StreamFullError, nothing written. ``then`` runs in the same transaction once the
    events are in (what else the move writes: it commits with them, or neither does).
    """
    batch = [(event, _data(event)) for event in events]
    stamp = now()
    try:
        with write_transaction(db):
            current, held = _size(db, stream_id)
            if current != expected_version:
                raise StaleVersionError(stream_id, expected_version, current)
            if limits is not None:
                _check_limits(stream_id, current, held, batch, limits)
            changed(db, stream_id)  # open pages hear of it once this commits
            version = _insert_events(db, stream_id, current, batch, stamp, status, actor)
            if then is not None:
                then()
            return version, held + sum(size for _, (_, size) in batch)
    except StoreError:
        raise
    except Exception as err:
        if not is_unique_violation(err):
            raise
        raise StaleVersionError(stream_id, expected_version, stream_version(db, stream_id)) from err


def _data(event: Mapping[str, Any]) -> tuple[str, int]:
    """An event's stored JSON and its size in UTF-8 bytes."""
    data = json.dumps(event, ensure_ascii=False, sort_keys=True)
    return data, len(data.encode("utf-8", "surrogatepass"))


def _size(db: Database, stream_id: str) -> tuple[int, int]:
    """The stream's version and stored bytes, its row locked until the transaction ends."""
    row = db.execute(
        f"SELECT version, nbytes FROM streams WHERE id = ?{for_update(db)}", [stream_id]
    ).fetchone()
    if row is None:
        raise UnknownStreamError(f"no stream {stream_id!r}")
    return int(row[0]), int(row[1] or 0)


def _check_limits(
    stream_id: str,
    version: int,
    held: int,
    batch: Sequence[tuple[Mapping[str, Any], tuple[str, int]]],
    limits: Limits,
) -> None:
    if version + len(batch) > limits.events:
        raise StreamFullError(stream_id, "events", limits.events)
    if held + sum(size for _, (_, size) in batch) > limits.nbytes:
        raise StreamFullError(stream_id, "bytes", limits.nbytes)


def _insert_events(
    db: Database,
    stream_id: str,
    version: int,
    batch: Sequence[tuple[Mapping[str, Any], tuple[str, int]]],
    stamp: str,
    status: Mapping[str, Any] | None = None,
    actor: str | None = None,
) -> int:
    """Insert ``batch`` (each event with its stored JSON and size) after ``version``."""
    rows = [
        {
            "stream_id": stream_id,
            "seq": version + i,
            "type": str(event["type"]),
            "data": data,
            "created": stamp,
            **({"actor": actor} if actor is not None else {}),
        }
        for i, (event, (data, _size)) in enumerate(batch, start=1)
    ]
    insert_many(db, "events", rows)
    new_version = version + len(rows)
    added = sum(size for _, (_, size) in batch)
    said = None if status is None else json.dumps(dict(status), ensure_ascii=False)
    db.execute(
        "UPDATE streams SET version = ?, updated = ?, nbytes = nbytes + ?,"
        " status = COALESCE(?, status) WHERE id = ?",
        [new_version, stamp, added, said, stream_id],
    )
    return new_version


def actors(db: Database, stream_id: str, after: int) -> dict[int, str]:
    """Who sent each event after ``after`` (by seq), for the events whose sender is known."""
    rows = db.execute(
        "SELECT seq, actor FROM events WHERE stream_id = ? AND seq > ? AND actor IS NOT NULL",
        [stream_id, after],
    ).fetchall()
    return {int(seq): str(actor) for seq, actor in rows}


def stream_version(db: Database, stream_id: str) -> int:
    """The stream's version; raises UnknownStreamError."""
    return _version(db, stream_id)


def _version(db: Database, stream_id: str, lock: bool = False) -> int:
    suffix = for_update(db) if lock else ""
    row = db.execute(f"SELECT version FROM streams WHERE id = ?{suffix}", [stream_id]).fetchone()
    if row is None:
        raise UnknownStreamError(f"no stream {stream_id!r}")
    return int(row[0])


def get_stream(db: Database, stream_id: str) -> Stream:
    """The stream's header; raises UnknownStreamError."""
    row = db.execute(
        f"SELECT {STREAM_COLUMNS} FROM streams s WHERE s.id = ?", [stream_id]
    ).fetchone()
    if row is None:
        raise UnknownStreamError(f"no stream {stream_id!r}")
    return stream_from_row(row)


def load_events(
    db: Database, stream_id: str, after: int = 0, upto: int | None = None
) -> list[StoredEvent]:
    """The stream's events with ``after < seq <= upto``, in order.

    Pass the version read from the stream's header as ``upto``: another writer may append between
    the two reads, and a state must never hold events beyond the version it is labelled with.
    Raises DamagedEventError at the first event whose data is not a JSON object.
    """
    cursor = db.execute(
        "SELECT seq, type, data, created FROM events"
        " WHERE stream_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
        [stream_id, after, upto if upto is not None else 2**62],
    )
    events: list[StoredEvent] = []
    for seq, type_, data, created in cursor:
        decoded = _object(data)
        if decoded is None:
            raise DamagedEventError(stream_id, seq, events)
        events.append(StoredEvent(seq, type_, decoded, created, len(data)))
    return events


def _object(data: str) -> dict[str, Any] | None:
    """The stored JSON object, or None when the text is not one (a damaged record)."""
    try:
        decoded = json.loads(data)
    except (TypeError, ValueError):
        return None
    return decoded if isinstance(decoded, dict) else None
