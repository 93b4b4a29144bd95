"""The live stream of a page: server-sent events carrying the stream's version answer.

``GET /c/<t>/events`` (and ``/t/<t>/events``) answers ``text/event-stream``. Its first event is
what the version endpoint (``/c/<t>/version``) answers now; after that, one event each time
that answer changes, and nothing else but a ``ping`` event every ``HEARTBEAT`` seconds (which
keeps proxies from closing an idle stream and tells the page the stream is alive). The answer is
asked of the version endpoint itself, through the app, with no cookie: whatever that endpoint
adds is pushed as it is, and a stream shows only what the link may see. When the link stops
opening the stream (revoked), the stream sends a ``gone`` event and ends; when the process
stops, it ends, and the browser connects again (``retry``) to another process.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request, url_for
from werkzeug.wrappers import Response

from companion.base import metrics
from companion.store.signal import Listener

from .hub import Hub, Watcher

HEARTBEAT = 20.0  # seconds between pings on a quiet stream
RETRY_MS = 2000  # how long a browser waits before connecting again after a stream ended
# The request's parts an internal version call keeps: where the app is and who asks, in which
# language. No cookie: the answer depends on the link alone.
_KEPT = (
    "SERVER_NAME",
    "SERVER_PORT",
    "SERVER_PROTOCOL",
    "HTTP_HOST",
    "SCRIPT_NAME",
    "REMOTE_ADDR",
    "HTTP_ACCEPT_LANGUAGE",
    "wsgi.url_scheme",
    "wsgi.errors",
    "wsgi.version",
    "wsgi.multithread",
    "wsgi.multiprocess",
    "wsgi.run_once",
)
_KEYED = ("SERVER_NAME", "SERVER_PORT", "HTTP_HOST", "SCRIPT_NAME", "HTTP_ACCEPT_LANGUAGE")
HEADERS = {
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx passes the events on as they come
}


@dataclass(frozen=True)
class Answer:
    """What the version endpoint said: its status and body."""

    status: int
    body: bytes
    content_type: str


class Live:
    """The app's live streams: the hub of this process and the listener that wakes it."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.hub = Hub()
        self.listener: Listener | None = None

    def started(self) -> Hub:
        """The hub, with its listener started on first use (in the process that serves)."""
        if self.listener is None:
            self.listener = Listener(str(self.app.config["DATABASE"]), self.hub.wake).start()
        return self.hub

    def watching(self) -> int:
        """How many streams this process holds open (what a live-watchers gauge reports)."""
        return self.hub.watching()

    def stop(self) -> None:
        """End every open stream and stop listening."""
        self.hub.close()
        if self.listener is not None:
            self.listener.stop()


def init_app(app: Flask) -> None:
    """Give the app its live streams."""
    app.extensions["companion.live"] = Live(app)


def live_of(app: Flask) -> Live:
    """The app's live streams."""
    live: Live = app.extensions["companion.live"]
    return live


def respond(stream_id: str, endpoint: str, **values: Any) -> Response:
    """The event stream for ``stream_id`` whose events are what ``endpoint`` answers.

    When the version endpoint does not answer 200 (the link opens nothing), that answer is
    given instead of a stream.
    """
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    environ = _environ(request.environ, url_for(endpoint, **values), request.script_root)
    key: Hashable = (environ["PATH_INFO"], *(environ.get(k) for k in _KEYED))
    watcher = live_of(app).started().watch(stream_id)
    first = ask(app, environ)
    if first.status != 200:
        watcher.close()
        return Response(first.body, first.status, content_type=first.content_type)
    response = Response(
        _events(app, watcher, key, environ, first), content_type="text/event-stream"
    )
    response.headers.update(HEADERS)
    metrics.watchers(+1)

    def closed() -> None:
        watcher.close()
        metrics.watchers(-1)

    response.call_on_close(closed)
    return response


def _environ(outer: dict[str, Any], path: str, script_root: str) -> dict[str, Any]:
    environ = {name: outer[name] for name in _KEPT if name in outer}
    environ.update(
        {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path[len(script_root) :],
            "QUERY_STRING": "",
            "HTTP_ACCEPT": "application/json",
            "wsgi.input": io.BytesIO(b""),
            "companion.live": True,  # an internal call, not a visitor's request
        }
    )
    return environ


def ask(app: Flask, environ: dict[str, Any]) -> Answer:
    """What the app answers to the internal version request ``environ``."""
    started: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], _exc: Any = None) -> Any:
        started["status"], started["headers"] = status, headers
        return lambda _data: None

    with app.app_context():  # its own ``g``: its own database connection, given back at once
        body = app.wsgi_app(dict(environ, **{"wsgi.input": io.BytesIO(b"")}), start_response)
        try:
            data = b"".join(body)
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
    kind = next((v for k, v in started["headers"] if k.lower() == "content-type"), "")
    return Answer(int(started["status"].split()[0]), data, kind)


def event(data: bytes, name: str | None = None) -> bytes:
    """One server-sent event carrying ``data`` (each of its lines a ``data:`` line)."""
    head = f"event: {name}\n".encode() if name else b""
    lines = data.split(b"\n") if data else [b""]
    return head + b"".join(b"data: " + line + b"\n" for line in lines) + b"\n"


def _events(
    app: Flask, watcher: Watcher, key: Hashable, environ: dict[str, Any], first: Answer
) -> Iterator[bytes]:
    hub = watcher.hub
    yield f"retry: {RETRY_MS}\n".encode() + event(first.body)
    last = first.body
    while not hub.closing:
        if not watcher.wait(HEARTBEAT):
            if hub.recheck_due(time.monotonic()):
                hub.wake(None)
                continue
            yield event(b"", "ping")
            continue
        if hub.closing:
            break
        answer = watcher.answer(key, lambda: ask(app, environ))
        if answer is None or answer.status >= 500:
            continue  # the database is away for a moment: the next change or recheck asks again
        if answer.status != 200:  # the link no longer opens the stream
            yield event(json.dumps({"status": answer.status}).encode(), "gone")
            return
        if answer.body != last:
            last = answer.body
            yield event(answer.body)
