"""Capability links in URLs: resolve them, refuse what they do not allow, remember them."""

from __future__ import annotations

import logging
import re
from typing import Any

from flask import abort, request, session

from companion.base import logs
from companion.store.capabilities import TOKEN_PATTERN, Capability, open_stream, resolve
from companion.store.db import get_db
from companion.store.events import Stream
from companion.web.shell import ratelimit

log = logging.getLogger("companion.access")
REMEMBERED = 12
OPENED_PATH = re.compile(rf".*/[ct]/({TOKEN_PATTERN})/")


def open_link(token: str, kinds: tuple[str, ...] | None = None) -> tuple[Capability, Stream]:
    """The capability a URL token grants and its stream's header, read in one query; 404 (the
    same as a missing chronicle) when the link opens nothing, or no stream of ``kinds``.

    The link is resolved before any limit: only misses count, and only misses are refused.
    """
    opened = open_stream(get_db(), token)
    if opened is None:
        ratelimit.count_miss()
        log.warning(
            "refused capability token from %s for %s", request.remote_addr, logs.request_path()
        )
        abort(404)
    cap, header = opened
    if kinds is not None and header.kind not in kinds:
        abort(404)
    return cap, header


def capability_for(token: str, kind: str | None = None) -> Capability:
    """The capability a URL token grants; 404 (the same as a missing chronicle) otherwise."""
    return open_link(token, None if kind is None else (kind,))[0]


def require_write(cap: Capability) -> None:
    """Refuse a write from a read-only link with the same 404 as an unknown link."""
    if not cap.can_write:
        log.warning("refused write with a read-only link from %s", request.remote_addr)
        abort(404)


def remember(url: str) -> None:
    """Add the page to this browser's list of opened chronicles (kept in its own cookie only).

    Only the link's path is kept, in the sealed session; titles and roles are looked up when
    the list is shown, so the cookie stays small and a revoked link drops out of the list.
    """
    current = [_path_of(item) for item in session.get("opened", [])]
    if current and current[0] == url:
        return  # already first: leave the cookie untouched
    session["opened"] = [url, *(path for path in current if path != url)][:REMEMBERED]
    session.permanent = True


def _path_of(item: Any) -> str:
    # Cookies written before the list held paths held {"url", "title", "role"} records.
    return str(item.get("url", "")) if isinstance(item, dict) else str(item)


def opened_chronicles() -> list[dict[str, Any]]:
    """The chronicles and tables this browser opened whose links still work, latest opened
    first: each with its link's role and seat, its kind and when it last changed."""
    found = (_opened(_path_of(item)) for item in session.get("opened", []))
    return [item for item in found if item is not None]


def _opened(url: str) -> dict[str, Any] | None:
    match = OPENED_PATH.fullmatch(url)
    cap = resolve(get_db(), match.group(1)) if match else None
    if cap is None:
        return None
    row = (
        get_db()
        .execute("SELECT title, kind, updated FROM streams WHERE id = ?", [cap.stream_id])
        .fetchone()
    )
    if not row:
        return None
    title, kind, updated = row
    return {"url": url, "title": title or "", "role": cap.role, "seat": cap.seat} | {
        "stream_id": cap.stream_id,
        "kind": kind,
        "updated": updated,
    }
