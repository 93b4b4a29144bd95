"""Rate limits per client address: creating chronicles, and guessing capability links.

Counts live in each server process (gunicorn runs two), so the effective limit is at most the
worker count times the figure below; that still stops a script guessing 192-bit tokens or
filling the disk with chronicles, which is what the limits are for.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from flask import Flask, abort, current_app, request


class Limiter:
    """At most ``limit`` events per ``window`` seconds for each key."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def blocked(self, key: str) -> bool:
        """Whether ``key`` has used up its allowance."""
        with self._lock:
            return len(self._recent(key, time.monotonic())) >= self.limit

    def hit(self, key: str) -> None:
        """Count one event for ``key``."""
        with self._lock:
            self._recent(key, time.monotonic()).append(time.monotonic())
            if len(self._hits) > 10_000:  # forget idle clients
                self._hits = {k: v for k, v in self._hits.items() if v}


def _limiter(name: str) -> Limiter:
    return current_app.extensions["companion.limits"][name]  # type: ignore[no-any-return]


def _client() -> str:
    return request.remote_addr or "unknown"


def check_creation() -> None:
    """Refuse with 429 when this client created too many chronicles or tables lately."""
    if not current_app.config.get("RATELIMIT_ENABLED", True):
        return
    limiter = _limiter("create")
    if limiter.blocked(_client()):
        abort(429)
    limiter.hit(_client())


def guessing_blocked() -> bool:
    """Whether this client tried too many unknown links lately."""
    return bool(current_app.config.get("RATELIMIT_ENABLED", True)) and _limiter("guess").blocked(
        _client()
    )


def count_miss() -> None:
    """Count one unknown or revoked link from this client."""
    _limiter("guess").hit(_client())


def init_app(app: Flask) -> None:
    """Creation: 30 per 10 minutes; unknown links: 60 per 10 minutes, per address."""
    app.extensions["companion.limits"] = {
        "create": Limiter(app.config.get("RATELIMIT_CREATE", 30), 600),
        "guess": Limiter(app.config.get("RATELIMIT_GUESS", 60), 600),
    }
