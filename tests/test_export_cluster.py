"""Two real servers sharing one PostgreSQL store and one exports folder; the one making a book
is killed (kill -9 of its whole process group) mid-book: the other notices within the heartbeat
window that the book's server is gone, queues it again once and makes it.

The first server runs in a UTS namespace of its own (``unshare -u``) under another host name,
as on another machine, so the other learns of its death from its heartbeat file going stale,
not from its process table. Where namespaces cannot be made, both run under this machine's name
and the other server sees the dead supervisor's process gone instead.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from attacks.export_server import prepare
from pg_server import available, database_url
from server_client import Server, request
from waiting import BOOK_ENDS, HANG

from companion.export import heartbeat

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not available(), reason="psycopg or PostgreSQL missing"),
]
ELSEWHERE = "companion-box-a"
RENAME = f'hostname {ELSEWHERE} && exec "$@"'


def own_host_name() -> list[str]:
    """A command that runs the server under another host name, if this machine allows it."""
    # As root, a UTS namespace alone (a user namespace would lose root's reach into the test
    # cluster's socket folder); otherwise a user namespace makes it possible at all.
    unshare = ["unshare", "-u"] if os.geteuid() == 0 else ["unshare", "-ru"]
    try:
        probe = subprocess.run([*unshare, "hostname", "x"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [*unshare, "sh", "-c", RENAME, "sh"] if probe.returncode == 0 else []


def job_row(url: str, job_id: str) -> dict[str, Any]:
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(url, row_factory=dict_row) as conn:
        row = conn.execute("SELECT * FROM exports WHERE id = %s", [job_id]).fetchone()
    assert row is not None
    return dict(row)


def test_a_book_of_a_server_that_died_is_made_by_the_other(tmp_path: Path) -> None:
    url = database_url()
    lives = prepare(url)  # type: ignore[arg-type]
    shared = {
        "COMPANION_DATABASE": url,
        "COMPANION_EXPORTS_DIR": str(tmp_path / "exports"),
        "COMPANION_EXPORT_WORKERS": "1",
    }
    wrapper = own_host_name()
    a = Server(tmp_path / "a.sqlite3", env={**shared, "COMPANION_PACKS_DIR": str(tmp_path / "a")})
    a.wrapper = wrapper
    b = Server(tmp_path / "b.sqlite3", env={**shared, "COMPANION_PACKS_DIR": str(tmp_path / "b")})
    try:
        a.start()
        body = {"format": "pdf", "edition": "annotated", "paper": "a5"}
        status, job = request(a.port, "POST", f"/api/v1/chronicles/{lives.long}/exports", body)
        assert status == 202, job
        deadline = time.monotonic() + HANG
        while (row := job_row(url, job["id"]))["step"] != "layout" or not row["page"]:
            assert time.monotonic() < deadline, f"server A never began the book: {row}"
            time.sleep(0.2)
        # Held mid-book while B starts, so A cannot finish it first on a fast machine; the kill
        # of A's process group below takes this worker with it.
        os.kill(row["pid"], signal.SIGSTOP)
        owner = heartbeat.parse_owner(row["host"])
        assert owner is not None and owner[0] == (ELSEWHERE if wrapper else heartbeat.HOST)
        b.start()  # only now: the book is A's
        a.kill()

        dead = row["host"]
        deadline = time.monotonic() + BOOK_ENDS
        while (row := job_row(url, job["id"]))["host"] == dead:
            assert time.monotonic() < deadline, f"server B never noticed: {row}"
            time.sleep(0.2)
        status_url = f"/c/{lives.long}/export/{job['id']}.json"
        while (answer := request(b.port, "GET", status_url)[1])["status"] not in ("done", "failed"):
            assert time.monotonic() < deadline, f"server B never made the book: {answer}"
            time.sleep(0.5)
        assert answer["status"] == "done", answer
        made = job_row(url, job["id"])
        assert made["attempts"] == 2 and made["host"] != dead  # queued again once, made by B
        assert request(b.port, "GET", answer["url"])[0] == 200
        # The dead server's heartbeat goes too (at B's next look at the exports folder).
        gone = tmp_path / "exports" / heartbeat.file_name(dead)
        while gone.exists():
            assert time.monotonic() < deadline, "the dead server's heartbeat stayed"
            time.sleep(0.5)
    finally:
        a.stop()
        b.stop()
