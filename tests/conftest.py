"""Shared fixtures: an app on a fresh database, its clients, and a live server for browsers."""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from pg_server import fresh_database, on_postgresql
from playwright.sync_api import expect
from werkzeug.serving import make_server

from companion.app import create_app
from companion.export.vertical import LAUNCH_ARGS

ROOT_FOLDER = Path(__file__).resolve().parent.parent


def plain_static(url: str | None) -> str | None:
    """A static file's address without the digest of its content that pages put in its name
    (``/static/css/app.3f9c2a7b1e04.css`` -> ``/static/css/app.css``)."""
    if url is None:
        return None
    return re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", url)


def make_app(tmp_path: Path, **config: Any) -> Flask:
    """An app whose database and instance files live under ``tmp_path``."""
    settings = {
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "DATABASE": fresh_database(tmp_path / "test.sqlite3"),
        "PACKS_DIR": str(tmp_path / "packs"),
        "EXPORTS_DIR": str(tmp_path / "exports"),
        "WTF_CSRF_ENABLED": False,
        # The test client sends Secure cookies only over https; browsers accept them on loopback.
        "SESSION_COOKIE_SECURE": False,
    }
    settings.update(config)
    return create_app(settings)


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


@pytest.fixture
def csrf_app(tmp_path: Path) -> Flask:
    """An app with CSRF protection switched on, as in production."""
    return make_app(tmp_path, WTF_CSRF_ENABLED=True)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """The app served by a real HTTP server on a free loopback port, with CSRF on."""
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, SESSION_COOKIE_SECURE=True)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


# The offline proofs cut a service worker's own fetches too (Playwright's offline switch does not
# reach them); its requests are routed only with this set before the browser starts.
os.environ.setdefault("PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS", "1")

# The browser tests run beside the rest of the suite on two cores: an assertion waits up to 15 s for
# the page to get there (Playwright's default is 5 s), as an action already waits up to 30 s.
expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Drive Debian's Chromium: a test tool's own browser download is not available."""
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": [*LAUNCH_ARGS, "--disable-quic"],
    }


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On PostgreSQL, skip the tests about the SQLite file itself (marked ``sqlite_only``)."""
    if not on_postgresql():
        return
    skip = pytest.mark.skip(reason="about the SQLite file, not the shared store")
    for item in items:
        if item.get_closest_marker("sqlite_only"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def this_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once per session from a copy of the source."""
    from wheels import SOURCE_IGNORED, build_wheel

    base = tmp_path_factory.mktemp("this-wheel")
    shutil.copytree(ROOT_FOLDER, base / "source", ignore=SOURCE_IGNORED)
    return build_wheel(base / "source", base / "dist")
