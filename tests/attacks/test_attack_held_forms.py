"""Refused set-up and lobby forms, sent by anyone with no link: what the server keeps of them.

A refused form is kept for its page (post/redirect/get), and was kept whole: thirty posts of
`/new` with a 3.9 MB field grew the held forms by 117 MB, kept a week. Now each field is cut to
its own limit, a field the form does not have is dropped, a held form takes at most
HELD_FORM_BYTES, a browser holds one form of a kind, and refused forms count against a budget
per address (RATELIMIT_REFUSED; each worker counts its own, so up to twice it is kept).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from server_client import Browser, Server

from attacks.probe import answered
from companion.base.limits import TEXT_LIMIT

REFUSED = 3
HELD_BYTES = 64 * 1024
HUGE = "w" * 1_800_000  # two of them are 3.6 MB, under the 4 MB a request may take


@pytest.fixture(scope="module")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own that takes the client's address from X-Forwarded-For, so that each
    test is a client of its own, with a budget of its own."""
    env = {
        "COMPANION_RATELIMIT_ENABLED": "true",
        "COMPANION_RATELIMIT_REFUSED": str(REFUSED),
        "COMPANION_HELD_FORM_BYTES": str(HELD_BYTES),
        "COMPANION_SESSION_COOKIE_SECURE": "false",
        "COMPANION_PROXY_HOPS": "1",
    }
    folder = tmp_path_factory.mktemp("held")
    server = Server(folder / "held.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def _client(server: Server, address: str) -> Browser:
    browser = Browser(server.url)
    browser.headers["X-Forwarded-For"] = address
    return browser


def _held(server: Server) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(server.database, timeout=10) as conn:
        rows = conn.execute(
            "SELECT id, kind, length(CAST(data AS BLOB)) FROM held_forms"
        ).fetchall()
    return {str(held): (str(kind), int(size)) for held, kind, size in rows}


def _new(server: Server, before: dict[str, tuple[str, int]]) -> list[tuple[str, int]]:
    return [row for held, row in _held(server).items() if held not in before]


def test_refused_set_up_forms_keep_only_their_fields_cut_and_bounded(keeper: Server) -> None:
    before, statuses = _held(keeper), []
    browsers = [_client(keeper, "198.51.100.1") for _ in range(2)]
    for n in range(8):
        browser = browsers[n % 2]
        form = {"concept": HUGE, "lines": "灯" * TEXT_LIMIT, "invented": HUGE, "pioneer": ""}
        statuses.append(browser.post_form("/new", form).status_code)
        answered(keeper.port)
    assert set(statuses) <= {303, 429}, statuses
    assert statuses.count(303) <= 2 * REFUSED, statuses
    held = _new(keeper, before)
    assert 1 <= len(held) <= len(browsers), held  # one form a browser: the newest
    assert all(size <= HELD_BYTES for _kind, size in held), held
    page = browsers[0].get("/new").text
    assert "invented" not in page and "w" * 1000 in page


def test_forms_without_a_token_are_kept_only_within_the_budget(keeper: Server) -> None:
    """A post with no session and no CSRF token is sent back to its page with its words: each
    is a new browser, so only the budget bounds how many are kept."""
    before, statuses = _held(keeper), []
    for _ in range(REFUSED * 4):
        browser = _client(keeper, "198.51.100.2")  # no cookie: a new session every time
        statuses.append(browser.post("/new", data={"concept": HUGE}).status_code)
        answered(keeper.port)
    assert set(statuses) <= {303, 400, 429}, statuses
    held = _new(keeper, before)
    assert len(held) <= 2 * REFUSED, held
    assert all(size <= HELD_BYTES for _kind, size in held), held


def test_a_refused_lobby_form_keeps_only_the_lobbys_fields(keeper: Server) -> None:
    before, browser = _held(keeper), _client(keeper, "198.51.100.3")
    form = {"game": "nope", "seat-0-name": HUGE, "seat-0-kind": "person", "padding": HUGE}
    answer = browser.post_form("/games/", form, token_page="/games/")
    assert answer.status_code == 303, answer.text[-300:]
    answered(keeper.port)
    held = _new(keeper, before)
    assert len(held) == 1 and held[0][0] == "games" and held[0][1] <= 1024, held
