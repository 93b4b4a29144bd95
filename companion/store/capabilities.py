"""Secret capability links: a random token in a URL grants a role on one stream.

Tokens carry 192 random bits and are stored only as their SHA-256 hash, so a copy of the
database does not hand out working links.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from companion.store import drafts
from companion.store.events import STREAM_COLUMNS, Stream, stream_from_row
from companion.store.signal import changed
from companion.store.sql import Database, insert, now, write_transaction

ROLES = ("host", "seat", "reader")
# A token as it may appear in an address (issued ones are 32 URL-safe characters): the pages,
# the version polls and the logs find a link's token in a path by this one pattern.
TOKEN_PATTERN = "[A-Za-z0-9_-]{1,100}"


@dataclass(frozen=True)
class Capability:
    """What a valid token grants."""

    stream_id: str
    role: str
    seat: int | None
    token_hash: str

    @property
    def can_write(self) -> bool:
        """Hosts and seats may act; readers only follow."""
        return self.role in ("host", "seat")

    def may_act_for(self, seat: int) -> bool:
        """The host acts for anyone; a seat link only for its own seat."""
        return self.role == "host" or (self.role == "seat" and self.seat == seat)


def hash_token(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue(db: Database, stream_id: str, role: str, seat: int | None = None) -> str:
    """Create a new token for ``role`` on the stream and return it (shown once)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    token = secrets.token_urlsafe(24)
    insert(
        db,
        "capabilities",
        {
            "token_hash": hash_token(token),
            "stream_id": stream_id,
            "role": role,
            "seat": seat,
            "created": now(),
            "revoked": None,
        },
    )
    return token


def resolve(db: Database, token: str) -> Capability | None:
    """The capability a token grants, or None when it is unknown or revoked."""
    if not token or len(token) > 100:
        return None
    row = db.execute(
        "SELECT stream_id, role, seat, token_hash FROM capabilities"
        " WHERE token_hash = ? AND revoked IS NULL",
        [hash_token(token)],
    ).fetchone()
    return Capability(*row) if row else None


_OPEN_SQL = (
    "SELECT c.stream_id, c.role, c.seat, c.token_hash, "
    + STREAM_COLUMNS
    + " FROM capabilities c JOIN streams s ON s.id = c.stream_id"
    " WHERE c.token_hash = ? AND c.revoked IS NULL"
)


def open_stream(db: Database, token: str) -> tuple[Capability, Stream] | None:
    """What a token grants and the header of the stream it opens, in one query; None when the
    token is unknown or revoked."""
    if not token or len(token) > 100:
        return None
    row = db.execute(_OPEN_SQL, [hash_token(token)]).fetchone()
    if row is None:
        return None
    return Capability(*row[:4]), stream_from_row(row[4:])


# What a version poll reads of a link's stream: its kind, version and status, and for a
# chronicle the drafts' signature; written once (``polled``).
_SIGNATURE, _SIGNATURE_PARAMS = drafts.signature_sql("s.id")
_POLLED_SQL = {
    with_drafts: "SELECT s.kind, s.version, s.status, "
    + (_SIGNATURE if with_drafts else "NULL")
    + " FROM capabilities c JOIN streams s ON s.id = c.stream_id"
    " WHERE c.token_hash = ? AND c.revoked IS NULL"
    for with_drafts in (False, True)
}


def polled(db: Database, token: str, with_drafts: bool) -> tuple[str, int, Any, Any] | None:
    """The kind, version and status (as stored, JSON) of the stream ``token`` opens, and with
    ``with_drafts`` its drafts' signature, in one query; None when the link opens nothing."""
    if not token or len(token) > 100:
        return None
    params = [*_SIGNATURE_PARAMS, hash_token(token)] if with_drafts else [hash_token(token)]
    row = db.execute(_POLLED_SQL[with_drafts], params).fetchone()
    return None if row is None else (row[0], row[1], row[2], row[3])


# What the pages a link opens are made from, besides the request itself (see ``served_state``).
# The books of the stream's version: what the story page's export panel shows of them.
_BOOKS_SQL = (
    "(SELECT COUNT(*) || '.' || COALESCE(SUM(e.progress), 0) || '.'"
    " || COALESCE(SUM(COALESCE(e.page, 0)), 0) || '.'"
    " || COALESCE(SUM(LENGTH(e.status) + LENGTH(COALESCE(e.step, ''))"
    " + LENGTH(COALESCE(e.error, ''))), 0) || '.'"
    " || COALESCE(MAX(COALESCE(e.updated, e.created)), '') || '.'"
    " || COALESCE(SUM(CASE e.status WHEN 'queued' THEN 1 WHEN 'running' THEN 1000"
    " WHEN 'done' THEN 1000000 ELSE 1000000000 END), 0)"
    " FROM exports e WHERE e.stream_id = s.id AND e.version = s.version)"
)
_SERVED_SQL = (
    "SELECT c.role, c.seat, s.kind, s.title, s.version, s.updated, s.meta, s.status, "
    + drafts.full_signature_sql("s.id")
    + ", "
    + _BOOKS_SQL
    + " FROM capabilities c JOIN streams s ON s.id = c.stream_id"
    " WHERE c.token_hash = ? AND c.revoked IS NULL"
)


def served_state(db: Database, token: str) -> tuple[Any, ...] | None:
    """Everything in the store a page under ``token``'s link is made from, in one row: the
    link's role and seat, the stream's kind, title, version, last change, meta and status, a signature of
    its drafts (kept words too) and of its version's books; None when the link opens nothing.
    Two equal rows mean the same page for the same request (``web.shell.echo``)."""
    if not token or len(token) > 100:
        return None
    row = db.execute(_SERVED_SQL, [hash_token(token)]).fetchone()
    return None if row is None else tuple(row)


def issue_within(
    db: Database, stream_id: str, wanted: list[tuple[str, int | None]], limit: int
) -> list[str] | None:
    """Issue every ``(role, seat)`` of ``wanted``, or none if the stream would then hold more than
    ``limit`` links besides the host's; the tokens made, or None.

    The count and the inserts are one transaction under the store's write lock (SQLite's
    BEGIN IMMEDIATE, a PostgreSQL advisory lock named by the stream), so posts at once can
    never pass the limit together.
    """
    with write_transaction(db, lock=f"links:{stream_id}"):
        (in_use,) = db.execute(
            "SELECT count(*) FROM capabilities"
            " WHERE stream_id = ? AND revoked IS NULL AND role != 'host'",
            [stream_id],
        ).fetchone()
        if int(in_use) + len(wanted) > limit:
            return None
        return [issue(db, stream_id, role, seat) for role, seat in wanted]


def revoke(db: Database, stream_id: str, token_hash: str) -> bool:
    """Revoke one token of the stream; True when something was revoked.

    A revoked link opens nothing, like one never made, so its row is deleted (with any that
    earlier versions kept marked revoked): issuing and revoking links never grows the table.
    """
    cursor = db.execute(
        "DELETE FROM capabilities WHERE stream_id = ? AND token_hash = ? AND revoked IS NULL",
        [stream_id, token_hash],
    )
    db.execute("DELETE FROM capabilities WHERE stream_id = ? AND revoked IS NOT NULL", [stream_id])
    changed(db, stream_id)  # the revoked link's open pages end their streams
    return bool(cursor.rowcount > 0)


def active(db: Database, stream_id: str) -> list[Capability]:
    """The stream's tokens that still work (as hashes: the tokens themselves are not stored)."""
    rows = db.execute(
        "SELECT stream_id, role, seat, token_hash FROM capabilities"
        " WHERE stream_id = ? AND revoked IS NULL ORDER BY created",
        [stream_id],
    ).fetchall()
    return [Capability(*row) for row in rows]
