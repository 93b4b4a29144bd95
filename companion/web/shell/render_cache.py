"""Rendered HTML kept per chronicle version, so a page is rendered once per change, not per view.

A chronicle's page depends on its version, the reader's language and role, the address it is
served under, and a few other details that go into the key (``streams.cache_key``). Two things
differ between viewers with the same key and are never kept: the CSRF token of the browser
session and the viewer's own link token (in every URL of the page). Both are cut out before the
HTML is kept and put back when it is served, so a page first rendered for the host can never
show the host's link to a seat.

Pages are kept as UTF-8 bytes, cut around the secrets once: serving one is joining its parts.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Hashable
from secrets import token_urlsafe

from flask import Flask, current_app, g, request, session
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from companion.base import metrics
from companion.store import rendered
from companion.text.bytecache import ByteLRU, deep_size
from companion.web.shell import ahead

# Signed CSRF tokens by the session's raw token: signing one costs more than serving a page.
SIGNED_BYTES = 256 * 1024
Parts = list[bytes | int]  # the HTML's pieces, and between them the index of the secret cut there
# Where a whole answer made of kept parts says so (``page_bytes``), in the request's environ.
ECHOABLE = "companion.echoable"
# The secrets cut out of every page, in the order of their indexes in its parts.
SECRETS = ("csrf", "link")
LIVE = "companion.live"  # in a live feed's internal request's environ (never a visitor's)
KNOWN = "companion_known"  # in ``g``: the key a page made for this request is kept under too


def cut(html: str, secrets: list[str]) -> Parts:
    """``html`` as UTF-8 split around every secret; odd items are the index of the secret cut."""
    wanted = sorted((s for s in secrets if s), key=len, reverse=True)
    if not wanted:
        return [html.encode("utf-8", "surrogatepass")]
    pieces = re.split("(" + "|".join(map(re.escape, wanted)) + ")", html)
    return [
        p.encode("utf-8", "surrogatepass") if n % 2 == 0 else secrets.index(p)
        for n, p in enumerate(pieces)
    ]


def fill(parts: Parts, secrets: list[str]) -> bytes:
    """The HTML again, as UTF-8, each cut place holding this viewer's secret."""
    encoded = [secret.encode("utf-8") for secret in secrets]
    pieces = parts.copy()
    pieces[1::2] = [encoded[index] for index in parts[1::2]]  # type: ignore[index]
    return b"".join(pieces)  # type: ignore[arg-type]


def parts_size(parts: Parts) -> int:
    """The bytes ``parts`` take in this process: the list and each piece (indexes are shared)."""
    return sys.getsizeof(parts) + sum(sys.getsizeof(p) for p in parts if isinstance(p, bytes))


# What a live feed's internal render puts where a CSRF token goes: it is cut out of the page
# like any viewer's token (each watcher fills in its own), so it need be no token at all, only
# text no page holds otherwise. One per process: the pattern that cuts it stays compiled.
LIVE_CSRF = "live-" + token_urlsafe(24)


def csrf_token() -> str:
    """This session's signed CSRF token, signed once per session token and process.

    Flask-WTF signs the session's token on every request (a key derivation and an HMAC); the
    signed form never expires here (``WTF_CSRF_TIME_LIMIT`` is None), so one signature serves.
    A live feed's internal render has no session and gets ``LIVE_CSRF``: nothing is signed,
    and no session is made that would be sealed into a cookie nobody receives."""
    if request.environ.get(LIVE):
        g.csrf_token = LIVE_CSRF  # where Flask-WTF's own generate_csrf() finds it
        return LIVE_CSRF
    if current_app.config.get("WTF_CSRF_TIME_LIMIT") is not None or "csrf_token" in g:
        return str(generate_csrf())
    raw = session.get("csrf_token")
    signed: ByteLRU = current_app.extensions["companion.signed_csrf"]
    token = signed.get(raw) if isinstance(raw, str) else None
    if token is None:
        token = str(generate_csrf())
        raw = session.get("csrf_token")
        signed.put(raw, token, sys.getsizeof(raw) + sys.getsizeof(token))
    g.csrf_token = token  # where Flask-WTF's own generate_csrf() finds it, for this request
    return token


def cached_bytes(key: Hashable, render: Callable[[], str], *, token: str) -> bytes:
    """The page for ``key`` as UTF-8, rendered by ``render`` the first time; ``token`` is the
    link's."""
    return _served(key, render, [csrf_token(), token])


def page_bytes(key: Hashable, render: Callable[[], str], *, token: str) -> bytes:
    """As ``cached_bytes``, for a whole answer: the request is marked with the key and the
    secrets it was filled with, so the same request can be answered again from the same parts
    while nothing it was made from has changed (``web.shell.echo``)."""
    secrets = [csrf_token(), token]  # as SECRETS names them
    parts = _parts(key, render, secrets)
    known = g.pop(KNOWN, None)  # the request's picture of the store: it names this key now
    if known is not None:
        size = deep_size(known) + deep_size(key)  # the entry's key is charged as well
        current_app.extensions["companion.render_cache"].put(known, key, size)
    return _answer(key, parts, secrets)


def known_bytes(known: Hashable, token: str) -> bytes | None:
    """The whole answer whose key is kept under ``known``, a picture of everything the page is
    made from (``streams.known_page``), filled with this viewer's secrets; None when it is not
    kept, and then the page made for this request (``page_bytes``) is named by ``known``."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    key = app.extensions["companion.render_cache"].get(known)
    parts = kept_parts(app, key) if isinstance(key, tuple) else None
    if parts is None:
        g.setdefault(KNOWN, known)
        return None
    return _answer(key, parts, [csrf_token(), token])


def _answer(key: Hashable, parts: Parts, secrets: list[str]) -> bytes:
    request.environ[ECHOABLE] = (key, secrets, request.endpoint or "unmatched")
    place = _stream_version(key)
    if place is not None:  # asked again after the stream's next change: made ahead then
        ahead.seen(key, *place)  # type: ignore[arg-type]
    return fill(parts, secrets)


def kept_parts(app: Flask, key: Hashable) -> Parts | None:
    """The parts kept for ``key`` in ``app``'s page cache, if they still are."""
    parts = app.extensions["companion.render_cache"].get(key)
    return parts if isinstance(parts, list) else None


def live_parts(
    app: Flask, environ: dict[str, object]
) -> tuple[list[str | int], tuple[str, ...]] | None:
    """A page ``app`` just made from kept parts for the internal request ``environ``, as a live
    feed pushes it: its pieces of text and, between them, the index into ``SECRETS`` of the
    secret cut there, for the page to fill with its own. None when the page was not kept."""
    marked = environ.get(ECHOABLE)
    parts = kept_parts(app, marked[0]) if isinstance(marked, tuple) else None
    if parts is None:
        return None
    text = [p.decode("utf-8", "replace") if isinstance(p, bytes) else p for p in parts]
    return text, SECRETS


def _served(key: Hashable, render: Callable[[], str], secrets: list[str]) -> bytes:
    return fill(_parts(key, render, secrets), secrets)


def _parts(key: Hashable, render: Callable[[], str], secrets: list[str]) -> Parts:
    cache: ByteLRU = current_app.extensions["companion.render_cache"]
    kept = cache.get(key)
    if isinstance(kept, list):
        return kept
    parts = _shared(key, render, secrets)
    cache.put(key, parts, parts_size(parts))
    return parts


def _shared(key: Hashable, render: Callable[[], str], secrets: list[str]) -> Parts:
    """The parts for ``key``: as another process (or server) kept them in the store after
    this change, else rendered here and kept there for the others (``store.rendered``). One
    renders it for all: who misses it first claims it, and whoever misses it meanwhile (another
    worker's feeds, woken by the same change) waits for what the claimant keeps.

    Only a stream's page at a version is shared (a key made by ``streams.cache_key``: its
    kind, stream id and version first); ``SHARED_RENDER_BYTES`` 0 shares nothing."""
    limit = int(current_app.config.get("SHARED_RENDER_BYTES") or 0)
    place = _stream_version(key) if limit else None
    if place is None:
        return cut(render(), secrets)
    from companion.store.db import get_db  # the store, once a page is shareable

    db, digest = get_db(), rendered.digest(key)
    kept = rendered.read(db, *place, digest)
    claim = "taken" if kept is not None else rendered.claim(db, *place, digest)
    waited = None
    if claim == "taken" and kept is None:
        kept = waited = rendered.awaited(db, *place, digest)
    if kept is not None:
        metrics.shared_page("kept" if waited is None else "waited")
        return [p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p for p in kept]
    metrics.shared_page("made" if claim == "claimed" else "unclaimed")
    written = False
    try:
        parts = cut(render(), secrets)
        text = [p.decode("utf-8", "surrogatepass") if isinstance(p, bytes) else p for p in parts]
        written = rendered.write(db, *place, digest, text, limit)
    finally:
        if claim == "claimed" and not written:  # nobody waits for a page never kept
            rendered.release(db, *place, digest)
    return parts


def _stream_version(key: Hashable) -> tuple[str, int] | None:
    """The stream and version a page-cache key is for, when it is a stream's (else None)."""
    if isinstance(key, tuple) and len(key) > 3:
        kind, stream_id, version = key[:3]
        if isinstance(kind, str) and isinstance(stream_id, str) and type(version) is int:
            return stream_id, version
    return None


def cached(key: Hashable, render: Callable[[], str], *, token: str) -> Markup:
    """The fragment for ``key``, rendered by ``render`` the first time, to put in a template."""
    return Markup(cached_bytes(key, render, token=token).decode("utf-8"))  # noqa: S704 - ours


def init_app(app: Flask) -> None:
    """Give the app its page cache, bounded by ``RENDER_CACHE_BYTES``, and its signed tokens."""
    limit = int(app.config["RENDER_CACHE_BYTES"])  # its default is set with the others
    app.extensions["companion.render_cache"] = ByteLRU(limit)
    app.extensions["companion.signed_csrf"] = ByteLRU(SIGNED_BYTES)
    # Flask-WTF offers its own csrf_token() to templates, as a global and from a context
    # processor; this one, registered after, is what templates call.
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.context_processor(lambda: {"csrf_token": csrf_token})
