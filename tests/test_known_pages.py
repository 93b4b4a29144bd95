"""A page served by the store's one-row picture of its link (``streams.known_page``): another
browser of the same link gets the page without the stream being opened, with its own CSRF token;
anything the row, the path, the language or the session's own words change makes it again."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, post_turn
from table_helpers import load, new_table

from companion.web.chronicle import play, story_view
from companion.web.tables import pages

CSRF = re.compile(r'(?:name="csrf_token" value|data-csrf)="([^"]+)"')
PEOPLE = {"seat-0-kind": "person", "seat-0-name": "Akari", "seat-1-kind": "person"}
PEOPLE |= {"seat-1-name": "Sora"}


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The links whose stream a page opened (replaying it, reading its drafts)."""
    calls: list[str] = []
    for module, name in ((play, "open_chronicle"), (story_view, "open_chronicle")):
        real = getattr(module, name)

        def counted(token: str, real: Any = real) -> Any:
            calls.append(token)
            return real(token)

        monkeypatch.setattr(module, name, counted)
    real_table = pages.open_table

    def table(token: str) -> Any:
        calls.append(token)
        return real_table(token)

    monkeypatch.setattr(pages, "open_table", table)
    return calls


def _browser(app: Flask) -> FlaskClient:
    return app.test_client()


def test_another_browser_of_the_link_gets_the_page_without_opening_the_stream(
    app: Flask, client: FlaskClient, opened: list[str]
) -> None:
    token = create(client)
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    for path in (f"/c/{token}/", f"/c/{token}/story"):
        first = _browser(app)
        made = first.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
        opened.clear()
        other = _browser(app)
        served = other.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert opened == [], path
        mine, theirs = CSRF.findall(served), CSRF.findall(made)
        assert mine and theirs and set(mine).isdisjoint(theirs), "another browser's token"
        assert CSRF.sub("", served) == CSRF.sub("", made)
        if path.endswith("/"):  # the play page is remembered in the browser's list of tables
            assert f"/c/{token}/" in other.get("/").get_data(as_text=True)


def test_a_language_a_message_or_a_typed_word_makes_the_page_again(
    app: Flask, client: FlaskClient, opened: list[str]
) -> None:
    token = create(client)
    client.get(f"/c/{token}/")
    first = _browser(app)
    first.get(f"/c/{token}/", headers={"Accept-Language": "en"})
    opened.clear()
    ja = _browser(app).get(f"/c/{token}/", headers={"Accept-Language": "ja"})
    assert opened == [token] and 'lang="ja"' in ja.get_data(as_text=True)
    # A flashed message is this browser's own: the page is made, showing it.
    flashed = _browser(app)
    flashed.post(f"/c/{token}/turn", data={"version": "0", "action": "draw"})
    opened.clear()
    shown = flashed.get(f"/c/{token}/", headers={"Accept-Language": "en"})
    assert opened == [token] and 'class="flash flash-' in shown.get_data(as_text=True)
    # Someone types: the store's row changes, and the page is made again, showing it.
    post_turn(client, app, token, action="draw", card="2H")
    before = _browser(app).get(f"/c/{token}/", headers={"Accept-Language": "en"})
    typed = {"field": "answer", "text": "A river", "turn": str(chronicle(app, token).state.turn_no)}
    assert client.post(f"/c/{token}/draft", data=typed).get_json()["saved"] is True
    opened.clear()
    after = _browser(app).get(f"/c/{token}/", headers={"Accept-Language": "en"})
    assert opened == [token]
    assert "A river" in after.get_data(as_text=True)
    assert "A river" not in before.get_data(as_text=True)


def test_hot_seat_eyes_are_the_browser_s_own(
    app: Flask, client: FlaskClient, opened: list[str]
) -> None:
    """Whose hand a hot-seat table shows is this browser's: a browser that took the device sees
    the hand; another browser of the same link, which did not, sees the cover."""
    token = new_table(client, "traitors-flame", **PEOPLE)
    holder = _browser(app)
    holder.get(f"/t/{token}/")
    covered = holder.get(f"/t/{token}/").get_data(as_text=True)
    assert 'class="cover-screen"' in covered
    seat = load(app, token).acting_seats()[0]
    holder.post(f"/t/{token}/reveal", data={"seat": str(seat)})
    shown = holder.get(f"/t/{token}/").get_data(as_text=True)
    assert 'class="cover-screen"' not in shown
    opened.clear()
    other = _browser(app).get(f"/t/{token}/").get_data(as_text=True)
    assert 'class="cover-screen"' in other
    assert CSRF.sub("", other) == CSRF.sub("", covered)
    again = holder.get(f"/t/{token}/").get_data(as_text=True)
    assert 'class="cover-screen"' not in again and CSRF.sub("", again) == CSRF.sub("", shown)


def test_a_browser_s_headers_make_no_bigger_keys_and_another_is_still_served(
    app: Flask, client: FlaskClient
) -> None:
    """One link asks its page with a different 4 kB Accept-Language each time: every key it
    leaves is a digest of what it brought (the page cache's bound counts what it holds), and
    another browser of the link still gets the page kept for it."""
    token = create(client)
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    reader = _browser(app)
    kept = reader.get(f"/c/{token}/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    stranger = _browser(app)
    for n in range(200):
        header = f"en;q=0.{n % 9 + 1}, " + "x" * 4000 + str(n)
        assert stranger.get(f"/c/{token}/", headers={"Accept-Language": header}).status_code == 200
    cache = app.extensions["companion.render_cache"]
    assert max(len(repr(key)) for key in cache.keys()) < 2000
    assert cache.nbytes <= cache.max_bytes
    again = _browser(app).get(f"/c/{token}/", headers={"Accept-Language": "en"})
    assert CSRF.sub("", again.get_data(as_text=True)) == CSRF.sub("", kept)
