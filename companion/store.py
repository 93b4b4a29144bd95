"""Append-only event store shared by every game kind.

Events are JSON objects with a ``type``; each stream (a chronicle or a card-game match) has its
own gap-free sequence starting at 1. A stream's version is the seq of its last event.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlite_utils import Database


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


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: its sequence number, type and JSON object."""

    seq: int
    type: str
    data: dict[str, Any]
    created: str


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


def now() -> str:
    """The current UTC time as an ISO string."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_id() -> str:
    """A fresh, unguessable stream id (not a capability: it grants nothing)."""
    return secrets.token_hex(8)


def _immediate(db: Database) -> Any:
    # A deferred transaction that reads and then writes fails with SQLITE_BUSY when another
    # writer committed in between (its snapshot is stale); BEGIN IMMEDIATE takes the write lock
    # first and waits politely, so the version check below sees the latest version.
    class _Txn:
        def __enter__(self) -> Database:
            db.conn.execute("BEGIN IMMEDIATE")
            return db

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            db.conn.execute("ROLLBACK" if exc_type else "COMMIT")

    return _Txn()


def create_stream(
    db: Database,
    kind: str,
    events: Sequence[Mapping[str, Any]],
    title: str = "",
    meta: Mapping[str, Any] | None = None,
    stream_id: str | None = None,
    within: Callable[[Database, str], None] | None = None,
) -> str:
    """Create a stream with its first events in one transaction; returns the stream id.

    ``within(db, stream_id)`` runs inside the same transaction (to issue the stream's links), so
    a failure leaves nothing behind.
    """
    sid = stream_id or new_id()
    stamp = now()
    with _immediate(db):
        db.table("streams").insert(
            {
                "id": sid,
                "kind": kind,
                "title": title,
                "version": 0,
                "created": stamp,
                "updated": stamp,
                "meta": json.dumps(dict(meta or {}), ensure_ascii=False),
            }
        )
        _insert_events(db, sid, 0, events, stamp)
        if within is not None:
            within(db, sid)
    return sid


def append(
    db: Database, stream_id: str, expected_version: int, events: Iterable[Mapping[str, Any]]
) -> int:
    """Append events atomically if the stream is at ``expected_version``; return the new version."""
    batch = list(events)
    stamp = now()
    with _immediate(db):
        current = _version(db, stream_id)
        if current != expected_version:
            raise StaleVersionError(stream_id, expected_version, current)
        return _insert_events(db, stream_id, current, batch, stamp)


def _insert_events(
    db: Database, stream_id: str, version: int, events: Sequence[Mapping[str, Any]], stamp: str
) -> int:
    rows = [
        {
            "stream_id": stream_id,
            "seq": version + i,
            "type": str(event["type"]),
            "data": json.dumps(event, ensure_ascii=False, sort_keys=True),
            "created": stamp,
        }
        for i, event in enumerate(events, start=1)
    ]
    if rows:
        db.table("events").insert_all(rows)
    new_version = version + len(rows)
    db.execute(
        "UPDATE streams SET version = ?, updated = ? WHERE id = ?", [new_version, stamp, stream_id]
    )
    return new_version


def _version(db: Database, stream_id: str) -> int:
    row = db.execute("SELECT version FROM streams WHERE id = ?", [stream_id]).fetchone()
    if row is None:
        raise UnknownStreamError(f"no stream {stream_id!r}")
    return int(row[0])


def get_stream(db: Database, stream_id: str) -> Stream:
    """The stream's header; raises UnknownStreamError."""
    row = db.execute(
        "SELECT id, kind, title, version, created, updated, meta FROM streams WHERE id = ?",
        [stream_id],
    ).fetchone()
    if row is None:
        raise UnknownStreamError(f"no stream {stream_id!r}")
    sid, kind, title, version, created, updated, meta = row
    return Stream(sid, kind, title, version, created, updated, json.loads(meta or "{}"))


def load_events(
    db: Database, stream_id: str, after: int = 0, upto: int | None = None
) -> list[StoredEvent]:
    """The stream's events with ``after < seq <= upto``, in order.

    Pass the version read from the stream's header as ``upto``: another writer may append between
    the two reads, and a state must never hold events beyond the version it is labelled with.
    """
    cursor = db.execute(
        "SELECT seq, type, data, created FROM events"
        " WHERE stream_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
        [stream_id, after, upto if upto is not None else 2**62],
    )
    return [
        StoredEvent(seq, type_, json.loads(data), created) for seq, type_, data, created in cursor
    ]


def update_meta(db: Database, stream_id: str, **changes: Any) -> None:
    """Merge ``changes`` into the stream's meta object (titles, settings; never game state)."""
    with _immediate(db):
        stream = get_stream(db, stream_id)
        meta = {**stream.meta, **changes}
        db.execute(
            "UPDATE streams SET meta = ? WHERE id = ?",
            [json.dumps(meta, ensure_ascii=False), stream_id],
        )
