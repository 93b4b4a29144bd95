"""Refused forms that belong to no stream yet, held on the server while their page is shown again.

A refused post is answered with a redirect (post/redirect/get), so Back and Reload never ask to
send it again; what was typed cannot travel in the session cookie (a set-up form may hold long
texts), so it waits here under a random id that only the browser's session knows.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from companion.store.sql import Database, now

KEPT_FOR = timedelta(days=7)


def hold(db: Database, kind: str, data: Any) -> str:
    """Keep ``data`` (JSON-ready) for a form of ``kind``; returns its id. Old ones are pruned."""
    held_id = secrets.token_urlsafe(16)
    cutoff = (datetime.now(UTC) - KEPT_FOR).isoformat(timespec="milliseconds")
    db.execute("DELETE FROM held_forms WHERE created < ?", [cutoff])
    db.execute(
        "INSERT INTO held_forms (id, kind, data, created) VALUES (?, ?, ?, ?)",
        [held_id, kind, json.dumps(data, ensure_ascii=False), now()],
    )
    return held_id


def find(db: Database, kind: str, held_id: Any) -> Any:
    """The data held under ``held_id`` for ``kind``, or None."""
    if not isinstance(held_id, str) or len(held_id) > 64:
        return None
    row = db.execute(
        "SELECT data FROM held_forms WHERE id = ? AND kind = ?", [held_id, kind]
    ).fetchone()
    return json.loads(row[0]) if row else None


def drop(db: Database, held_id: Any) -> None:
    """Forget a held form: it was sent and taken."""
    if isinstance(held_id, str):
        db.execute("DELETE FROM held_forms WHERE id = ?", [held_id])
