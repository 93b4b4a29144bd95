"""SQL that runs on both backends: SQLite (the default) and PostgreSQL (a shared store).

Shared code writes ``?`` placeholders and plain SQL, and calls ``db.execute(sql, params)``; rows
come back as tuples. A sqlite-utils ``Database`` takes that as it is; the PostgreSQL connection
(``companion/store/pg.py``) turns ``?`` into ``%s``. What differs between the two lives here: how a
write transaction starts, and how a row is locked for the one who reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

POSTGRESQL = "postgresql"
SQLITE = "sqlite"


class Database(Protocol):
    """What shared code uses of a connection: ``execute`` with ``?`` parameters."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...


def dialect(db: Any) -> str:
    """``"postgresql"`` for a PostgreSQL connection, ``"sqlite"`` for sqlite-utils."""
    return str(getattr(db, "dialect", SQLITE))


def for_update(db: Database) -> str:
    """Ends a SELECT whose rows the transaction is about to change (PostgreSQL locks them)."""
    return " FOR UPDATE" if dialect(db) == POSTGRESQL else ""


def skip_locked(db: Database) -> str:
    """Ends a SELECT that takes a row no other transaction holds (a queue's next job)."""
    return " FOR UPDATE SKIP LOCKED" if dialect(db) == POSTGRESQL else ""


class write_transaction:  # noqa: N801 - used as a context manager, like contextlib's
    """A transaction that writes after it reads.

    SQLite: BEGIN IMMEDIATE takes the write lock first and waits politely, so a check made
    inside sees the latest rows (a deferred transaction that reads and then writes fails with
    SQLITE_BUSY when another writer committed in between). PostgreSQL: BEGIN, and with ``lock``
    a transaction-scoped advisory lock on that name, for checks that no row lock can guard (a
    row that does not exist yet).
    """

    def __init__(self, db: Any, lock: str | None = None) -> None:
        self.db, self.lock = db, lock

    def __enter__(self) -> Any:
        self.db.after_commit = []
        self.db.once_keys = set()
        if dialect(self.db) == POSTGRESQL:
            self.db.conn.execute("BEGIN")
            if self.lock is not None:
                self.db.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [self.lock])
        else:
            self.db.conn.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        callbacks, self.db.after_commit = self.db.after_commit, None
        self.db.once_keys = None
        if not exc_type:
            self.db.conn.execute("COMMIT")
            for callback in callbacks:
                callback()
        elif self.db.conn.in_transaction:  # SQLite rolls back by itself on a full disk
            self.db.conn.execute("ROLLBACK")


def after_commit(db: Any, callback: Callable[[], object]) -> None:
    """Run ``callback`` once the write transaction ``db`` is in commits (now, outside one);
    never, if it rolls back."""
    pending = getattr(db, "after_commit", None)
    if pending is None:
        callback()
    else:
        pending.append(callback)


def sqlite_without_waiting(db: Any, write: Callable[[], None]) -> bool:
    """Run ``write`` on SQLite in a transaction of its own that never waits for another writer
    (a cache's row: a snapshot, a kept page). False, nothing written, when ``db`` is in a
    transaction already; a busy, read-only or full database raises at once. The connection's
    own busy timeout is put back after (a gevent worker's is 0: it waits cooperatively)."""
    conn = db.conn
    if conn.in_transaction:
        return False  # never inside someone else's transaction
    waits = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute("PRAGMA busy_timeout = 0")  # another writer holds the lock: skip, never wait
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            write()
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.execute(f"PRAGMA busy_timeout = {waits}")
    return True


def first_in_transaction(db: Any, key: Hashable) -> bool:
    """Whether ``key`` is new to the write transaction ``db`` is in (always, outside one): a
    move that writes its events and its drafts together tells watchers of it once."""
    seen = getattr(db, "once_keys", None)
    if seen is None:
        return True
    if key in seen:
        return False
    seen.add(key)
    return True


def insert(db: Any, table: str, row: Mapping[str, Any]) -> None:
    """Insert one row given as a mapping of column to value."""
    insert_many(db, table, [row])


def insert_many(db: Any, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert rows that share their columns (those of the first), in one statement each."""
    if not rows:
        return
    columns = list(rows[0])
    marks = ", ".join("?" for _ in columns)
    statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    values = [[row[column] for column in columns] for row in rows]
    if dialect(db) == POSTGRESQL:
        db.executemany(statement, values)
    else:
        db.conn.executemany(statement, values)


def is_unique_violation(err: BaseException) -> bool:
    """Whether ``err`` is a unique or primary key constraint refusing a row."""
    if getattr(err, "sqlstate", None) == "23505":  # PostgreSQL's unique_violation
        return True
    name = type(err).__name__
    return name == "IntegrityError" and "UNIQUE constraint failed" in str(err)


def rows_as_dicts(cursor: Any) -> Iterator[dict[str, Any]]:
    """A cursor's rows as dicts by column name (both drivers describe their columns)."""
    names = [column[0] for column in cursor.description or ()]
    for row in cursor:
        yield dict(zip(names, row, strict=True))


def now() -> str:
    """The current UTC time as an ISO string."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")
