"""The same request answered again in front of Flask, while nothing its page is made from changed.

An open page whose feed carries no part fetches its live part after each change, and every
watcher of a table asks for the same few pages; between two changes each of those answers is the
same bytes.
A page served from the render cache (``render_cache.page_bytes``) marks its request with the
cache key and the secrets it was filled with. ``Echo`` keeps, for each such request, the
answer's headers, that key and the row of the store the page was made from
(``capabilities.served_state``: the link, the stream's header, its drafts and books, read
*before* Flask made the page, so a change while it was being made only costs a miss). The same
request again (the same method, address and headers, the session cookie included, which holds
the CSRF token, the language and any flashed message) whose row is still the same is answered
from the kept parts: one query and a join, with a new request id, its metrics and its access
line, as Flask would have answered it. Anything else, and any doubt, goes on to Flask.

Only answers Flask sent as 200 without setting a cookie are kept. What is kept is bounded by
``REPLAY_BYTES`` (0 turns the echo off; the setting keeps the name hosts know); the pages' parts
stay in the render cache, so a page the render cache let go of is made again by Flask.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple

from flask import Flask

from companion.store.capabilities import TOKEN_PATTERN, served_state
from companion.text.bytecache import ByteLRU, deep_size
from companion.web.shell import request_log
from companion.web.shell.render_cache import ECHOABLE, fill, kept_parts

# The pages watchers ask for again and again: a chronicle's play page and story (with their
# live fragments), a card table.
LIVE = "companion.live"  # a live feed's internal request: made by Flask, never kept here
PATH = re.compile(rf"/(?:c/({TOKEN_PATTERN})/(?:story)?|t/({TOKEN_PATTERN})/)")
# Headers that differ between two asks of the same page without changing it.
UNKEYED = frozenset({"HTTP_X_REQUEST_ID"})
Environ = dict[str, Any]


class Kept(NamedTuple):
    """What answers a request again: the store's row it was made from, its render-cache key,
    the secrets filled in, its route and its headers but the request id."""

    state: tuple[Any, ...]
    key: Hashable
    secrets: list[str]
    route: str
    headers: list[tuple[str, str]]


def request_of(environ: Environ) -> tuple[Any, ...]:
    """Everything a page may be made from in the request itself: its method, address, query,
    the prefix and scheme it is served under, the client's address and every header but the
    request id."""
    headers = tuple(
        sorted(
            (name, value)
            for name, value in environ.items()
            if name.startswith("HTTP_") and name not in UNKEYED
        )
    )
    return (
        environ.get("REQUEST_METHOD"),
        environ.get("SCRIPT_NAME", ""),
        environ.get("PATH_INFO", ""),
        environ.get("QUERY_STRING", ""),
        environ.get("wsgi.url_scheme"),
        environ.get("REMOTE_ADDR"),
        environ.get("CONTENT_TYPE", ""),
        environ.get("CONTENT_LENGTH", ""),
        headers,
    )


class Echo:
    """WSGI middleware: answers a page request again from what the same request got."""

    def __init__(self, app: Flask, wsgi_app: Callable[..., Iterable[bytes]], limit: int) -> None:
        self.app = app
        self.wsgi_app = wsgi_app
        self.kept = ByteLRU(limit)
        self.hits = 0

    def __call__(self, environ: Environ, start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or self.app.debug or LIVE in environ:
            return self.wsgi_app(environ, start_response)
        found = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is None:
            return self.wsgi_app(environ, start_response)
        started = time.perf_counter()
        token = found.group(1) or found.group(2)
        state = self._state(token)
        if state is None:
            return self.wsgi_app(environ, start_response)
        request = request_of(environ)
        kept = self.kept.get(request)
        if isinstance(kept, Kept) and kept.state == state:
            parts = kept_parts(self.app, kept.key)
            if parts is not None:
                self.hits += 1
                return self._send(environ, start_response, kept, fill(parts, kept.secrets), started)
        return self._make(environ, start_response, request, state)

    def _make(
        self,
        environ: Environ,
        start_response: Callable[..., Any],
        request: tuple[Any, ...],
        state: tuple[Any, ...],
    ) -> Iterable[bytes]:
        """Flask's answer, kept when it is a page made of kept parts, sent whole, no cookie set."""
        said: list[Any] = []

        def starting(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            said[:] = [status, headers]
            return start_response(status, headers, *rest)

        answer = self.wsgi_app(environ, starting)
        marked = environ.get(ECHOABLE)
        if marked is not None and said and said[0].startswith("200 "):
            headers = said[1]
            if not any(name.lower() == "set-cookie" for name, _value in headers):
                key, secrets, route = marked
                kept = Kept(
                    state,
                    key,
                    list(secrets),
                    route,
                    [(n, v) for n, v in headers if n.lower() != "x-request-id"],
                )
                self.kept.put(request, kept, deep_size((request, kept)))  # all it holds
        return answer

    def _send(
        self,
        environ: Environ,
        start_response: Callable[..., Any],
        kept: Kept,
        body: bytes,
        started: float,
    ) -> Iterable[bytes]:
        trusted = bool(self.app.config.get("TRUST_REQUEST_ID", False))
        rid = request_log.new_id(environ.get("HTTP_X_REQUEST_ID", ""), trusted)
        start_response("200 OK", [*kept.headers, ("X-Request-Id", rid)])
        query = environ.get("QUERY_STRING", "")
        path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        seconds = time.perf_counter() - started
        request_log.done("GET", path, kept.route, 200, seconds, environ.get("REMOTE_ADDR"), rid)
        return [body]

    def _state(self, token: str) -> tuple[Any, ...] | None:
        """The store's row of what ``token``'s pages are made from; None when the link opens
        nothing or the store cannot say (Flask meets that again and answers it)."""
        pool = self.app.extensions["companion.db_pool"]
        try:
            db = pool.get(self.app.config["DATABASE"])
        except Exception:  # noqa: BLE001 - Flask's path meets it again and answers it
            return None
        try:
            state = served_state(db, token)
            if db.conn.in_transaction:
                db.conn.rollback()
        except Exception:  # noqa: BLE001 - as above; this connection is not trusted again
            pool.discard(db)
            return None
        pool.release(db)
        return state


def init_app(app: Flask) -> None:
    """Answer repeated page requests in front of the app, within ``REPLAY_BYTES``."""
    limit = int(app.config["REPLAY_BYTES"])  # its default is set with the others
    if limit > 0:
        echo = Echo(app, app.wsgi_app, limit)
        app.extensions["companion.echo"] = echo
        app.wsgi_app = echo  # type: ignore[method-assign]
