"""Rendered HTML kept per chronicle version, so a page is rendered once per change, not per view.

A chronicle's page depends only on its version, the reader's language and role, and a few
per-viewer details that go into the key. The CSRF token differs per browser session, so it is
swapped for a placeholder before the HTML is kept and put back when it is served.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import Flask, current_app
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

PLACEHOLDER = "\x00csrf\x00"


class RenderCache:
    """A small thread-safe LRU of rendered fragments."""

    def __init__(self, size: int = 128) -> None:
        self._items: OrderedDict[Hashable, str] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: Hashable) -> str | None:
        with self._lock:
            html = self._items.get(key)
            if html is not None:
                self._items.move_to_end(key)
            return html

    def put(self, key: Hashable, html: str) -> None:
        with self._lock:
            self._items[key] = html
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def cached(key: Hashable, render: Callable[[], str]) -> Markup:
    """The fragment for ``key``, rendered by ``render`` the first time."""
    cache: RenderCache = current_app.extensions["companion.render_cache"]
    token = generate_csrf()
    html = cache.get(key)
    if html is None:
        html = render().replace(token, PLACEHOLDER)
        cache.put(key, html)
    return Markup(html.replace(PLACEHOLDER, token))  # noqa: S704 - our own HTML


def init_app(app: Flask) -> None:
    """Give the app its cache."""
    app.extensions["companion.render_cache"] = RenderCache()
