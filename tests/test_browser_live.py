"""Two real browsers on one chronicle: a move made on one page reaches the other through its
feed, or through polling when the feed is blocked; a fragment that fails never lands."""

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
    host: Page, reader: Page, live_server: str, tmp_path: Path, seat: int | None = None
) -> tuple[str, str, list[str]]:
    """The host's and a reader's play pages (or, with ``seat``, a player's); the reader's
    requests to the version endpoint."""
    created = host.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    role = "reader" if seat is None else "seat"
    reader_token = capabilities.issue(connect(tmp_path / "test.sqlite3"), created["id"], role, seat)
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


def test_a_move_on_one_page_reaches_another_through_its_feed(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    fetched: list[str] = []
    reader.on("request", lambda r: fetched.append(r.url) if "fragment=1" in r.url else None)
    _host_token, seat_token, polls = open_both(host, reader, live_server, tmp_path, seat=1)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "feed")
    version = move(host)
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", version)
    expect(reader.locator(".drawn-card")).to_be_visible()
    assert polls == [], "a page that holds a feed does not poll"
    assert fetched == [], "the change came with its part: nothing to fetch"
    # The pushed part holds the player's own secrets, filled in by the page: its forms post.
    csrf = reader.locator("#live").get_attribute("data-csrf")
    fields = reader.locator("#live form input[name=csrf_token]").all()
    assert csrf and fields, "the player may set the drawn prompt aside"
    assert {field.get_attribute("value") for field in fields} == {csrf}
    actions = [f.get_attribute("action") or "" for f in reader.locator("#live form").all()]
    assert all(f"/c/{seat_token}/" in action for action in actions), actions


def test_a_feed_with_no_part_fetches_the_fragment(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    fetched: list[str] = []
    reader.on("request", lambda r: fetched.append(r.url) if "fragment=1" in r.url else None)
    without_part(reader)
    open_both(host, reader, live_server, tmp_path)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "feed")
    version = move(host)
    expect(reader.locator(".table-layout")).to_have_attribute("data-version", version)
    expect(reader.locator(".drawn-card")).to_be_visible()
    assert fetched, "a change with no part is fetched"


def without_part(page: Page) -> None:
    """The page's feed asked for without its part (as a page of a card table holds it)."""
    page.route(
        "**/events?part=*",
        lambda route: route.continue_(url=route.request.url.split("?", 1)[0]),
    )


def test_a_blocked_feed_falls_back_to_polling(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    reader.route("**/events*", lambda route: route.abort())  # a proxy that does not pass it
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
    without_part(reader)  # the fragment is fetched after the change
    open_both(host, reader, live_server, tmp_path)
    expect(reader.locator("#live")).to_have_attribute("data-live-transport", "feed")
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


def test_the_story_page_shows_each_change_from_its_feed(
    two_pages: tuple[Page, Page], live_server: str, tmp_path: Path
) -> None:
    host, reader = two_pages
    fetched: list[str] = []
    reader.on("request", lambda r: fetched.append(r.url) if "fragment=1" in r.url else None)
    _host_token, reader_token, _polls = open_both(host, reader, live_server, tmp_path)
    reader.goto(f"{live_server}/c/{reader_token}/story?lang=en")
    region = reader.locator("#live-story")
    expect(region).to_have_attribute("data-live-transport", "feed")
    region.evaluate("r => r.querySelectorAll('*').forEach(e => { e.dataset.before = '1'; })")
    assert reader.locator("#live-story [data-before]").count() > 0
    move(host)
    expect(reader.locator("#live-story [data-before]")).to_have_count(0)  # shown anew
    expect(reader.locator("#live-story > *").first).to_be_visible()
    assert fetched == [], "the change came with the story's part: nothing to fetch"
