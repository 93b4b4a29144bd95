"""Proof through two real servers sharing one PostgreSQL store and one exports folder.

Racing clients spread over both servers lose nothing and double nothing; a page open on one
server's feed hears a command made on the other (how soon: bench/bench_seen.py); both servers'
export pools share one queue (each book made once, both pools at work at once); a book asked for
on one downloads from the other; a prompt pack uploaded on one is listed and played on the other
(each server keeps a packs folder of its own); kill -9 of one server mid-load leaves the other
serving and every acknowledged command stored.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
from live_client import Feed
from pg_server import available, database_url
from racing import create_chronicle, race, race_at_one_version, start_clients
from server_client import SETUP, Browser, Server, next_command, request, send
from waiting import wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not available(), reason="psycopg or PostgreSQL missing"),
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server, str]]:
    folder = tmp_path_factory.mktemp("cluster")
    url = database_url()
    shared = {
        "COMPANION_DATABASE": url,
        "COMPANION_EXPORTS_DIR": str(folder / "exports"),
        "COMPANION_SESSION_COOKIE_SECURE": "false",
    }
    a = Server(folder / "a.sqlite3", env={**shared, "COMPANION_PACKS_DIR": str(folder / "a")})
    b = Server(folder / "b.sqlite3", env={**shared, "COMPANION_PACKS_DIR": str(folder / "b")})
    a.start()
    b.start()
    try:
        yield a, b, url
    finally:
        a.stop()
        b.stop()


def stored_events(url: str) -> list[tuple[str, int]]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT stream_id, seq FROM events ORDER BY stream_id, seq")
        return [(str(sid), int(seq)) for sid, seq in rows]


def stream_of(url: str, token: str) -> str:
    import hashlib

    import psycopg

    digest = hashlib.sha256(token.encode()).hexdigest()
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT stream_id FROM capabilities WHERE token_hash = %s", [digest]
        ).fetchone()
    assert row is not None
    return str(row[0])


def test_clients_on_two_servers_lose_nothing_and_double_nothing(
    cluster: tuple[Server, Server, str],
) -> None:
    a, b, url = cluster
    token, start = create_chronicle(a.port)
    # Four clients on each server send at one version at once, round after round: one command is
    # stored, the seven others are refused as stale, whichever server answers first.
    rounds = race_at_one_version([a.port, b.port], token, clients=8, rounds=30)
    for answers in rounds:
        assert sorted(answer.status or 0 for answer in answers) == [200] + [409] * 7, answers
    log = race([a.port, b.port], token, clients=8, commands=200)
    commands = [answer for answer in log if answer.kind == "command"]
    assert len(commands) == 1600 and len(log) == 1600, [a for a in log if a.kind != "command"][:3]
    statuses = Counter(answer.status for answer in commands)
    assert set(statuses) <= {200, 409}, statuses  # no 5xx, nothing else
    accepted = [answer for answer in [*sum(rounds, []), *commands] if answer.accepted]
    assert {answer.port for answer in accepted} == {a.port, b.port}
    versions = sorted(answer.new_version or 0 for answer in accepted)
    assert len(versions) == len(set(versions)), "two commands got the same version"
    assert all(answer.new_version == (answer.sent_version or 0) + 1 for answer in accepted)
    sid = stream_of(url, token)
    seqs = [seq for stream, seq in stored_events(url) if stream == sid]
    assert seqs == list(range(1, start + len(accepted) + 1))  # 0 lost, 0 doubled, no gap


def test_a_feed_on_one_server_hears_each_command_made_on_the_other(
    cluster: tuple[Server, Server, str],
) -> None:
    """PostgreSQL's NOTIFY carries a change from server A to the feeds held by server B."""
    a, b, _url = cluster
    token, _start = create_chronicle(a.port)
    import random

    rng = random.Random(7)
    feeds = [Feed(b.port, f"/c/{token}/events") for _ in range(4)]
    try:
        for feed in feeds:
            assert feed.status == 200 and feed.next() is not None
        for _ in range(10):
            status, state = request(a.port, "GET", f"/api/v1/chronicles/{token}/state")
            status, body = send(a.port, token, state["version"], next_command(state, rng))
            assert status == 200, body
            for feed in feeds:  # each waits for the event (30 s at most), never polls
                event = feed.next()
                assert event is not None, "server B's feed ended"
                assert json.loads(event.data)["version"] == body["version"]
    finally:
        for feed in feeds:
            feed.close()


def test_a_book_asked_for_on_one_server_downloads_from_the_other(
    cluster: tuple[Server, Server, str],
) -> None:
    a, b, _url = cluster
    token, _start = create_chronicle(a.port)
    status, job = request(
        a.port,
        "POST",
        f"/api/v1/chronicles/{token}/exports",
        {"format": "pdf", "edition": "story", "paper": "a5"},
    )
    assert status in (200, 202), job
    deadline = time.monotonic() + 900  # a hung worker, not a slow book (bench/bench_pdf.py)
    while job["status"] != "done":
        assert job["status"] in ("queued", "running"), job
        assert time.monotonic() < deadline, f"the export job never ended: {job}"
        time.sleep(0.5)
        status, job = request(b.port, "GET", job["status_url"])
        assert status == 200, job
    status, pdf = request(b.port, "GET", job["file_url"], timeout=60)
    assert status == 200 and pdf.startswith("%PDF-")


def test_two_servers_share_the_export_queue(cluster: tuple[Server, Server, str]) -> None:
    """Books asked for on both servers are each made once, by both servers' pools at once."""
    a, b, url = cluster
    import psycopg

    jobs: list[dict[str, object]] = []
    for n, port in enumerate([a.port, b.port, a.port, b.port]):
        token, _start = create_chronicle(port)
        paper = ("a5", "a4", "b6", "a5")[n]
        status, job = request(
            port, "POST", f"/api/v1/chronicles/{token}/exports", {"format": "pdf", "paper": paper}
        )
        assert status in (200, 202), job
        jobs.append(job)
    most_at_once = 0
    deadline = time.monotonic() + 600
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            rows = conn.execute("SELECT status FROM exports").fetchall()
            statuses = Counter(str(row[0]) for row in rows)
            most_at_once = max(most_at_once, statuses["running"])
            if statuses["queued"] == statuses["running"] == 0:
                break
            time.sleep(0.2)
        hosts = conn.execute("SELECT count(*) FROM exports WHERE status = 'done'").fetchone()
    assert hosts is not None and hosts[0] >= len(jobs), "not every book was made"
    # One pool per server (EXPORT_WORKERS=1): with four books queued, both make one at once.
    assert most_at_once == 2, most_at_once
    for job in jobs:
        for port in (a.port, b.port):
            status, done = request(port, "GET", str(job["status_url"]))
            assert status == 200 and done["status"] == "done", done
            status, pdf = request(port, "GET", done["file_url"], timeout=60)
            assert status == 200 and pdf.startswith("%PDF-")


def test_a_pack_uploaded_on_one_server_is_listed_and_played_on_the_other(
    cluster: tuple[Server, Server, str],
) -> None:
    import io
    import random

    from companion.packs.registry import get_pack, pack_to_text

    a, b, _url = cluster
    text = pack_to_text(get_pack("standard", "en")).replace("name: standard", "name: harbour")
    text = text.replace("\n- ", "\n- HARBOUR ")
    browser = Browser(a.url)
    files = {"pack": ("harbour.en.md", io.BytesIO(text.encode()))}
    sent = browser.post("/packs/upload", data={"csrf_token": browser.csrf("/packs/")}, files=files)
    assert sent.status_code == 302, sent.text[-600:]
    name = sent.headers["Location"].split("/")[2]
    assert name.startswith("harbour-")
    assert f"/packs/{name}/en" in Browser(b.url).get("/packs/").text
    status, body = request(b.port, "POST", "/api/v1/chronicles", {**SETUP, "pack": name})
    assert status == 201, body
    token, state = body["host_token"], body["state"]
    rng = random.Random(3)
    while state.get("check") is None:
        status, reply = send(b.port, token, state["version"], next_command(state, rng))
        assert status == 200, reply
        status, state = request(b.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert all(p["text"].startswith("HARBOUR ") for p in state["check"]["prompts"])


def test_kill_minus_nine_of_one_server_leaves_the_other_serving(
    cluster: tuple[Server, Server, str],
) -> None:
    a, b, url = cluster
    token, _start = create_chronicle(b.port)
    stop = threading.Event()
    log, threads = start_clients([a.port, b.port], token, 8, 10_000, stop)

    def accepted_on(server: Server) -> int:
        return sum(answer.accepted and answer.port == server.port for answer in log)

    wait_until(lambda: accepted_on(a) > 10 and accepted_on(b) > 10, "commands on both servers")
    a.kill()
    before = accepted_on(b)
    wait_until(lambda: accepted_on(b) > before + 10, "server B acknowledging commands alone")
    stop.set()
    for thread in threads:
        thread.join(timeout=300)
    assert not [thread for thread in threads if thread.is_alive()], "a client never stopped"
    on_b = [answer for answer in log if answer.port == b.port]
    assert not [x for x in on_b if x.kind != "command" or x.status not in (200, 409)]
    assert [answer for answer in on_b if answer.accepted]
    acknowledged = [answer.new_version for answer in log if answer.accepted]
    sid = stream_of(url, token)
    stored = {seq for stream, seq in stored_events(url) if stream == sid}
    assert set(acknowledged) <= stored, "an acknowledged command is missing"
    status, state = request(b.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200 and state["version"] == max(stored)
    a.start()  # back for any test after this one
