"""Capability links in URLs: resolve them, refuse what they do not allow, remember them."""

from __future__ import annotations

import logging
from typing import Any

from flask import abort, request, session

from .. import ratelimit
from ..capabilities import Capability, resolve
from ..db import get_db

log = logging.getLogger("companion.access")
REMEMBERED = 12


def capability_for(token: str, kind: str | None = None) -> Capability:
    """The capability a URL token grants; 404 (the same as a missing chronicle) otherwise.

    The link is resolved before any limit: only misses count, and only misses are refused.
    """
    cap = resolve(get_db(), token)
    if cap is None:
        ratelimit.count_miss()
        log.warning("refused capability token from %s for %s", request.remote_addr, request.path)
        abort(404)
    if kind is not None:
        row = get_db().execute("SELECT kind FROM streams WHERE id = ?", [cap.stream_id]).fetchone()
        if row is None or row[0] != kind:
            abort(404)
    return cap


def require_write(cap: Capability) -> None:
    """Refuse a write from a read-only link with the same 404 as an unknown link."""
    if not cap.can_write:
        log.warning("refused write with a read-only link from %s", request.remote_addr)
        abort(404)


def remember(url: str, title: str, role: str) -> None:
    """Add the page to this browser's list of opened chronicles (kept in its own cookie only)."""
    current = session.get("opened", [])
    if current and current[0].get("url") == url and current[0].get("title") == title[:80]:
        return  # already first: leave the cookie untouched
    opened: list[dict[str, Any]] = [o for o in current if o.get("url") != url]
    opened.insert(0, {"url": url, "title": title[:80], "role": role})
    session["opened"] = opened[:REMEMBERED]
    session.permanent = True
