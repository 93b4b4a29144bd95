"""A real browser on a link that gets revoked: the page stops following it and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

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


def test_the_play_page_stops_following_a_revoked_link(
    page: Page, live_server: str, tmp_path: Path
) -> None:
    created = page.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    db = connect(tmp_path / "test.sqlite3")
    reader = capabilities.issue(db, created["id"], "reader")
    page.goto(f"{live_server}/c/{reader}/?lang=en")
    live = page.locator("#live")
    expect(live).to_have_attribute("data-live-transport", "feed")
    capabilities.revoke(db, created["id"], capabilities.hash_token(reader))
    note = page.locator("#link-gone")
    note.wait_for(state="visible", timeout=15_000)
    assert "no longer opens the chronicle" in note.inner_text()
    expect(live).to_have_attribute("data-live-transport", "stopped")  # no feed, no poll


def test_a_polling_page_stops_following_a_revoked_link(
    page: Page, live_server: str, tmp_path: Path
) -> None:
    created = page.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    db = connect(tmp_path / "test.sqlite3")
    reader = capabilities.issue(db, created["id"], "reader")
    page.route("**/events*", lambda route: route.abort())  # no feed: the page polls
    page.goto(f"{live_server}/c/{reader}/?lang=en")
    live = page.locator("#live")
    expect(live).to_have_attribute("data-live-transport", "poll")
    capabilities.revoke(db, created["id"], capabilities.hash_token(reader))
    page.locator("#link-gone").wait_for(state="visible", timeout=15_000)
    expect(live).to_have_attribute("data-live-transport", "stopped")
