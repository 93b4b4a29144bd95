"""The answer while the database cannot be used (locked, read-only, full): 503, try again later.

Nothing the request meant to write was saved, and the answer says so; no page claims otherwise.
The faulty connection is dropped so the next request opens a fresh one.
"""

from __future__ import annotations

import logging

from flask import jsonify, make_response, render_template, request
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion.base import logs, metrics
from companion.store.db import UNAVAILABLE_CODES, discard_db

log = logging.getLogger("companion.store.db")
RETRY_AFTER_SECONDS = 10


def wants_html() -> bool:
    """Whether the client asked for a page (a browser's navigation) rather than data."""
    accept = request.accept_mimetypes
    return "api" not in request.blueprints and accept["text/html"] > accept["application/json"]


def database_unavailable(err: Exception) -> Response:
    """503 with Retry-After: a page for a browser, ``{"error", "code"}`` for scripts and the API."""
    discard_db()
    code = getattr(err, "sqlite_errorcode", None)
    kind = UNAVAILABLE_CODES.get(code & 0xFF, "") if isinstance(code, int) else ""
    kind = kind or str(getattr(err, "sqlstate", None) or "")
    metrics.unavailable(kind)
    log.warning(
        "database unavailable (%s: %s) on %s %s", kind, err, request.method, logs.request_path()
    )
    if wants_html():
        response = make_response(render_template("errors/503.html"))
    else:
        message = _(
            "The chronicles cannot be saved right now, so nothing from this request was kept. Try again in a few seconds."
        )
        response = jsonify(error=message, code="database-unavailable")
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
