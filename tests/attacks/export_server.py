"""A real `companion serve` with two lives to make books of, and what the export tests look at
from outside: the export processes in /proc, a job's row, a job's status until it is over."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server_client import Server, request

from companion.legacy import ReviseText
from companion.store.db import connect, init_db
from companion.streams import chronicles
from companion.streams.demo import create_demo

WORKER_MODULE = "companion.export.worker"
LONG_TEXT = "\n\n".join(
    "The bell rang over the valley and the river carried its sound far. " * 6 for _ in range(45)
)[:19_000]


@dataclass(frozen=True)
class Lives:
    """A short life (the sample) and a long one (three answers of 19,000 characters)."""

    short: str
    long: str


def prepare(database: Path) -> Lives:
    """The database, with the two lives, before the server starts."""
    init_db(database)
    db = connect(database)
    short = create_demo(db, "en")
    long = create_demo(db, "en")
    chronicle = chronicles.load(db, long.id)
    revisions = [
        ReviseText(0, turn.answer.seq, "answer", LONG_TEXT)
        for turn in chronicle.state.story[:3]
        if turn.answer is not None
    ]
    chronicles.execute(db, chronicle, revisions)
    db.conn.close()
    return Lives(short.host_token, long.host_token)


def start(folder: Path, wrapper: list[str] | None = None, **env: str) -> tuple[Server, Lives]:
    """A server on a database of its own in ``folder`` (run under ``wrapper`` if given)."""
    database = folder / "exports.sqlite3"
    lives = prepare(database)
    return Server(database, env=env, wrapper=wrapper or []).start(), lives


def pids_running(module: str, database: Path) -> set[int]:
    """The live processes running ``python -m module`` on this database (no zombies).

    A child a worker forks to run a helper program (``ctypes.util.find_library`` runs
    ``ldconfig`` as WeasyPrint loads) shows its parent's command line until it execs: it is no
    second worker, so processes whose parent matches too are left out.
    """
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue  # the process ended while we looked
        words = [arg.decode("utf-8", "replace") for arg in args]
        if state != "Z" and module in words and str(database) in words:
            found[int(entry.name)] = int(ppid)
    return {pid for pid, ppid in found.items() if ppid not in found}


def worker_pids(database: Path) -> set[int]:
    """The live export worker processes of this database."""
    return pids_running(WORKER_MODULE, database)


def ask_book(server: Server, token: str, edition: str, paper: str) -> str:
    body = {"format": "pdf", "edition": edition, "paper": paper}
    status, job = request(server.port, "POST", f"/api/v1/chronicles/{token}/exports", body)
    assert status == 202, job
    return str(job["id"])


def job_row(database: Path, job_id: str) -> dict[str, Any]:
    with sqlite3.connect(database, timeout=10) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM exports WHERE id = ?", [job_id]).fetchone()
    assert row is not None
    return dict(row)


def in_layout(database: Path, job_id: str, seconds: float) -> dict[str, Any]:
    """The job's row once its worker lays the book out (its first page counted)."""
    deadline = time.monotonic() + seconds
    while (row := job_row(database, job_id))["step"] != "layout" or not row["page"]:
        assert time.monotonic() < deadline, f"the layout never began: {row}"
        assert row["status"] in ("queued", "running"), row
        time.sleep(0.05)
    return row


def wait_until_over(server: Server, token: str, job_id: str, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, job = request(server.port, "GET", f"/c/{token}/export/{job_id}.json")
        assert status == 200, job
        if job["status"] in ("done", "failed"):
            return job  # type: ignore[no-any-return]
        time.sleep(0.5)
    raise AssertionError(f"the book was neither made nor failed in {seconds} s: {job}")


def supervisor_pids(database: Path) -> set[int]:
    """The live export supervisor processes of this database."""
    return pids_running("companion.export.supervisor", database)
