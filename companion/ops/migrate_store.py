"""``companion migrate-store --to postgresql://…``: move a SQLite instance into a shared store.

Stream by stream, in the order they were created: each stream's events are replayed through its
rules core first (a log that does not replay is not copied), then the stream, its events, links
and drafts are written in one transaction, and the copy is checked: the same number of events,
and the same backup JSON, byte for byte, read back from both stores. Made books are not copied:
they are made again on request. The SQLite file is only read; the server must be stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from companion.export.backup import backup_document, dump
from companion.legacy import replay
from companion.store import events as store
from companion.store import pg, serverlock
from companion.store.db import connect, init_db
from companion.store.sql import insert, insert_many, rows_as_dicts, write_transaction
from companion.streams import chronicles, matches, replays


class MigrationError(ValueError):
    """The copy cannot be made, or does not match its source."""


def replay_check(db: Any, stream: store.Stream) -> None:
    """Replay the stream through its rules core; raises when its log does not replay."""
    stored = store.load_events(db, stream.id, upto=stream.version)
    if stream.kind == chronicles.KIND:
        replay(replays.records(stored))
    else:
        matches.match_from_events(stream.id, stored)


def fingerprint(db: Any, stream_id: str) -> str:
    """The stream's backup JSON: the same text from both stores means the same stream."""
    header = store.get_stream(db, stream_id)
    stored = store.load_events(db, stream_id, upto=header.version)
    # A chronicle's backup also lists its rolls taken back, read from its own replay (never a
    # cache shared between the two stores); other streams are their events alone.
    state = replay(replays.records(stored)) if header.kind == chronicles.KIND else None
    return dump(backup_document(header, stored, state))


def _rows(db: Any, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    return list(rows_as_dicts(db.execute(sql, params)))


def copy_stream(source: Any, target: Any, stream_id: str) -> int:
    """Copy one stream with its events, links and drafts in one transaction; its event count."""
    streams = _rows(source, "SELECT * FROM streams WHERE id = ?", [stream_id])
    events = _rows(source, "SELECT * FROM events WHERE stream_id = ? ORDER BY seq", [stream_id])
    links = _rows(source, "SELECT * FROM capabilities WHERE stream_id = ?", [stream_id])
    drafts = _rows(source, "SELECT * FROM drafts WHERE stream_id = ?", [stream_id])
    with write_transaction(target):
        insert(target, "streams", streams[0])
        insert_many(target, "events", events)
        insert_many(target, "capabilities", links)
        insert_many(target, "drafts", drafts)
    return len(events)


def migrate(source: Any, target: Any, say: Callable[[str], None]) -> int:
    """Copy every stream of ``source`` into ``target``; how many were copied this time.

    A run that stopped half-way can be started again: the streams it copied are checked, not
    copied twice.
    """
    copied = 0
    for stream_id in _stream_ids(source):
        stream = store.get_stream(source, stream_id)
        if target.execute("SELECT 1 FROM streams WHERE id = ?", [stream_id]).fetchone():
            # Copied by an earlier run that stopped: go on if it is the same stream.
            if fingerprint(source, stream_id) != fingerprint(target, stream_id):
                raise MigrationError(f"stream {stream_id!r} is in the store already, differently")
            say(f"{stream.kind} {stream_id}: copied before")
            continue
        replay_check(source, stream)
        count = copy_stream(source, target, stream_id)
        theirs = target.execute(
            "SELECT count(*) FROM events WHERE stream_id = ?", [stream_id]
        ).fetchone()[0]
        if theirs != count or count != stream.version:
            raise MigrationError(f"stream {stream_id!r}: {count} events read, {theirs} stored")
        replay_check(target, store.get_stream(target, stream_id))
        if fingerprint(source, stream_id) != fingerprint(target, stream_id):
            raise MigrationError(f"stream {stream_id!r} reads back differently")
        copied += 1
        say(f"{stream.kind} {stream_id}: {count} events")
    return copied


def copy_packs(source: Any, target: Any, folder: str) -> int:
    """Copy the uploaded packs, rows and old pack files, that the target has not; how many."""
    from companion.packs.registry import shipped_names
    from companion.packs.stored import import_folder

    has_table = source.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'packs'"
    ).fetchone()
    rows = _rows(source, "SELECT * FROM packs", []) if has_table else []
    added = 0
    with write_transaction(target):
        for row in rows:
            cursor = target.execute(
                "INSERT INTO packs (name, language, owner, text, size, version, revision,"
                " created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name, language) DO NOTHING",
                [row[key] for key in _PACK_COLUMNS],
            )
            added += max(int(cursor.rowcount or 0), 0)
        added += import_folder(target, folder, shipped_names())
    return added


_PACK_COLUMNS = (
    *("name", "language", "owner", "text", "size", "version", "revision", "created", "updated"),
)


def _stream_ids(db: Any) -> Iterator[str]:
    rows = db.execute("SELECT id FROM streams ORDER BY created, id").fetchall()
    return (str(row[0]) for row in rows)


@click.command("migrate-store", short_help="Copy this SQLite instance into a PostgreSQL store.")
@click.option("--to", "target_url", required=True, help="postgresql://user@host/database")
@with_appcontext
def migrate_store_command(target_url: str) -> None:
    """Copy every chronicle and match, with their links and drafts, and the uploaded packs into
    an empty PostgreSQL store, checking each stream; the SQLite file is left as it was."""
    source_path = current_app.config["DATABASE"]
    if pg.is_url(source_path):
        raise click.ClickException("This instance already keeps its data in PostgreSQL.")
    if not pg.is_url(target_url):
        raise click.BadParameter("give a postgresql:// address", param_hint="--to")
    if serverlock.in_use(source_path):
        raise click.ClickException("Stop the server first: it may still write to this instance.")
    source = connect(source_path)
    init_db(target_url)
    target = connect(target_url)
    try:
        copied = migrate(source, target, click.echo)
        packs = copy_packs(source, target, current_app.config["PACKS_DIR"])
    except MigrationError as err:
        raise click.ClickException(str(err)) from None
    finally:
        source.conn.close()
        target.conn.close()
    click.echo(f"Copied {packs} uploaded packs.")
    click.echo(f"Copied {copied} streams. Set COMPANION_DATABASE={target_url} and restart.")
