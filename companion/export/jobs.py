"""Books as jobs in the ``exports`` table, made by worker processes outside any request.

A job is one book: a chronicle's version, an edition, a paper and a layout (``editions.KINDS``). Asking for a book that is made
already returns it at once; asking for one being made returns that job (and a book of an older
version still waiting in the queue is moved on to the newer version: nobody waits for a book of
a log that has moved on); otherwise a job is queued, if the chronicle has fewer than its share of
books in the queue. Requests never start a process: the export supervisors (``supervisor.py``)
claim queued jobs for their workers (``claim_next``), taking each chronicle's books in turn, so
one chronicle asking for many books never keeps another's waiting.
"""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from companion.store.sql import Database, now, skip_locked, write_transaction

from . import editions, heartbeat

log = logging.getLogger("companion.export")
STATUSES = ("queued", "running", "done", "failed")
# What the status routes may say: a done book whose file is gone (removed to keep the exports
# folder within its budget, or lost in a restore) is "removed" until it is asked for again.
SHOWN_STATUSES = (*STATUSES, "removed")
# Why a job failed, kept before a colon in its ``error`` so the page can say it in words.
TIME_LIMIT: Final = "time-limit"
WORKER_LOST: Final = "worker-lost"
DISK_FULL: Final = "disk-full"
ATTEMPTS: Final = 2  # a book whose worker or server died is made at most this many times
PER_STREAM: Final = 4  # books of one chronicle waiting or being made at once (a setting)
MAX_VERSION: Final = 2**63 - 1  # the largest version a database column holds
# The time limit follows the book's size: CPU seconds per A5 page of the largest legal life
# (bench/bench_pdf.py --largest, see docs/exports.md) times a margin for a busy host (a worker
# at nice 5 on 2 cores shared with a loaded server gets a fraction of one). EXPORT_TIME_LIMIT
# (DEFAULT_TIME_LIMIT unless set) is what a book that needs up to DEFAULT_TIME_LIMIT seconds
# gets; a longer one gets that many times more (a slower host sets a higher limit and every
# book gets more), never more than MAX_SCALE times (a log padded with corrections is longer
# than its book).
DEFAULT_TIME_LIMIT: Final = 300.0
CPU_PER_PAGE: Final = 0.15  # 0.133 measured (674 pages, 89.8 CPU s), rounded up
TIME_MARGIN: Final = 12.0
MAX_SCALE: Final = 6
COLUMNS = (
    "id, stream_id, version, edition, paper, status, progress, step, page, error, pid, updated,"
    " layout, host, attempts"
)
HOST: Final = heartbeat.HOST


class QueueFullError(Exception):
    """The chronicle has as many books waiting as it may: the request is refused."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"{limit} books of this chronicle are waiting already")
        self.limit = limit


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
    host: str | None = None  # the owner id of the supervisor making it (heartbeat.owner_id)
    attempts: int = 0

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

    def shown_status(self, exports_dir: Path) -> str:
        """The status as the pages and the API say it: a done book without its file is removed."""
        if self.status == "done" and not (exports_dir / self.filename).is_file():
            return "removed"
        return self.status


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


def find_one(db: Database, where: str, params: list[Any]) -> Job | None:
    """The first job matching the SQL condition ``where``, or None."""
    row = db.execute(f"SELECT {COLUMNS} FROM exports WHERE {where}", params).fetchone()
    return Job(*row) if row else None


def find(db: Database, job_id: str) -> Job | None:
    """The job with this id."""
    return find_one(db, "id = ?", [job_id])


def find_book(
    db: Database, stream_id: str, version: int, edition: str, paper: str, layout: str = "book"
) -> Job | None:
    """The job for this exact book, whatever its status (None for a version no log reaches)."""
    if not 0 <= version <= MAX_VERSION:
        return None
    where = "stream_id = ? AND version = ? AND edition = ? AND paper = ? AND layout = ?"
    return find_one(db, where, [stream_id, version, edition, paper, layout])


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
    per_stream: int | None = None,
) -> tuple[Job, bool]:
    """The job for this book and whether a worker is needed: done, in progress or newly queued."""
    made = request_books(db, exports_dir, stream_id, version, edition, paper, [layout], per_stream)
    return made[0]


def request_books(
    db: Database,
    exports_dir: Path,
    stream_id: str,
    version: int,
    edition: str,
    paper: str,
    layouts: list[str],
    per_stream: int | None = None,
) -> list[tuple[Job, bool]]:
    """The jobs for these books (the print shop's body and cover are two), all or none.

    Raises QueueFullError when queuing them would leave more than ``per_stream`` books of the
    chronicle waiting or being made at once.
    """
    book = (stream_id, version, edition, paper)
    # As in the event store: the write lock first, so a check-then-write sees the latest rows.
    with write_transaction(db, lock=f"export:{stream_id}"):
        plans = [_plan(db, exports_dir, book, _cut(db, book, layout)) for layout in layouts]
        new = sum(1 for _layout, _job, action in plans if action in ("insert", "requeue"))
        if new and per_stream is not None and _active(db, stream_id) + new > per_stream:
            raise QueueFullError(per_stream)
        made = [(find(db, _carry_out(db, book, *plan)), plan[2] != "none") for plan in plans]
    return [(job, needed) for job, needed in made if job is not None]


Book = tuple[str, int, str, str]  # stream, version, edition, paper
Plan = tuple[str, Job | None, str]  # layout, the job there is, what asking does to it


def _cut(db: Database, book: Book, layout: str) -> str:
    """A cover's layout as a printer cuts it, once its body's page count is known."""
    body = find_book(db, *book, "print") if layout.startswith("cover-") else None
    if body is None or body.status != "done" or not body.page:
        return layout
    return editions.same_cover(layout, body.page)


def _plan(db: Database, exports_dir: Path, book: Book, layout: str) -> Plan:
    """What asking for one book does: nothing, insert, requeue, or move an older job on."""
    job = find_book(db, *book, layout)
    if job is not None and job.status == "done" and (exports_dir / job.filename).is_file():
        return layout, job, "none"
    if job is not None and job.active and not lost(job, exports_dir):
        return layout, job, "waiting" if job.status == "queued" else "none"
    if job is not None:
        return layout, job, "requeue"
    stream_id, version, edition, paper = book
    older = find_one(
        db,
        "stream_id = ? AND edition = ? AND paper = ? AND layout = ? AND status = 'queued'"
        " AND version < ? ORDER BY version DESC LIMIT 1",
        [stream_id, edition, paper, layout, version],
    )
    return (layout, older, "move") if older is not None else (layout, None, "insert")


_AFRESH = {"status": "queued", "progress": 0, "step": None, "page": None, "error": None}


def _carry_out(db: Database, book: Book, layout: str, job: Job | None, action: str) -> str:
    if job is None:
        job_id = secrets.token_hex(8)
        db.execute(
            "INSERT INTO exports (id, stream_id, version, edition, paper, layout, status,"
            " progress, created, updated) VALUES (?, ?, ?, ?, ?, ?, 'queued', 0, ?, ?)",
            [job_id, *book, layout, now(), now()],
        )
        return job_id
    if action == "move":
        set_fields(db, job.id, version=book[1])
    elif action == "requeue":
        set_fields(db, job.id, **_AFRESH, pid=None, host=None, attempts=0)
    return job.id


def _active(db: Database, stream_id: str) -> int:
    row = db.execute(
        "SELECT count(*) FROM exports WHERE stream_id = ? AND status IN ('queued', 'running')",
        [stream_id],
    ).fetchone()
    return int(row[0])


def set_fields(db: Database, job_id: str, **changes: Any) -> None:
    """Write ``changes`` to the job\'s row, stamping it as updated now."""
    changes["updated"] = now()
    assignments = ", ".join(f"{name} = ?" for name in changes)
    db.execute(f"UPDATE exports SET {assignments} WHERE id = ?", [*changes.values(), job_id])


# The queue in its fair order: chronicles in turn, each one's books oldest first. A chronicle
# with a book being made waits behind those with none; among the others, the one served longest
# ago (or never) goes first, so a chronicle asking for many books never keeps another waiting.
_FAIR_ORDER = """
SELECT q.id FROM exports AS q LEFT JOIN (
    SELECT stream_id, max(updated) AS served,
        sum(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS busy
    FROM exports WHERE status <> 'queued' GROUP BY stream_id
) AS s ON s.stream_id = q.stream_id
WHERE q.status = 'queued'
ORDER BY coalesce(s.busy, 0), coalesce(s.served, ''), q.created, q.rowid LIMIT ?
"""
CANDIDATES = 8  # queued jobs looked at per claim (others may be taking the first ones)


def claim_next(db: Database, pid: int, limit: int, owner: str | None = None) -> Job | None:
    """Take the next queued job, in fair order, for worker ``pid`` of the supervisor ``owner``,
    if fewer than ``limit`` of its jobs run.

    On PostgreSQL the row is taken with FOR UPDATE SKIP LOCKED: the servers sharing the store
    each claim a different job at once, and none waits for another's claim.
    """
    owner = owner or heartbeat.owner_id(os.getppid())
    if running(db, owner) >= limit:
        return None
    for (job_id,) in db.execute(_FAIR_ORDER, [CANDIDATES]).fetchall():
        with write_transaction(db):
            if running(db, owner) >= limit:
                return None
            job = find_one(db, f"id = ? AND status = 'queued'{skip_locked(db)}", [job_id])
            if job is None:
                continue  # another server took it meanwhile
            set_fields(
                db,
                job.id,
                status="running",
                progress=2,
                step="preparing",
                pid=pid,
                host=owner,
                attempts=job.attempts + 1,
            )
        return find(db, job.id)
    return None


def assign(db: Database, job_id: str, pid: int) -> None:
    """Record which worker process makes a claimed job."""
    set_fields(db, job_id, pid=pid)


def requeue(db: Database, job_id: str, attempt_back: bool = False) -> None:
    """Put a running job back in the queue, to be made again from the start.

    ``attempt_back``: the book was cut short by a server stop, not by its worker dying, so the
    attempt does not count.
    """
    job = find(db, job_id)
    attempts = max(0, job.attempts - 1) if job is not None and attempt_back else None
    changes: dict[str, Any] = {"attempts": attempts} if attempts is not None else {}
    set_fields(
        db,
        job_id,
        status="queued",
        progress=0,
        step=None,
        page=None,
        pid=None,
        host=None,
        **changes,
    )


def lost(job: Job, exports_dir: Path) -> bool:
    """Whether a running job's supervisor is gone (its heartbeat stale, or its process dead)."""
    if job.status != "running":
        return False
    return heartbeat.gone(exports_dir, job.host, _age_seconds(job.updated))


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
    set_fields(db, job_id, progress=max(0, min(99, round(progress))), step=step, page=page)


def finish(db: Database, job: Job, exports_dir: Path, pages: int | None = None) -> None:
    """Mark the job done (with its page count, if told) and drop the books of older versions
    it replaces."""
    set_fields(
        db, job.id, status="done", progress=100, step="done", pid=None, page=pages or job.page
    )
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
    set_fields(db, job_id, status="failed", step="failed", error=error[:500], pid=None)


def _age_seconds(stamp: str | None) -> float:
    if not stamp:
        return float("inf")
    return (datetime.now(UTC) - datetime.fromisoformat(stamp)).total_seconds()


def running(db: Database, owner: str | None = None) -> int:
    """How many books are being made now (by the workers of the supervisor ``owner``, if given)."""
    if owner is None:
        row = db.execute("SELECT count(*) FROM exports WHERE status = 'running'").fetchone()
    else:
        row = db.execute(
            "SELECT count(*) FROM exports WHERE status = 'running' AND host = ?", [owner]
        ).fetchone()
    return int(row[0])
