"""What a backup's manifest counts and what ``companion backup --verify`` checks, on either store.

The counts are taken in the same snapshot the backup copies, so a restored copy must show the
same; every stream's version must equal its number of events (the event log is gap-free from 1),
so a copy that lost or doubled an event is caught even where no count is kept.
"""

from __future__ import annotations

from typing import Any, Protocol

COUNTED = ("streams", "events", "capabilities", "packs")


class Executes(Protocol):
    """sqlite3's connection or the PostgreSQL ``Database``: anything with ``execute``."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def counts(db: Executes) -> dict[str, int]:
    """How many rows each counted table holds (0 for a table an old schema lacks)."""
    found = {}
    for table in COUNTED:
        try:
            found[table] = int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except Exception:  # a backup from before the table existed
            if table != "packs":
                raise
            found[table] = 0
    return found


def streams_out_of_step(db: Executes) -> int:
    """How many streams' versions differ from their number of events."""
    row = db.execute(
        "SELECT count(*) FROM streams s"
        " WHERE s.version <> (SELECT count(*) FROM events e WHERE e.stream_id = s.id)"
    ).fetchone()
    return int(row[0])


def compare(found: dict[str, int], manifest: dict[str, Any], out_of_step: int) -> list[str]:
    """The problems a restored copy shows against its manifest, as sentences (none: it is good)."""
    problems = []
    expected = manifest.get("counts") or {}
    for table in COUNTED:
        if table in expected and expected[table] != found.get(table):
            problems.append(
                f"The backup's manifest counts {expected[table]} rows in {table}; the restored"
                f" copy holds {found.get(table)}."
            )
    if out_of_step:
        problems.append(f"{out_of_step} streams have a version that does not match their events.")
    return problems


def replay(db: Any, close: bool = True) -> list[str]:
    """Every stream of the restored copy replayed (``companion check``): a sentence per damaged
    one. A backup whose rows are all there may still hold a stream that no longer replays."""
    from companion.ops.check import check_streams

    try:
        report = check_streams(db)
    finally:
        if close:
            db.conn.close()
    return [f"The backup holds a damaged {d.sentence()}." for d in report.damaged]


def summary(found: dict[str, int]) -> str:
    """The counts in one line: ``3 streams, 210 events, 12 links, 1 uploaded pack``."""
    return (
        f"{found['streams']} streams, {found['events']} events, {found['capabilities']} links,"
        f" {found['packs']} uploaded packs"
    )
