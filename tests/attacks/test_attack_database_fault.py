"""A database the server cannot write (read-only, locked) against `companion serve`.

Every write then answers 503 with Retry-After (a page for a browser, JSON for scripts), never a
500 and never a success that was not stored; once the database is writable again, the same
server writes at once, without a restart.

Tests run as root, whom file permission bits do not stop. The read-only server therefore runs
under `setpriv` without the capabilities that bypass permissions (CAP_DAC_OVERRIDE and
friends): the same process an operator's own account would run, refused by a `chmod a-w`.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import g
from server_client import SETUP, Browser, Server

from companion.app import create_app
from companion.store.db import get_db, init_db

NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]
PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
SERVER_ENV = {"COMPANION_SESSION_COOKIE_SECURE": "false"}
PARALLEL = 16  # chronicles written at once: more than one worker has threads (2 x 8)
UNSAVED_PAGE = "The chronicles cannot be saved right now"


def _prepared(folder: Path, count: int) -> tuple[Path, list[str]]:
    """A database holding ``count`` chronicles, made before the server opens it; host tokens."""
    database = folder / "fault.sqlite3"
    init_db(database)
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "fault",
            "DATABASE": str(database),
            "PACKS_DIR": str(folder / "packs"),
            "EXPORTS_DIR": str(folder / "exports"),
            "RATELIMIT_ENABLED": False,
        }
    )
    client = app.test_client()
    hosts = [client.post("/api/v1/chronicles", json=SETUP).get_json() for _ in range(count)]
    with app.app_context():
        get_db()
        g.pop("db").conn.close()  # the last connection out folds the WAL back into the file
    return database, [created["host_token"] for created in hosts]


def _database_files(database: Path) -> list[Path]:
    names = (database, Path(f"{database}-wal"), Path(f"{database}-shm"))
    return [name for name in names if name.exists()]


def _stored_drafts(database: Path) -> set[str]:
    with sqlite3.connect(database) as conn:
        return {text for (text,) in conn.execute("SELECT text FROM drafts")}


def _stream_ids(database: Path) -> set[str]:
    with sqlite3.connect(database) as conn:
        return {sid for (sid,) in conn.execute("SELECT id FROM streams")}


@pytest.fixture
def unprivileged(tmp_path: Path) -> Iterator[Callable[[Path], Server]]:
    """Start servers that file permissions bind, though the tests run as root."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop the permission-bypassing capabilities")
    probe = tmp_path / "probe"
    probe.write_text("")
    probe.chmod(0o444)
    refused = subprocess.run([*NO_OVERRIDE, "sh", "-c", f": >> {probe}"], capture_output=True)
    assert refused.returncode != 0, "a read-only file must refuse the server's process"
    started: list[Server] = []

    def start(database: Path) -> Server:
        started.append(Server(database, env=SERVER_ENV, wrapper=NO_OVERRIDE).start())
        return started[-1]

    try:
        yield start
    finally:
        for server in started:
            server.stop()
        for name in tmp_path.rglob("*"):
            name.chmod(0o755 if name.is_dir() else 0o644)


def _writes(server: Server, hosts: list[str], tag: str) -> list[tuple[str, Any, requests.Response]]:
    """Many requests at once, each on its own connection so they spread over the server's threads.

    Per chronicle: a draft saved by the page's script, a turn form posted by a browser (a stale
    version makes it a refusal that keeps its texts for the link and sends the browser back to
    the page, 303), a new chronicle through the API and the JSON version poll.
    """

    def one(task: tuple[int, str]) -> tuple[str, Any, requests.Response]:
        n, kind = task
        host, browser = hosts[n], Browser(server.url)
        if kind == "create":
            return kind, None, browser.post("/api/v1/chronicles", json=SETUP)
        if kind == "version":
            return kind, None, browser.get(f"/c/{host}/version")
        text = f"{tag}-{kind}-{n}"
        if kind == "draft":
            data = {"csrf_token": browser.csrf(), "field": "answer", "text": text}
            return kind, text, browser.post(f"/c/{host}/draft", data=data)
        form = {"csrf_token": browser.csrf(), "version": "-1", "action": "x", "narration": text}
        return kind, text, browser.post(f"/c/{host}/turn", data=form, headers=PAGE)

    tasks = [
        (n, kind) for n in range(len(hosts)) for kind in ("draft", "form", "create", "version")
    ]
    with ThreadPoolExecutor(len(tasks)) as pool:
        return list(pool.map(one, tasks))


def _assert_unavailable(kind: str, response: requests.Response) -> None:
    """A 503 a player and a script both understand, with a time to try again."""
    assert response.status_code == 503, (kind, response.status_code, response.text[:300])
    assert int(response.headers["Retry-After"]) > 0
    if kind == "form":
        assert "text/html" in response.headers["Content-Type"]
        assert UNSAVED_PAGE in response.text
    else:
        body = response.json()
        assert body["code"] == "database-unavailable"
        assert "cannot be saved right now" in body["error"]


def test_read_only_database_answers_503_and_recovers_without_restart(
    tmp_path: Path, unprivileged: Callable[[Path], Server]
) -> None:
    database, hosts = _prepared(tmp_path, PARALLEL)
    server = unprivileged(database)
    before = _stream_ids(database)
    for name in _database_files(database):  # what an operator does: chmod a-w fault.sqlite3*
        name.chmod(0o444)

    answers = _writes(server, hosts, "read-only")
    for kind, _text, response in answers:
        assert response.status_code != 500, (kind, response.text[:300])
        if kind == "version" and response.status_code == 200:
            continue  # reading a read-only database may still work
        _assert_unavailable(kind, response)

    for name in _database_files(database):
        name.chmod(0o644)
    answers = _writes(server, hosts, "writable")
    for kind, _text, response in answers:
        expected = {"draft": 200, "form": 303, "create": 201, "version": 200}[kind]
        assert response.status_code == expected, (kind, response.status_code, response.text[:300])
        if kind == "draft":
            assert response.json()["saved"] is True

    stored = _stored_drafts(database)
    assert not {text for text in stored if text.startswith("read-only")}
    acknowledged = {text for kind, text, _r in answers if kind in ("draft", "form")}
    assert acknowledged <= stored, "every draft the server said it kept is in the database"
    created = {r.json()["id"] for kind, _t, r in answers if kind == "create"}
    assert created <= _stream_ids(database) and len(_stream_ids(database)) == len(before) + PARALLEL


@pytest.mark.slow
def test_a_held_write_lock_answers_503_after_the_busy_timeout_then_writes(
    tmp_path: Path, unprivileged: Callable[[Path], Server]
) -> None:
    database, hosts = _prepared(tmp_path, 4)
    server = unprivileged(database)
    lock = sqlite3.connect(database, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        # Every write gives up after the busy timeout and answers 503 (below) while the lock is
        # still held, instead of waiting for it to be let go.
        answers = _writes(server, hosts, "locked")
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    for kind, _text, response in answers:
        if kind == "version":
            assert response.status_code == 200  # readers are not blocked by a writer
        else:
            _assert_unavailable(kind, response)

    answers = _writes(server, hosts, "unlocked")
    expected = {"draft": 200, "form": 303, "create": 201, "version": 200}
    assert [r.status_code for kind, _t, r in answers] == [
        expected[kind] for kind, _t, _r in answers
    ]
    stored = _stored_drafts(database)
    assert not {text for text in stored if text.startswith("locked")}
    assert {text for kind, text, _r in answers if kind in ("draft", "form")} <= stored
