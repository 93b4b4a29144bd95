"""A forged Host header never lands in a link or a QR code: refused, or replaced by the base URL."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator

import pytest
from server_client import SETUP, Browser, Server

GAME = "traitors-flame"


def _ask(server: Server, method: str, path: str, host: str, body: object = None):  # type: ignore[no-untyped-def]
    """One request naming ``host`` in its Host header; the status and the decoded body."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        headers = {"Host": host, "Content-Type": "application/json"}
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def based(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose links must say https://play.example."""
    folder = tmp_path_factory.mktemp("based")
    # Plain HTTP on loopback: the test client keeps the session cookie only if not Secure.
    env = {"COMPANION_BASE_URL": "https://play.example", "COMPANION_SESSION_COOKIE_SECURE": "false"}
    server = Server(folder / "based.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_forged_host_is_refused_by_plain_serve(served: Server) -> None:
    status, _ = _ask(served, "POST", "/api/v1/chronicles", "evil.example", SETUP)
    assert status == 400
    status, page = _ask(served, "GET", "/", "evil.example")
    assert status == 400 and "evil.example" not in page


def test_links_name_the_address_that_was_opened(served: Server) -> None:
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
        status, body = _ask(served, "POST", "/api/v1/chronicles", host, SETUP)
        assert status == 201
        assert json.loads(body)["links"]["host"].startswith(f"http://{host}/c/")


def test_links_and_qr_codes_come_from_the_base_url(based: Server) -> None:
    status, body = _ask(based, "POST", "/api/v1/chronicles", f"127.0.0.1:{based.port}", SETUP)
    assert status == 201
    created = json.loads(body)
    assert created["links"]["host"].startswith("https://play.example/c/")
    assert created["links"]["api"].startswith("https://play.example/api/")
    token = created["host_token"]
    status, page = _ask(based, "GET", f"/c/{token}/links", "play.example")
    assert status == 200
    assert f"https://play.example/c/{token}/" in page
    status, page = _ask(based, "GET", f"/c/{token}/links", "evil.example")
    assert status == 400 and "evil.example" not in page


def test_table_links_come_from_the_base_url(based: Server) -> None:
    browser = Browser(based.url)
    seats = {
        "seat-0-kind": "person",
        "seat-0-name": "Ann",
        "seat-1-kind": "person",
        "seat-1-name": "Bo",
    }
    form = {"game": GAME, "language": "en", "mode": "devices", **seats}
    created = browser.post_form("/games/", form, token_page="/games/")
    assert created.status_code == 302
    token = re.search(r"/t/([^/]+)/", created.headers["Location"]).group(1)  # type: ignore[union-attr]
    posted = browser.post_form(f"/t/{token}/links", {}, token_page=f"/t/{token}/links")
    sheet = browser.followed(posted)
    assert len(re.findall(r"https://play\.example/t/[A-Za-z0-9_-]+/", sheet)) >= 3
    assert f"127.0.0.1:{based.port}" not in sheet
    forged = browser.get(f"/t/{token}/links", headers={"Host": "evil.example"})
    assert forged.status_code == 400 and "evil.example" not in forged.text
