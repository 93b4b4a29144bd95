"""Rate limits through the real server: misses never lock out valid links; uploads are limited.

Each server counts in its own two worker processes (memory storage), so a client may pass up
to twice a limit before every worker refuses it; the tests send well past that.
"""

from __future__ import annotations

import http.client
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_client import SETUP, Browser, Server, request

from companion.store import capabilities
from companion.store.db import connect

GUESS = 4
CREATE = 3


def _server(folder: Path, create: int, guess: int) -> Server:
    env = {
        "COMPANION_RATELIMIT_ENABLED": "true",
        "COMPANION_RATELIMIT_CREATE": str(create),
        "COMPANION_RATELIMIT_GUESS": str(guess),
        # Plain HTTP on loopback: the test client keeps the session cookie only if not Secure.
        "COMPANION_SESSION_COOKIE_SECURE": "false",
    }
    return Server(folder / "limits.sqlite3", env=env).start()


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own, with small limits (counts start at zero)."""
    server = _server(tmp_path, CREATE, GUESS)
    try:
        yield server
    finally:
        server.stop()


def _revoked_reader(server: Server, chronicle_id: str) -> str:
    """A reader link of the chronicle, issued then revoked, as the host's links page does."""
    db = connect(server.database)
    dead = capabilities.issue(db, chronicle_id, "reader")
    assert capabilities.revoke(db, chronicle_id, capabilities.hash_token(dead))
    return dead


def test_a_revoked_link_polling_never_locks_out_the_host(limited: Server) -> None:
    status, body = request(limited.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201
    host = body["host_token"]
    browser = Browser(limited.url)
    dead = _revoked_reader(limited, body["id"])
    # A phone left open on the dead link polls /version: far past the limit in every worker.
    misses = [browser.get(f"/c/{dead}/version").status_code for _ in range(GUESS * 6)]
    assert set(misses) <= {404, 429} and misses[-1] == 429
    refused = browser.get(f"/c/{dead}/version")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    for _ in range(6):
        assert browser.get(f"/c/{host}/version").status_code == 200
        assert browser.get(f"/c/{host}/").status_code == 200
        assert request(limited.port, "GET", f"/api/v1/chronicles/{host}/state")[0] == 200


def _imports(browser: Browser, count: int) -> list[int]:
    statuses = []
    for _ in range(count):
        files = {"backup": ("life.json", io.BytesIO(json.dumps({"not": "a backup"}).encode()))}
        form = {"csrf_token": browser.csrf("/new")}
        statuses.append(browser.post("/import", data=form, files=files).status_code)
    return statuses


def test_imports_are_limited_like_creation(limited: Server) -> None:
    browser = Browser(limited.url)
    statuses = _imports(browser, CREATE * 4)
    assert 429 in statuses and statuses.count(400) <= 2 * CREATE
    refused = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/new")},
        files={"backup": ("life.json", io.BytesIO(b"{}"))},
    )
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "Too many requests" in refused.text


def test_pack_uploads_are_limited_like_creation(limited: Server) -> None:
    browser = Browser(limited.url)
    statuses = []
    for _ in range(CREATE * 4):
        files = {"pack": ("x.en.md", io.BytesIO(b"not a pack"))}
        form = {"csrf_token": browser.csrf("/packs/")}
        statuses.append(browser.post("/packs/upload", data=form, files=files).status_code)
    assert 429 in statuses and statuses.count(400) <= 2 * CREATE


def test_api_creation_refusal_is_json_with_retry_after(limited: Server) -> None:
    answers = [
        request(limited.port, "POST", "/api/v1/chronicles", SETUP)[0] for _ in range(CREATE * 4)
    ]
    assert answers[-1] == 429 and answers.count(201) <= 2 * CREATE

    conn = http.client.HTTPConnection("127.0.0.1", limited.port, timeout=30)
    conn.request(
        "POST", "/api/v1/chronicles", json.dumps(SETUP), {"Content-Type": "application/json"}
    )
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    assert response.status == 429 and body["code"] == "rate-limited"
    assert int(response.getheader("Retry-After", "0")) > 0
