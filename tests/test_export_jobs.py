"""Book jobs in the exports table: one per version, edition and paper; workers take them in turn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask
from sqlite_utils import Database

from companion.export import heartbeat, jobs, upkeep
from companion.export.worker import estimated_pages, state_at, work
from companion.legacy import ReviseText
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo


@pytest.fixture
def db(app: Flask) -> Database:
    return connect(app.config["DATABASE"])


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    path = tmp_path / "exports"
    path.mkdir()
    return path


@pytest.fixture
def stream(db: Database) -> str:
    return create_demo(db, "en").id


def rows(db: Database) -> int:
    return int(db.execute("SELECT count(*) FROM exports").fetchone()[0])


def test_a_book_is_queued_once(db: Database, exports: Path, stream: str) -> None:
    job, needs_worker = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert job.status == "queued" and needs_worker
    again, _ = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert again.id == job.id and rows(db) == 1
    other, _ = jobs.request_book(db, exports, stream, 181, "annotated", "a5")
    assert other.id != job.id and rows(db) == 2


def test_a_made_book_is_returned_at_once(db: Database, exports: Path, stream: str) -> None:
    job, _ = jobs.request_book(db, exports, stream, 181, "story", "b6")
    claimed = jobs.claim_next(db, pid=1, limit=1)
    assert claimed is not None and claimed.id == job.id
    (exports / job.filename).write_bytes(b"%PDF-1.7 made")
    jobs.finish(db, claimed, exports)
    done, needs_worker = jobs.request_book(db, exports, stream, 181, "story", "b6")
    assert done.status == "done" and done.progress == 100 and not needs_worker
    (exports / job.filename).unlink()  # the file went missing: make it again
    again, needs_worker = jobs.request_book(db, exports, stream, 181, "story", "b6")
    assert again.id == job.id and again.status == "queued" and needs_worker


def test_claims_respect_the_limit_and_the_order(db: Database, exports: Path, stream: str) -> None:
    first, _ = jobs.request_book(db, exports, stream, 181, "story", "a5")
    second, _ = jobs.request_book(db, exports, stream, 181, "story", "a4")
    claimed = jobs.claim_next(db, pid=_live_pid(), limit=1)
    assert claimed is not None and claimed.id == first.id and claimed.status == "running"
    assert jobs.claim_next(db, pid=_live_pid(), limit=1) is None  # one book at a time
    later = jobs.claim_next(db, pid=_live_pid(), limit=2)
    assert later is not None and later.id == second.id


def _live_pid() -> int:
    return os.getpid()


def dead_pid() -> int:
    """The number of a process that ran and is gone."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    return int(gone.stdout)


def test_a_book_whose_supervisor_died_is_queued_again_once_then_failed(
    db: Database, exports: Path, stream: str
) -> None:
    owner = heartbeat.owner_id(1, dead_pid())  # a supervisor on this machine that is gone
    job, _ = jobs.request_book(db, exports, stream, 181, "annotated", "a5")
    for expected in ("queued", "failed"):
        claimed = jobs.claim_next(db, pid=dead_pid(), limit=1, owner=owner)
        assert claimed is not None and claimed.id == job.id and jobs.lost(claimed, exports)
        assert upkeep.settle_lost(db, claimed, "gone") == expected
        assert upkeep.settle_lost(db, claimed, "gone") is None  # settled once, by one server
    failed = jobs.find(db, job.id)
    assert failed is not None and failed.reason == jobs.WORKER_LOST and failed.attempts == 2
    again, needs_worker = jobs.request_book(db, exports, stream, 181, "annotated", "a5")
    assert again.id == job.id and again.status == "queued" and needs_worker
    assert again.attempts == 0  # asked for again: two more tries


def test_a_running_book_of_a_live_supervisor_is_not_lost(
    db: Database, exports: Path, stream: str
) -> None:
    # A process that looks like a supervisor (its command line names the module) stands in.
    command = [sys.executable, "-c", "import time; time.sleep(60)", heartbeat.SUPERVISOR_MODULE]
    with subprocess.Popen(command) as stand_in:
        owner = heartbeat.owner_id(os.getpid(), stand_in.pid)
        jobs.request_book(db, exports, stream, 181, "story", "a5")
        claimed = jobs.claim_next(db, pid=dead_pid(), limit=1, owner=owner)
        assert claimed is not None and claimed.host == owner and not jobs.lost(claimed, exports)
        again, needs_worker = jobs.request_book(db, exports, stream, 181, "story", "a5")
        assert again.status == "running" and not needs_worker
        stand_in.kill()
        stand_in.wait()
    assert jobs.lost(claimed, exports)  # once it is gone, its book is


def test_finishing_a_newer_version_drops_the_older_book(
    db: Database, exports: Path, stream: str
) -> None:
    old, _ = jobs.request_book(db, exports, stream, 180, "story", "a5")
    jobs.claim_next(db, pid=_live_pid(), limit=1)
    (exports / old.filename).write_bytes(b"%PDF old")
    jobs.finish(db, old, exports)
    new, _ = jobs.request_book(db, exports, stream, 181, "story", "a5")
    claimed = jobs.claim_next(db, pid=_live_pid(), limit=1)
    assert claimed is not None
    (exports / new.filename).write_bytes(b"%PDF new")
    jobs.finish(db, claimed, exports)
    assert not (exports / old.filename).exists() and jobs.find(db, old.id) is None
    assert (exports / new.filename).exists()


def test_the_worker_makes_the_book_of_the_requested_version(
    app: Flask, db: Database, exports: Path, stream: str
) -> None:
    chronicle = chronicles.load(db, stream)
    job, _ = jobs.request_book(db, exports, stream, 12, "annotated", "b6")
    answer = chronicle.state.story[0].answer
    assert answer is not None
    chronicles.execute(db, chronicle, [ReviseText(0, answer.seq, "answer", "Changed later.")])
    assert work(app, db, exports, limit=1) == 1
    done = jobs.find(db, job.id)
    assert done is not None and done.status == "done"
    pdf = (exports / job.filename).read_bytes()
    assert pdf.startswith(b"%PDF") and job.filename == f"{stream}-v12-annotated-b6.pdf"
    assert state_at(db, stream, 12).version == 12
    assert list(exports.glob("*.part")) == []


def test_a_failing_book_is_marked_failed_and_the_queue_goes_on(
    app: Flask, db: Database, exports: Path, stream: str
) -> None:
    broken, _ = jobs.request_book(db, exports, stream, 10, "bogus", "a5")  # no such edition
    fine, _ = jobs.request_book(db, exports, stream, 10, "story", "b6")
    assert work(app, db, exports, limit=1) == 1
    failed, done = jobs.find(db, broken.id), jobs.find(db, fine.id)
    assert failed is not None and failed.status == "failed"
    assert done is not None and done.status == "done"


def test_page_estimate_grows_with_the_text() -> None:
    short = "<p>" + "鐘" * 1000 + "</p>"
    assert estimated_pages(short * 10, "a5") > estimated_pages(short, "a5")
    assert estimated_pages(short, "b6") > estimated_pages(short, "a4")
    latin = "<p>" + "bell " * 200 + "</p>"
    assert estimated_pages(latin * 10, "a5") < estimated_pages(short * 10, "a5")
