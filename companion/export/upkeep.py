"""What the export supervisors do besides handing out books: settle lost books, give a long book
its time, and keep the exports folder within its budget.

- A running book whose worker or supervisor is gone (``jobs.lost``) is queued again once and
  failed the second time (``settle_lost``), whichever supervisor notices it first.
- The exports folder holds at most ``EXPORTS_MAX_BYTES`` of finished books (``sweep``): past it
  the oldest are removed first and made again when asked for. Files no job row knows (books of
  other versions left after a restore, books of deleted chronicles) and partial files of books
  that failed are removed as well, and so are the heartbeats of supervisors that are gone.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from companion.store.sql import Database, for_update, write_transaction

from . import heartbeat, text_pages
from .jobs import (
    ATTEMPTS,
    COLUMNS,
    CPU_PER_PAGE,
    DEFAULT_TIME_LIMIT,
    MAX_SCALE,
    TIME_MARGIN,
    WORKER_LOST,
    Job,
    book_filename,
    fail,
    find_one,
    set_fields,
)

log = logging.getLogger("companion.export")
KEEP_BYTES: Final = 1024**3  # EXPORTS_MAX_BYTES: finished books kept in the exports folder
GRACE: Final = 120.0  # a file younger than this may be a book whose row is being written
BOOK_SUFFIXES: Final = (".pdf", ".epub")


def settle_lost(db: Database, job: Job, why: str) -> str | None:
    """A running job whose worker or server is gone: queued again once, then failed.

    Changed only if the row is still as ``job`` says (running, same owner and worker), so two
    supervisors noticing the same loss settle it once. Returns the new status, or None.
    """
    with write_transaction(db):
        row = find_one(db, f"id = ?{for_update(db)}", [job.id])
        if row is None or row.status != "running" or (row.host, row.pid) != (job.host, job.pid):
            return None
        if row.attempts < ATTEMPTS:
            log.warning("export %s of %s: %s; queued again", job.id, job.stream_id, why)
            set_fields(
                db, job.id, status="queued", progress=0, step=None, page=None, pid=None, host=None
            )
            return "queued"
        log.error("export %s of %s: %s, %d times; failed", job.id, job.stream_id, why, row.attempts)
        detail = f"the book's maker stopped {row.attempts} times before the book was made"
        fail(db, job.id, f"{WORKER_LOST}: {detail}")
    return "failed"


def time_limit(db: Database, job: Job, base: float) -> float:
    """The seconds this book may take: its pages' CPU with a margin, in units of the default
    limit, times ``base`` (the limit as set) for each; at least one unit, at most MAX_SCALE."""
    needed = log_pages(db, job) * CPU_PER_PAGE * TIME_MARGIN
    return base * min(MAX_SCALE, max(1.0, needed / DEFAULT_TIME_LIMIT))


def log_pages(db: Database, job: Job) -> float:
    """About how many A5 pages the log up to the job's version fills, an event at a time."""
    rows = db.execute(
        "SELECT data FROM events WHERE stream_id = ? AND seq <= ?", [job.stream_id, job.version]
    )
    return sum(text_pages(str(data)) for (data,) in rows)


def remove_partials(exports_dir: Path, pid: int) -> None:
    """Remove what the worker ``pid`` was writing when it stopped."""
    for path in exports_dir.glob(f"*.{pid}.part"):
        with contextlib.suppress(OSError):
            path.unlink()


@dataclass
class Swept:
    """What one sweep of the exports folder removed."""

    over_budget: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    partials: list[str] = field(default_factory=list)
    heartbeats: list[str] = field(default_factory=list)


def sweep(db: Database, exports_dir: Path, keep_bytes: int, partial_age: float) -> Swept:
    """Keep the exports folder within ``keep_bytes`` of books, oldest first; drop what no job
    row knows, partial files older than ``partial_age`` seconds and dead supervisors' heartbeats.
    """
    swept = Swept()
    rows = db.execute(
        f"SELECT {COLUMNS}, (SELECT version FROM streams WHERE streams.id = exports.stream_id)"
        " FROM exports"
    ).fetchall()
    known = {
        book_filename(r[1], r[2], r[3], r[4], r[12]): (Job(*r[:-1]), r[-1])
        for r in rows
        if r[5] != "failed"
    }
    books: list[tuple[float, int, Path]] = []
    for path, stat in _files(exports_dir):
        old = time.time() - stat.st_mtime
        if path.name.endswith(".part"):
            if old > partial_age and _remove(path):
                swept.partials.append(path.name)
        elif path.name.endswith(BOOK_SUFFIXES):
            if path.name in known:
                books.append((stat.st_mtime, stat.st_size, path))
            elif old > GRACE and _remove(path):
                swept.orphans.append(path.name)
    total = sum(size for _mtime, size, _path in books)
    for _mtime, size, path in sorted(books, key=lambda book: book[0]):
        if total <= keep_bytes:
            break
        job, current = known[path.name]
        if job.status != "done" or not _remove(path):
            continue  # a book being made is never taken from under its worker
        total -= size
        swept.over_budget.append(path.name)
        if current is None or job.version < current:
            db.execute("DELETE FROM exports WHERE id = ?", [job.id])  # nobody will see it again
    owning = {str(r[13]) for r in rows if r[5] == "running" and r[13]}
    swept.heartbeats = heartbeat.remove_dead(exports_dir, owning)
    for name in swept.over_budget:
        log.info("export %s removed to keep the exports folder within its budget", name)
    for name in swept.orphans:
        log.info("export %s removed: no job of this database makes it", name)
    return swept


def _files(folder: Path) -> list[tuple[Path, Any]]:
    found = []
    try:
        for path in folder.iterdir():
            with contextlib.suppress(OSError):
                found.append((path, path.stat()))
    except OSError:
        return []
    return found


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False  # another server's sweep was first
    except OSError as err:
        log.warning("export folder: cannot remove %s: %s", path.name, err)
        return False
    return True
