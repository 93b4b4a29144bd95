"""Each request's id (sent back as ``X-Request-Id``), its access-log line and its metrics.

The id is generated (16 hex digits) unless ``TRUST_REQUEST_ID`` is on and the request brings a
sane ``X-Request-Id`` (8 to 128 letters, digits and ``._:-``): with nothing in front, any client
could choose the id its lines carry, so only an operator whose proxy sets the header (and
overwrites a client's) turns that on. ``ACCESS_LOG`` writes one line a request to the
``companion.access`` logger: method, path (tokens redacted), route, status, milliseconds and
the client's address.
"""

from __future__ import annotations

import logging
import re
import secrets
import time

from flask import Flask, g, request
from werkzeug.wrappers import Response

from companion.base import logs, metrics

access_log = logging.getLogger("companion.access_log")
SANE_ID = re.compile(r"[A-Za-z0-9._:-]{8,128}")


def request_id() -> str:
    """The current request's id (a fresh one if the request has none yet)."""
    if "request_id" not in g:
        g.request_id = secrets.token_hex(8)
    return str(g.request_id)


def new_id(incoming: str, trusted: bool) -> str:
    """A request's id: the one it brings when trusted and sane, else a fresh one."""
    return incoming if trusted and SANE_ID.fullmatch(incoming) else secrets.token_hex(8)


def _begin() -> None:
    g.request_started = time.perf_counter()
    g.request_id = new_id(request.headers.get("X-Request-Id", ""), g.get("trust_request_id", False))


def _finish(response: Response) -> Response:
    response.headers["X-Request-Id"] = request_id()
    if request.environ.get("companion.live"):
        return response  # a live feed asking the version for its watchers, not a visitor
    seconds = time.perf_counter() - g.get("request_started", time.perf_counter())
    path = request.full_path if request.query_string else request.path
    done(request.method, path, request.endpoint or "unmatched", response.status_code, seconds)
    return response


def done(
    method: str,
    path: str,
    route: str,
    status: int,
    seconds: float,
    remote: str | None = None,
    request_id: str | None = None,
) -> None:
    """Count one answered request and write its access line (also for the requests answered
    in front of Flask: ``web/polls.py`` gives their ``remote`` and ``request_id``)."""
    metrics.request_done(route, method, status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        remote = request.remote_addr if remote is None else remote
        path = logs.clean(path)
        access_log.info(
            "%s %s %d %.1f ms route=%s from %s",
            method,
            path,
            status,
            seconds * 1000,
            route,
            remote,
            extra={
                "method": method,
                "path": path,
                "route": route,
                "status": status,
                "duration_ms": round(seconds * 1000, 1),
                "remote": remote,
                **({} if request_id is None else {"request_id": request_id}),
            },
        )


def init_app(app: Flask) -> None:
    """Give every request an id and an access line; configure the process's logging."""
    trust = bool(app.config.get("TRUST_REQUEST_ID", False))

    def begin() -> None:
        g.trust_request_id = trust
        _begin()

    # First of all hooks: the others' refusals already carry the id.
    app.before_request_funcs.setdefault(None, []).insert(0, begin)
    app.after_request(_finish)
    access_log.setLevel(logging.INFO if app.config.get("ACCESS_LOG") else logging.WARNING)
    if app.config.get("LOG_CONFIGURE", True):
        logs.configure(app.config.get("LOG_FORMAT", "text"), app.config.get("LOG_LEVEL", "INFO"))
