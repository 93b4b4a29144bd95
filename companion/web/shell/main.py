"""The start page and site-wide pages."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any
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
from flask_babel import force_locale, get_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion.base import __version__
from companion.base.languages import DEFAULT, LANGUAGES
from companion.export.keeper import health
from companion.web.shell.access import opened_chronicles

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> str:
    """What this is, a new chronicle, and the chronicles this browser has opened."""
    return render_template("main/index.html", opened=opened_list())


def opened_list() -> list[dict[str, Any]]:
    """The chronicles and tables this browser opened, most recently changed first, each with
    who this browser is there (host, a seat's player, a reader) and whether it has ended."""
    items = [item | _standing(item) for item in opened_chronicles()]
    return sorted(items, key=lambda item: str(item["updated"]), reverse=True)


def _standing(item: dict[str, Any]) -> dict[str, Any]:
    """The seat's name and whether the life (or the match) is over, as the stream stands."""
    from companion.store.db import get_db
    from companion.streams import chronicles, matches

    seat, db = item["seat"], get_db()
    try:
        if item["kind"] == chronicles.KIND:
            state = chronicles.load(db, item["stream_id"]).state
            names, ended = list(state.setup.players), state.ended
        else:
            match = matches.load(db, item["stream_id"])
            names = match.names()
            ended = match.game.result(match.state) is not None
    except (ValueError, LookupError):  # a damaged record keeps its row; its link still opens
        return {"seat_name": None, "ended": None, "changed": _when(item["updated"])}
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    return {"seat_name": name, "ended": ended, "changed": _when(item["updated"])}


def _when(stamp: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(stamp))
    except ValueError:
        return None


@bp.get("/favicon.ico")
def favicon() -> Response:
    """The site's icon where browsers look for it by default (pages link it from static/)."""
    return current_app.send_static_file("favicon.ico")


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """What a phone needs to install the companion as an app: its name in the reader's
    language (``?lang=``), its icons and where it starts."""
    icon = "icons/icon-{0}.png"
    body = {
        "name": _("Ijinshō companion"),
        "short_name": _("Ijinshō"),
        "description": _(
            "Write a whole life, one turning point at a time, with friends at one table."
        ),
        "lang": str(get_locale()),
        # One app whatever page it was installed from, and whatever language it speaks.
        "id": url_for("main.index"),
        "start_url": url_for("main.index"),
        "scope": url_for("main.index"),
        "display": "standalone",
        "background_color": "#f6f1e7",
        "theme_color": "#8a3b12",
        "icons": [
            {
                "src": url_for("static", filename=icon.format(size)),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "any",
            }
            for size in (192, 512)
        ]
        + [
            {
                # The mark inside the safe circle, on a full square: the phone cuts its own shape.
                "src": url_for("static", filename="icons/maskable-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            }
        ],
    }
    response = current_app.response_class(
        json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json"
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


# The app's shell, which the service worker installs once and serves from its cache: the files
# every page is made of (the screen's font slices are kept as pages ask for them, not all at
# once: a phone downloads only the characters it shows).
SHELL = (
    "css/app.css",
    "fonts/screen/faces.css",
    "css/traitors-flame.css",
    "css/age-of-summoners.css",
    "js/site.js",
    "js/keep.js",
    "js/live.js",
    "js/play.js",
    "js/links.js",
    "js/exports.js",
    "js/offline.js",
    "favicon.svg",
    "icons/icon-192.png",
)


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the site's root so that it may answer for every page
    with the app's own offline page, with the versioned shell it installs written in. Checked
    for a new version at every visit (no-cache, with an ETag)."""
    from companion.web.shell.static_files import digest_of

    root = request.script_root + "/"
    digests = current_app.extensions["companion.static_digests"]
    files = [
        url_for("static", filename=name).removeprefix(root)
        for name in SHELL
        if digests.of(name) is not None
    ]
    listed = json.dumps(files)
    version = digest_of(listed.encode())
    source = Path(str(current_app.static_folder), "js", "sw.js").read_text("utf-8")
    body = source.replace('/*VERSION*/"dev"', json.dumps(version)).replace("/*SHELL*/[]", listed)
    response = current_app.response_class(body, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(version + digest_of(body.encode()))
    return response.make_conditional(request)


@bp.get("/offline")
def offline() -> str:
    """The page the service worker shows when a page cannot be reached: what happened, in
    every language (the reader's first), and that the words typed are kept. It holds nothing
    of any chronicle."""
    words = {}
    for code in LANGUAGES:
        with force_locale(code):
            words[code] = {
                "title": _("This device is offline"),
                "page": _(
                    "This page could not be opened: the device cannot reach the server right now."
                ),
                "sent": _("What you pressed was not sent. Nothing has changed at the table."),
                "kept": _(
                    "The words you typed are kept on this device and come back when you open the page again."
                ),
                "again": _("Try again"),
                "send": _("Send it now"),
                "yours": _("What you wrote, kept here:"),
                "back": _(
                    "Once the device is back online, open the page again, or send what you pressed with the button below: it is never sent by itself."
                ),
            }
    first = str(
        get_locale()
    )  # the device's language first (the worker fetches it as the phone asks)
    order = sorted(LANGUAGES, key=lambda code: code != first)
    return render_template("main/offline.html", words=words, languages=order)


HEALTH_WAIT_MS = 1000  # a database that cannot take a write within this long is not healthy
# A database found writable is not asked again for this long (``HEALTH_PROBE_SECONDS``): a
# monitor or a proxy asking many times a second must not take the write lock each time.
HEALTH_PROBE_SECONDS = 1.0
# The trial write: a row as big as a few pages, so a file that cannot grow refuses it at once.
PROBE_BYTES = 16 * 1024


@bp.get("/readyz")
def readyz() -> tuple[Response, int]:
    """For the reverse proxy: 200 when the database takes a write, else 503; nothing else.

    The export worker, the exports folder and the queue are ``/healthz``'s: a proxy that took
    the site down when only the book worker is unwell would turn a late book into an outage."""
    writable = database_writable()
    body = {"status": "ready" if writable else "unavailable", "database_writable": writable}
    return jsonify(body), 200 if writable else 503


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """For monitoring: 200 when the database takes writes and the export worker's heartbeat is
    fresh, else 503; also the benchmarks' hello-world baseline."""
    export_worker, worker_ok, more = health(current_app.config)
    writable = database_writable()
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


def database_writable() -> bool:
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


# A row of ``held_forms`` that no form ever has (their ids are random hex), written and rolled
# back: starting a write transaction succeeds on a file made read-only under an open connection,
# or on one that is full, while every real write is refused.
_PROBE_ROW = (
    "INSERT INTO held_forms (id, kind, data, created) VALUES ('readiness-probe', 'probe', ?, '')"
)


def _try_write() -> bool:
    """Whether the database takes a real write now (made, then rolled back: nothing is kept)."""
    from companion.store.db import BUSY_TIMEOUT_MS, get_db, unavailable

    db = get_db()
    payload = "x" * PROBE_BYTES
    if getattr(db, "dialect", "sqlite") == "postgresql":
        try:  # a primary, reachable, that takes a write within the wait (57014: it did not)
            db.execute(f"SET statement_timeout = {HEALTH_WAIT_MS}")
            db.conn.execute("BEGIN")
            try:
                db.execute(_PROBE_ROW, [payload])
            finally:
                db.conn.rollback()
        except Exception as err:
            if not unavailable(err) and getattr(err, "sqlstate", None) not in (
                "57014",  # the wait ran out
                "25006",  # a read-only transaction (a standby, or default_transaction_read_only)
                "53100",  # the disk is full
            ):
                raise
            return False
        finally:
            with contextlib.suppress(Exception):
                db.execute("SET statement_timeout = 0")
        return True
    conn = db.conn
    try:
        conn.execute(f"PRAGMA busy_timeout = {HEALTH_WAIT_MS}")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(_PROBE_ROW, [payload])
        finally:
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
    from companion.store.db import get_db
    from companion.streams.demo import create_demo
    from companion.web.shell import ratelimit
    from companion.web.shell.access import remember

    ratelimit.check_creation()
    language = request.form.get("lang", DEFAULT)
    if language not in LANGUAGES:
        language = DEFAULT
    created = create_demo(get_db(), language)
    url = url_for("chronicle.play", token=created.host_token)
    remember(url)
    return redirect(url_for("story.log", token=created.host_token))
