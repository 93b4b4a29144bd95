"""Links stay private: no cache keeps a page that holds one, the session cookie shows none,
and the API answers OPTIONS as an API."""

from __future__ import annotations

import base64
import re
import zlib

import pytest
from server_client import SETUP, Browser, Server, request

TOKEN = r"[A-Za-z0-9_-]{32}"


@pytest.fixture(scope="module")
def chronicle(served: Server) -> dict:
    status, created = request(served.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, created
    return created


@pytest.fixture(scope="module")
def table(served: Server) -> str:
    browser = Browser(served.url)
    created = browser.post_form(
        "/games/",
        {
            "game": "traitors-flame",
            "mode": "hotseat",
            "language": "en",
            "seat-0-kind": "person",
            "seat-0-name": "Ann",
            "seat-1-kind": "random",
            "seat-2-kind": "random",
        },
        token_page="/games/",
    )
    assert created.status_code == 302, created.text[:300]
    return re.search(rf"/t/({TOKEN})/", created.headers["Location"]).group(1)


def _no_store(response) -> bool:  # type: ignore[no-untyped-def]
    return "no-store" in response.headers.get("Cache-Control", "")


def test_every_capability_page_is_kept_out_of_caches(
    served: Server, chronicle: dict, table: str
) -> None:
    host, reader = chronicle["host_token"], chronicle["reader_token"]
    browser = Browser(served.url)
    paths = [
        f"/c/{host}/",
        f"/c/{host}/?fragment=1",
        f"/c/{reader}/story",
        f"/c/{host}/end",
        f"/c/{host}/links",
        f"/c/{host}/version",
        f"/c/{host}/export.json",
        f"/c/{host}/export.md",
        f"/t/{table}/",
        f"/t/{table}/?fragment=1",
        f"/t/{table}/links",
        f"/t/{table}/version",
        f"/api/v1/chronicles/{host}/state",
        f"/api/v1/chronicles/{reader}/story",
        f"/c/{'x' * 32}/",  # an unknown link too: its 404 names the link in its URL
    ]
    for path in paths:
        response = browser.get(path)
        assert response.status_code in (200, 404), (path, response.status_code)
        assert _no_store(response), f"{path} may be cached: {response.headers!r}"
    created = browser.post("/api/v1/chronicles", json=SETUP)
    assert created.status_code == 201
    assert _no_store(created), "the answer that carries a new host link may be cached"


def _decoded_session(value: str) -> bytes:
    """Everything a reader of the cookie can get from it without the server's key."""
    payload = value.split(".")[1] if value.startswith(".") else value.split(".")[0]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return zlib.decompress(raw) if value.startswith(".") else raw


def test_the_session_cookie_shows_no_link_and_the_start_page_still_lists_it(
    served: Server, chronicle: dict, table: str
) -> None:
    host = chronicle["host_token"]
    browser = Browser(served.url)
    assert browser.get(f"/c/{host}/").status_code == 200
    assert browser.get(f"/t/{table}/").status_code == 200
    cookie = browser.cookies.get("session")
    assert cookie
    assert host not in cookie and table not in cookie
    decoded = _decoded_session(cookie)
    assert host.encode() not in decoded and table.encode() not in decoded, decoded[:200]
    start = browser.get("/")
    assert start.status_code == 200
    assert _no_store(start), "the start page lists this browser's links"
    assert f'href="/c/{host}/">Kaya</a>' in start.text
    assert f'href="/t/{table}/">' in start.text


def test_options_on_the_api_answers_as_an_api(served: Server, chronicle: dict) -> None:
    browser = Browser(served.url)
    state = browser.options(f"/api/v1/chronicles/{chronicle['host_token']}/state")
    assert state.status_code == 204
    assert {m.strip() for m in state.headers["Allow"].split(",")} == {"GET", "HEAD", "OPTIONS"}
    assert state.content == b""
    create = browser.options("/api/v1/chronicles")
    assert create.status_code == 204
    assert "POST" in create.headers["Allow"] and "DELETE" not in create.headers["Allow"]
    nowhere = browser.options("/api/v1/nowhere")
    assert nowhere.status_code == 404
    assert nowhere.headers["Content-Type"].startswith("application/json")
    assert nowhere.json()["code"] == "not-found"
