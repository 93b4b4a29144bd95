"""Live feeds through the real server (`companion serve`: gevent workers, two of them).

A feed sends what the version endpoint answers, then each change, to every open feed
whichever worker holds it; it carries no secret; a revoked link's feed ends; a link that
opens nothing gets the same 404 as its version endpoint.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_client import Feed
from server_client import Browser, Server, next_command, request, send
from table_helpers import buttons

from companion.store import capabilities
from companion.store.db import connect

METRICS = "live-metrics-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("live")
    running = Server(folder / "live.sqlite3", env={"COMPANION_METRICS_TOKEN": METRICS}).start()
    try:
        yield running
    finally:
        running.stop()


def new_chronicle(port: int) -> str:
    from server_client import SETUP

    status, body = request(port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    return str(body["host_token"])


def version_body(port: int, path: str) -> str:
    """The version endpoint's answer, byte for byte (as the feed must send it)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        assert response.status == 200
        return response.read().decode()
    finally:
        conn.close()


def step(port: int, token: str, rng: random.Random) -> int:
    """One command through the API; the new version."""
    status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200
    status, body = send(port, token, state["version"], next_command(state, rng))
    assert status == 200, body
    return int(body["version"])


def test_a_feed_sends_the_version_answer_then_each_change(server: Server) -> None:
    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/c/{token}/events")
    try:
        assert feed.status == 200
        assert feed.headers["Content-Type"].startswith("text/event-stream")
        assert feed.headers["X-Accel-Buffering"] == "no"
        assert feed.headers["Cache-Control"] == "no-store"
        first = feed.next()
        assert first is not None and first.name == "message"
        assert first.data == version_body(server.port, f"/c/{token}/version")
        rng = random.Random(1)
        for _ in range(5):
            version = step(server.port, token, rng)
            event = feed.next()
            assert event is not None and event.name == "message"
            assert json.loads(event.data)["version"] == version
            assert event.data == version_body(server.port, f"/c/{token}/version")
    finally:
        feed.close()


def test_every_open_feed_hears_a_change_whichever_worker_holds_it(server: Server) -> None:
    token = new_chronicle(server.port)
    # Twelve feeds land on both workers (they take connections as they come); a change made
    # through either must reach all of them, not only those of the worker that wrote it.
    feeds = [Feed(server.port, f"/c/{token}/events") for _ in range(12)]
    try:
        firsts = [s.next() for s in feeds]
        assert all(f is not None and f.name == "message" for f in firsts)
        rng = random.Random(2)
        for _ in range(3):
            version = step(server.port, token, rng)
            for feed in feeds:
                event = feed.next()
                assert event is not None and json.loads(event.data)["version"] == version
    finally:
        for feed in feeds:
            feed.close()


def test_a_feed_carries_no_secret(server: Server) -> None:
    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/c/{token}/events")
    try:
        feed.next()
        step(server.port, token, random.Random(3))
        feed.next()
        assert token.encode() not in feed.raw
        assert set(json.loads(feed.raw.split(b"data: ", 1)[1].split(b"\n", 1)[0])) <= {
            "version",
            "phase",
        } | set(json.loads(version_body(server.port, f"/c/{token}/version")))
    finally:
        feed.close()


def filled(said: dict[str, Any], secrets: dict[str, str]) -> str:
    """A pushed part's HTML with the page's own secrets put in, as ``live.js`` fills it."""
    names = said["secrets"]
    return "".join(p if isinstance(p, str) else secrets[names[p]] for p in said["parts"])


def unsigned(html: str) -> str:
    """``html`` with its CSRF tokens left out: each worker process signs the session's token
    once, at its own time, so the same page from two workers differs there and nowhere else."""
    return re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token"', html)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_page_that_asks_for_its_part_gets_it_with_each_change_as_it_would_fetch_it(
    server: Server, lang: str
) -> None:
    token = new_chronicle(server.port)
    browser = Browser(f"http://127.0.0.1:{server.port}")
    if lang == "ja":  # chosen on the page, as the language menu does: the session says so
        browser.post_form("/language", {"lang": "ja", "next": "/"})
    page = browser.get(f"/c/{token}/").text
    assert f'<html lang="{lang}">' in page
    found = re.search(r'data-csrf="([^"]+)"', page)
    assert found, "the page says its CSRF token for the parts it is pushed"
    secrets = {"csrf": found.group(1), "link": token}
    cookie = "; ".join(f"{c.name}={c.value}" for c in browser.cookies)
    fragments = {"play": f"/c/{token}/?fragment=1", "story": f"/c/{token}/story?fragment=1"}
    feeds = {
        part: Feed(server.port, f"/c/{token}/events?part={part}", headers={"Cookie": cookie})
        for part in fragments
    }
    try:
        for feed in feeds.values():
            first = feed.next()
            assert first is not None and first.name == "message"  # what the page was made with
        rng = random.Random(5)
        for _ in range(4):
            version = step(server.port, token, rng)
            answer = json.loads(version_body(server.port, f"/c/{token}/version"))
            for part, feed in feeds.items():
                pushed = feed.next()
                assert pushed is not None and pushed.name == "part", part
                said = json.loads(pushed.data)
                assert said["answer"] == answer and answer["version"] == version
                shown = filled(said, secrets)
                assert unsigned(shown) == unsigned(browser.get(fragments[part]).text)
                if part == "play":  # the host's forms post with the page's own token
                    tokens = re.findall(r'name="csrf_token" value="([^"]*)"', shown)
                    assert set(tokens) == {secrets["csrf"]}
        for feed in feeds.values():  # the same bytes for every viewer of the link
            assert token.encode() not in feed.raw
            assert secrets["csrf"].encode() not in feed.raw
    finally:
        for feed in feeds.values():
            feed.close()


def test_a_part_the_feed_does_not_have_is_not_pushed(server: Server) -> None:
    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/c/{token}/events?part=links")
    try:
        assert feed.next() is not None
        version = step(server.port, token, random.Random(2))
        changed = feed.next()
        assert changed is not None and changed.name == "message"
        assert json.loads(changed.data)["version"] == version
    finally:
        feed.close()


@pytest.mark.slow
def test_a_revoked_link_ends_its_feed(server: Server) -> None:
    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/c/{token}/events")
    try:
        assert feed.next() is not None
        # Revoked by another process on the same database (as the links page or a tool would).
        db = connect(server.database)
        cap = capabilities.resolve(db, token)
        assert cap is not None
        assert capabilities.revoke(db, cap.stream_id, capabilities.hash_token(token))
        db.conn.close()
        gone = feed.next()
        assert gone is not None and gone.name == "gone"
        assert json.loads(gone.data) == {"status": 404}
        assert feed.next() is None  # the server ended it
    finally:
        feed.close()
    again = Feed(server.port, f"/c/{token}/events")
    try:
        assert again.status == 404  # no feed for a link that opens nothing
    finally:
        again.close()


@pytest.mark.slow
def test_a_deleted_chronicle_ends_its_feeds_at_once_not_at_the_next_ping(server: Server) -> None:
    from companion.ops import deletion

    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/c/{token}/events")
    try:
        assert feed.next() is not None
        # Deleted by another process on the same database, as `companion chronicles delete` is.
        db = connect(server.database)
        cap = capabilities.resolve(db, token)
        assert cap is not None
        listed = deletion.find(db, cap.stream_id, ["legacy"])
        assert listed is not None
        deletion.delete(db, listed, server.database.parent / "exports")
        db.conn.close()
        gone = feed.next(skip_pings=False)
        # The signal of the deletion ends it: without it, the feed would first send a ping
        # (every 20 s) and find the chronicle gone only at the recheck after it.
        assert gone is not None and gone.name == "gone", gone
        assert feed.next() is None
    finally:
        feed.close()


def test_a_link_that_opens_nothing_gets_no_feed(server: Server) -> None:
    for path in ("/c/not-a-link/events", "/t/not-a-link/events"):
        feed = Feed(server.port, path)
        try:
            assert feed.status == 404
        finally:
            feed.close()
    token = new_chronicle(server.port)
    feed = Feed(server.port, f"/t/{token}/events")  # a chronicle's link at a table
    try:
        assert feed.status == 404
    finally:
        feed.close()


def test_a_card_table_feed_sends_its_version_answer_and_each_move(server: Server) -> None:
    browser = Browser(server.url)
    form = {
        "csrf_token": browser.csrf("/games/"),
        "game": "traitors-flame",
        "language": "en",
        "mode": "hotseat",
        "seat-0-kind": "person",
        "seat-0-name": "Ann",
        "seat-1-kind": "person",
        "seat-1-name": "Bo",
    }
    made = browser.post("/games/", data=form)
    assert made.status_code == 302, made.text[-500:]
    token = re.search(r"/t/([^/]+)/", made.headers["Location"]).group(1)  # type: ignore[union-attr]
    feed = Feed(server.port, f"/t/{token}/events")
    try:
        first = feed.next()
        assert first is not None
        assert first.data == version_body(server.port, f"/t/{token}/version")
        seat = json.loads(first.data)["version"]
        page = browser.get(f"/t/{token}/")
        if not buttons(page.text):  # hot-seat: the seat to act shows its hand first
            mover = re.search(r'name="seat" value="(\d+)"', page.text)
            assert mover is not None
            browser.post(
                f"/t/{token}/reveal",
                data={"csrf_token": browser.csrf(f"/t/{token}/"), "seat": mover.group(1)},
            )
            page = browser.get(f"/t/{token}/")
        action = buttons(page.text)[0]
        acted = browser.post(
            f"/t/{token}/act",
            data={
                "csrf_token": browser.csrf(f"/t/{token}/"),
                "version": str(seat),
                "action": json.dumps(action),
            },
        )
        assert acted.status_code == 302, acted.text[-500:]
        event = feed.next()
        assert event is not None and json.loads(event.data)["version"] > seat
        assert event.data == version_body(server.port, f"/t/{token}/version")
    finally:
        feed.close()


def test_idle_connections_do_not_pile_up_database_connections(tmp_path: Path) -> None:
    """Each request borrows a connection and gives it back: many requests from many threads
    (greenlets under gevent) keep a bounded pool."""
    import threading

    from conftest import make_app

    from companion.store.db import IDLE_KEPT

    app = make_app(tmp_path)
    client = app.test_client()

    def ask() -> None:
        assert client.get("/healthz").status_code == 200

    for _ in range(40):
        thread = threading.Thread(target=ask)
        thread.start()
        thread.join()
    pool = app.extensions["companion.db_pool"]
    assert pool.connections(app.config["DATABASE"]) <= IDLE_KEPT


def watchers_gauge(port: int) -> float:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {METRICS}"})
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    found = re.search(r"^companion_live_watchers (\S+)$", text, re.M)
    assert found, text[:500]
    return float(found.group(1))


@pytest.mark.slow
def test_the_metrics_count_the_open_feeds(tmp_path: Path) -> None:
    # A server of its own: the module's server still counts the feeds earlier tests closed
    # until its next write to them (at most a ping away), which would move the gauge meanwhile.
    server = Server(tmp_path / "metrics.sqlite3", env={"COMPANION_METRICS_TOKEN": METRICS})
    server.start()
    try:
        _count_the_open_feeds(server)
    finally:
        server.stop()


def _count_the_open_feeds(server: Server) -> None:
    token = new_chronicle(server.port)
    before = watchers_gauge(server.port)
    feeds = [Feed(server.port, f"/c/{token}/events") for _ in range(3)]
    try:
        for feed in feeds:
            assert feed.next() is not None
        assert watchers_gauge(server.port) == before + 3
        db = connect(server.database)
        cap = capabilities.resolve(db, token)
        assert cap is not None
        capabilities.revoke(db, cap.stream_id, capabilities.hash_token(token))
        db.conn.close()
        for feed in feeds:  # the server ends each feed, and counts it closed
            assert feed.next() is not None and feed.next() is None
        assert watchers_gauge(server.port) == before
    finally:
        for feed in feeds:
            feed.close()
