"""Refused forms that belong to no stream yet, held on the server while their page is shown again.

A refused post is answered with a redirect (post/redirect/get), so Back and Reload never ask to
send it again; what was typed cannot travel in the session cookie (a set-up form may hold long
texts), so it waits here under a random id that only the browser's session knows.

What a form may leave here is bounded: its caller keeps only the form's own fields, each cut to
its own limit; a held form takes at most ``max_bytes`` (its longest texts are cut further, from
their ends, to the length that fits); a browser holds one form of each kind (the one before is dropped);
and every form is pruned after ``KEPT_FOR``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from companion.store.sql import Database, now

KEPT_FOR = timedelta(days=7)


def hold(db: Database, kind: str, data: Any, max_bytes: int, replaces: Any = None) -> str:
    """Keep ``data`` (JSON-ready) for a form of ``kind``, fitted into ``max_bytes``; returns its
    id. The form held before under ``replaces`` (the same browser's) and old ones are pruned."""
    held_id = secrets.token_urlsafe(16)
    cutoff = (datetime.now(UTC) - KEPT_FOR).isoformat(timespec="milliseconds")
    db.execute("DELETE FROM held_forms WHERE created < ?", [cutoff])
    drop(db, replaces)
    db.execute(
        "INSERT INTO held_forms (id, kind, data, created) VALUES (?, ?, ?, ?)",
        [held_id, kind, fitted(data, max_bytes), now()],
    )
    return held_id


def fitted(data: Any, max_bytes: int) -> str:
    """``data`` as JSON of at most ``max_bytes`` UTF-8 bytes where it can be: its texts cut to
    the longest length that fits, from their ends (short fields, and the start of every text,
    stay as they were)."""
    text = _json(data)
    if len(text.encode("utf-8")) <= max_bytes:
        return text
    shortest, longest = 0, max((len(t) for t in _texts(data)), default=0)
    while shortest < longest:  # the longest length whose cut fits
        middle = (shortest + longest + 1) // 2
        if len(_json(_cut(data, middle)).encode("utf-8")) <= max_bytes:
            shortest = middle
        else:
            longest = middle - 1
    return _json(_cut(data, shortest))


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


def _texts(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict | list):
        for value in data.values() if isinstance(data, dict) else data:
            yield from _texts(value)


def _cut(data: Any, length: int) -> Any:
    """A copy of ``data`` with every text cut to ``length`` characters."""
    if isinstance(data, str):
        return data[:length]
    if isinstance(data, dict):
        return {key: _cut(value, length) for key, value in data.items()}
    if isinstance(data, list):
        return [_cut(value, length) for value in data]
    return data


def find(db: Database, kind: str, held_id: Any) -> Any:
    """The data held under ``held_id`` for ``kind``, or None."""
    if not isinstance(held_id, str) or len(held_id) > 64:
        return None
    row = db.execute(
        "SELECT data FROM held_forms WHERE id = ? AND kind = ?", [held_id, kind]
    ).fetchone()
    return json.loads(row[0]) if row else None


def drop(db: Database, held_id: Any) -> None:
    """Forget a held form: it was sent and taken, or another one of its browser replaces it."""
    if isinstance(held_id, str):
        db.execute("DELETE FROM held_forms WHERE id = ?", [held_id])
