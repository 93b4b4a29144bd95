"""The links a stream keeps, raced and churned through `companion serve`: 30 "make everyone's
links" posts at once never leave more than the 64 links in use, and issuing and revoking links
over and over leaves no pile of revoked rows."""

from __future__ import annotations

import re
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

from server_client import SETUP, Browser, Server, request

from companion.web.shell.links_sheet import MAX_LINKS

POSTS = 30  # each asks for every seat's link and a reader's: far more than the cap together


def _rows(served: Server, stream: str) -> list[tuple[str, str | None]]:
    with sqlite3.connect(served.database, timeout=30) as conn:
        return conn.execute(
            "SELECT role, revoked FROM capabilities WHERE stream_id = ?", [stream]
        ).fetchall()


def _chronicle(served: Server) -> tuple[str, str]:
    setup = {**SETUP, "players": ["Ali", "Bri", "Cal", "Dee", "Eve", "Fay", "Gus"]}
    status, created = request(served.port, "POST", "/api/v1/chronicles", setup)
    assert status == 201, created
    return created["host_token"], created["id"]


def test_thirty_posts_at_once_never_pass_the_cap(served: Server) -> None:
    host, stream = _chronicle(served)
    links = f"/c/{host}/links"
    browsers = [Browser(served.url) for _ in range(POSTS)]
    tokens = [browser.csrf(links) for browser in browsers]
    before = sum(role != "host" for role, _revoked in _rows(served, stream))
    start = threading.Barrier(POSTS)

    def post(i: int) -> int:
        start.wait(30)
        answer = browsers[i].post(links, data={"csrf_token": tokens[i], "issue": "everyone"})
        sheet = browsers[i].followed(answer)  # the sheet it is sent back to says which
        return 409 if "At most 64 links" in sheet else 200

    with ThreadPoolExecutor(POSTS) as pool:
        statuses = list(pool.map(post, range(POSTS)))
    in_use = [role for role, revoked in _rows(served, stream) if revoked is None and role != "host"]
    assert len(in_use) <= MAX_LINKS, f"{len(in_use)} links in use"
    per_post = 7 + 1  # seven seats and a reader
    assert set(statuses) <= {200, 409}
    assert statuses.count(200) == (MAX_LINKS - before) // per_post  # as many as fit, no more
    assert len(in_use) == before + per_post * statuses.count(200)


def test_issuing_and_revoking_over_and_over_keeps_the_rows_bounded(served: Server) -> None:
    host, stream = _chronicle(served)
    links = f"/c/{host}/links"
    browser = Browser(served.url)
    for _cycle in range(12):
        made = browser.post(links, data={"csrf_token": browser.csrf(links), "issue": "everyone"})
        sheet = browser.followed(made)
        for token_hash in set(re.findall(r'name="revoke" value="([0-9a-f]{64})"', sheet)):
            answer = browser.post(
                links, data={"csrf_token": browser.csrf(links), "revoke": token_hash}
            )
            assert answer.status_code == 303
    rows = _rows(served, stream)
    assert [role for role, revoked in rows if revoked is None] == ["host"]
    assert len(rows) <= 1 + MAX_LINKS, f"{len(rows)} rows kept for one chronicle"
