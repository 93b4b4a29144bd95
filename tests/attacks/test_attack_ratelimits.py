"""Rate limits through the real server: misses never lock out valid links; uploads are limited.

Each server counts in its own two worker processes (memory storage), so a client may pass up
to twice a limit before every worker refuses it; the tests send well past that, and since either
worker may take any one connection, they look at every answer rather than the last one.
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
    misses = [browser.get(f"/c/{dead}/version") for _ in range(GUESS * 6)]
    statuses = [miss.status_code for miss in misses]
    assert set(statuses) <= {404, 429} and statuses.count(404) <= 2 * GUESS
    assert all(int(m.headers["Retry-After"]) > 0 for m in misses if m.status_code == 429)
    for _ in range(6):
        assert browser.get(f"/c/{host}/version").status_code == 200
        assert browser.get(f"/c/{host}/").status_code == 200
        assert request(limited.port, "GET", f"/api/v1/chronicles/{host}/state")[0] == 200


def test_imports_are_limited_like_creation(limited: Server) -> None:
    browser = Browser(limited.url)
    answers = []
    for _ in range(CREATE * 4):
        files = {"backup": ("life.json", io.BytesIO(json.dumps({"not": "a backup"}).encode()))}
        form = {"csrf_token": browser.csrf("/new")}
        answers.append(browser.post("/import", data=form, files=files))
    statuses = [answer.status_code for answer in answers]
    # A backup that is not one goes back to the start page, which says why (303).
    assert set(statuses) <= {303, 429} and statuses.count(303) <= 2 * CREATE
    for refused in (answer for answer in answers if answer.status_code == 429):
        assert int(refused.headers["Retry-After"]) > 0 and "Too many requests" in refused.text


def test_pack_uploads_are_limited_like_creation(limited: Server) -> None:
    browser = Browser(limited.url)
    statuses = []
    for _ in range(CREATE * 4):
        files = {"pack": ("x.en.md", io.BytesIO(b"not a pack"))}
        form = {"csrf_token": browser.csrf("/packs/")}
        statuses.append(browser.post("/packs/upload", data=form, files=files).status_code)
    assert set(statuses) <= {400, 429} and statuses.count(400) <= 2 * CREATE


def _create(port: int) -> tuple[int, dict[str, object], str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            "POST", "/api/v1/chronicles", json.dumps(SETUP), {"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read()), response.getheader("Retry-After")
    finally:
        conn.close()


def test_api_creation_refusal_is_json_with_retry_after(limited: Server) -> None:
    answers = [_create(limited.port) for _ in range(CREATE * 4)]
    statuses = [status for status, _, _ in answers]
    assert set(statuses) <= {201, 429} and statuses.count(201) <= 2 * CREATE
    for _, body, retry_after in (answer for answer in answers if answer[0] == 429):
        assert body["code"] == "rate-limited" and int(retry_after or "0") > 0
