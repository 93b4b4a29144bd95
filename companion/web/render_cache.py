"""Rendered HTML kept per chronicle version, so a page is rendered once per change, not per view.

A chronicle's page depends on its version, the reader's language and role, and a few other
details that go into the key. Two things differ between viewers with the same key and are
never kept: the CSRF token of the browser session and the viewer's own link token (in every
URL of the page). Both are cut out before the HTML is kept and put back when it is served, so
a page first rendered for the host can never show the host's link to a seat.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable

from flask import Flask, current_app
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from ..bytecache import ByteLRU

DEFAULT_BYTES = 32 * 1024 * 1024


def cut(html: str, secrets: list[str]) -> list[str]:
    """``html`` split around every secret; odd items hold the index of the secret cut there."""
    wanted = sorted((s for s in secrets if s), key=len, reverse=True)
    if not wanted:
        return [html]
    pieces = re.split("(" + "|".join(map(re.escape, wanted)) + ")", html)
    return [p if n % 2 == 0 else str(secrets.index(p)) for n, p in enumerate(pieces)]


def fill(parts: list[str], secrets: list[str]) -> str:
    """The HTML again, each cut place holding this viewer's secret."""
    pieces = parts.copy()
    pieces[1::2] = [secrets[int(index)] for index in parts[1::2]]
    return "".join(pieces)


def cached(key: Hashable, render: Callable[[], str], *, token: str) -> Markup:
    """The fragment for ``key``, rendered by ``render`` the first time; ``token`` is the link's."""
    cache: ByteLRU = current_app.extensions["companion.render_cache"]
    secrets = [generate_csrf(), token]
    parts = cache.get(key)
    if not isinstance(parts, list):
        parts = cut(render(), secrets)
        cache.put(key, parts)
    return Markup(fill(parts, secrets))  # noqa: S704 - our own HTML


def init_app(app: Flask) -> None:
    """Give the app its cache, bounded by ``RENDER_CACHE_BYTES``."""
    limit = int(app.config.get("RENDER_CACHE_BYTES", DEFAULT_BYTES))
    app.extensions["companion.render_cache"] = ByteLRU(limit)
