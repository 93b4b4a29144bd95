"""Drafts: texts kept as they are typed, per chronicle, turn and field, shared by every device."""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from .store import now


def _key(turn_no: int, field: str) -> str:
    return f"{turn_no}:{field}"


def save(db: Database, stream_id: str, turn_no: int, field: str, text: str) -> None:
    """Keep ``text`` as the draft of ``field`` in this turn (the newest write wins).

    One statement that stores the text or raises: sqlite-utils' ``upsert`` falls back, for good,
    to INSERT OR IGNORE plus UPDATE when its first use meets a locked, read-only or full
    database, and that pair silently stores nothing in this table (its text is NOT NULL).
    """
    db.execute(
        "INSERT INTO drafts (stream_id, key, text, base_version, updated)"
        " VALUES (?, ?, ?, NULL, ?)"
        " ON CONFLICT (stream_id, key) DO UPDATE"
        " SET text = excluded.text, base_version = NULL, updated = excluded.updated",
        [stream_id, _key(turn_no, field), text, now()],
    )


def for_turn(db: Database, stream_id: str, turn_no: int) -> dict[str, str]:
    """The drafts of this turn, by field."""
    prefix = f"{turn_no}:"
    rows = db.execute(
        "SELECT key, text FROM drafts WHERE stream_id = ? AND key LIKE ?",
        [stream_id, prefix + "%"],
    ).fetchall()
    return {key[len(prefix) :]: text for key, text in rows}


def clear_turn(db: Database, stream_id: str, turn_no: int, fields: Iterable[str]) -> None:
    """Forget drafts that were just written into the story."""
    keys = [_key(turn_no, field) for field in fields]
    if keys:
        marks = ",".join("?" for _ in keys)
        db.execute(
            f"DELETE FROM drafts WHERE stream_id = ? AND key IN ({marks})", [stream_id, *keys]
        )
