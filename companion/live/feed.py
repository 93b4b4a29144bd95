"""The live feed of a page: server-sent events carrying its stream's version answer.

``GET /c/<t>/events`` (and ``/t/<t>/events``) answers ``text/event-stream``. Its first event is
what the version endpoint (``/c/<t>/version``) answers now; after that, one event each time
that answer changes, and nothing else but a ``ping`` event every ``HEARTBEAT`` seconds (which
keeps proxies from closing an idle feed and tells the page the feed is alive). The answer is
asked of the version endpoint itself, through the app, with no cookie: whatever that endpoint
adds is pushed as it is, and a feed shows only what the link may see. When the link stops
opening the stream (revoked), the feed sends a ``gone`` event and ends; when the process
stops, it ends, and the browser connects again (``retry``) to another process.

A page may ask for its live part with the changes (``Part``: the chronicle's play page and
story). Then a change whose part the app could make from its page cache comes as one ``part``
event instead: the version answer and the part's HTML in pieces, with the places of the
viewer's secrets (its CSRF token, its link) left for the page to fill with its own. So the
event is the same bytes for every watcher of that link and language, made once per change and
process, and holds no secret; the page needs no second request to show the change. A part the
cache cannot give (a page showing a link's own kept words) is not pushed: the page fetches it.

What a feed may hold is bounded (``companion/base/bounds.py``): so many feeds a link and a
client address (``companion.live.holders``; past either, 429 and the page polls), two events
``STREAM_PART_SECONDS`` apart at least, and, under gunicorn, a kernel queue of
``STREAM_SEND_BYTES`` that a write waits on for ``STREAM_WRITE_SECONDS`` at most before the
server resets the connection (``companion.ops.server``).
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from flask import Flask, current_app, request, session, url_for
from werkzeug.wrappers import Response

from companion.base import bounds, metrics
from companion.base.languages import LANGUAGES
from companion.store.signal import Listener

from .holders import Holders
from .hub import Hub, Watcher

HEARTBEAT = 20.0  # seconds between pings on a quiet feed
RETRY_MS = 2000  # how long a browser waits before connecting again after a feed ended
REFUSED_RETRY = 60  # seconds a feed refused for its bounds says to wait (the page polls)
# The request's parts an internal version call keeps: where the app is and who asks. No cookie
# and no language: the answer depends on the link alone (a part's language is the one the app
# chose for the viewer, given in its query).
_KEPT = (
    "SERVER_NAME",
    "SERVER_PORT",
    "SERVER_PROTOCOL",
    "HTTP_HOST",
    "SCRIPT_NAME",
    "REMOTE_ADDR",
    "wsgi.url_scheme",
    "wsgi.errors",
    "wsgi.version",
    "wsgi.multithread",
    "wsgi.multiprocess",
    "wsgi.run_once",
)
KEYED = ("SERVER_NAME", "SERVER_PORT", "HTTP_HOST", "SCRIPT_NAME")  # where a page is served
LIVE = "companion.live"  # in an internal request's environ (never a visitor's)
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


# What the app kept of a page it just made for an internal request (its environ): the page's
# pieces, each secret's place as its index into the names given beside them; None: not kept.
PartsOf = Callable[[Flask, dict[str, Any]], "tuple[list[str | int], tuple[str, ...]] | None"]


@dataclass(frozen=True)
class Part:
    """The live part of a page, pushed with each change: the path (and query) the page fetches
    it at, and how to read back the pieces the app kept of it."""

    path: str
    parts_of: PartsOf


class Live:
    """The app's live feeds: the hub of this process and the listener that wakes it."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.hub = Hub()
        self.listener: Listener | None = None
        config = app.config
        self.holders = Holders(
            bounds.whole(config, "STREAMS_PER_LINK"), bounds.whole(config, "STREAMS_PER_ADDRESS")
        )
        self.write_seconds = bounds.number(config, "STREAM_WRITE_SECONDS")
        self.send_bytes = bounds.whole(config, "STREAM_SEND_BYTES")
        self.gap = bounds.number(config, "STREAM_PART_SECONDS")

    def started(self) -> Hub:
        """The hub, with its listener started on first use (in the process that serves)."""
        if self.listener is None:
            self.listener = Listener(str(self.app.config["DATABASE"]), self.hub.wake).start()
        return self.hub

    def watching(self) -> int:
        """How many feeds this process holds open (what a live-watchers gauge reports)."""
        return self.hub.watching()

    def stop(self) -> None:
        """End every open feed and stop listening."""
        self.hub.close()
        if self.listener is not None:
            self.listener.stop()


def init_app(app: Flask) -> None:
    """Give the app its live feeds."""
    app.extensions["companion.live"] = Live(app)


def live_of(app: Flask) -> Live:
    """The app's live feeds."""
    live: Live = app.extensions["companion.live"]
    return live


def respond(
    stream_id: str, endpoint: str, part: Part | None = None, *, link: str, **values: Any
) -> Response:
    """The live feed of ``stream_id`` whose events are what ``endpoint`` answers, with
    ``part`` pushed beside each change when the page asked for it. ``link`` names the link
    that opens it (its hash, never the token): its feeds are counted, as the client
    address's are, and past either bound (``STREAMS_PER_LINK``, ``STREAMS_PER_ADDRESS``) the
    feed is refused with 429 (the page polls instead).

    When the version endpoint does not answer 200 (the link opens nothing), that answer is
    given instead of a feed.
    """
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    live = live_of(app)
    environ = _environ(request.environ, url_for(endpoint, **values), request.script_root)
    # The watchers' shared answers are keyed by the link's paths as digests: a token is kept
    # in no key, here or in the page cache (whose keys name the role, never the link).
    key: Hashable = (_digest(environ["PATH_INFO"]), *(environ.get(k) for k in KEYED))
    pushed = None
    if part is not None:  # the part in the viewer's language, asked with no cookie
        path, _, query = part.path.partition("?")
        chosen = request.args.get("lang") or session.get("lang")  # as the page chooses
        lang = f"lang={chosen}" if chosen in LANGUAGES else ""
        part_environ = _environ(request.environ, path, request.script_root)
        asked = "&".join(q for q in (query, lang) if q)
        part_environ.update(QUERY_STRING=asked, HTTP_ACCEPT="text/html")
        pushed = Pushed(part, part_environ, (key, _digest(path), query, lang))
    address = request.remote_addr or "-"
    if not live.holders.take(link, address):
        return _refused()
    try:
        watcher, first = _watch(live, stream_id, environ)
    except BaseException:
        live.holders.give_back(link, address)
        raise
    if first.status != 200:  # no feed: what it took is given back
        watcher.close()
        live.holders.give_back(link, address)
        return Response(first.body, first.status, content_type=first.content_type)
    connection = _bounded(request.environ, live)
    events = _events(app, watcher, key, environ, first, pushed, live.gap)
    response = Response(events, content_type="text/event-stream")
    response.headers.update(HEADERS)
    metrics.watchers(+1)

    def closed() -> None:
        watcher.close()
        live.holders.give_back(link, address)
        metrics.watchers(-1)
        if connection is not None:  # it may serve another request: as it was
            connection.settimeout(None)

    response.call_on_close(closed)
    return response


def _watch(live: Live, stream_id: str, environ: dict[str, Any]) -> tuple[Watcher, Answer]:
    """A watcher of ``stream_id`` and the first answer for it: this visitor's own (a refusal in
    its language), never shared."""
    watcher = live.started().watch(stream_id)
    said = request.environ.get("HTTP_ACCEPT_LANGUAGE")
    try:
        first = ask(live.app, {**environ, **({"HTTP_ACCEPT_LANGUAGE": said} if said else {})})
    except BaseException:
        watcher.close()
        raise
    return watcher, first


def _digest(path: str) -> str:
    """A path that holds a link's token, as a key that does not."""
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()


def _refused() -> Response:
    """429 for a feed past its link's or its address's bound: the page polls instead."""
    # The code keeps its older word: clients match on it (the sentence may change).
    body = json.dumps({"error": "too many live feeds", "code": "too-many-streams"})
    response = Response(body, 429, content_type="application/json")
    response.headers.update({**HEADERS, "Retry-After": str(REFUSED_RETRY)})
    return response


def _bounded(environ: dict[str, Any], live: Live) -> Any:
    """The feed's socket, when the server gives it (gunicorn does), bounded: the kernel queues
    at most ``STREAM_SEND_BYTES`` for it, and a write that waits ``STREAM_WRITE_SECONDS`` for a
    client that does not read fails (the server closes the connection; a browser connects
    again). None under a server that gives no socket."""
    connection = environ.get("gunicorn.socket")
    if connection is None or environ.get("SERVER_PROTOCOL", "").startswith("HTTP/2"):
        return None  # an HTTP/2 connection carries other requests: left as it is
    try:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, live.send_bytes)
        connection.settimeout(live.write_seconds)
    except (OSError, AttributeError):
        return None
    return connection


def _environ(outer: dict[str, Any], path: str, script_root: str) -> dict[str, Any]:
    return internal(outer, path[len(script_root) :])


def internal(
    outer: dict[str, Any], path_info: str, query: str = "", accept: str = "application/json"
) -> dict[str, Any]:
    """An internal GET of ``path_info`` (below the app's root) made from the request ``outer``:
    its address and server, never its cookie or its headers."""
    environ = {name: outer[name] for name in _KEPT if name in outer}
    environ.update(
        {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path_info,
            "QUERY_STRING": query,
            "HTTP_ACCEPT": accept,
            "wsgi.input": io.BytesIO(b""),
            LIVE: True,  # an internal call, not a visitor's request
        }
    )
    return environ


@dataclass(frozen=True)
class Pushed:
    """A feed's part: what it is, the internal request for it, and the key its watchers
    share one event under."""

    part: Part
    environ: dict[str, Any]
    key: Hashable

    def event(self, app: Flask, answer: Answer) -> bytes | None:
        """The ``part`` event for the change ``answer`` tells of, or None when the app did not
        make the part from its page cache (the page fetches it then)."""
        environ = dict(self.environ)
        made = ask(app, environ)
        kept = self.part.parts_of(app, environ) if made.status == 200 else None
        if kept is None:
            return None
        parts, secrets = kept
        said = {"answer": json.loads(answer.body), "parts": parts, "secrets": secrets}
        data = json.dumps(said, ensure_ascii=False, separators=(",", ":")).encode()
        return event(data, "part")


def ask(app: Flask, environ: dict[str, Any]) -> Answer:
    """What the app answers to the internal request ``environ`` (a version, or a part); the
    app may mark ``environ`` with what it kept of the answer."""
    started: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], _exc: Any = None) -> Any:
        started["status"], started["headers"] = status, headers
        return lambda _data: None

    with app.app_context():  # its own ``g``: its own database connection, given back at once
        environ["wsgi.input"] = io.BytesIO(b"")
        body = app.wsgi_app(environ, start_response)
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
    app: Flask,
    watcher: Watcher,
    key: Hashable,
    environ: dict[str, Any],
    first: Answer,
    pushed: Pushed | None,
    gap: float,
) -> Iterator[bytes]:
    """The feed's events; two of them at least ``gap`` seconds apart, so changes that come
    faster (a text typed on another device) are told once, as they stand by then."""
    hub = watcher.hub
    yield f"retry: {RETRY_MS}\n".encode() + event(first.body)
    last, told = first.body, time.monotonic()
    while not hub.closing:
        if not watcher.wait(HEARTBEAT):
            if hub.recheck_due(time.monotonic()):
                hub.wake(None)
                continue
            yield event(b"", "ping")
            continue
        if hub.closing:
            break
        wait = told + gap - time.monotonic()
        if wait > 0:
            time.sleep(wait)  # a gevent sleep under the server: others are served meanwhile
            if hub.closing:
                break
        answer = watcher.answer(key, lambda: ask(app, dict(environ)))
        if answer is None or answer.status >= 500:
            continue  # the database is away for a moment: the next change or recheck asks again
        if answer.status != 200:  # the link no longer opens the stream
            yield event(json.dumps({"status": answer.status}).encode(), "gone")
            return
        if answer.body != last:
            last = answer.body
            part = None
            if pushed is not None:  # made once per change for every watcher of the same part
                part = watcher.answer(pushed.key, partial(pushed.event, app, answer))
            yield part or event(answer.body)
            told = time.monotonic()
