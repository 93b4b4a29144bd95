"""The version polls: what an open page (or a live feed) watches, from one row of the store.

``/c/<token>/version`` answers ``{"version": n, "phase": "...", "drafts": "..."}`` (the last
changes whenever a text of the turn is typed, so pages show who is writing) and
``/t/<token>/version`` answers ``{"version": n}``: the link joined to its stream's header and,
for a chronicle, one look at its drafts; never the stream's record. Open pages ask every half second, so a poll that finds its stream is answered
here, in front of Flask (``FastPolls``), with the same body and headers the Flask views give,
its request id, metrics and access line as every other request has them.
Everything else goes on to those views, which give the one answer every other path gives: a
link that opens nothing (counted against the guessing limit), a host the server does not answer
to, a database fault, a chronicle whose header has not said its phase yet.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.exceptions import SecurityError
from werkzeug.wsgi import get_host

from companion.cardgames import game_keys
from companion.store import drafts
from companion.store.capabilities import TOKEN_PATTERN, polled
from companion.store.events import Stream
from companion.store.sql import Database
from companion.streams import chronicles
from companion.web.shell import request_log
from companion.web.shell.security import hardening

PATH = re.compile(rf"/([ct])/({TOKEN_PATTERN})/version")
Answer = dict[str, Any]


def kinds(prefix: str) -> tuple[str, ...]:
    """The kinds of stream the links under ``/<prefix>/`` open: chronicles, or card tables."""
    return (chronicles.KIND,) if prefix == "c" else game_keys()


def answer_of(
    db: Database, prefix: str, header: Stream, signature: str | None = None
) -> Answer | None:
    """The poll's answer from a stream's header (and a chronicle's drafts, whose ``signature``
    the query that opened it may have read already); None when the header cannot say it (not a
    stream of this kind, or a chronicle whose header has not said its phase yet)."""
    said = said_of(prefix, header.kind, header.version, header.status, signature)
    if said is not None and said.get("drafts", "") is None:
        said["drafts"] = drafts.signature(db, header.id)
    return said


def said_of(
    prefix: str, kind: str, version: int, status: Any, signature: str | None
) -> Answer | None:
    """The poll's answer from what a stream's header says (a chronicle's ``signature`` None when
    not read yet); None when it cannot say it (see ``answer_of``)."""
    if kind not in kinds(prefix):
        return None
    if prefix == "t":
        return {"version": version}
    phase = (status or {}).get("phase")
    if phase is None:
        return None
    return {"version": version, "phase": phase, "drafts": signature}


def answer(db: Database, prefix: str, header: Stream) -> Answer:
    """The poll's answer for a stream the link opens: from its header, else (a chronicle written
    before headers said its phase) from the chronicle itself."""
    said = answer_of(db, prefix, header)
    if said is not None:
        return said
    watched = chronicles.watched(db, header)
    return {"version": header.version, **watched, "drafts": drafts.signature(db, header.id)}


class FastPolls:
    """WSGI middleware: answers the polls whose link opens their stream, and nothing else."""

    def __init__(self, app: Flask, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.wsgi_app = wsgi_app
        # What every answer shares, worked out once: the app's settings are read at start-up.
        config, provider = app.config, app.json
        self._trusted = bool(config.get("TRUST_REQUEST_ID", False))
        self._hardening = hardening(config, private=True)
        self._content_type = ("Content-Type", getattr(provider, "mimetype", "application/json"))
        # jsonify()'s body outside debug mode: compact JSON, its keys sorted as the app's JSON
        # provider sorts them, its characters escaped as it escapes them.
        self._encode = json.JSONEncoder(
            ensure_ascii=getattr(provider, "ensure_ascii", True),
            sort_keys=getattr(provider, "sort_keys", True),
            separators=(",", ":"),
        ).encode

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        found = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is not None and environ.get("REQUEST_METHOD") == "GET" and not self.app.debug:
            started = time.perf_counter()
            said = self._answer(environ, found.group(1), found.group(2))
            if said is not None:
                return self._send(environ, start_response, found.group(1), said, started)
        return self.wsgi_app(environ, start_response)

    def _send(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        prefix: str,
        said: Answer,
        started: float,
    ) -> Iterable[bytes]:
        """The answer as the Flask view sends it: jsonify()'s body outside debug mode (compact
        JSON and a newline), the app's headers, the request id, its metrics and access line."""
        body = f"{self._encode(said)}\n".encode()
        rid = request_log.new_id(environ.get("HTTP_X_REQUEST_ID", ""), self._trusted)
        headers = [
            self._content_type,
            ("Content-Length", str(len(body))),
            *self._hardening,
            ("X-Request-Id", rid),
        ]
        start_response("200 OK", headers)
        if environ.get("companion.live"):
            return [body]  # a live feed asking for its watchers: not a visitor's request
        query = environ.get("QUERY_STRING", "")
        path = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        route = "chronicle.version" if prefix == "c" else "tables.version"
        seconds = time.perf_counter() - started
        request_log.done("GET", path, route, 200, seconds, environ.get("REMOTE_ADDR"), rid)
        return [body]

    def _answer(self, environ: dict[str, Any], prefix: str, token: str) -> Answer | None:
        config = self.app.config
        try:
            get_host(environ, config.get("TRUSTED_HOSTS"))
        except SecurityError:
            return None  # Flask refuses it, with its page
        pool = self.app.extensions["companion.db_pool"]
        path = config["DATABASE"]
        try:
            db = pool.get(path)
        except Exception:  # noqa: BLE001 - Flask's path meets it again and answers it
            return None
        try:
            # The link, the header and a chronicle's drafts' signature in one query.
            row = polled(db, token, with_drafts=prefix == "c")
            said = None
            if row is not None:
                kind, version, status, signature = row
                loaded = json.loads(status) if prefix == "c" and status else None
                said = said_of(prefix, kind, version, loaded, str(signature))
            if db.conn.in_transaction:
                db.conn.rollback()
        except Exception:  # noqa: BLE001 - as above; this connection is not trusted again
            pool.discard(db)
            return None
        pool.release(db)
        return said


def init_app(app: Flask) -> None:
    """Answer the polls in front of the app (inside any proxy fix installed after this)."""
    app.wsgi_app = FastPolls(app, app.wsgi_app)  # type: ignore[method-assign]
