"""PDF export workers under attack, through `companion serve`: polling, killing, slow books.

Worker processes are counted from /proc by their command line (`companion.export.worker` with
this server's database path), so a worker counts wherever it runs: in the server's process group
or in a session of its own.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from server_client import Server, request
from waiting import BOOK_ENDS, HANG

from attacks.export_server import (
    Lives,
    ask_book,
    in_layout,
    job_row,
    start,
    supervisor_pids,
    wait_until_over,
    worker_pids,
)

pytestmark = pytest.mark.slow  # real servers making, killing and timing out books


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Lives]]:
    """A server with the default pool of one export worker."""
    server, lives = start(tmp_path_factory.mktemp("pool"), COMPANION_EXPORT_WORKERS="1")
    try:
        yield server, lives
    finally:
        server.stop()


class Census(threading.Thread):
    """Counts the export workers every 20 ms while it runs; `most` is the highest count seen."""

    def __init__(self, database: Path) -> None:
        super().__init__(daemon=True)
        self.database, self.most, self.done = database, 0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.most = max(self.most, len(worker_pids(self.database)))
            time.sleep(0.02)

    def __enter__(self) -> Census:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.done.set()
        self.join(timeout=10)


def test_polling_a_queued_job_never_starts_workers(pool: tuple[Server, Lives]) -> None:
    server, lives = pool
    with Census(server.database) as census:
        first = ask_book(server, lives.short, "story", "b6")
        queued = ask_book(server, lives.short, "annotated", "a4")  # waits behind the first
        paths = [
            f"/c/{lives.short}/export/{queued}.json",
            f"/api/v1/chronicles/{lives.short}/exports/{queued}",
            f"/c/{lives.short}/export/{first}.json",
        ]

        def poll(thread: int) -> list[int]:
            return [request(server.port, "GET", paths[(thread + i) % 3])[0] for i in range(30)]

        with ThreadPoolExecutor(16) as threads:
            answers = [code for codes in threads.map(poll, range(16)) for code in codes]
        assert answers == [200] * 480
        assert census.most <= 1, f"{census.most} export workers ran at once"
        for job_id in (first, queued):
            made = wait_until_over(server, lives.short, job_id, BOOK_ENDS)
            assert made["status"] == "done", made
    assert census.most <= 1, f"{census.most} export workers ran at once"


def test_a_worker_killed_mid_layout_is_noticed(pool: tuple[Server, Lives]) -> None:
    server, lives = pool
    job_id = ask_book(server, lives.long, "annotated", "a5")
    row = in_layout(server.database, job_id, BOOK_ENDS)
    victim = row["pid"]
    assert victim in worker_pids(server.database)
    os.kill(victim, signal.SIGKILL)
    killed = time.monotonic()

    while True:
        row = job_row(server.database, job_id)
        if row["status"] == "failed" or row["pid"] != victim:
            break
        assert time.monotonic() - killed < HANG, f"the lost worker went unnoticed: {row}"
        time.sleep(0.2)
    assert row["status"] in ("queued", "running", "failed"), row
    over = wait_until_over(server, lives.long, job_id, BOOK_ENDS)
    if over["status"] == "failed":
        assert job_row(server.database, job_id)["error"] and over["message"], over
    assert len(worker_pids(server.database)) <= 1


def test_a_book_over_the_time_limit_is_stopped_and_says_so(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    server, lives = start(
        tmp_path_factory.mktemp("limit"),
        COMPANION_EXPORT_TIME_LIMIT="2",
        COMPANION_EXPORT_WORKERS="1",
    )
    try:
        job_id = ask_book(server, lives.long, "annotated", "a4")
        # A book that hangs: its worker is frozen as soon as it holds the job, so the book cannot
        # end inside the limit however fast this machine lays it out (it could, unfrozen).
        deadline = time.monotonic() + BOOK_ENDS
        while not (row := job_row(server.database, job_id))["pid"]:
            assert row["status"] == "queued", row
            assert time.monotonic() < deadline, f"no worker took the book: {row}"
            time.sleep(0.01)
        assert row["status"] == "running", row
        os.kill(row["pid"], signal.SIGSTOP)
        over = wait_until_over(server, lives.long, job_id, BOOK_ENDS)
        assert over["status"] == "failed", over
        assert "2 seconds" in over["message"], over
        page = request(server.port, "GET", f"/c/{lives.long}/story?lang=en")[1]
        assert over["message"] in page
        # The stopped worker is killed and reaped before its job is failed: at most the fresh one.
        assert len(worker_pids(server.database)) <= 1
    finally:
        server.stop()


def test_a_killed_supervisor_is_started_again_and_health_says_so(
    pool: tuple[Server, Lives],
) -> None:
    server, lives = pool
    status, health = request(server.port, "GET", "/healthz")
    assert (status, health["export_worker"]) == (200, "alive"), health
    (victim,) = supervisor_pids(server.database)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + HANG
    while not (supervisor_pids(server.database) - {victim}):
        assert time.monotonic() < deadline, "the supervisor was not started again"
        time.sleep(0.2)
    while request(server.port, "GET", "/healthz")[0] != 200:
        assert time.monotonic() < deadline, "the new supervisor never beat"
        time.sleep(0.2)
    assert len(supervisor_pids(server.database)) == 1
    job_id = ask_book(server, lives.short, "story", "a5")
    assert wait_until_over(server, lives.short, job_id, BOOK_ENDS)["status"] == "done"


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_no_export_process_outlives_the_server(
    tmp_path_factory: pytest.TempPathFactory, how: signal.Signals
) -> None:
    server, lives = start(tmp_path_factory.mktemp("orphans"))
    try:
        job_id = ask_book(server, lives.long, "annotated", "a4")
        deadline = time.monotonic() + BOOK_ENDS
        while job_row(server.database, job_id)["status"] != "running":
            assert time.monotonic() < deadline, "the book was never begun"
            time.sleep(0.1)
        assert server.process is not None
        os.kill(server.process.pid, how)  # the master alone, as a process manager might
        server.process.wait(timeout=30)
        deadline = time.monotonic() + HANG
        while left := worker_pids(server.database) | supervisor_pids(server.database):
            assert time.monotonic() < deadline, f"export processes outlived the server: {left}"
            time.sleep(0.2)
    finally:
        server.stop()
        # A failure must not leave a book being made after the test.
        for pid in worker_pids(server.database) | supervisor_pids(server.database):
            os.kill(pid, signal.SIGKILL)
