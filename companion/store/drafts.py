"""Drafts: texts kept as they are typed, per chronicle, turn and field, shared by every device.

Each draft remembers its author (the link that typed it). When the group chose to keep texts
private until they are sent, a draft is the author's own (``private``): only the author's link
reads it back. Kept words are what a refused form carried, or a draft another device's move
overtook: they belong to one link and stay until that link puts them in the story or lets them go.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.base import bounds
from companion.base.limits import TEXT_LIMIT
from companion.store.signal import changed
from companion.store.sql import Database, dialect, now

KEPT = "kept"


def _bound(setting: str) -> int:
    """A bound's setting: the running app's, else its default (a tool outside the app)."""
    from flask import current_app, has_app_context

    return bounds.whole(current_app.config if has_app_context() else {}, setting)


def _bytes_sql(db: Database) -> str:
    return "octet_length(text)" if dialect(db) == "postgresql" else "length(CAST(text AS BLOB))"


def has_room(db: Database, stream_id: str, texts: Mapping[str, str]) -> bool:
    """Whether the stream may keep ``texts`` (by draft key) in place of the drafts it holds
    under those keys: its events, every other draft and kept word, and these together within
    the chronicle's byte budget (``CHRONICLE_MAX_BYTES``), as its events alone are."""
    marks = ",".join("?" for _ in texts)
    row = db.execute(
        f"SELECT (SELECT COALESCE(nbytes, 0) FROM streams WHERE id = ?),"
        f" (SELECT COALESCE(SUM({_bytes_sql(db)}), 0) FROM drafts"
        f" WHERE stream_id = ? AND key NOT IN ({marks}))",
        [stream_id, stream_id, *texts],
    ).fetchone()
    held = int(row[0] or 0) + int(row[1] or 0)
    adding = sum(len(text.encode("utf-8", "surrogatepass")) for text in texts.values())
    return held + adding <= _bound("CHRONICLE_MAX_BYTES")


def _key(turn_no: int, field: str, holder: str | None = None) -> str:
    return f"{turn_no}:{field}" if holder is None else f"{turn_no}:{field}@{holder}"


def author(actor: str, holder: str) -> str:
    """A draft's author: who typed it (``host``, ``seat:1``) and the link's own mark."""
    return f"{actor} {holder}"


def holder_of(author_value: str | None) -> str | None:
    """The link mark of a draft's author; None when the draft has none (older drafts)."""
    if not author_value or " " not in author_value:
        return None
    return author_value.partition(" ")[2]


def save(
    db: Database,
    stream_id: str,
    turn_no: int,
    field: str,
    text: str,
    by: str | None = None,
    private: bool = False,
) -> bool:
    """Keep ``text`` as the draft of ``field`` in this turn (the newest write wins); False,
    keeping nothing, when the chronicle has no room left for it (``has_room``).

    ``by`` is its ``author``; a ``private`` draft is kept for that author's link alone. A text
    longer than any text may be is refused (ValueError): callers check it first.
    One statement that stores the text or raises: sqlite-utils' ``upsert`` falls back, for good,
    to INSERT OR IGNORE plus UPDATE when its first use meets a locked, read-only or full
    database, and that pair silently stores nothing in this table (its text is NOT NULL).
    The same text by the same author again changes nothing, and open pages hear of nothing: a
    page that puts its typed words back after a live refresh saves them again, and must not set
    off another refresh.
    """
    if len(text) > TEXT_LIMIT:
        raise ValueError(f"a draft of {len(text)} characters; a text holds {TEXT_LIMIT}")
    holder = holder_of(by) if private else None
    key = _key(turn_no, field, holder)
    if not has_room(db, stream_id, {key: text}):
        return False
    stored = db.execute(
        "INSERT INTO drafts (stream_id, key, text, base_version, updated, author)"
        " VALUES (?, ?, ?, NULL, ?, ?)"
        " ON CONFLICT (stream_id, key) DO UPDATE"
        " SET text = excluded.text, base_version = NULL, updated = excluded.updated,"
        " author = excluded.author"
        " WHERE drafts.text IS DISTINCT FROM excluded.text"
        " OR drafts.author IS DISTINCT FROM excluded.author",
        [stream_id, key, text, now(), by],
    )
    if stored.rowcount != 0:
        changed(db, stream_id)  # a version answer may count the drafts being written
    return True


@dataclass(frozen=True)
class Draft:
    """One draft row of a turn: its field, text, author and whose link alone reads it."""

    field: str
    text: str
    author: str | None
    private_to: str | None


def rows_for_turn(db: Database, stream_id: str, turn_no: int) -> list[Draft]:
    """Every draft of this turn, shared and private alike (only the server reads these)."""
    prefix = f"{turn_no}:"
    rows = db.execute(
        "SELECT key, text, author FROM drafts WHERE stream_id = ? AND key LIKE ?",
        [stream_id, prefix + "%"],
    ).fetchall()
    found = []
    for key, text, by in rows:
        field, _at, holder = key[len(prefix) :].partition("@")
        found.append(Draft(field, text, by, holder or None))
    return found


def for_turn(
    db: Database,
    stream_id: str,
    turn_no: int,
    holder: str | None = None,
    rows: list[Draft] | None = None,
) -> dict[str, str]:
    """The drafts of this turn a link reads, by field: the shared ones, and its own private
    ones (``holder``) over them; from ``rows`` when the caller read the turn's drafts already."""
    if rows is None:
        rows = rows_for_turn(db, stream_id, turn_no)
    shared = {d.field: d.text for d in rows if d.private_to is None}
    own = {d.field: d.text for d in rows if holder is not None and d.private_to == holder}
    return {**shared, **own}


def signature_sql(stream_id: str) -> tuple[str, list[str]]:
    """The drafts' signature as one SQL expression (with its parameters, after ``stream_id``'s
    own): how many drafts the stream holds, their length and the newest change, so it changes
    whenever a draft does. A query that opens the stream anyway adds it as a column."""
    return (
        "(SELECT COUNT(*) || '.' || COALESCE(SUM(LENGTH(text)), 0) || '.'"
        " || COALESCE(MAX(updated), '') FROM drafts"
        f" WHERE drafts.stream_id = {stream_id} AND drafts.key NOT LIKE ?)",
        [KEPT + ":%"],
    )


def full_signature_sql(stream_id: str) -> str:
    """As ``signature_sql``, over every draft of the stream, each link's kept words too (what a
    replayed page depends on: a page showing kept words differs from one that does not)."""
    return (
        "(SELECT COUNT(*) || '.' || COALESCE(SUM(LENGTH(text)), 0) || '.'"
        " || COALESCE(SUM(LENGTH(key)), 0) || '.' || COALESCE(MAX(updated), '') FROM drafts"
        f" WHERE drafts.stream_id = {stream_id})"
    )


def signature(db: Database, stream_id: str) -> str:
    """A short value that changes whenever a draft of the stream does (open pages watch it)."""
    expression, params = signature_sql("?")
    return str(db.execute(f"SELECT {expression}", [stream_id, *params]).fetchone()[0])


def clear_turn(db: Database, stream_id: str, turn_no: int, fields: Iterable[str]) -> None:
    """Forget drafts that were just written into the story (each author's private ones too)."""
    names = list(fields)
    keys = [_key(turn_no, field) for field in names]
    if keys:
        marks = ",".join("?" for _ in keys)
        db.execute(
            f"DELETE FROM drafts WHERE stream_id = ? AND key IN ({marks})", [stream_id, *keys]
        )
        for name in names:
            db.execute(
                "DELETE FROM drafts WHERE stream_id = ? AND key LIKE ?",
                [stream_id, _key(turn_no, name, "%")],
            )
        changed(db, stream_id)


def hand_back(
    db: Database,
    stream_id: str,
    turn_no: int,
    sent: Mapping[str, str],
    mover: str,
    turning_point: int,
) -> None:
    """Before a move's drafts are cleared: the drafts of those fields that another link typed
    and that differ from what was sent become that link's kept words (nothing typed is lost)."""
    for draft in rows_for_turn(db, stream_id, turn_no):
        holder = holder_of(draft.author)
        if holder is None or holder == mover or draft.field not in sent:
            continue
        if draft.text.strip() and draft.text != sent[draft.field]:
            keep(db, stream_id, holder, {draft.field: draft.text}, turning_point)


def _kept_key(holder: str, field: str) -> str:
    return f"{KEPT}:{holder}:{field}"


def keep(
    db: Database,
    stream_id: str,
    holder: str,
    texts: Mapping[str, str],
    turning_point: int | None = None,
) -> bool:
    """Keep words for the link ``holder``: what it sent or typed, by field, written for the
    turning point whose card was drawn at ``turning_point`` (the newest words win).

    Kept words are texts like any other: each is cut to the text limit, they count in the
    chronicle's byte budget (False, nothing kept, when there is no room: ``has_room``), and a
    link keeps at most ``KEPT_PER_LINK`` of them, its oldest let go first."""
    kept = {_kept_key(holder, field): text[:TEXT_LIMIT] for field, text in texts.items()}
    if not kept or not has_room(db, stream_id, kept):
        return False
    stamp = now()
    for key, text in kept.items():
        db.execute(
            "INSERT INTO drafts (stream_id, key, text, base_version, updated, author)"
            " VALUES (?, ?, ?, ?, ?, NULL)"
            " ON CONFLICT (stream_id, key) DO UPDATE"
            " SET text = excluded.text, base_version = excluded.base_version,"
            " updated = excluded.updated",
            [stream_id, key, text, turning_point, stamp],
        )
    _let_oldest_go(db, stream_id, holder)
    changed(db, stream_id)  # the link's open pages show its words beside the story
    return True


def _let_oldest_go(db: Database, stream_id: str, holder: str) -> None:
    """Past ``KEPT_PER_LINK`` kept words of one link, the oldest are let go (a holder is hex
    digits: nothing in the pattern is a wildcard but its end)."""
    every = "" if dialect(db) == "postgresql" else " LIMIT -1"  # SQLite's OFFSET needs a LIMIT
    db.execute(
        "DELETE FROM drafts WHERE stream_id = ? AND key IN (SELECT key FROM drafts"
        f" WHERE stream_id = ? AND key LIKE ? ORDER BY updated DESC, key{every} OFFSET ?)",
        [stream_id, stream_id, _kept_key(holder, "") + "%", _bound("KEPT_PER_LINK")],
    )


def kept(db: Database, stream_id: str, holder: str) -> dict[str, tuple[str, int | None]]:
    """The words kept for ``holder``: by field, each text and the turning point it was for."""
    prefix = _kept_key(holder, "")
    rows = db.execute(
        "SELECT key, text, base_version FROM drafts WHERE stream_id = ? AND key LIKE ?",
        [stream_id, prefix + "%"],
    ).fetchall()
    return {key[len(prefix) :]: (text, point) for key, text, point in rows}


def drop_kept(db: Database, stream_id: str, holder: str, fields: Iterable[str]) -> None:
    """Let kept words go: they are in the story, or their link chose to let them go."""
    keys = [_kept_key(holder, field) for field in fields]
    if keys:
        marks = ",".join("?" for _ in keys)
        db.execute(
            f"DELETE FROM drafts WHERE stream_id = ? AND key IN ({marks})", [stream_id, *keys]
        )
        changed(db, stream_id)


# The texts a decision carried, by the form field that typed them: taking the decision back
# puts them into that field's draft again, so every device sees them in the form.
UNDONE_TEXTS = {
    "prompt-chosen": {"question": "question"},
    "prompt-answered": {"answer": "answer"},
    "stakes-declared": {"stakes_success": "success", "stakes_failure": "failure"},
    "epilogue-written": {"epilogue": "epilogue"},
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
    """After an undo, give the current turn back the texts of the decision just taken back,
    each as its latest correction left it."""
    newest = next(state.newest_records(), None)
    if newest is None or getattr(newest.event, "kind", "") != "decision-undone":
        return  # no undo: nothing to walk back for (a long life's log is long)
    target = newest.event.target_seq
    undone = next((r.event for r in state.newest_records() if r.seq == target), None)
    for field, attribute in UNDONE_TEXTS.get(getattr(undone, "kind", ""), {}).items():
        text = _corrected(state, target, attribute) or getattr(undone, attribute, "")
        if text:
            save(db, stream_id, state.turn_no, field, text)
    if getattr(undone, "kind", "") == "prompt-chosen":  # the choice too, as the radio holds it
        index = getattr(undone, "index", None)
        save(db, stream_id, state.turn_no, "prompt", "own" if index is None else str(index))


def _corrected(state: Any, seq: int | None, attribute: str) -> str | None:
    """The newest correction of the text ``attribute`` of event ``seq``, if it was corrected."""
    for record in state.newest_records():
        event = record.event
        if getattr(event, "kind", "") == "text-revised" and event.target_seq == seq:
            if event.field == attribute:
                return str(event.text)
    return None


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


def clear_written(db: Database, stream_id: str, state: Any) -> None:
    """Drop the drafts of the open check's texts that are in the story now (an answer, the
    stakes): words an X-card gave back as drafts must not outlive the move that wrote the
    text afresh, whichever client made it (the page clears what its form sent itself)."""
    check = state.check
    if check is None:
        return
    fields = ("answer", "stakes_success", "stakes_failure")
    written = {field for field in fields if not _waits_for(check, field)}
    held = {draft.field for draft in rows_for_turn(db, stream_id, state.turn_no)}
    if written & held:  # only then: clearing wakes every open page
        clear_turn(db, stream_id, state.turn_no, sorted(written & held))


def _waits_for(check: Any, field: str) -> bool:
    if field == "answer":
        return check.answer is None
    return check.stakes_success is None
