"""The start page and site-wide pages."""

from __future__ import annotations

import sqlite3

from flask import Blueprint, jsonify, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from .. import LANGUAGES

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> str:
    """What this is, a new chronicle, and the chronicles this browser has opened."""
    opened = session.get("opened", [])
    return render_template("main/index.html", opened=opened)


HEALTH_WAIT_MS = 1000  # a database that cannot take a write within this long is not healthy


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """For the reverse proxy and monitoring: 200 when the database takes writes, else 503."""
    writable = _database_writable()
    body = {"status": "ok" if writable else "unavailable", "database_writable": writable}
    return jsonify(body), 200 if writable else 503


def _database_writable() -> bool:
    """Whether a write transaction can start now (the file, its folder and its lock allow it)."""
    from ..db import BUSY_TIMEOUT_MS, get_db

    conn = get_db().conn
    try:
        conn.execute(f"PRAGMA busy_timeout = {HEALTH_WAIT_MS}")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return True


@bp.post("/language")
def set_language() -> Response:
    """Switch the interface language and go back where the reader was."""
    lang = request.form.get("lang", "")
    if lang in LANGUAGES:
        session["lang"] = lang
        session.permanent = True
    target = request.form.get("next", "")
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("main.index")
    return redirect(target)


@bp.post("/demo")
def demo() -> Response:
    """Open a fresh copy of the sample life, to read and to try."""
    from .. import ratelimit
    from ..db import get_db
    from ..demo import create_demo
    from .access import remember

    ratelimit.check_creation()
    language = request.form.get("lang", "en")
    if language not in LANGUAGES:
        language = "en"
    created = create_demo(get_db(), language)
    url = url_for("chronicle.play", token=created.host_token)
    remember(url, "Akane" if language == "en" else "朱音", "host")
    return redirect(url_for("story.log", token=created.host_token))
