"""Rendered parts of pages kept in the database: made by one server process after a change, read
by every other process and server instead of rendering them again.

A row is one page or fragment of a stream at one of its versions, keyed by the digest of all
its page-cache key holds (``web.shell.streams.cache_key``: the stream and version, the
language, the link's role, seat and write permission, the page's own details and the address
it is served under); its body is the page cut around the viewer's secrets (CSRF token, link
token), which are never kept (``web.shell.render_cache``). A stream keeps only the rows of its
newest version written; all rows together are bounded in bytes (``SHARED_RENDER_BYTES``), the
oldest going first. Rows go with their stream.

Like a snapshot, a row is only ever a shortcut and writing one never waits: a database busy,
read-only or full keeps nothing, and the page is rendered again by whoever asks next.
"""

from __future__ import annotations

import hashlib
import json
import logging

from companion.base import __version__
from companion.store.sql import Database, dialect, now, sqlite_without_waiting

log = logging.getLogger(__name__)
Pieces = list[str | int]  # a page's text, and between its pieces the index of a secret cut there


def digest(key: object) -> str:
    """A page-cache key as a row's key: the digest of its ``repr`` (plain values only, so
    equal keys give equal digests in every process; a key that differs in anything differs)
    with the release's version: a server upgraded in place never serves a page an older
    release made (its templates, its engines, its static files' names)."""
    keyed = repr((__version__, key))
    return hashlib.sha256(keyed.encode("utf-8", "surrogatepass")).hexdigest()


def read(db: Database, stream_id: str, version: int, key: str) -> Pieces | None:
    """The pieces kept for ``key`` at ``version`` of the stream, or None."""
    row = db.execute(
        "SELECT body FROM rendered WHERE stream_id = ? AND key = ? AND version = ?",
        [stream_id, key, version],
    ).fetchone()
    if row is None:
        return None
    try:
        pieces = json.loads(row[0])
    except ValueError:
        return None
    ok = isinstance(pieces, list) and all(isinstance(p, str | int) for p in pieces)
    return pieces if ok else None


def write(db: Database, stream_id: str, version: int, key: str, pieces: Pieces, limit: int) -> bool:
    """Keep ``pieces`` for ``key`` at ``version`` of the stream, dropping the stream's rows of
    older versions, and the oldest rows of all while they hold more than ``limit`` bytes; True
    when it was written, False when the database could not take it now (or it is too big)."""
    body = json.dumps(pieces, ensure_ascii=False, separators=(",", ":"))
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > limit // 4:  # one page never takes the room of many
        return False
    statements: list[tuple[str, list[object]]] = [
        ("DELETE FROM rendered WHERE stream_id = ? AND version < ?", [stream_id, version]),
        (
            "INSERT INTO rendered (stream_id, key, version, body, nbytes, created)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (stream_id, key) DO UPDATE SET"
            " version = excluded.version, body = excluded.body, nbytes = excluded.nbytes,"
            " created = excluded.created WHERE rendered.version <= excluded.version",
            [stream_id, key, version, body, size, now()],
        ),
    ]

    def kept() -> None:
        for sql, values in statements:
            db.execute(sql, values)
        _bound(db, limit)

    try:
        if dialect(db) == "sqlite":
            return sqlite_without_waiting(db, kept)
        kept()
    except Exception as err:  # noqa: BLE001 - a cache that cannot be written now is not written
        log.info("rendered part of %s not kept: %s", stream_id, err)
        return False
    return True


def _bound(db: Database, limit: int) -> None:
    """Past ``limit`` bytes, the oldest half of the rows go (a rare, whole sweep)."""
    total, count = db.execute("SELECT COALESCE(SUM(nbytes), 0), COUNT(*) FROM rendered").fetchone()
    if int(total) <= limit:
        return
    db.execute(
        "DELETE FROM rendered WHERE (stream_id, key) IN"
        " (SELECT stream_id, key FROM rendered ORDER BY created LIMIT ?)",
        [int(count) // 2 + 1],
    )
