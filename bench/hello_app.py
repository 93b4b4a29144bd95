"""The baseline the live benchmarks measure against: a bare WSGI app with no framework.

``/`` answers "hello"; ``/events`` is a minimal server-sent-events feed that sends each number
the bench signals through ``companion.store.signal`` (the same local signal the app uses, with
``HELLO_SIGNAL`` naming its folder), so a bare push and the app's push cross workers the same way.
Served by the same gunicorn worker class and settings as ``companion serve`` (``bench_live.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from companion.store.signal import Listener

_cond = threading.Condition()
_latest = ["0"]
_listener: list[Listener] = []


def _wake(payload: str | None) -> None:
    with _cond:
        if payload is not None:
            _latest[0] = payload
        _cond.notify_all()


def _events() -> Iterator[bytes]:
    seen = _latest[0]
    yield f"data: {seen}\n\n".encode()
    while True:
        with _cond:
            while _latest[0] == seen:
                _cond.wait(20.0)
            seen = _latest[0]
        yield f"data: {seen}\n\n".encode()


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
    """Hello, or the feed of signalled numbers."""
    if environ.get("PATH_INFO") == "/events":
        if not _listener:
            _listener.append(Listener(os.environ["HELLO_SIGNAL"], _wake).start())
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return _events()
    body = b"hello"
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
