"""Every path in the one spelling the app writes it in; a path spelt otherwise is refused.

``//c/<link>/``, ``/c//<link>/``, ``/%63/<link>/`` and ``/c/./<link>/`` name the same page to a
server that merges slashes or decodes escapes, and are other strings to every log's redaction:
a link spelt so reached the proxy's log, and the app's own, as it was sent. No page of the app
is ever linked that way, so such a request is answered 400, in front of everything else, with
its access line written as every other (the path's links redacted: ``companion.base.logs``
reads them in any of these spellings too). The shipped nginx and Caddy recipes refuse the same
paths and log them without the path.

Refused, in the path as sent (before ``?``): two slashes in a row, a ``.`` or ``..`` segment,
and a percent-escape of a character that needs none (a letter, a digit, ``-._~``) or of ``/``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from companion.web.shell import request_log
from companion.web.shell.security import hardening

ODD = re.compile(
    r"//|/\.\.?(?:/|$)|%(?:2[def]|3[0-9]|[46][1-9a-f]|[57][0-9a]|5f|7e)", re.IGNORECASE
)
PAGE = (
    "<!doctype html><html><head><meta charset=utf-8><title>400</title></head><body>"
    "<p>This address is not written as the companion writes its addresses."
    ' <a href="/">Start page</a></p>'
    "<p lang=ja>このアドレスはコンパニオンの書き方ではありません。"
    '<a href="/">スタートページ</a></p></body></html>\n'
).encode()


def sent_path(environ: dict[str, Any]) -> str:
    """The path as the client sent it (escapes and all), without its query."""
    raw = str(environ.get("RAW_URI") or environ.get("REQUEST_URI") or environ.get("PATH_INFO", ""))
    if "://" in raw.partition("?")[0]:  # a request for an absolute URL: its path alone
        raw = "/" + raw.partition("://")[2].partition("/")[2]
    return raw.partition("?")[0].partition("#")[0]


def odd(environ: dict[str, Any]) -> bool:
    """Whether the request's path is spelt otherwise than the app spells paths."""
    return ODD.search(sent_path(environ)) is not None


def logged(environ: dict[str, Any]) -> str:
    """What a refused path's access line says of it: the path up to where it stops being
    spelt as the app spells it (``..`` may climb back over any segment, so nothing after
    that point can be told apart from a link)."""
    path = sent_path(environ)
    found = ODD.search(path)
    return (path[: found.start()] if found else path) + "[refused]"


class OneSpelling:
    """WSGI middleware: answers 400 to a path spelt otherwise; passes every other request on."""

    def __init__(self, app: Flask, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.wsgi_app = wsgi_app
        self._headers = hardening(app.config, private=True)
        self._trusted = bool(app.config.get("TRUST_REQUEST_ID", False))

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if environ.get("companion.live") or not odd(environ):
            return self.wsgi_app(environ, start_response)
        started = time.perf_counter()
        rid = request_log.new_id(environ.get("HTTP_X_REQUEST_ID", ""), self._trusted)
        headers = [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", str(len(PAGE))),
            *self._headers,
            ("X-Request-Id", rid),
        ]
        start_response("400 Bad Request", headers)
        method = str(environ.get("REQUEST_METHOD", "GET"))
        seconds = time.perf_counter() - started
        remote = environ.get("REMOTE_ADDR")
        request_log.done(method, logged(environ), "refused-path", 400, seconds, remote, rid)
        return [PAGE]


def init_app(app: Flask) -> None:
    """Refuse oddly spelt paths in front of the app (inside any proxy fix installed after)."""
    app.wsgi_app = OneSpelling(app, app.wsgi_app)  # type: ignore[method-assign]
