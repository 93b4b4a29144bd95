"""``/metrics``: the figures of ``companion.base.metrics`` for a scraper that holds ``METRICS_TOKEN``."""

from __future__ import annotations

import hmac

from flask import Flask, current_app, request
from werkzeug.wrappers import Response

from companion.base.metrics import enable, exposition
from companion.store.db import get_db
from companion.web.shell.server_figures import ServerFigures


def _scrape() -> Response:
    wanted = _token_of(request.headers.get("Authorization", ""))
    expected = str(current_app.config["METRICS_TOKEN"])
    if not hmac.compare_digest(wanted.encode(), expected.encode()):
        response = Response("A bearer token is needed.\n", 401, mimetype="text/plain")
        response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    db = get_db()
    body, kind = exposition(db, ServerFigures(current_app._get_current_object(), db))  # type: ignore[attr-defined]
    return Response(body, content_type=kind)


def _token_of(header: str) -> str:
    return header[7:].strip() if header[:7].lower() == "bearer " else ""


def init_app(app: Flask) -> None:
    """Serve ``/metrics`` behind ``METRICS_TOKEN``; without it, count nothing and answer 404."""
    if app.config.get("METRICS_TOKEN"):
        enable()
        app.add_url_rule("/metrics", "metrics", _scrape)
