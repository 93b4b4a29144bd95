"""The one place that opens the database: connection, pragmas, pool and migrations.

SQLite under instance/ is the default. A ``postgresql://`` address as ``DATABASE`` puts every
table in PostgreSQL instead (``companion/store/pg.py``), so several servers can share one store. The
migrations are one list for both (``companion/store/migrations.py``).
"""

from __future__ import annotations

import functools
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext
from sqlite_utils import Database

from companion.base import metrics
from companion.store import pg
from companion.store.migrations import POSTGRESQL_MIGRATIONS, migrations
from companion.store.schema import applied_migrations, refuse_newer, shown

BUSY_TIMEOUT_MS = 5000
# SQLite's primary result codes for a database that cannot be used right now, as opposed to a
# request or a query that is wrong: busy, locked, read-only, I/O error, full, cannot be opened,
# WAL locking protocol. The operator fixes these (or they pass); the request can be tried again.
UNAVAILABLE_CODES = {
    5: "busy",
    6: "locked",
    8: "readonly",
    10: "ioerr",
    13: "full",
    14: "cantopen",
    15: "protocol",
}
# The same conditions by their messages, for errors raised without a result code.
_UNAVAILABLE_MESSAGES = (
    "database is locked",
    "database table is locked",
    "readonly database",
    "disk i/o error",
    "database or disk is full",
    "unable to open database file",
)


def connect(path: str | Path) -> Database:
    """Open the database with WAL, foreign keys and a busy timeout; autocommit outside atomic().

    A ``postgresql://`` address opens PostgreSQL instead, also in autocommit mode.
    """
    if pg.is_url(path):
        return metrics.timed(pg.connect(str(path)))  # type: ignore[no-any-return]
    cooperative = _greenlets()
    timeout = 0 if cooperative else BUSY_TIMEOUT_MS
    base = metrics.sqlite_factory()
    conn = sqlite3.connect(
        str(path),
        timeout=timeout / 1000,
        isolation_level=None,
        check_same_thread=False,
        factory=_cooperative(cast(Hashable, base)) if cooperative else base,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {timeout}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return Database(conn)


def _greenlets() -> bool:
    """Whether gevent runs this process (``companion serve``'s workers): threads are greenlets."""
    monkey = sys.modules.get("gevent.monkey")
    return bool(monkey is not None and monkey.is_module_patched("time"))


# A wait above 0 resumes a greenlet only on the event loop's next turn, once the I/O ready
# meanwhile was served and the greenlets it woke have run (a wait of 0 may resume it before).
TURN = 1e-6


def next_turn() -> None:
    """Under gevent, let the worker's other greenlets run before going on (else nothing)."""
    if _greenlets():
        time.sleep(TURN)  # gevent's sleep: the module is patched


@functools.cache
def _cooperative(base: Hashable) -> type[sqlite3.Connection]:
    """``base`` (a plain or a counted connection class) made to wait cooperatively for a lock."""
    assert isinstance(base, type) and issubclass(base, sqlite3.Connection)
    return type(f"Cooperative{base.__name__}", (_Cooperative, base), {})


class _Cooperative(sqlite3.Connection):
    """A connection that waits for another process's write lock by sleeping, which lets the
    other greenlets of a gevent worker run; SQLite's own busy wait is C code that would hold the
    whole worker for up to the busy timeout, once per waiting request."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return _waiting(self, super().execute, sql, parameters)

    def executemany(self, sql: str, rows: Any, /) -> sqlite3.Cursor:
        return _waiting(self, super().executemany, sql, rows)


def _waiting(conn: sqlite3.Connection, run: Any, sql: str, parameters: Any) -> sqlite3.Cursor:
    # Inside a transaction a busy answer means giving way to another writer: never waited for.
    if conn.in_transaction and not sql.lstrip().upper().startswith("BEGIN"):
        return run(sql, parameters)  # type: ignore[no-any-return]
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            return run(sql, parameters)  # type: ignore[no-any-return]
        except sqlite3.OperationalError as err:
            code = getattr(err, "sqlite_errorcode", 0) & 0xFF
            if code not in (5, 6) or time.monotonic() >= deadline:  # busy, locked
                raise
        time.sleep(pause)  # gevent's sleep: the worker serves others meanwhile
        pause = min(pause * 2, 0.05)


def unavailable(err: BaseException) -> bool:
    """Whether ``err`` means the database is locked, read-only, full or failing, not a bug."""
    if pg.is_error(err):
        return pg.unavailable(err)
    if not isinstance(err, sqlite3.OperationalError):
        return False
    code = getattr(err, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in UNAVAILABLE_CODES
    message = str(err).lower()
    return any(known in message for known in _UNAVAILABLE_MESSAGES)


def writable(path: str) -> bool:
    """Whether this process may write the database file and its WAL files (those that exist)."""
    if pg.is_url(path):
        return True  # the server says so itself, on each statement
    # One access() per file in the usual case; whether a refused file exists is asked only then.
    files = (path, f"{path}-wal", f"{path}-shm")
    return all(os.access(name, os.W_OK) or not os.path.exists(name) for name in files)


def migrate(db: Database) -> None:
    """Apply every pending migration."""
    if isinstance(db, pg.Database):
        pg.migrate(db, POSTGRESQL_MIGRATIONS)
    else:
        migrations.apply(db)


@dataclass(eq=False)
class _Pooled:
    """A pooled connection and what the pool knows of it."""

    db: Database
    path: str
    # Opened while the files were not writable, or while such a connection was open here.
    tainted: bool
    in_use: bool = False
    retire: bool = False


IDLE_KEPT = 16  # idle connections kept per database; more are closed when given back


class _Pool:
    """Connections lent to one request at a time and kept for the next.

    Opening a connection and setting its pragmas costs more than a page's queries, so a
    connection given back is lent again. A request (a thread, or a greenlet under gevent) holds
    its connection only while it runs: a held-open live feed holds none.

    SQLite opens files it may not write read-only, and every connection of a process shares one
    WAL index: a connection opened while the files were read-only stays read-only, and so does
    any connection opened beside it, even after the files are writable again. Such connections
    are "tainted"; once the files are writable, all of them are closed (those in use, when their
    request ends) and fresh ones opened, so the server recovers by itself without a restart.
    A connection that met a fault (see ``unavailable``) is dropped by ``discard``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[str, list[_Pooled]] = {}
        self._open_count: dict[str, int] = {}
        self._tainted: dict[str, int] = {}
        self._lent: dict[int, _Pooled] = {}  # by id() of the Database lent

    def get(self, path: str) -> Database:
        if pg.is_url(path):
            return self._get_server(path)
        ok = writable(path)
        pooled = None
        with self._lock:
            if self._tainted.get(path) and ok:
                self._retire(path)
            idle = self._idle.setdefault(path, [])
            if idle and not ok and not idle[-1].tainted:
                # The files were made read-only under open connections: their descriptors could
                # still write, so they are closed and the next one opens as the files now allow.
                for stale in [p for p in idle if not p.tainted]:
                    idle.remove(stale)
                    self._drop(stale)
            if idle:
                pooled = idle.pop()
                pooled.in_use = True
                self._lent[id(pooled.db)] = pooled
            else:
                tainted = bool(self._tainted.get(path)) or not ok
                # Counted before opening, so a connection opened meanwhile counts as beside it.
                self._tainted[path] = self._tainted.get(path, 0) + tainted
        if pooled is None:
            pooled = self._open(path, tainted)
        if pooled.db.conn.in_transaction:
            # A request never starts inside another's transaction: its writes would not commit.
            try:
                pooled.db.conn.rollback()
            except sqlite3.Error:
                self.discard(pooled.db)
                return self.get(path)
        return pooled.db

    def _get_server(self, url: str) -> Database:
        """A PostgreSQL connection: reopened when the server dropped it."""
        pooled = None
        while True:
            with self._lock:
                idle = self._idle.setdefault(url, [])
                pooled = idle.pop() if idle else None
            # An idle connection does not know that the server restarted until it is used:
            # checked first (one empty round trip, outside the lock), it is replaced now
            # instead of failing a request with a 503.
            # the pool lends a PostgreSQL store its own connections under the SQLite type
            if pooled is None or cast(pg.Database, pooled.db).conn.check():
                break
            with self._lock:
                self._drop(pooled)
        if pooled is not None:
            with self._lock:
                pooled.in_use = True
                self._lent[id(pooled.db)] = pooled
        if pooled is None:
            pooled = self._open(url, False)
        if pooled.db.conn.in_transaction:
            try:
                pooled.db.conn.rollback()
            except Exception:
                self.discard(pooled.db)
                return self._get_server(url)
        return pooled.db

    def _open(self, path: str, tainted: bool) -> _Pooled:
        try:
            pooled = _Pooled(connect(path), path, tainted, in_use=True)
        except BaseException:
            with self._lock:
                self._tainted[path] = self._tainted.get(path, 0) - tainted
            raise
        with self._lock:
            self._lent[id(pooled.db)] = pooled
            self._open_count[path] = self._open_count.get(path, 0) + 1
        return pooled

    def release(self, db: Database) -> None:
        """The request is over: keep the connection for the next, unless it was retired."""
        with self._lock:
            pooled = self._lent.pop(id(db), None)
            if pooled is None:
                return
            pooled.in_use = False
            idle = self._idle.setdefault(pooled.path, [])
            if pooled.retire or len(idle) >= IDLE_KEPT:
                self._drop(pooled)
            else:
                idle.append(pooled)

    def discard(self, db: Database) -> None:
        """Close and forget this request's connection; the next ``get`` opens anew."""
        with self._lock:
            pooled = self._lent.pop(id(db), None)
            if pooled is not None:
                self._drop(pooled)

    def connections(self, path: str) -> int:
        """How many connections to ``path`` are open (lent or idle)."""
        with self._lock:
            return self._open_count.get(path, 0)

    def _retire(self, path: str) -> None:
        idle = self._idle.get(path, [])
        for pooled in [p for p in idle if p.tainted]:
            idle.remove(pooled)
            self._drop(pooled)
        for pooled in self._lent.values():
            if pooled.path == path and pooled.tainted:
                pooled.retire = True

    def _drop(self, pooled: _Pooled) -> None:
        self._tainted[pooled.path] = self._tainted.get(pooled.path, 0) - pooled.tainted
        self._open_count[pooled.path] = self._open_count.get(pooled.path, 0) - 1
        try:
            pooled.db.conn.close()
        except Exception:  # sqlite3's or psycopg's: the connection is gone either way
            pass


def get_db() -> Database:
    """The request's database connection (lent on first use, given back when it ends)."""
    if "db" not in g:
        pool: _Pool = current_app.extensions["companion.db_pool"]
        g.db = pool.get(current_app.config["DATABASE"])
    return g.db  # type: ignore[no-any-return]


def discard_db() -> None:
    """Drop the request's connection after a database fault, so the next request opens anew."""
    db = g.pop("db", None)
    if db is not None:
        pool: _Pool = current_app.extensions["companion.db_pool"]
        pool.discard(db)


def close_db(_exc: BaseException | None = None) -> None:
    """Give the connection back: roll back anything a failed request left open."""
    db = g.get("db")
    if db is None:
        return
    pool: _Pool = current_app.extensions["companion.db_pool"]
    if db.conn.in_transaction:
        try:
            db.conn.rollback()
        except Exception as err:  # sqlite3's or psycopg's
            if not (isinstance(err, sqlite3.Error) or pg.is_error(err)):
                raise
            discard_db()
            return
    g.pop("db", None)
    pool.release(db)


def check_schema(path: str | Path) -> None:
    """Refuse a store migrated by a newer companion (SchemaTooNewError); reads only."""
    if not pg.is_url(path) and not Path(path).is_file():
        return
    if pg.is_url(path):
        db = connect(path)
        try:
            refuse_newer(applied_migrations(db), shown(path))
        finally:
            db.conn.close()
        return
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        refuse_newer(applied_migrations(conn), shown(path))
    finally:
        conn.close()


def init_db(path: str | Path) -> None:
    """Create the database file and bring its schema up to date (never a newer one's)."""
    if not pg.is_url(path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = connect(path)
    try:
        refuse_newer(applied_migrations(db), shown(path))
        migrate(db)
    finally:
        db.conn.close()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database and apply migrations (safe to run again)."""
    from companion.store.ratelimit_store import prepare_for

    init_db(current_app.config["DATABASE"])
    prepare_for(current_app.config)
    click.echo(f"Database ready: {current_app.config['DATABASE']}")


def init_app(app: Flask) -> None:
    """Give the app its connection pool and return each request's connection when it ends."""
    app.extensions["companion.db_pool"] = _Pool()
    app.teardown_appcontext(close_db)
