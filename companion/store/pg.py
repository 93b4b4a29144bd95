"""PostgreSQL as a shared store, for hosting on more than one server (psycopg 3).

Opened when ``DATABASE`` is a ``postgresql://`` address. The connection speaks the same small
language as sqlite-utils' ``Database`` to the shared code (``execute`` with ``?`` parameters,
tuples as rows, ``conn.in_transaction``), so the event store, links, drafts and export jobs run
unchanged on either backend. Connections are in autocommit mode, as SQLite's are outside
``BEGIN``: a transaction is always explicit (``companion.store.sql.write_transaction``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import Any

from companion.store.sql import POSTGRESQL, now

SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_SECONDS = 5
# Class 08 (connection exception), 53 (insufficient resources), 57P0x (shutdown, cannot connect
# now), 25006 (read-only transaction: a standby), 40001/40P01 (serialization failure, deadlock):
# the operator fixes these or they pass; the request can be tried again.
_UNAVAILABLE_STATES = ("08", "53", "57P01", "57P02", "57P03", "25006", "40001", "40P01")
MIGRATIONS_TABLE = "_companion_migrations"
_PLACEHOLDER = re.compile(r"\?")


def is_url(database: object) -> bool:
    """Whether the DATABASE setting names a PostgreSQL server rather than a SQLite file."""
    return isinstance(database, str) and database.startswith(SCHEMES)


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled first)."""
    return _PLACEHOLDER.sub("%s", sql.replace("%", "%%"))


class Connection:
    """A psycopg connection with the few sqlite3 manners the shared code relies on."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> Any:
        if not parameters:  # no placeholders to fill: the text goes as it is
            return self.raw.execute(sql)
        return self.raw.execute(translate(sql), parameters)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(translate(sql), rows)

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    @property
    def usable(self) -> bool:
        return not (self.raw.closed or self.raw.broken)

    def check(self) -> bool:
        """Whether the server still answers on this connection (one empty round trip).

        A connection kept across requests does not know the server restarted until it is
        used; checked before each use, as psycopg_pool's ``check_connection`` does, it is
        replaced at once instead of failing one request with a 503.
        """
        if not self.usable:
            return False
        try:
            # Inside a transaction (a failed request's, left open) only ROLLBACK is answered.
            self.raw.execute("ROLLBACK" if self.in_transaction else "")
        except Exception:  # psycopg's OperationalError and the like: the connection is gone
            return False
        return True

    def rollback(self) -> None:
        self.raw.execute("ROLLBACK")

    def commit(self) -> None:
        self.raw.execute("COMMIT")

    def close(self) -> None:
        self.raw.close()


class Database:
    """The shared code's view of a PostgreSQL connection."""

    dialect = POSTGRESQL

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> Any:
        return self.conn.execute(sql, parameters)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)


def connect(url: str) -> Database:
    """Open a connection in autocommit mode, with a bounded wait for the server."""
    import psycopg

    # Named, so that a restore can see whether a server is still connected, and `companion info`
    # which servers and supervisors are: ``companion <role> <machine> <pid>``.
    raw = psycopg.connect(
        url,
        autocommit=True,
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        application_name=application_name(),
    )
    return Database(Connection(raw))


ROLE_VARIABLE = "COMPANION_ROLE"  # set by `companion serve` ("server") and the supervisor


def application_name() -> str:
    """How this process names its connections: ``companion server web-1 4242``."""
    import socket

    role = os.environ.get(ROLE_VARIABLE, "command")
    return f"companion {role} {socket.gethostname()} {os.getpid()}"[:63]


def connected(db: Database) -> list[tuple[str, str, int]]:
    """The other processes connected to this database: (role, machine, pid), by role."""
    rows = db.execute(
        "SELECT application_name FROM pg_stat_activity WHERE datname = current_database()"
        " AND application_name LIKE 'companion%' AND pid <> pg_backend_pid()"
    ).fetchall()
    found = set()
    for (name,) in rows:
        parts = str(name).split(" ")
        if len(parts) == 4 and parts[3].isdigit():
            found.add((parts[1], parts[2], int(parts[3])))
        else:  # a version before roles were named: one entry per connection
            found.add(("server", "?", -len(found)))
    return sorted(found)


def is_error(err: BaseException) -> bool:
    """Whether ``err`` comes from psycopg (without importing it when it is not installed)."""
    return type(err).__module__.startswith("psycopg")


def unavailable(err: BaseException) -> bool:
    """Whether ``err`` means the server cannot be reached or used right now, not a bug."""
    if not is_error(err):
        return False
    state = getattr(err, "sqlstate", None)
    if state is None:
        # No answer from the server at all: refused, timed out, or the connection dropped.
        import psycopg

        return isinstance(err, psycopg.OperationalError | psycopg.InterfaceError)
    return any(state.startswith(prefix) for prefix in _UNAVAILABLE_STATES)


def applied(db: Database) -> list[str]:
    """The names of the migrations applied to this database."""
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE}"
        " (migration_set text NOT NULL, name text NOT NULL, applied_at text NOT NULL,"
        " PRIMARY KEY (migration_set, name))"
    )
    rows = db.execute(f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = 'companion'")
    return [str(row[0]) for row in rows]


def migrate(db: Database, steps: Sequence[tuple[str, str]]) -> None:
    """Apply each ``(name, ddl)`` not applied yet, each in its own transaction.

    An advisory lock makes servers that start together wait for the first to finish.
    """
    db.execute("SELECT pg_advisory_lock(hashtext('companion-migrations'))")
    try:
        done = set(applied(db))
        for name, ddl in steps:
            if name in done:
                continue
            db.conn.execute("BEGIN")
            try:
                db.execute(ddl)
                db.execute(
                    f"INSERT INTO {MIGRATIONS_TABLE} (migration_set, name, applied_at)"
                    " VALUES ('companion', ?, ?)",
                    [name, now()],
                )
            except BaseException:
                db.conn.rollback()
                raise
            db.conn.commit()
    finally:
        db.execute("SELECT pg_advisory_unlock(hashtext('companion-migrations'))")
