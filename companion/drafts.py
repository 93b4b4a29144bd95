"""Drafts: texts kept as they are typed, per chronicle, turn and field, shared by every device."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .sql import Database
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


# The texts a decision carried, by the form field that typed them: taking the decision back
# puts them into that field's draft again, so every device sees them in the form.
UNDONE_TEXTS = {
    "success-narrated": {"narration": "narration"},
    "failure-accepted": {"narration": "narration"},
    "mark-built": {
        "mark_name": "name",
        "mark_description": "description",
        "narration": "narration",
    },
    "keystone-lost": {"loss_narration": "narration"},
    "keystone-sacrificed": {"why": "why", "outcome": "outcome"},
}


def restore_undone(db: Database, stream_id: str, state: Any) -> None:
    """After an undo, give the current turn back the texts of the decision just taken back."""
    newest = next(state.newest_records(), None)
    target = getattr(newest.event, "target_seq", None) if newest else None
    undone = next((r.event for r in state.newest_records() if r.seq == target), None)
    for field, attribute in UNDONE_TEXTS.get(getattr(undone, "kind", ""), {}).items():
        text = getattr(undone, attribute, "")
        if text:
            save(db, stream_id, state.turn_no, field, text)


# The words an X-card set aside with the chosen prompt, by the form field that typed them.
SET_ASIDE_TEXTS = {"answer": "answer", "stakes_success": "success", "stakes_failure": "failure"}


def restore_set_aside(db: Database, stream_id: str, state: Any, since: int) -> None:
    """After commands, give the player back the words an X-card set aside since ``since``.

    A veil of the chosen prompt takes its answer and stakes with it; they become the drafts of
    the fields the open check still waits for (a later command of the same batch may have
    written them afresh), and the prompt chosen is no longer the draft's choice.
    """
    check = state.check
    if check is None:
        return
    newer = []
    for record in state.newest_records():
        if record.seq <= since:
            break
        newer.append(record)
    for record in reversed(newer):  # oldest first: the newest words win
        if record.seq not in check.set_aside:
            continue
        for field, attribute in SET_ASIDE_TEXTS.items():
            text = getattr(record.event, attribute, None)
            if text and _waits_for(check, field):
                save(db, stream_id, state.turn_no, field, text)
        clear_turn(db, stream_id, state.turn_no, ["prompt"])


def _waits_for(check: Any, field: str) -> bool:
    if field == "answer":
        return check.answer is None
    return check.stakes_success is None
