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

A page is made once for every process and server: who misses it first claims it (``claim``: its
row at the version, with no body yet), makes it and keeps it; whoever misses it meanwhile waits
for that row (``awaited``) instead of making it too, for ``CLAIM_SECONDS`` at most. A claim that
old is void (its process stopped, or is stuck): the next to ask claims it again. A claimant that
could not make or keep the page gives its claim back (``release``), so nobody waits for nothing.
What could not be claimed (a busy or read-only database, a claim asked inside a transaction) is
made by whoever asks, as without claims.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Literal

from companion.base import __version__
from companion.store.sql import Database, dialect, now, sqlite_without_waiting

log = logging.getLogger(__name__)
Pieces = list[str | int]  # a page's text, and between its pieces the index of a secret cut there
CLAIM_SECONDS = 2.0  # how long others wait for a claimed page; an older claim is void
CLAIM_BYTES = 256  # what a claim's row counts against ``SHARED_RENDER_BYTES`` (it has no body)
POLL_SECONDS = (0.001, 0.008)  # a waiter's first look again, and its longest pause between looks
Claim = Literal["claimed", "taken", "unclaimed"]


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
    return None if row is None else _pieces(row[0])


def _pieces(body: str) -> Pieces | None:
    try:
        pieces = json.loads(body)
    except ValueError:  # a claim (no body yet), or a row not ours
        return None
    ok = isinstance(pieces, list) and all(isinstance(p, str | int) for p in pieces)
    return pieces if ok else None


def claim(db: Database, stream_id: str, version: int, key: str) -> Claim:
    """Claim the making of ``key`` at ``version`` of the stream: "claimed" (the caller makes it,
    then keeps it with ``write`` or gives it back with ``release``), "taken" (another claimed it
    within ``CLAIM_SECONDS``, or kept it already: ``awaited`` gives it), or "unclaimed" (no claim
    could be written now: the caller makes it, as without claims)."""
    stamp, void = now(), _void()
    won: list[bool] = []

    def claimed() -> None:
        cursor = db.execute(
            "INSERT INTO rendered (stream_id, key, version, body, nbytes, created)"
            " VALUES (?, ?, ?, '', ?, ?) ON CONFLICT (stream_id, key) DO UPDATE SET"
            " version = excluded.version, body = '', nbytes = excluded.nbytes,"
            " created = excluded.created WHERE rendered.version < excluded.version"
            " OR (rendered.version = excluded.version AND rendered.body = ''"
            " AND rendered.created < ?)",
            [stream_id, key, version, CLAIM_BYTES, stamp, void],
        )
        won.append(cursor.rowcount == 1)

    try:
        if not _at_once(db, claimed):
            return "unclaimed"
    except Exception as err:  # noqa: BLE001 - a claim that cannot be written now is not written
        log.info("rendered part of %s not claimed: %s", stream_id, err)
        return "unclaimed"
    return "claimed" if won[0] else "taken"


def awaited(db: Database, stream_id: str, version: int, key: str) -> Pieces | None:
    """The pieces another claimant keeps for ``key`` at ``version``, once it has kept them; None
    when its claim ends without them (given back, void, or the stream moved on): the caller
    makes the page then."""
    deadline = time.monotonic() + CLAIM_SECONDS
    pause, longest = POLL_SECONDS
    while True:
        time.sleep(pause)  # gevent's sleep under the server: the worker serves others meanwhile
        row = db.execute(
            "SELECT version, body, created FROM rendered WHERE stream_id = ? AND key = ?",
            [stream_id, key],
        ).fetchone()
        if row is None or int(row[0]) != version:
            return None
        if row[1]:
            return _pieces(row[1])
        if time.monotonic() >= deadline or str(row[2]) < _void():
            return None
        pause = min(pause * 2, longest)


def _void() -> str:
    """When a claim made before is void (as ``created`` says it: ISO time, UTC)."""
    return (datetime.now(UTC) - timedelta(seconds=CLAIM_SECONDS)).isoformat(timespec="milliseconds")


def release(db: Database, stream_id: str, version: int, key: str) -> None:
    """Give back a claim on ``key`` at ``version`` whose page was not kept: whoever waits for it
    makes it now, not when the claim is void."""

    def released() -> None:
        db.execute(
            "DELETE FROM rendered WHERE stream_id = ? AND key = ? AND version = ? AND body = ''",
            [stream_id, key, version],
        )

    try:
        _at_once(db, released)
    except Exception as err:  # noqa: BLE001 - the claim is void in CLAIM_SECONDS anyway
        log.info("claim on a part of %s not given back: %s", stream_id, err)


def _at_once(db: Database, change: Callable[[], None]) -> bool:
    """``change`` committed at once, so every process sees it; False, nothing changed, when the
    connection is inside a transaction (whose end is not ours to choose)."""
    if dialect(db) == "sqlite":
        return sqlite_without_waiting(db, change)
    if getattr(db, "conn").in_transaction:  # noqa: B009 - a PostgreSQL connection's own
        return False
    change()
    return True


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
