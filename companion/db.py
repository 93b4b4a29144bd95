"""The one place that opens the SQLite database: connection, pragmas and migrations."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import click
from flask import Flask, current_app, g
from flask.cli import with_appcontext
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

BUSY_TIMEOUT_MS = 5000

migrations = Migrations("companion")


@migrations(name="0001_streams_events")
def _create_streams_and_events(db: Database) -> None:
    db["streams"].create(
        {
            "id": str,
            "kind": str,
            "title": str,
            "version": int,
            "created": str,
            "updated": str,
            "meta": str,
        },
        pk="id",
        not_null={"kind", "version", "created", "updated"},
        strict=True,
    )
    db["events"].create(
        {
            "stream_id": str,
            "seq": int,
            "type": str,
            "data": str,
            "created": str,
        },
        pk=("stream_id", "seq"),
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"type", "data", "created"},
        strict=True,
    )


@migrations(name="0002_capabilities")
def _create_capabilities(db: Database) -> None:
    db["capabilities"].create(
        {
            "token_hash": str,
            "stream_id": str,
            "role": str,
            "seat": int,
            "created": str,
            "revoked": str,
        },
        pk="token_hash",
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"stream_id", "role", "created"},
        strict=True,
    )
    db["capabilities"].create_index(["stream_id"])


@migrations(name="0003_drafts")
def _create_drafts(db: Database) -> None:
    db["drafts"].create(
        {"stream_id": str, "key": str, "text": str, "base_version": int, "updated": str},
        pk=("stream_id", "key"),
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"text", "updated"},
        strict=True,
    )


def connect(path: str | Path) -> Database:
    """Open the database with WAL, foreign keys and a busy timeout; autocommit outside atomic()."""
    conn = sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return Database(conn)


def migrate(db: Database) -> None:
    """Apply every pending migration."""
    migrations.apply(db)


class _Pool:
    """One connection per thread and database file, reused across requests.

    Opening a connection and setting its pragmas costs more than a page's queries, and a
    threaded server keeps its threads, so each keeps its connection.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def get(self, path: str) -> Database:
        connections: dict[str, Database] = self._local.__dict__.setdefault("connections", {})
        db = connections.get(path)
        if db is None:
            db = connections[path] = connect(path)
        return db


def get_db() -> Database:
    """The request's database connection (this thread's, opened on first use)."""
    if "db" not in g:
        pool: _Pool = current_app.extensions["companion.db_pool"]
        g.db = pool.get(current_app.config["DATABASE"])
    return g.db  # type: ignore[no-any-return]


def close_db(_exc: BaseException | None = None) -> None:
    """Give the connection back: roll back anything a failed request left open."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


def init_db(path: str | Path) -> None:
    """Create the database file and bring its schema up to date."""
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


@migrations(name="0004_exports")
def _create_exports(db: Database) -> None:
    # One row per book: a chronicle's version, edition and paper; the worker reports progress here.
    db["exports"].create(
        {
            "id": str,
            "stream_id": str,
            "version": int,
            "edition": str,
            "paper": str,
            "status": str,
            "progress": int,
            "step": str,
            "page": int,
            "error": str,
            "pid": int,
            "created": str,
            "updated": str,
        },
        pk="id",
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"stream_id", "version", "edition", "paper", "status", "progress", "created"},
        strict=True,
    )
    db["exports"].create_index(["stream_id", "version", "edition", "paper"], unique=True)
    db["exports"].create_index(["status"])


@migrations(name="0005_export_layouts")
def _add_export_layouts(db: Database) -> None:
    # A book is also a layout: the home-printer PDF, the print shop's body or cover, the vertical
    # PDF or an EPUB. Existing rows are home-printer books.
    db["exports"].add_column("layout", str, not_null_default="book")
    db.execute("DROP INDEX IF EXISTS idx_exports_stream_id_version_edition_paper")
    db["exports"].create_index(["stream_id", "version", "edition", "paper", "layout"], unique=True)
