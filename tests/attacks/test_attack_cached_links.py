"""A page seen through one link never shows another link's token, whoever looked first.

Pages are cached per chronicle version; a cached page that kept the first viewer's token in
its links handed a seat (or a reader) the host link. Each ordered pair of links of one
chronicle or table looks at every page, the second right after the first, on a fresh version.
Each page answers as the link allows: 200 where the link opens it, 404 where it may not.
"""

from __future__ import annotations

import random
import re

import pytest
from server_client import SETUP, Browser, Server, next_command, request, send

TOKEN = r"[A-Za-z0-9_-]{32}"
TRIES = 2  # per link and page: two workers, each with its own cache


def _issue(browser: Browser, path: str, data: dict[str, str], prefix: str) -> list[str]:
    page = browser.followed(browser.post_form(path, data, token_page=path))
    return re.findall(rf"/{prefix}/({TOKEN})/", page)


def _play_one_turning_point(port: int, token: str) -> dict:
    rng = random.Random(7)
    for _ in range(60):
        _status, story = request(port, "GET", f"/api/v1/chronicles/{token}/story")
        points = [p for c in story["chapters"] for p in c["turning_points"]]
        if points and points[0]["answer"] and points[0]["outcome"]:
            return points[0]
        _status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
        command = next_command(state, rng)
        status, body = send(port, token, state["version"], command)
        assert status == 200, body
    raise AssertionError("no turning point was played")


@pytest.fixture(scope="module")
def chronicle(served: Server) -> dict:
    status, created = request(served.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, created
    host = created["host_token"]
    point = _play_one_turning_point(served.port, host)
    browser = Browser(served.url)
    seat0 = _issue(browser, f"/c/{host}/links", {"issue": "seat-0"}, "c")
    seat0_again = _issue(browser, f"/c/{host}/links", {"issue": "seat-0"}, "c")
    seat1 = _issue(browser, f"/c/{host}/links", {"issue": "seat-1"}, "c")
    seats = [t for t in dict.fromkeys([*seat0, *seat0_again, *seat1]) if t != host]
    assert len(seats) == 3, seats
    return {
        "host": host,
        "roles": {host: "host", created["reader_token"]: "reader", **dict.fromkeys(seats, "seat")},
        "answer": point["answer"],
    }


def _chronicle_pages(token: str, role: str, answer: dict) -> dict[str, int]:
    """Each page of a chronicle and what it answers this link: a reader writes no text."""
    return {
        f"/c/{token}/": 200,
        f"/c/{token}/?fragment=1": 200,
        f"/c/{token}/story": 200,
        f"/c/{token}/end": 200,
        f"/c/{token}/text/{answer['seq']}/{answer['field']}": 404 if role == "reader" else 200,
        f"/c/{token}/links": 200 if role == "host" else 404,
    }


def _foreign(body: str, own: str, links: list[str]) -> list[str]:
    return [other for other in links if other != own and other in body]


def _look(served: Server, token: str, path: str, status: int, links: list[str]) -> None:
    for _ in range(TRIES):
        browser = Browser(served.url)  # a new connection, and a new browser, each time
        page = browser.get(path)
        assert page.status_code == status, (path, page.status_code)
        assert not _foreign(page.text, token, links), f"{path} shows another link's token"


def _bump(served: Server, host: str, answer: dict, n: int) -> None:
    """A new version, so every cached page of the chronicle is rendered afresh."""
    status, state = request(served.port, "GET", f"/api/v1/chronicles/{host}/state")
    command = {
        "type": "revise-text",
        "target_seq": answer["seq"],
        "field": answer["field"],
        "text": f"An answer, told again ({n}).",
    }
    status, body = request(
        served.port,
        "POST",
        f"/api/v1/chronicles/{host}/commands",
        {"version": state["version"], "command": command},
    )
    assert status == 200, body


def test_no_chronicle_page_shows_another_links_token(served: Server, chronicle: dict) -> None:
    roles = chronicle["roles"]
    links = list(roles)
    for n, first in enumerate(links):
        _bump(served, chronicle["host"], chronicle["answer"], n)
        # Every page is rendered for ``first``, then looked at through every other link.
        for token in [first, *(t for t in links if t != first)]:
            for path, status in _chronicle_pages(token, roles[token], chronicle["answer"]).items():
                _look(served, token, path, status, links)


@pytest.fixture(scope="module")
def table(served: Server) -> list[str]:
    browser = Browser(served.url)
    created = browser.post_form(
        "/games/",
        {
            "game": "traitors-flame",
            "mode": "devices",
            "language": "en",
            "seat-0-kind": "person",
            "seat-0-name": "Ann",
            "seat-1-kind": "person",
            "seat-1-name": "Bo",
            "seat-2-kind": "person",
            "seat-2-name": "Cy",
        },
        token_page="/games/",
    )
    assert created.status_code == 302, created.text[:300]
    host = re.search(rf"/t/({TOKEN})/", created.headers["Location"]).group(1)
    fresh = [t for t in _issue(browser, f"/t/{host}/links", {}, "t") if t != host]
    assert len(set(fresh)) == 4, fresh  # three seats and the spectators
    return [host, *dict.fromkeys(fresh)]


def _table_pages(token: str, host: bool) -> dict[str, int]:
    """Each page of a table and what it answers this link: only the host sees the links sheet."""
    return {
        f"/t/{token}/": 200,
        f"/t/{token}/?fragment=1": 200,
        f"/t/{token}/replay": 200,
        f"/t/{token}/links": 200 if host else 404,
    }


def test_no_table_page_shows_another_links_token(served: Server, table: list[str]) -> None:
    host = table[0]
    for order in (table, table[::-1]):
        for token in order:
            for path, status in _table_pages(token, token == host).items():
                _look(served, token, path, status, table)
