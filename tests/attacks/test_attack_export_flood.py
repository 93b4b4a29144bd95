"""Export floods through `companion serve`: one read-only link asking for hundreds of books
queues only its share, and another chronicle's book is made next, not after the flood; the
exports' rate limit holds per link and per address; numbers no column holds answer 404."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from server_client import Server, request
from waiting import BOOK_ENDS

from companion.store.db import connect, init_db
from companion.streams.demo import create_demo

FLOOD = 240
SHARE = 4  # EXPORT_QUEUE_PER_STREAM's default


@dataclass(frozen=True)
class Chronicle:
    id: str
    host: str
    reader: str


def chronicles_of(database: Path, count: int) -> list[Chronicle]:
    init_db(database)
    db = connect(database)
    made = [create_demo(db, "en") for _ in range(count)]
    db.conn.close()
    return [Chronicle(c.id, c.host_token, c.reader_token) for c in made]


def active(database: Path, stream: str) -> int:
    with sqlite3.connect(database, timeout=10) as conn:
        query = (
            "SELECT count(*) FROM exports WHERE stream_id = ? AND status IN ('queued', 'running')"
        )
        return int(conn.execute(query, [stream]).fetchone()[0])


class Census(threading.Thread):
    """The most books of one chronicle waiting or being made at once, while it runs."""

    def __init__(self, database: Path, stream: str) -> None:
        super().__init__(daemon=True)
        self.database, self.stream, self.most, self.done = database, stream, 0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.most = max(self.most, active(self.database, self.stream))
            time.sleep(0.02)


def flood_body(n: int) -> dict[str, Any]:
    """The n-th of the flood's requests: every kind of book, paper, edition and thickness."""
    papers, editions = ["a5", "a4", "b6", "a6", "shinsho"], ["story", "annotated"]
    body: dict[str, Any] = {"paper": papers[n % 5], "edition": editions[(n // 5) % 2]}
    if n % 3 == 0:
        return {**body, "format": "epub"}
    return {**body, "format": "pdf", "print_shop": True, "paper_thickness": 0.04 + n / 1000}


@pytest.fixture(scope="module")
def flooded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, list[Chronicle]]]:
    folder = tmp_path_factory.mktemp("flood")
    lives = chronicles_of(folder / "flood.sqlite3", 2)
    server = Server(folder / "flood.sqlite3", env={"COMPANION_EXPORT_WORKERS": "1"}).start()
    try:
        yield server, lives
    finally:
        server.stop()


@pytest.mark.slow  # hundreds of books asked for, and one made, through a real server
def test_a_reader_link_flooding_the_queue_leaves_room_for_another_chronicle(
    flooded: tuple[Server, list[Chronicle]],
) -> None:
    server, (flood, quiet) = flooded
    census = Census(server.database, flood.id)
    census.start()
    answers: list[tuple[int, Any]] = []

    def post(n: int) -> tuple[int, Any]:
        path = f"/api/v1/chronicles/{flood.reader}/exports?lang=en"
        return request(server.port, "POST", path, flood_body(n))

    try:
        with ThreadPoolExecutor(8) as threads:
            answers += threads.map(post, range(FLOOD // 2))
            status, asked = request(
                server.port, "POST", f"/api/v1/chronicles/{quiet.host}/exports", {"format": "pdf"}
            )
            assert status == 202, asked
            answers += threads.map(post, range(FLOOD // 2, FLOOD))
        deadline = time.monotonic() + BOOK_ENDS
        while (job := request(server.port, "GET", asked["status_url"])[1])["status"] != "done":
            assert job["status"] in ("queued", "running"), job
            assert time.monotonic() < deadline, f"the other chronicle's book never came: {job}"
            time.sleep(0.3)
        # It was made before the flood's books asked for earlier, which still wait.
        with sqlite3.connect(server.database, timeout=10) as conn:
            created = conn.execute("SELECT created FROM exports WHERE id = ?", [job["id"]])
            (quiet_created,) = created.fetchone()
            earlier = conn.execute(
                "SELECT count(*) FROM exports WHERE stream_id = ? AND status = 'queued'"
                " AND created < ?",
                [flood.id, quiet_created],
            ).fetchone()[0]
        assert earlier >= 1
    finally:
        census.done.set()
        census.join(timeout=10)
    statuses = [status for status, _body in answers]
    assert set(statuses) <= {200, 202, 429}, statuses
    # A 200 is a book asked for again after the worker had made it: the same job, finished.
    queued = {body["id"] for status, body in answers if status == 202}
    for status, body in answers:
        if status == 200:
            assert body["status"] == "done" and body["id"] in queued, body
    refused = [body for status, body in answers if status == 429]
    assert len(refused) >= FLOOD // 2  # the rest: the same books again, sharing their jobs
    assert {body["code"] for body in refused} == {"export-queue-full"}
    assert f"already has {SHARE} books waiting" in refused[0]["error"]
    assert census.most <= SHARE, f"{census.most} books of one chronicle were queued at once"


@pytest.mark.slow
def test_the_exports_rate_limit_holds_per_link_and_per_address(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path_factory.mktemp("export-limit")
    first, second = chronicles_of(folder / "limit.sqlite3", 2)
    env = {
        "COMPANION_RATELIMIT_ENABLED": "true",
        "COMPANION_RATELIMIT_EXPORT": "5",
        "COMPANION_PROXY_HOPS": "1",  # the test speaks for many addresses through this header
        "COMPANION_EXPORT_WORKERS": "0",
    }
    server = Server(folder / "limit.sqlite3", env=env).start()

    def markdown(token: str, address: str) -> int:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            conn.request("GET", f"/c/{token}/export.md", headers={"X-Forwarded-For": address})
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    try:
        # Each of the two web workers counts for itself, and either may take any connection:
        # at most twice the limit is served, whichever worker answered which, the rest refused.
        by_link = [markdown(first.reader, f"203.0.113.{n}") for n in range(1, 25)]
        assert set(by_link) == {200, 429} and by_link.count(200) <= 10, by_link
        by_address = [markdown(second.reader, "198.51.100.7") for _ in range(24)]
        assert set(by_address) == {200, 429} and by_address.count(200) <= 10, by_address
        assert markdown(second.host, "198.51.100.8") == 200  # another link, another address
        status, body = request(server.port, "GET", f"/c/{second.reader}/version")
        assert status == 200  # reading the chronicle is never counted as an export
    finally:
        server.stop()


def test_a_version_no_column_holds_is_not_found(served: Server) -> None:
    (chronicle,) = chronicles_of_served(served)
    for path in (
        f"/c/{chronicle.host}/book/v9223372036854775808-story-a5.pdf",
        f"/c/{chronicle.host}/book/v{'9' * 40}-annotated-b6-epub.epub",
        f"/api/v1/chronicles/{chronicle.host}/exports/{'9' * 40}",
    ):
        assert request(served.port, "GET", path)[0] == 404, path


def chronicles_of_served(served: Server) -> list[Chronicle]:
    db = connect(served.database)
    made = create_demo(db, "en")
    db.conn.close()
    return [Chronicle(made.id, made.host_token, made.reader_token)]
