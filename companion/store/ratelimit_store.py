"""Rate-limit counts kept in PostgreSQL, so servers that share a store share their counts too.

Registers the ``postgresql://`` scheme with the ``limits`` library the rate limits count with:
``RATELIMIT_STORAGE_URI`` set to the same address as ``DATABASE`` (or another PostgreSQL
database) needs no Redis or memcached. It keeps two small tables of its own, made by the
migrations (``0009_ratelimit_tables`` in ``companion.store.migrations``), never on first use: fixed-window
counters, and the entries of the moving window (the companion's default strategy), one row per
counted request, dropped once they fall out of their window. A rate-limit store in another
PostgreSQL database than ``DATABASE`` gets the same step from ``prepare`` when the server starts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from limits.storage import MovingWindowSupport, Storage

from companion.store import pg
from companion.store.migrations import POSTGRESQL_MIGRATIONS, RATELIMIT_MIGRATION


def prepare_for(config: Mapping[str, Any]) -> None:
    """At server start: migrate a PostgreSQL rate-limit store that is not ``DATABASE`` itself."""
    uri = config.get("RATELIMIT_STORAGE_URI")
    if pg.is_url(uri) and uri != config["DATABASE"]:
        prepare(str(uri))


def prepare(uri: str) -> None:
    """Make the rate-limit tables in the PostgreSQL database ``uri`` (a migration, run once)."""
    db = pg.connect(uri)
    try:
        pg.migrate(db, [step for step in POSTGRESQL_MIGRATIONS if step[0] == RATELIMIT_MIGRATION])
    finally:
        db.conn.close()


class PostgresStorage(Storage, MovingWindowSupport):
    """Fixed and moving window counts in PostgreSQL, one connection per thread."""

    STORAGE_SCHEME = ["postgresql", "postgres"]

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.uri = uri
        self._local = threading.local()

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        import psycopg

        return psycopg.Error

    def _db(self) -> pg.Database:
        db: pg.Database | None = getattr(self._local, "db", None)
        if db is None or not db.conn.check():
            if db is not None:
                db.conn.close()
            db = pg.connect(self.uri)
            self._local.db = db
        return db

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        row = (
            self._db()
            .execute(
                "INSERT INTO ratelimit_counters (key, count, expires) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET"
                " count = CASE WHEN ratelimit_counters.expires <= ? THEN excluded.count"
                " ELSE ratelimit_counters.count + excluded.count END,"
                " expires = CASE WHEN ratelimit_counters.expires <= ? THEN excluded.expires"
                " ELSE ratelimit_counters.expires END"
                " RETURNING count",
                [key, amount, now + expiry, now, now],
            )
            .fetchone()
        )
        return int(row[0])

    def get(self, key: str) -> int:
        row = (
            self._db()
            .execute(
                "SELECT count FROM ratelimit_counters WHERE key = ? AND expires > ?",
                [key, time.time()],
            )
            .fetchone()
        )
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        row = (
            self._db()
            .execute("SELECT expires FROM ratelimit_counters WHERE key = ?", [key])
            .fetchone()
        )
        return float(row[0]) if row else time.time()

    def check(self) -> bool:
        try:
            self._db().execute("SELECT 1")
        except Exception:
            return False
        return True

    def reset(self) -> int | None:
        db = self._db()
        counted = db.execute("DELETE FROM ratelimit_counters").rowcount
        db.execute("DELETE FROM ratelimit_entries")
        return int(counted)

    def clear(self, key: str) -> None:
        db = self._db()
        db.execute("DELETE FROM ratelimit_counters WHERE key = ?", [key])
        db.execute("DELETE FROM ratelimit_entries WHERE key = ?", [key])

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        """Count ``amount`` requests if fewer than ``limit`` fall within the last ``expiry`` s."""
        if amount > limit:
            return False
        db = self._db()
        now = time.time()
        db.conn.execute("BEGIN")
        try:
            # One client's requests at a time, on every server: the count and the insert agree.
            db.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"ratelimit:{key}"])
            db.execute(
                "DELETE FROM ratelimit_entries WHERE key = ? AND at <= ?", [key, now - expiry]
            )
            count = db.execute(
                "SELECT count(*) FROM ratelimit_entries WHERE key = ?", [key]
            ).fetchone()[0]
            allowed = count + amount <= limit
            if allowed:
                db.executemany(
                    "INSERT INTO ratelimit_entries (key, at) VALUES (?, ?)",
                    [[key, now]] * amount,
                )
        except BaseException:
            db.conn.rollback()
            raise
        db.conn.commit()
        return bool(allowed)

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """The oldest entry still in the window and how many there are."""
        now = time.time()
        row = (
            self._db()
            .execute(
                "SELECT min(at), count(*) FROM ratelimit_entries WHERE key = ? AND at > ?",
                [key, now - expiry],
            )
            .fetchone()
        )
        if not row or not row[1]:
            return now, 0
        return float(row[0]), int(row[1])
