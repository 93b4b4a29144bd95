"""A forged X-Forwarded-Prefix shapes only the page of the request that sent it.

Behind a proxy that mounts the app under a path (``PROXY_PREFIX=1``) the app builds its links
under the prefix the proxy says; a proxy that passes on a client's own header lets the client
say it. A page kept in the render cache once held the prefix of whoever saw it first: one
request with ``X-Forwarded-Prefix: //evil.example`` and every later viewer's links led to that
site. The prefix, host and scheme are part of every kept page's key now.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
from server_client import SETUP, Browser, Server, request

from attacks.test_attack_cached_links import _issue, _play_one_turning_point

TOKEN = r"[A-Za-z0-9_-]{32}"
POISON = {"X-Forwarded-Prefix": "//evil.example", "X-Forwarded-Host": "127.0.0.1"}
TRIES = 4  # fresh connections, so that both workers (each with its own cache) are reached


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("prefix")
    env = {"COMPANION_PROXY_HOPS": "1", "COMPANION_PROXY_PREFIX": "1"}
    server = Server(folder / "prefix.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def _two_alike(server: Server, prefix: str, host: str) -> tuple[str, str]:
    """Two links of one kind (seat 0's), so their pages share every key but the address."""
    browser = Browser(server.url)
    made = {*_issue(browser, f"/{prefix}/{host}/links", {"issue": "seat-0"}, prefix)}
    made |= {*_issue(browser, f"/{prefix}/{host}/links", {"issue": "seat-0"}, prefix)}
    made.discard(host)
    assert len(made) == 2, made
    first, second = sorted(made)
    return first, second


def _get(server: Server, path: str, headers: dict[str, str] | None = None) -> str:
    response = requests.get(server.url + path, headers=headers or {}, timeout=60)
    assert response.status_code == 200, (path, response.status_code)
    return response.text


def _pages(prefix: str, token: str) -> list[str]:
    if prefix == "c":
        return [f"/c/{token}/", f"/c/{token}/?fragment=1", f"/c/{token}/story"]
    return [f"/t/{token}/", f"/t/{token}/?fragment=1"]


def _assert_clean_after_poison(server: Server, prefix: str, host: str) -> None:
    attacker, viewer = _two_alike(server, prefix, host)
    for poisoned, clean in zip(_pages(prefix, attacker), _pages(prefix, viewer), strict=True):
        for _ in range(TRIES):
            assert "//evil.example/" in _get(server, poisoned, POISON)  # their own request
        for _ in range(TRIES):
            page = _get(server, clean)
            assert "evil.example" not in page and '="//' not in page, clean
            links = re.findall(r'(?:href|action)="(/[^"]*)"', page)
            assert links and all(
                link.startswith(f"/{prefix}/{viewer}/") or not link.startswith(f"/{prefix}/")
                for link in links
            ), clean


def test_a_forged_prefix_never_reaches_another_viewers_chronicle_pages(proxied: Server) -> None:
    status, created = request(proxied.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, created
    _play_one_turning_point(proxied.port, created["host_token"])
    _assert_clean_after_poison(proxied, "c", created["host_token"])


def test_a_forged_prefix_never_reaches_another_viewers_table_pages(proxied: Server) -> None:
    browser = Browser(proxied.url)
    seats = {
        "game": "traitors-flame",
        "language": "en",
        "mode": "devices",
        "seat-0-kind": "person",
        "seat-0-name": "Ann",
        "seat-1-kind": "person",
        "seat-1-name": "Bo",
    }
    made = browser.post_form("/games/", seats, token_page="/games/")
    assert made.status_code == 302, made.text[-500:]
    host = re.search(rf"/t/({TOKEN})/", made.headers["Location"]).group(1)  # type: ignore[union-attr]
    _assert_clean_after_poison(proxied, "t", host)
