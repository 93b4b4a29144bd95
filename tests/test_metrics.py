"""The metrics other parts of the app feed: live watchers, and the scrape that shows them."""

from __future__ import annotations

import re
from pathlib import Path

from companion.app import create_app
from companion.base import metrics
from companion.store.db import init_db


def _watchers(client) -> float:  # type: ignore[no-untyped-def]
    text = client.get("/metrics", headers={"Authorization": "Bearer t0ken"}).get_data(as_text=True)
    found = re.search(r"^companion_live_watchers (\S+)$", text, re.M)
    assert found, text
    return float(found.group(1))


def test_a_live_feed_opening_and_closing_moves_the_watchers_gauge(tmp_path: Path) -> None:
    database = tmp_path / "m.sqlite3"
    init_db(database)
    app = create_app(
        {"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(database), "METRICS_TOKEN": "t0ken"}
    )
    client = app.test_client()
    start = _watchers(client)
    metrics.watchers(+1)
    metrics.watchers(+1)
    assert _watchers(client) == start + 2
    metrics.watchers(-1)
    assert _watchers(client) == start + 1
    metrics.watchers(-1)
    assert _watchers(client) == start
    assert client.get("/metrics").status_code == 401
