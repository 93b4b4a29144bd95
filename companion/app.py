"""The application factory: config, database, translations, security and every blueprint.

The top of the layers (``docs/architecture.md``): nothing of the package imports it; the
``companion`` command and the server receive ``create_app`` from here.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask, g, render_template, request, session
from flask_babel import Babel, get_locale
from flask_wtf.csrf import CSRFError, CSRFProtect

from companion.base import __version__
from companion.base.languages import DEFAULT, LANGUAGES, language_name
from companion.base.limits import NAME_LIMIT, TEXT_LIMIT
from companion.export import DEFAULT_PART_PAGES, rendering
from companion.ops import cli

csrf = CSRFProtect()
babel = Babel()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the application: config, database, translations, security and blueprints."""
    from companion.base.hosts import Companion
    from companion.base.paths import instance_folder, resources

    files = resources()
    app = Companion(
        __name__,
        instance_path=str(instance_folder()),
        instance_relative_config=True,
        template_folder=str(files.templates),
        static_folder=str(files.static),
    )
    _configure(app, test_config)
    from companion.web.shell import echo, path_spelling, polls

    polls.init_app(app)  # in front of the app, behind the proxy fix
    echo.init_app(app)  # in front of those, behind the proxy fix too
    path_spelling.init_app(app)  # in front of all: a path spelt otherwise reaches none
    _trust_proxies(app)
    _init_extensions(app)
    _register_errors(app)
    _front(app)
    return app


def _front(app: Flask) -> None:
    """What answers before everything else: static files, then compression of every answer."""
    from companion.web.shell import compression, font_preload, static_files
    from companion.web.shell.security import hardening

    font_preload.init_app(app)
    static_files.init_app(app, dict(hardening(app.config, private=False)))
    compression.init_app(app)


def _configure(app: Flask, test_config: dict[str, Any] | None) -> None:
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.sqlite3"),
        MAX_CONTENT_LENGTH=4 * 1024 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=True,
        PERMANENT_SESSION_LIFETIME=60 * 60 * 24 * 365,
        # A response sets the cookie only when it changed the session: a poll answered after
        # another request changed it (a hot-seat reveal) must not put the old one back.
        SESSION_REFRESH_EACH_REQUEST=False,
        WTF_CSRF_TIME_LIMIT=None,
        BABEL_DEFAULT_LOCALE="en",
        BABEL_TRANSLATION_DIRECTORIES=str(rendering.TRANSLATIONS),
        PACKS_DIR=str(Path(app.instance_path) / "packs"),
        EXPORTS_DIR=str(Path(app.instance_path) / "exports"),
        EXPORT_WORKERS=1,  # books made at once, by one pool per server
        EXPORT_TIME_LIMIT=300,  # seconds one book may take before it is stopped
        EXPORT_PART_PAGES=DEFAULT_PART_PAGES,  # a longer PDF is laid out in parts; 0: never
        EXPORT_SUPERVISOR="app",  # "server" under `companion serve`: its master runs the pool
        BASE_URL=None,
        RENDER_CACHE_BYTES=19 * 1024 * 1024,  # with every other cache, under 64 MiB a process
        REPLAY_BYTES=1024 * 1024,  # the echo: requests answered again from the page cache; 0: off
        SHARED_RENDER_BYTES=32 * 1024 * 1024,  # pages kept in the store for every server; 0: off
        AHEAD_PAGES=12,  # a stream's pages made again by the process that wrote a change; 0: off
        PROXY_HOPS=0,
        PROXY_PREFIX=0,
        LOG_FORMAT="text",  # or "json": one object per line
        LOG_LEVEL="INFO",
        ACCESS_LOG=False,  # one line per request, links redacted
        TRUST_REQUEST_ID=False,  # take a proxy's X-Request-Id (only if it overwrites a client's)
        METRICS_TOKEN=None,  # set: /metrics answers a scrape that brings it as a bearer token
        LOG_CONFIGURE=test_config is None,  # tests keep pytest's own log capture
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("COMPANION")
    else:
        app.config.from_mapping(test_config)
    from companion.base import bounds, settings

    settings.check(app.config)  # every setting parsed here: a mistake is one sentence
    bounds.check(app.config)
    if not app.config.get("SECRET_KEY"):
        # Read here when it exists; made on first use otherwise (``hosts.Companion``), so a
        # command that only looks (``companion info``) writes nothing into the instance.
        from companion.base.paths import read_secret

        app.config["SECRET_KEY"] = read_secret(Path(app.instance_path))


def _trust_proxies(app: Flask) -> None:
    """Behind PROXY_HOPS reverse proxies, take the client's address, scheme and host from them.

    Only the headers the shipped nginx and Caddy recipes set are trusted: X-Forwarded-For,
    -Proto and -Host (which carries the port). X-Forwarded-Prefix, for a site under a path, is
    trusted only when PROXY_PREFIX says how many proxies set it; X-Forwarded-Port never.
    """
    hops = int(app.config["PROXY_HOPS"])
    prefix = int(app.config["PROXY_PREFIX"])
    if hops > 0 or prefix > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=0, x_prefix=prefix
        )


def select_locale() -> str:
    """The interface language: an explicit choice, then the browser's preference."""
    chosen = (
        request.args.get("lang")
        or session.get("lang")
        or request.environ.get("companion.lang")  # a page made ahead: its visitor's language
        or g.get("content_language")
    )
    if chosen in LANGUAGES:
        return str(chosen)
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT


def _init_extensions(app: Flask) -> None:
    from companion.store import db
    from companion.web.shell import metrics_view, request_log

    request_log.init_app(app)
    metrics_view.init_app(app)
    db.init_app(app)
    csrf.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    rendering.configure_jinja(app)  # as the export worker renders its books
    app.jinja_env.globals["current_locale"] = lambda: str(get_locale() or DEFAULT)
    app.jinja_env.globals["languages"] = LANGUAGES
    app.jinja_env.globals["language_name"] = language_name
    # The forms' maxlength is the limit the server checks.
    app.jinja_env.globals.update(text_limit=TEXT_LIMIT, name_limit=NAME_LIMIT)
    app.jinja_env.globals["companion_version"] = __version__
    from companion import live, web
    from companion.base import hosts
    from companion.export import keeper

    hosts.init_app(app)
    web.init_app(app, csrf)
    cli.init_app(app)
    keeper.init_app(app)
    live.init_app(app)


def _register_errors(app: Flask) -> None:
    log = logging.getLogger("companion")

    @app.errorhandler(404)
    def not_found(_e: Exception) -> tuple[str, int]:
        return render_template("errors/404.html"), 404

    @app.errorhandler(CSRFError)
    def csrf_refused(e: CSRFError) -> Any:
        from companion.web.chronicle.expired_form import csrf_refused as refused

        return refused(str(e.description))

    @app.errorhandler(429)
    def too_many(e: Exception) -> tuple[str, int]:
        return render_template("errors/429.html", reason=getattr(e, "reason", None)), 429

    @app.errorhandler(413)
    def too_large(_e: Exception) -> tuple[str, int]:
        return render_template("errors/413.html"), 413

    @app.errorhandler(500)
    def server_error(e: Exception) -> tuple[str, int]:
        from companion.web.shell.request_log import request_id

        if getattr(e, "original_exception", None) is None:  # else Flask logged it already
            log.exception("server error: %s", e)
        return render_template("errors/500.html", request_id=request_id()), 500

    @app.errorhandler(sqlite3.OperationalError)
    def database_error(e: Exception) -> Any:
        from companion.store.db import unavailable
        from companion.web.shell.unavailable import database_unavailable

        if unavailable(e):
            return database_unavailable(e)
        return server_error(e)

    from companion.store import pg

    if pg.is_url(app.config["DATABASE"]):
        import psycopg

        # The shared store out of reach (refused, dropped, shutting down) answers as SQLite's
        # locked or full file does: 503, nothing kept, try again.
        app.register_error_handler(psycopg.OperationalError, database_error)
        app.register_error_handler(psycopg.InterfaceError, database_error)


main = cli.command_line(create_app)
"""The ``companion`` command (``pyproject.toml``'s entry point)."""
