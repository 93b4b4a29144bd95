"""Rendered HTML kept per chronicle version, so a page is rendered once per change, not per view.

A chronicle's page depends only on its version, the reader's language and role, and a few
per-viewer details that go into the key. The CSRF token differs per browser session, so it is
cut out before the HTML is kept and put back when it is served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import Flask, current_app
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup


class RenderCache:
    """A small thread-safe LRU of rendered fragments."""

    def __init__(self, size: int = 128) -> None:
        self._items: OrderedDict[Hashable, list[str]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: Hashable) -> list[str] | None:
        with self._lock:
            parts = self._items.get(key)
            if parts is not None:
                self._items.move_to_end(key)
            return parts

    def put(self, key: Hashable, parts: list[str]) -> None:
        with self._lock:
            self._items[key] = parts
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def cached(key: Hashable, render: Callable[[], str]) -> Markup:
    """The fragment for ``key``, rendered by ``render`` the first time."""
    cache: RenderCache = current_app.extensions["companion.render_cache"]
    token = generate_csrf()
    parts = cache.get(key)
    if parts is None:
        # Kept split around the token, so serving it is one join rather than a search.
        parts = render().split(token)
        cache.put(key, parts)
    return Markup(token.join(parts))  # noqa: S704 - our own HTML


def init_app(app: Flask) -> None:
    """Give the app its cache."""
    app.extensions["companion.render_cache"] = RenderCache()
