"""Snapshots of replayed states, kept in the database: a cache a long stream is restored from.

One row per stream: its latest snapshot, under the version of the rules that wrote it (the
``projection``), at a version of the stream, with the stream's stored bytes at that version.
A snapshot is only ever a shortcut: one written under other rules is not read, one that does
not read back is ignored, and the stream's events stay the record. Rows go with their stream.

Writing one never waits: a snapshot that cannot be written now (the database busy, read-only
or full) is simply not written, and the next one due is tried instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from companion.store.sql import Database, dialect, now, sqlite_without_waiting

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """A stream's state as JSON at ``version``, when the stream held ``nbytes`` bytes."""

    version: int
    nbytes: int
    data: str


def read(db: Database, stream_id: str, projection: str) -> Snapshot | None:
    """The stream's latest snapshot written under ``projection``, or None."""
    row = db.execute(
        "SELECT version, nbytes, data FROM snapshots WHERE stream_id = ? AND projection = ?",
        [stream_id, projection],
    ).fetchone()
    return Snapshot(int(row[0]), int(row[1]), str(row[2])) if row else None


def write(db: Database, stream_id: str, projection: str, snapshot: Snapshot) -> bool:
    """Keep ``snapshot`` as the stream's latest (unless a newer one of the same rules is kept);
    True when it was written, False when the database could not take it now."""
    sql = (
        "INSERT INTO snapshots (stream_id, projection, version, nbytes, data, created)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (stream_id) DO UPDATE SET"
        " projection = excluded.projection, version = excluded.version,"
        " nbytes = excluded.nbytes, data = excluded.data, created = excluded.created"
        " WHERE snapshots.projection <> excluded.projection"
        " OR snapshots.version < excluded.version"
    )
    values = [stream_id, projection, snapshot.version, snapshot.nbytes, snapshot.data, now()]
    try:
        if dialect(db) == "sqlite":
            return sqlite_without_waiting(db, lambda: db.execute(sql, values))
        db.execute(sql, values)
    except Exception as err:  # noqa: BLE001 - a cache that cannot be written now is not written
        log.info("snapshot of %s not written: %s", stream_id, err)
        return False
    return True
