"""A seat link may not take back another player's decision, nor bring back an X-carded prompt.

Against the real server (two workers, each with its own page cache): the host looks at the play
page first, then a seat link; the seat's page must not carry the host's enabled undo button.
"""

from __future__ import annotations

import re

from server_client import SETUP, Browser, Server, request

TOKEN = r"[A-Za-z0-9_-]{32}"


def _state(served: Server, token: str) -> dict:
    status, state = request(served.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200, state
    return state


def _command(served: Server, token: str, command: dict) -> tuple[int, dict]:
    version = _state(served, token)["version"]
    path = f"/api/v1/chronicles/{token}/commands"
    return request(served.port, "POST", path, {"version": version, "command": command})


def _seat_link(browser: Browser, host: str, seat: int) -> str:
    path = f"/c/{host}/links"
    posted = browser.post_form(path, {"issue": f"seat-{seat}"}, token_page=path)
    page = browser.followed(posted)  # the sheet the host is sent back to shows the new link once
    (token,) = {t for t in re.findall(rf"/c/({TOKEN})/", page) if t != host}
    return token


def test_a_seat_cannot_undo_another_seats_draw_or_an_x_card(served: Server) -> None:
    status, created = request(served.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, created
    host = created["host_token"]
    assert _command(served, host, {"type": "draw-card"})[0] == 200
    browser = Browser(served.url)
    brianna = _seat_link(browser, host, 1)
    for _ in range(2):  # both workers: the host's page is cached first
        assert browser.get(f"/c/{host}/").status_code == 200
        page = browser.get(f"/c/{brianna}/").text
        assert "Only Ali or the host may take this back." in page
        assert re.search(r'<button type="submit" disabled[^>]*>↶ Take back', page)
    version = str(_state(served, host)["version"])
    refused = browser.post_form(f"/c/{brianna}/undo", {"version": version}, f"/c/{brianna}/")
    assert "Only Ali or the host may take this back." in browser.followed(refused)
    status, body = _command(served, brianna, {"type": "undo"})
    assert (status, body["code"]) == (403, "not-your-decision")
    assert _state(served, host)["version"] == int(version)
    # Brianna sets a prompt aside on Ali's turn; no one can bring it back with undo.
    assert _command(served, brianna, {"type": "veil-prompt", "index": 0})[0] == 200
    status, body = _command(served, host, {"type": "undo"})
    assert (status, body["code"]) == (409, "card-stays-veiled")
    assert _state(served, host)["check"]["veiled"] == [0]
