"""How often one client may ask for a Markdown preview: a sliding window per address, per process."""

from __future__ import annotations

import threading
import time
from collections import deque

from flask import current_app, request

PREVIEWS = 120  # per address and window: a table of players sharing one address, typing
WINDOW = 60.0  # seconds


class PreviewWindow:
    """At most ``limit`` previews per ``window`` seconds for each address."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str, now: float) -> bool:
        """Count one preview for ``key`` unless its allowance is used up."""
        with self._lock:
            hits = self._hits.setdefault(key, deque())
            while hits and hits[0] <= now - self.window:
                hits.popleft()
            if len(hits) >= self.limit:
                return False
            hits.append(now)
            if len(self._hits) > 10_000:  # forget idle addresses
                self._hits = {k: v for k, v in self._hits.items() if v}
            return True


def preview_allowed() -> bool:
    """Whether this request's address may have one more preview now."""
    if not current_app.config.get("RATELIMIT_ENABLED", True):
        return True
    window = current_app.extensions.get("companion.previews")
    if window is None:
        limit = int(current_app.config.get("RATELIMIT_PREVIEW", PREVIEWS))
        window = current_app.extensions.setdefault(
            "companion.previews", PreviewWindow(limit, WINDOW)
        )
    return bool(window.allow(request.remote_addr or "unknown", time.monotonic()))
