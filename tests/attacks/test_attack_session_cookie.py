"""The session cookie stays small whatever a browser does: 200 hot-seat tables revealed one
after another used to add 28 bytes each (4,189 bytes at 120, past what browsers keep). The
newest tables' holders are kept, older ones let go (their cover shows again), and the browser
keeps its CSRF token and its start page's list."""

from __future__ import annotations

import re

from server_client import Browser, Server

TABLES = 200
BUDGET = 3000  # bytes of the cookie's value, well under the 4 KB browsers keep
PEOPLE = {"seat-0-kind": "person", "seat-0-name": "Ann", "seat-1-kind": "person"}
PEOPLE |= {"seat-1-name": "Bo"}


def cookie_size(browser: Browser) -> int:
    return max(len(c.value or "") for c in browser.cookies if c.name == "session")


def test_two_hundred_revealed_tables_keep_the_cookie_small(served: Server) -> None:
    browser = Browser(served.url)
    token = browser.csrf("/games/")
    tables, sizes = [], []
    for _ in range(TABLES):
        form = {"csrf_token": token, "game": "traitors-flame", "language": "en", "mode": "hotseat"}
        made = browser.post("/games/", data={**form, **PEOPLE})
        assert made.status_code == 302, made.text[-500:]
        table = re.search(r"/t/([^/]+)/", made.headers["Location"]).group(1)  # type: ignore[union-attr]
        page = browser.get(f"/t/{table}/").text
        seat = re.search(r'name="seat" value="(\d)"', page).group(1)  # type: ignore[union-attr]
        shown = browser.post(f"/t/{table}/reveal", data={"csrf_token": token, "seat": seat})
        assert shown.status_code == 302, shown.text[-500:]  # the CSRF token still holds
        tables.append(table)
        sizes.append(cookie_size(browser))
    print(f"\ncookie after 1, 50, 200 tables: {sizes[0]}, {sizes[49]}, {sizes[-1]} bytes")
    assert max(sizes) < BUDGET
    newest = browser.get(f"/t/{tables[-1]}/").text
    assert 'class="cover-screen"' not in newest  # the device still shows its holder's hand
    oldest = browser.get(f"/t/{tables[0]}/").text
    assert 'class="cover-screen"' in oldest  # let go: the device is taken again
    start = browser.get("/").text
    assert f"/t/{tables[-1]}/" in start  # the start page still lists the newest
