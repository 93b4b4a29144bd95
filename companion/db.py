"""The one place that opens the database: connection, pragmas, pool and migrations.

SQLite under instance/ is the default. A ``postgresql://`` address as ``DATABASE`` puts every
table in PostgreSQL instead (``companion/pg.py``), so several servers can share one store. The
migrations are one list for both (``companion/migrations.py``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext
from sqlite_utils import Database

from . import metrics, pg
from .migrations import POSTGRESQL_MIGRATIONS, migrations

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
    conn = sqlite3.connect(
        str(path),
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
        factory=metrics.sqlite_factory(),
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return Database(conn)


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
    files = (path, f"{path}-wal", f"{path}-shm")
    return all(os.access(name, os.W_OK) for name in files if os.path.exists(name))


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
    # Opened while the files were not writable, or while such a connection was open here.
    tainted: bool
    in_use: bool = False
    retire: bool = False


class _Pool:
    """One connection per thread and database file, reused across requests.

    Opening a connection and setting its pragmas costs more than a page's queries, and a
    threaded server keeps its threads, so each keeps its connection.

    SQLite opens files it may not write read-only, and every connection of a process shares one
    WAL index: a connection opened while the files were read-only stays read-only, and so does
    any connection opened beside it, even after the files are writable again. Such connections
    are "tainted"; once the files are writable, all of them are closed (those in use, when their
    request ends) and fresh ones opened, so the server recovers by itself without a restart.
    A connection that met a fault (see ``unavailable``) is dropped by ``discard``.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pooled: dict[tuple[int, str], _Pooled] = {}
        self._tainted: dict[str, int] = {}

    def get(self, path: str) -> Database:
        if pg.is_url(path):
            return self._get_server(path)
        key = (threading.get_ident(), path)
        ok = writable(path)
        with self._lock:
            if self._tainted.get(path) and ok:
                self._retire(path)
            pooled = self._pooled.get(key)
            if pooled is not None and not ok and not pooled.tainted:
                # The files were made read-only under an open connection: its descriptor could
                # still write, so it is closed and the next one opens as the files now allow.
                self._drop(key)
                pooled = None
            if pooled is not None:
                pooled.in_use = True
            else:
                tainted = bool(self._tainted.get(path)) or not ok
                # Counted before opening, so a connection opened meanwhile counts as beside it.
                self._tainted[path] = self._tainted.get(path, 0) + tainted
        if pooled is None:
            pooled = self._open(key, tainted)
        if pooled.db.conn.in_transaction:
            # A request never starts inside another's transaction: its writes would not commit.
            try:
                pooled.db.conn.rollback()
            except sqlite3.Error:
                self.discard(path)
                return self.get(path)
        return pooled.db

    def _get_server(self, url: str) -> Database:
        """This thread's PostgreSQL connection: reopened when the server dropped it."""
        key = (threading.get_ident(), url)
        with self._lock:
            pooled = self._pooled.get(key)
            if pooled is not None and not pooled.db.conn.usable:
                self._drop(key)
                pooled = None
            if pooled is not None:
                pooled.in_use = True
        if pooled is None:
            pooled = self._open(key, False)
        if pooled.db.conn.in_transaction:
            try:
                pooled.db.conn.rollback()
            except Exception:
                self.discard(url)
                return self._get_server(url)
        return pooled.db

    def _open(self, key: tuple[int, str], tainted: bool) -> _Pooled:
        try:
            pooled = _Pooled(connect(key[1]), tainted, in_use=True)
        except BaseException:
            with self._lock:
                self._tainted[key[1]] = self._tainted.get(key[1], 0) - tainted
            raise
        with self._lock:
            self._pooled[key] = pooled
        return pooled

    def release(self, path: str) -> None:
        """The request is over: close the connection if it was retired meanwhile."""
        with self._lock:
            pooled = self._pooled.get((threading.get_ident(), path))
            if pooled is not None:
                pooled.in_use = False
                if pooled.retire:
                    self._drop((threading.get_ident(), path))

    def discard(self, path: str) -> None:
        """Close and forget this thread's connection to ``path``; the next ``get`` opens anew."""
        with self._lock:
            self._drop((threading.get_ident(), path))

    def _retire(self, path: str) -> None:
        for key, pooled in list(self._pooled.items()):
            if key[1] == path and pooled.tainted:
                if pooled.in_use and key[0] != threading.get_ident():
                    pooled.retire = True
                else:
                    self._drop(key)

    def _drop(self, key: tuple[int, str]) -> None:
        pooled = self._pooled.pop(key, None)
        if pooled is None:
            return
        self._tainted[key[1]] = self._tainted.get(key[1], 0) - pooled.tainted
        try:
            pooled.db.conn.close()
        except Exception:  # sqlite3's or psycopg's: the connection is gone either way
            pass


def get_db() -> Database:
    """The request's database connection (this thread's, opened on first use)."""
    if "db" not in g:
        pool: _Pool = current_app.extensions["companion.db_pool"]
        g.db = pool.get(current_app.config["DATABASE"])
    return g.db  # type: ignore[no-any-return]


def discard_db() -> None:
    """Drop the request's connection after a database fault, so the next request opens anew."""
    if g.pop("db", None) is not None:
        pool: _Pool = current_app.extensions["companion.db_pool"]
        pool.discard(current_app.config["DATABASE"])


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
    pool.release(current_app.config["DATABASE"])


def init_db(path: str | Path) -> None:
    """Create the database file and bring its schema up to date."""
    if not pg.is_url(path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = connect(path)
    try:
        migrate(db)
    finally:
        db.conn.close()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database and apply migrations (safe to run again)."""
    init_db(current_app.config["DATABASE"])
    click.echo(f"Database ready: {current_app.config['DATABASE']}")


def init_app(app: Flask) -> None:
    """Register teardown and the init-db command."""
    app.extensions["companion.db_pool"] = _Pool()
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
