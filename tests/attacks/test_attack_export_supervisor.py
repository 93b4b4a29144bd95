"""kill -9 of the export supervisor of a real `companion serve`, mid-book, where nothing reaps
the processes it leaves (its killed worker stays a zombie): the supervisor started in its place
queues the book again at once, and makes it. A worker whose supervisor died while it was still
loading makes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from server_client import request
from waiting import BOOK_ENDS, HANG

from attacks.export_server import (
    ask_book,
    in_layout,
    job_row,
    start,
    supervisor_pids,
    wait_until_over,
)

pytestmark = pytest.mark.slow  # real servers whose supervisor is killed mid-book

SUBREAPER = [sys.executable, str(Path(__file__).with_name("subreaper.py"))]


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_a_book_cut_short_by_a_killed_supervisor_is_made_by_the_next(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path_factory.mktemp("killed-supervisor")
    server, lives = start(folder, wrapper=SUBREAPER, COMPANION_EXPORT_WORKERS="1")
    try:
        job_id = ask_book(server, lives.long, "annotated", "a5")
        row = in_layout(server.database, job_id, HANG)
        worker = row["pid"]
        (victim,) = supervisor_pids(server.database)
        os.kill(victim, signal.SIGKILL)

        deadline = time.monotonic() + HANG
        while not (supervisor_pids(server.database) - {victim}):
            assert time.monotonic() < deadline, "no supervisor was started again"
            time.sleep(0.2)
        # Its worker died with it, and nobody waited for it: a zombie, whose number still
        # answers kill(pid, 0). The book must not be taken for still being made.
        while (row := job_row(server.database, job_id))["pid"] == worker:
            assert time.monotonic() < deadline, f"the book stayed with its dead worker: {row}"
            time.sleep(0.2)
        while not zombie(worker) and Path(f"/proc/{worker}").exists():
            assert time.monotonic() < deadline, "the killed supervisor's worker lives on"
            time.sleep(0.2)
        made = wait_until_over(server, lives.long, job_id, BOOK_ENDS)
        assert made["status"] == "done", made
        assert job_row(server.database, job_id)["attempts"] == 2  # queued again once
        assert request(server.port, "GET", "/healthz")[0] == 200
    finally:
        server.stop()


def test_a_worker_whose_supervisor_died_while_it_loaded_makes_nothing(tmp_path: Path) -> None:
    from companion.export import jobs
    from companion.store.db import connect, init_db
    from companion.streams.demo import create_demo

    database = tmp_path / "orphan.sqlite3"
    init_db(database)
    db = connect(database)
    stream = create_demo(db, "en").id
    job, _ = jobs.request_book(db, tmp_path, stream, 12, "story", "a6")
    claimed = jobs.claim_next(db, pid=os.getpid(), limit=1, owner="here-1-1")
    assert claimed is not None
    command = [sys.executable, "-m", "companion.export.worker", "--database", str(database)]
    # Its supervisor (``--parent``) is not its parent: it died while this worker loaded.
    command += ["--exports", str(tmp_path), "--parent", str(os.getpid() + 1)]
    done = subprocess.run(command, input=f"{job.id}\n", text=True, timeout=120, check=False)
    assert done.returncode == 0
    untouched = jobs.find(db, job.id)
    assert untouched is not None and untouched.status == "running" and untouched.step == "preparing"
    assert list(tmp_path.glob("*.pdf")) == []
