"""Two real browsers on one chronicle: a move made on one page reaches the other through its
stream, or through polling when the stream is blocked; a fragment that fails never lands."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.store import capabilities
from companion.store.db import connect

pytestmark = pytest.mark.browser
SETUP = {
    "pioneer": {"name": "Kaya", "people": "human", "concept": "A cartographer."},
    "players": ["Ali", "Brianna"],
    "oldest": 0,
    "language": "en",
    "mode": "digital",
}


@pytest.fixture
def two_pages(browser: Browser) -> Iterator[tuple[Page, Page]]:
    contexts = [browser.new_context(), browser.new_context()]
    try:
        yield contexts[0].new_page(), contexts[1].new_page()
    finally:
        for context in contexts:
            context.close()


def open_both(
    host: Page, reader: Page, live_server: str, tmp_path: Path
) -> tuple[str, str, list[str]]:
    """The host's and a reader's play pages; the reader's requests to the version endpoint."""
    created = host.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    reader_token = capabilities.issue(connect(tmp_path / "test.sqlite3"), created["id"], "reader")
    polls: list[str] = []
    reader.on("request", lambda r: polls.append(r.url) if r.url.endswith("/version") else None)
    host.goto(f"{live_server}/c/{created['host_token']}/?lang=en")
    reader.goto(f"{live_server}/c/{reader_token}/?lang=en")
    return created["host_token"], reader_token, polls


def move(host: Page) -> str:
    """The host draws a card on their page; the version their page shows afterwards."""
    before = host.locator(".table-layout").get_attribute("data-version")
    host.locator("button[value=draw]").click()
    expect(host.locator(".table-layout")).not_to_have_attribute("data-version", str(before))
    return str(host.locator(".table-layout").get_attribute("data-version"))


def test_a_move_on_one_page_reaches_another_through_its_stream(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    _host_token, _reader_token, polls = open_both(host, reader, live_server, tmp_path)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "stream")
    version = move(host)
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", version)
    expect(reader.locator(".drawn-card")).to_be_visible()
    assert polls == [], "a page that holds a stream does not poll"


def test_a_blocked_stream_falls_back_to_polling(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    reader.route("**/events", lambda route: route.abort())  # a proxy that does not pass it
    _host_token, _reader_token, polls = open_both(host, reader, live_server, tmp_path)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "poll")
    version = move(host)
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", version)
    expect(reader.locator(".drawn-card")).to_be_visible()
    assert polls, "the fallback polls the version"


def test_only_a_200_fragment_replaces_the_live_part(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    open_both(host, reader, live_server, tmp_path)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "stream")
    shown = reader.locator(".table-layout").get_attribute("data-version")
    failing = "<!doctype html><h1>Internal Server Error</h1>"
    reader.route(
        "**/?fragment=1",
        lambda route: route.fulfill(status=500, body=failing, content_type="text/html"),
    )
    version = move(host)
    note = reader.locator("#live-stale")
    expect(note).to_be_visible()
    expect(note).to_contain_text("could not be brought up to date")
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", str(shown))
    expect(reader.locator("#live")).not_to_contain_text("Internal Server Error")
    reader.unroute("**/?fragment=1")  # the server answers again: the page catches up by itself
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", version)
    expect(note).to_have_count(0)
