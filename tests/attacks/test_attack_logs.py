"""What `companion serve` writes to its logs: never a link token, never a forged line.

One server (access log on) meets a page that fails (500), an API call that fails, a database
locked past its timeout (503) and a book whose worker fails; then every log it wrote (its own
standard error, where the app, gunicorn and the export supervisor write, and exports/worker.log)
is searched for every token it saw. A path holding `%0a` and ESC writes one escaped line.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_client import SETUP, Server, next_command, request, send
from waiting import BOOK_ENDS, HANG

from companion.base.logs import public_id
from companion.export.jobs import book_filename
from companion.store import capabilities
from companion.store.db import connect, init_db
from companion.streams import matches
from companion.streams.demo import create_demo

METRICS = "metrics-token-of-the-log-tests"
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
LINE = re.compile(rf"{STAMP} (DEBUG|INFO|WARNING|ERROR|CRITICAL) \[([^\]]+)\] ")


@dataclass
class Logged:
    server: Server
    folder: Path
    healthy: str  # a chronicle's host token
    reader: str
    broken: str  # a chronicle whose stored events no longer replay
    table: str  # a card table whose stored events no longer replay (its page says so)
    table_seat: str

    def tokens(self) -> list[str]:
        return [self.healthy, self.reader, self.broken, self.table, self.table_seat]

    def server_log(self) -> str:
        return self.server.database.with_suffix(".log").read_text("utf-8", "replace")

    def every_log(self) -> dict[str, bytes]:
        logs = [self.server.database.with_suffix(".log"), *self.folder.rglob("*.log")]
        return {str(path): path.read_bytes() for path in dict.fromkeys(logs)}


def _prepare(database: Path) -> tuple[str, str, str, str, str]:
    init_db(database)
    db = connect(database)
    healthy, broken = create_demo(db, "en"), create_demo(db, "en")
    reader = capabilities.issue(db, healthy.id, "reader")
    seats = [matches.Seat("Ann"), matches.Seat("Ben")]
    table_id, table = matches.create(db, "traitors-flame", seats, "devices", "en", seed=7)
    seat = capabilities.issue(db, table_id, "seat", 0)
    # Stored events that no code can read (as a bug would leave them).
    unreadable = {
        broken.id: {"type": "no-such-event"},
        table_id: {"type": "match-started", "seats": 5},
    }
    for stream, data in unreadable.items():
        db.execute("UPDATE events SET data = ? WHERE stream_id = ?", [json.dumps(data), stream])
    db.conn.close()
    return healthy.host_token, reader, broken.host_token, table, seat


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    folder = tmp_path_factory.mktemp("logged")
    database = folder / "logged.sqlite3"
    tokens = _prepare(database)
    env = {"COMPANION_ACCESS_LOG": "true", "COMPANION_METRICS_TOKEN": METRICS}
    server = Server(database, env=env).start()
    try:
        yield Logged(server, folder, *tokens)
    finally:
        server.stop()


def _wait_for(logged: Logged, text: str, seconds: float = HANG) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        log = logged.server_log()
        if text in log:
            return log
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never reached the server's log:\n{logged.server_log()[-3000:]}")


def _hold_lock(database: Path, locked: threading.Event, release: threading.Event) -> None:
    """Hold the database's write lock (as a stuck writer would), until released."""
    conn = sqlite3.connect(database, timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    locked.set()
    release.wait(60)
    conn.execute("ROLLBACK")
    conn.close()


def _failed_book(logged: Logged) -> str:
    """Ask a book whose file cannot be put in place (a folder holds its name); its job id."""
    db = connect(logged.server.database)
    stream, version = db.execute(
        "SELECT c.stream_id, s.version FROM capabilities c JOIN streams s ON s.id = c.stream_id"
        " WHERE c.token_hash = ?",
        [capabilities.hash_token(logged.healthy)],
    ).fetchone()
    db.conn.close()
    (logged.folder / "exports" / book_filename(stream, version, "story", "a5")).mkdir(parents=True)
    body = {"format": "pdf", "edition": "story", "paper": "a5"}
    status, job = request(
        logged.server.port, "POST", f"/api/v1/chronicles/{logged.healthy}/exports", body
    )
    assert status == 202, job
    deadline = time.monotonic() + BOOK_ENDS
    while time.monotonic() < deadline:
        status, state = request(
            logged.server.port, "GET", f"/c/{logged.healthy}/export/{job['id']}.json"
        )
        if state["status"] in ("done", "failed"):
            assert state["status"] == "failed", state
            return str(job["id"])
        time.sleep(0.5)
    raise AssertionError("the book never failed")


@pytest.fixture(scope="module")
def failed_job(logged: Logged) -> str:
    return _failed_book(logged)


@pytest.mark.slow
def test_no_token_reaches_any_log_whatever_fails(logged: Logged, failed_job: str) -> None:
    port = logged.server.port
    for path in (f"/c/{logged.healthy}/", f"/c/{logged.reader}/story", f"/t/{logged.table_seat}/x"):
        request(port, "GET", path)
    assert request(port, "GET", f"/c/{logged.broken}/")[0] == 500
    assert request(port, "GET", f"/api/v1/chronicles/{logged.broken}/state")[0] == 500
    request(port, "GET", f"/t/{logged.table}/")  # a damaged table: not found
    state = request(port, "GET", f"/api/v1/chronicles/{logged.healthy}/state")[1]
    rng = random.Random(1)
    locked, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(logged.server.database, locked, release))
    holder.start()
    try:
        assert locked.wait(30)
        assert send(port, logged.healthy, state["version"], next_command(state, rng))[0] == 503
    finally:
        release.set()
        holder.join(60)
    log = _wait_for(logged, f"export {failed_job} of ")
    assert f"Exception on /c/{public_id(logged.broken)}/ [GET]" in log
    assert f"/api/v1/chronicles/{public_id(logged.broken)}/state failed" in log
    assert f"on POST /api/v1/chronicles/{public_id(logged.healthy)}/commands" in log  # the 503
    assert f"GET /t/{public_id(logged.table)}/ " in log  # the access log
    for name, text in logged.every_log().items():
        for token in logged.tokens():
            assert token.encode() not in text, f"{name} holds a link token"


def test_a_failure_is_logged_with_the_request_id_its_page_shows(logged: Logged) -> None:
    import requests

    answer = requests.get(f"{logged.server.url}/c/{logged.broken}/", timeout=30)
    assert answer.status_code == 500
    rid = answer.headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{16}", rid)
    assert rid in answer.text  # the page gives it to quote
    log = _wait_for(logged, f"ERROR [{rid}]")
    assert re.search(rf"^{STAMP} ERROR \[{rid}\] \S+: Exception on /c/link-", log, re.M)
    api = requests.get(f"{logged.server.url}/api/v1/chronicles/{logged.broken}/state", timeout=30)
    assert api.json()["request_id"] == api.headers["X-Request-Id"]
    forged = requests.get(f"{logged.server.url}/", headers={"X-Request-Id": "chosen-by-anyone"})
    assert forged.headers["X-Request-Id"] != "chosen-by-anyone"  # not trusted unless configured


FORGED = "1999-01-01T00:00:00.000Z ERROR [-] companion: forged"


@pytest.mark.parametrize(
    "path",
    [
        "/c/zz%0a1999-01-01T00:00:00.000Z%20ERROR%20[-]%20companion:%20forged%1b[2J/",
        "/api/v1/chronicles/zz%0d%0a1999-01-01T00:00:00.000Z%20ERROR%20[-]%20companion:%20forged/state",
        "/nowhere%0a1999-01-01T00:00:00.000Z%20ERROR%20[-]%20companion:%20forged%e2%80%ae",
    ],
)
def test_a_path_cannot_forge_a_log_line(logged: Logged, path: str) -> None:
    status, _ = request(logged.server.port, "GET", path)
    assert status == 404
    log = _wait_for(logged, "\\x0a1999-01-01" if "%0a" in path else "\\x0d\\x0a1999")
    assert not re.search(r"^1999-01-01", log, re.M), "a request wrote a line of its own"
    assert "\x1b" not in log and "\u202e" not in log
    for line in log.splitlines():  # every line is a record, or a traceback indented under one
        assert (
            LINE.match(line) or line.startswith("    ") or not line.strip() or "running:" in line
        ), line


def test_a_restart_of_the_export_supervisor_is_logged(logged: Logged) -> None:
    from attacks.test_attack_export_worker import supervisor_pids

    (pid,) = supervisor_pids(logged.server.database)
    os.kill(pid, signal.SIGKILL)
    log = _wait_for(logged, f"export supervisor {pid} stopped; starting it again")
    assert re.search(
        rf"^{STAMP} ERROR \[-\] companion.export.keeper: export supervisor {pid}", log, re.M
    )


def test_the_failed_book_is_counted_with_its_time(logged: Logged, failed_job: str) -> None:
    import requests

    _wait_for(logged, f"export {failed_job} of ")
    text = requests.get(
        f"{logged.server.url}/metrics", headers={"Authorization": f"Bearer {METRICS}"}, timeout=30
    ).text
    assert re.search(r'^companion_export_job_seconds_count\{outcome="failed"\} [1-9]', text, re.M)
    assert not any(token in text for token in logged.tokens())


def test_the_server_answers_after_all_this(logged: Logged) -> None:
    assert request(logged.server.port, "POST", "/api/v1/chronicles", SETUP)[0] == 201
