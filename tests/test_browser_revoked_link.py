"""A real browser on a link that gets revoked: the page stops polling and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

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


# Counts the page's calls for its version as they are made, before any answer comes back.
COUNT_POLLS = """
window.versionPolls = 0;
const fetchOf = window.fetch;
window.fetch = function (url, options) {
  if (String(url).endsWith("/version")) window.versionPolls += 1;
  return fetchOf(url, options);
};
"""


def test_the_play_page_stops_polling_a_revoked_link(
    page: Page, live_server: str, tmp_path: Path
) -> None:
    created = page.request.post(f"{live_server}/api/v1/chronicles", data=SETUP).json()
    db = connect(tmp_path / "test.sqlite3")
    reader = capabilities.issue(db, created["id"], "reader")
    page.add_init_script(COUNT_POLLS)
    page.clock.install()  # the page's timers run on a clock the test moves on
    page.goto(f"{live_server}/c/{reader}/?lang=en")
    with page.expect_request(lambda r: r.url.endswith("/version")):
        page.clock.run_for(2_000)  # the page polls while its link opens the chronicle
    capabilities.revoke(db, created["id"], capabilities.hash_token(reader))
    note = page.locator("#link-gone")
    page.clock.run_for(2_000)
    expect(note).to_be_visible()
    assert "no longer opens the chronicle" in note.inner_text()
    seen = page.evaluate("window.versionPolls")
    page.clock.run_for(60_000)  # a minute of the page's time: a page still polling asks again
    assert page.evaluate("window.versionPolls") == seen
