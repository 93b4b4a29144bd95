"""A real browser on a link that gets revoked: the page stops polling and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from companion import capabilities
from companion.db import connect

pytestmark = pytest.mark.browser
SETUP = {
    "pioneer": {"name": "Kaya", "people": "human", "concept": "A cartographer."},
    "players": ["Ali", "Brianna"],
    "oldest": 0,
    "language": "en",
    "mode": "digital",
}


def test_the_play_page_stops_polling_a_revoked_link(
    page: Page, live_server: str, tmp_path: Path
) -> None:
    created = page.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    db = connect(tmp_path / "test.sqlite3")
    reader = capabilities.issue(db, created["id"], "reader")
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.url.endswith("/version") else None)
    page.goto(f"{live_server}/c/{reader}/?lang=en")
    page.wait_for_timeout(800)
    assert polls, "the page polls while its link opens the chronicle"
    capabilities.revoke(db, created["id"], capabilities.hash_token(reader))
    note = page.locator("#link-gone")
    note.wait_for(state="visible", timeout=5000)
    assert "no longer opens the chronicle" in note.inner_text()
    seen = len(polls)
    page.wait_for_timeout(1500)
    assert len(polls) == seen
