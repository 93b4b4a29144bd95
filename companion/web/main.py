"""The start page and site-wide pages."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from urllib.parse import quote, urlsplit

from flask import (
    Blueprint,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from .. import __version__
from ..export.keeper import health
from ..languages import DEFAULT, LANGUAGES
from .access import opened_chronicles

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> str:
    """What this is, a new chronicle, and the chronicles this browser has opened."""
    return render_template("main/index.html", opened=opened_chronicles())


@bp.get("/favicon.ico")
def favicon() -> Response:
    """The site's icon where browsers look for it by default (pages link it from static/)."""
    return current_app.send_static_file("favicon.ico")


HEALTH_WAIT_MS = 1000  # a database that cannot take a write within this long is not healthy
# A database found writable is not asked again for this long (``HEALTH_PROBE_SECONDS``): a
# monitor or a proxy asking many times a second must not take the write lock each time.
HEALTH_PROBE_SECONDS = 1.0


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """For the reverse proxy and monitoring: 200 when the database takes writes and the export
    worker's heartbeat is fresh, else 503; also the benchmarks' hello-world baseline."""
    export_worker, worker_ok, more = health(current_app.config)
    writable = _database_writable()
    healthy = worker_ok and writable
    body = {
        "status": "ok" if healthy else "unavailable",
        "version": __version__,
        "database_writable": writable,
        "export_worker": export_worker,
        **more,
    }
    return jsonify(body), 200 if healthy else 503


class _Probe:
    """The last time the database was found writable, shared by the process's threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.writable_at: float | None = None


def _database_writable() -> bool:
    """Whether the database takes writes: found so within ``HEALTH_PROBE_SECONDS``, or now.

    Only a success is remembered: a database that could not take a write is asked again at the
    next call, so its recovery shows at once."""
    probe: _Probe = current_app.extensions.setdefault("companion.health_probe", _Probe())
    fresh = float(current_app.config.get("HEALTH_PROBE_SECONDS", HEALTH_PROBE_SECONDS))
    seen = probe.writable_at
    if seen is not None and time.monotonic() - seen < fresh:
        return True
    with probe.lock:  # one probe at a time; those who waited see its answer
        seen = probe.writable_at
        if seen is not None and time.monotonic() - seen < fresh:
            return True
        writable = _try_write()
        probe.writable_at = time.monotonic() if writable else None
    return writable


def _try_write() -> bool:
    """Whether a write transaction can start now (the file, its folder and its lock allow it)."""
    from ..db import BUSY_TIMEOUT_MS, get_db, unavailable

    db = get_db()
    if getattr(db, "dialect", "sqlite") == "postgresql":
        try:  # a primary, reachable, that answers within the wait (57014: it did not)
            db.execute(f"SET statement_timeout = {HEALTH_WAIT_MS}")
            row = db.execute("SELECT pg_is_in_recovery()").fetchone()
        except Exception as err:
            if not unavailable(err) and getattr(err, "sqlstate", None) != "57014":
                raise
            return False
        finally:
            with contextlib.suppress(Exception):
                db.execute("SET statement_timeout = 0")
        return not row[0]
    conn = db.conn
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
    return redirect(same_site_path(request.form.get("next", "")) or url_for("main.index"))


def same_site_path(target: str) -> str | None:
    """``target`` if it is a path on this site (quoted for the Location header), else None.

    Refused: control characters (browsers drop tabs, so ``/<tab>/evil`` would be ``//evil``),
    backslashes (read as slashes), and anything that is not one leading slash then a path.
    """
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in target) or "\\" in target:
        return None
    quoted = quote(target, safe="/?&=#%:@!$'()*+,;~")
    parts = urlsplit(quoted)
    if not quoted.startswith("/") or quoted.startswith("//") or parts.scheme or parts.netloc:
        return None
    return quoted


@bp.post("/demo")
def demo() -> Response:
    """Open a fresh copy of the sample life, to read and to try."""
    from .. import ratelimit
    from ..db import get_db
    from ..demo import create_demo
    from .access import remember

    ratelimit.check_creation()
    language = request.form.get("lang", DEFAULT)
    if language not in LANGUAGES:
        language = DEFAULT
    created = create_demo(get_db(), language)
    url = url_for("chronicle.play", token=created.host_token)
    remember(url)
    return redirect(url_for("story.log", token=created.host_token))
