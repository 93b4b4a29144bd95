"""Deleting a whole stream (a chronicle or a card table) and everything kept for it.

Undo and corrections are events: nothing else ever removes rows. Deleting a stream removes its
events, drafts, links and export jobs (and the files of its books), and the rows of any other
table that names the stream in a ``stream_id`` column (read from the schema, so a table added
later is not forgotten), in one transaction on either backend.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from companion.export.jobs import book_filename
from companion.store.signal import changed
from companion.store.sql import Database, dialect, for_update, write_transaction

DURATION = re.compile(r"([0-9]{1,6})\s*([mhdw])")
UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# How each table's rows are named when a deletion says what it removed.
ROW_NAMES = {
    "events": "events",
    "capabilities": "links",
    "drafts": "drafts",
    "exports": "books",
    "rendered": "rendered pages",
}


@dataclass(frozen=True)
class Listed:
    """A stream as the lists show it."""

    id: str
    kind: str
    title: str
    events: int
    created: str
    updated: str


@dataclass
class Removed:
    """What deleting (or, for a preview, what would delete) a stream removes."""

    stream: Listed
    rows: dict[str, int] = field(default_factory=dict)  # by table
    files: int = 0  # files of made books

    def count(self, table: str) -> int:
        """The rows of ``table`` removed."""
        return self.rows.get(table, 0)

    def summary(self) -> str:
        """What was removed, in one line of English (for the command line)."""
        parts = [f"{count} {ROW_NAMES.get(table, table)}" for table, count in self.rows.items()]
        return ", ".join(parts) + f", {self.files} book files"


def parse_age(text: str) -> timedelta:
    """A duration such as ``90d``, ``12h``, ``2w`` or ``30m``; ValueError otherwise."""
    found = DURATION.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{text!r} is not a duration such as 90d, 12h, 2w or 30m")
    return timedelta(**{UNITS[found.group(2)]: int(found.group(1))})


def listed(
    db: Database,
    kinds: Iterable[str],
    older_than: timedelta | None = None,
    idle_for: timedelta | None = None,
) -> list[Listed]:
    """The streams of these kinds, oldest first: made before ``older_than`` ago, and with no
    move for ``idle_for``, when given."""
    wanted = list(kinds)
    where, params = [f"kind IN ({', '.join('?' for _ in wanted)})"], list(wanted)
    now = datetime.now(UTC)
    if older_than is not None:
        where.append("created < ?")
        params.append((now - older_than).isoformat(timespec="milliseconds"))
    if idle_for is not None:
        where.append("updated < ?")
        params.append((now - idle_for).isoformat(timespec="milliseconds"))
    rows = db.execute(
        "SELECT id, kind, title, version, created, updated FROM streams"
        f" WHERE {' AND '.join(where)} ORDER BY created, id",
        params,
    ).fetchall()
    return [Listed(*row) for row in rows]


def find(db: Database, stream_id: str, kinds: Iterable[str]) -> Listed | None:
    """The stream with this id, if it is of one of these kinds."""
    row = db.execute(
        "SELECT id, kind, title, version, created, updated FROM streams WHERE id = ?",
        [stream_id],
    ).fetchone()
    return Listed(*row) if row is not None and row[1] in set(kinds) else None


def stream_tables(db: Database) -> list[str]:
    """Every table with a ``stream_id`` column: the rows kept for a stream."""
    if dialect(db) == "postgresql":
        rows = db.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'stream_id'"
            " AND table_schema = current_schema() ORDER BY table_name"
        ).fetchall()
        return [str(row[0]) for row in rows]
    names = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY name"
    ).fetchall()
    return [
        str(name)
        for (name,) in names
        if any(column[1] == "stream_id" for column in db.execute(f'PRAGMA table_info("{name}")'))
    ]


def inventory(db: Database, stream: Listed, exports_dir: Path) -> Removed:
    """What deleting ``stream`` would remove, counted."""
    found = Removed(stream)
    for table in _ordered(stream_tables(db)):
        query = f"SELECT count(*) FROM {table} WHERE stream_id = ?"
        found.rows[table] = int(db.execute(query, [stream.id]).fetchone()[0])
    found.files = sum(1 for name in _book_files(db, stream.id) if (exports_dir / name).is_file())
    return found


def delete(db: Database, stream: Listed, exports_dir: Path) -> Removed:
    """Delete the stream and every row and book kept for it; what was removed."""
    removed = Removed(stream)
    with write_transaction(db, lock=f"export:{stream.id}"):
        # The stream's row first: an append waits for it, then finds no stream.
        db.execute(f"SELECT id FROM streams WHERE id = ?{for_update(db)}", [stream.id])
        books = _book_files(db, stream.id)
        for table in _ordered(stream_tables(db)):
            cursor = db.execute(f"DELETE FROM {table} WHERE stream_id = ?", [stream.id])
            removed.rows[table] = max(0, int(cursor.rowcount))
        db.execute("DELETE FROM streams WHERE id = ?", [stream.id])
        # Its open pages, on every server, hear of it once this commits (NOTIFY on PostgreSQL)
        # and end their feeds, rather than at their next ping.
        changed(db, stream.id)
    for name in books:  # after the commit: a failed deletion keeps its books
        with contextlib.suppress(FileNotFoundError):
            (exports_dir / name).unlink()
            removed.files += 1
    return removed


def _ordered(tables: list[str]) -> list[str]:
    """The known tables first, in the order a deletion says them; any other after."""
    known = [table for table in ROW_NAMES if table in tables]
    return known + [table for table in tables if table not in ROW_NAMES]


def _book_files(db: Database, stream_id: str) -> list[str]:
    rows = db.execute(
        "SELECT version, edition, paper, layout FROM exports WHERE stream_id = ?", [stream_id]
    ).fetchall()
    return [book_filename(stream_id, *row) for row in rows]


def table_kinds() -> list[str]:
    """The kinds of card tables (one per game)."""
    from companion.cardgames import game_keys

    return list(game_keys())
