"""PDF books as jobs in the ``exports`` table, made by worker processes outside any request.

A job is one book: a chronicle's version, an edition, a paper and a layout (``LAYOUTS``). Asking for a book that is made
already returns it at once; asking for one being made returns that job; otherwise a job is
queued. Requests never start a process: the export supervisor (``supervisor.py``) claims queued
jobs for its fixed pool of workers (``claim_next``), so a job queued while every worker is busy
is taken by the next one to be free.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..sql import Database, skip_locked, write_transaction
from ..store import now

log = logging.getLogger("companion.export")
STATUSES = ("queued", "running", "done", "failed")
STALE_SECONDS = 300  # a running job not heard from in this long has lost its worker
# Why a job failed, kept before a colon in its ``error`` so the page can say it in words.
TIME_LIMIT: Final = "time-limit"
WORKER_LOST: Final = "worker-lost"
COLUMNS = (
    "id, stream_id, version, edition, paper, status, progress, step, page, error, pid, updated,"
    " layout, host"
)
# The machine this process runs on: a worker's pid means something only there. Servers that
# share one PostgreSQL store each make books with their own pool and leave the others' alone.
HOST: Final = socket.gethostname()


@dataclass(frozen=True)
class Job:
    """One book being made, or made."""

    id: str
    stream_id: str
    version: int
    edition: str
    paper: str
    status: str
    progress: int
    step: str | None
    page: int | None
    error: str | None
    pid: int | None
    updated: str | None
    layout: str = "book"
    host: str | None = None

    @property
    def filename(self) -> str:
        return book_filename(self.stream_id, self.version, self.edition, self.paper, self.layout)

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")

    @property
    def reason(self) -> str | None:
        """Why the job failed, as a code (``TIME_LIMIT``, ``WORKER_LOST``), if it says."""
        if self.status != "failed" or not self.error or ":" not in self.error:
            return None
        return self.error.split(":", 1)[0]


def book_filename(
    stream_id: str, version: int, edition: str, paper: str, layout: str = "book"
) -> str:
    """The file a book is kept in, under EXPORTS_DIR."""
    return f"{stream_id}-v{version}-{edition}-{paper}{layout_suffix(layout)}"


def layout_suffix(layout: str) -> str:
    """How a layout ends a book's file name: the home-printer book keeps the plain ``.pdf``."""
    if layout == "book":
        return ".pdf"
    from .editions import parse_layout

    return f"-{layout}.{parse_layout(layout).extension}"


def _one(db: Database, where: str, params: list[Any]) -> Job | None:
    row = db.execute(f"SELECT {COLUMNS} FROM exports WHERE {where}", params).fetchone()
    return Job(*row) if row else None


def find(db: Database, job_id: str) -> Job | None:
    """The job with this id."""
    return _one(db, "id = ?", [job_id])


def find_book(
    db: Database, stream_id: str, version: int, edition: str, paper: str, layout: str = "book"
) -> Job | None:
    """The job for this exact book, whatever its status."""
    where = "stream_id = ? AND version = ? AND edition = ? AND paper = ? AND layout = ?"
    return _one(db, where, [stream_id, version, edition, paper, layout])


def jobs_for(db: Database, stream_id: str, version: int) -> list[Job]:
    """The books of this version of a chronicle, oldest request first."""
    rows = db.execute(
        f"SELECT {COLUMNS} FROM exports WHERE stream_id = ? AND version = ? ORDER BY created, id",
        [stream_id, version],
    ).fetchall()
    return [Job(*row) for row in rows]


def request_book(
    db: Database,
    exports_dir: Path,
    stream_id: str,
    version: int,
    edition: str,
    paper: str,
    layout: str = "book",
) -> tuple[Job, bool]:
    """The job for this book and whether a worker is needed: done, in progress or newly queued."""
    # As in the event store: the write lock first, so a check-then-write sees the latest rows.
    with write_transaction(db, lock=f"export:{stream_id}"):
        job = find_book(db, stream_id, version, edition, paper, layout)
        if job is not None and job.status == "done" and (exports_dir / job.filename).is_file():
            return job, False
        if job is not None and job.active and not _lost(job):
            return job, job.status == "queued"
        if job is None:
            job_id = secrets.token_hex(8)
            db.execute(
                "INSERT INTO exports (id, stream_id, version, edition, paper, layout, status,"
                " progress, created, updated) VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)",
                [job_id, stream_id, version, edition, paper, layout, now(), now()],
            )
        else:
            job_id = job.id
            _set(
                db,
                job_id,
                status="queued",
                progress=0,
                step=None,
                page=None,
                error=None,
                pid=None,
                host=None,
            )
        queued = find(db, job_id)
    assert queued is not None
    return queued, True


def _set(db: Database, job_id: str, **changes: Any) -> None:
    changes["updated"] = now()
    assignments = ", ".join(f"{name} = ?" for name in changes)
    db.execute(f"UPDATE exports SET {assignments} WHERE id = ?", [*changes.values(), job_id])


def claim_next(db: Database, pid: int, limit: int) -> Job | None:
    """Take the oldest queued job for worker ``pid``, if fewer than ``limit`` jobs run here.

    On PostgreSQL the queued row is taken with FOR UPDATE SKIP LOCKED: the servers sharing the
    store each claim a different job at once, and none waits for another's claim.
    """
    fail_lost(db)
    with write_transaction(db):
        if running(db, HOST) >= limit:
            return None
        # rowid breaks ties between jobs queued within the same millisecond, in queue order.
        where = f"status = 'queued' ORDER BY created, rowid LIMIT 1{skip_locked(db)}"
        job = _one(db, where, [])
        if job is None:
            return None
        _set(db, job.id, status="running", progress=2, step="preparing", pid=pid, host=HOST)
    return find(db, job.id)


def assign(db: Database, job_id: str, pid: int) -> None:
    """Record which worker process makes a claimed job."""
    _set(db, job_id, pid=pid)


def requeue(db: Database, job_id: str) -> None:
    """Put a running job back in the queue, to be made again from the start."""
    _set(db, job_id, status="queued", progress=0, step=None, page=None, pid=None, host=None)


def has_queued(db: Database) -> bool:
    """Whether a job waits for a worker (a read: no write lock is taken)."""
    return (
        db.execute("SELECT 1 FROM exports WHERE status = 'queued' LIMIT 1").fetchone() is not None
    )


def running_jobs(db: Database) -> list[Job]:
    """The jobs being made now."""
    rows = db.execute(f"SELECT {COLUMNS} FROM exports WHERE status = 'running'").fetchall()
    return [Job(*row) for row in rows]


def report(db: Database, job_id: str, progress: float, step: str, page: int | None = None) -> None:
    """The worker's progress on a job (0-100), the step it is at and the page it lays out."""
    _set(db, job_id, progress=max(0, min(99, round(progress))), step=step, page=page)


def finish(db: Database, job: Job, exports_dir: Path) -> None:
    """Mark the job done and drop the books of older versions it replaces."""
    _set(db, job.id, status="done", progress=100, step="done", pid=None)
    older = db.execute(
        f"SELECT {COLUMNS} FROM exports WHERE stream_id = ? AND edition = ? AND paper = ?"
        " AND layout = ? AND version < ? AND status IN ('done', 'failed')",
        [job.stream_id, job.edition, job.paper, job.layout, job.version],
    ).fetchall()
    for row in older:
        old = Job(*row)
        (exports_dir / old.filename).unlink(missing_ok=True)
        db.execute("DELETE FROM exports WHERE id = ?", [old.id])


def fail(db: Database, job_id: str, error: str) -> None:
    """Mark the job failed, keeping a short reason for the log and the status route."""
    _set(db, job_id, status="failed", step="failed", error=error[:500], pid=None)


def fail_lost(db: Database) -> int:
    """Mark failed the running jobs whose worker has gone; how many there were."""
    lost = [job for job in running_jobs(db) if _lost(job)]
    for job in lost:
        log.warning("export %s lost its worker (pid %s)", job.id, job.pid)
        fail(db, job.id, f"{WORKER_LOST}: the worker process stopped before the book was made")
    return len(lost)


def _lost(job: Job) -> bool:
    if job.status != "running":
        return False
    if here(job) and (job.pid is None or not alive(job.pid)):
        return True
    return _age_seconds(job.updated) > STALE_SECONDS


def alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie still does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _age_seconds(stamp: str | None) -> float:
    from datetime import UTC, datetime

    if not stamp:
        return float("inf")
    return (datetime.now(UTC) - datetime.fromisoformat(stamp)).total_seconds()


def running(db: Database, host: str | None = None) -> int:
    """How many books are being made now (by the workers of ``host``, when given)."""
    if host is None:
        row = db.execute("SELECT count(*) FROM exports WHERE status = 'running'").fetchone()
    else:
        row = db.execute(
            "SELECT count(*) FROM exports WHERE status = 'running' AND (host = ? OR host IS NULL)",
            [host],
        ).fetchone()
    return int(row[0])


def here(job: Job) -> bool:
    """Whether the job's worker runs on this machine (or the job predates hosts)."""
    return job.host is None or job.host == HOST
