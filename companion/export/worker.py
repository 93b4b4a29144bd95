"""The export worker: ``python -m companion.export.worker --database DB --exports DIR``.

Runs outside the web server's processes, so a book that takes seconds to typeset never holds a
request or stalls other players' live pages. Only the export supervisor starts it: the worker
loads its rendering context (``rendering``) and WeasyPrint, then waits on standard input for the id of a job the supervisor
has claimed for it, makes that one book (reporting progress in the ``exports`` table as
WeasyPrint lays out the pages) and exits, so the memory of a large book is given back. The end
of its input (the supervisor has gone) ends it too.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from flask import Flask
from sqlite_utils import Database

from companion.base import logs
from companion.store import events as store
from companion.store.db import connect
from companion.store.sql import write_transaction

from ..legacy import Recorded, State, event_from_dict, replay
from . import DEFAULT_PART_PAGES, editions, heartbeat, jobs, parts, upkeep
from .book import book_html, render_book, static_dir
from .print_shop import page_count

log = logging.getLogger("companion.export.worker")
REPORT_EVERY = 0.5  # seconds between progress writes


def state_at(db: Database, stream_id: str, version: int) -> State:
    """The chronicle as it stood at ``version``, whatever has been appended since."""
    stored = store.load_events(db, stream_id)
    return replay([Recorded(e.seq, event_from_dict(e.data)) for e in stored if e.seq <= version])


def estimated_pages(html: str, paper: str) -> int:
    """A rough page count from the length of the book's text (Latin letters are narrower)."""
    return max(4, round(parts.estimated_pages(html, paper)) + 4)


class _Progress(logging.Handler):
    """Turns WeasyPrint's progress messages into the job's progress, a few times a second."""

    def __init__(self, db: Database, job_id: str, pages: int) -> None:
        super().__init__(logging.INFO)
        self.db, self.job_id, self.pages = db, job_id, pages
        self.last = 0.0

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._report(record.getMessage())
        except Exception:  # progress is a courtesy: never let it stop the book
            self.handleError(record)

    def _report(self, message: str) -> None:
        if time.monotonic() - self.last < REPORT_EVERY and "Step 6" not in message:
            return
        self.last = time.monotonic()
        page = re.search(r"Page (\d+)", message)
        if page:
            number = int(page.group(1))
            jobs.report(
                self.db, self.job_id, 10 + 78 * min(1, number / self.pages), "layout", number
            )
        elif "Step 6" in message:
            jobs.report(self.db, self.job_id, 90, "writing")


def make(app: Flask, db: Database, job: jobs.Job, exports_dir: Path) -> None:
    """Typeset one job's book and keep it under ``exports_dir``."""
    with app.app_context():
        state = state_at(db, job.stream_id, job.version)
        if job.layout != "book":
            data = _make_layout(db, job, state, exports_dir, _part_pages(app))
        else:
            data = _make_book(db, job, state, _part_pages(app))
    target = exports_dir / job.filename
    partial = target.with_suffix(f".{os.getpid()}.part")
    try:
        partial.write_bytes(data)
        # Under the lock a deletion of the stream takes: a chronicle deleted while its book
        # was made took the job with it, and the book is not put in place after it.
        with write_transaction(db, lock=f"export:{job.stream_id}"):
            if jobs.find(db, job.id) is None:
                log.info("export %s of %s: its chronicle was deleted", job.id, job.stream_id)
                partial.unlink()
                return
            partial.replace(target)  # readers see the whole file or none
            # The print shop's body keeps its page count: its covers are cut to it.
            pages = page_count(data) if job.layout == "print" else None
            jobs.finish(db, job, exports_dir, pages)
    except BaseException:
        # A full disk must not stay full: what was written of the book goes with it.
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise


def make_logged(app: Flask, db: Database, job: jobs.Job, exports_dir: Path) -> bool:
    """Make one book; if it cannot be made, mark its job failed with the reason."""
    started = time.monotonic()
    try:
        make(app, db, job, exports_dir)
    except Exception as err:  # one bad book must not stop the queue
        log.exception("export %s of %s failed", job.id, job.stream_id)
        reason = jobs.DISK_FULL if heartbeat.is_full(err) else type(err).__name__
        jobs.fail(db, job.id, f"{reason}: {err}")
        return False
    log.info("export %s made in %.1f s", job.filename, time.monotonic() - started)
    return True


def _part_pages(app: Flask) -> int:
    return int(app.config.get("EXPORT_PART_PAGES", DEFAULT_PART_PAGES))


def _make_layout(
    db: Database, job: jobs.Job, state: State, exports_dir: Path, part_pages: int
) -> bytes:
    """A print-shop file, the vertical book or an EPUB, with progress for the status route."""

    def report(progress: float, step: str) -> None:
        jobs.report(db, job.id, progress, step)

    def body_pages() -> int | None:
        body = jobs.find_book(db, job.stream_id, job.version, job.edition, job.paper, "print")
        path = exports_dir / body.filename if body is not None else None
        if body is None or body.status != "done" or path is None or not path.is_file():
            return None
        return page_count(path.read_bytes())

    report(8, "layout")
    key = f"{job.stream_id}/v{job.version}"
    stamp = _last_event_date(db, job.stream_id, job.version)
    pages = estimated_pages(book_html(state, job.edition, job.paper), job.paper)
    in_parts = editions.InParts(part_pages, _part_progress(db, job.id, pages))
    with _weasyprint_progress(db, job.id, pages):  # the print shop's files are WeasyPrint's
        return editions.make(
            *(state, job.edition, job.paper, job.layout, static_dir(), report, body_pages),
            *(key, stamp, in_parts),
        )


def _last_event_date(db: Database, stream_id: str, version: int) -> str:
    stored = [e for e in store.load_events(db, stream_id) if e.seq <= version]
    return stored[-1].created[:10] if stored else ""


def _make_book(db: Database, job: jobs.Job, state: State, part_pages: int) -> bytes:
    """The home-printer PDF, with WeasyPrint's page-by-page progress (or part by part)."""
    html = book_html(state, job.edition, job.paper)
    jobs.report(db, job.id, 8, "layout", 0)
    pages = estimated_pages(html, job.paper)
    if parts.needs_parts(html, job.paper, part_pages):
        report = _part_progress(db, job.id, pages)
        return parts.make_in_parts(
            state, job.edition, job.paper, static_dir(), part_pages, progress=report
        )
    with _weasyprint_progress(db, job.id, pages):
        return render_book(html, static_dir())


def _part_progress(db: Database, job_id: str, pages: int) -> parts.Progress:
    """Progress of a book made in parts: the pages laid out when each part is done."""

    def report(done: int) -> None:
        jobs.report(db, job_id, 10 + 78 * min(1, done / pages), "layout", done)

    return report


@contextlib.contextmanager
def _weasyprint_progress(db: Database, job_id: str, pages: int) -> Iterator[None]:
    handler = _Progress(db, job_id, pages)
    progress = logging.getLogger("weasyprint.progress")
    progress.addHandler(handler)
    progress.setLevel(logging.INFO)
    progress.propagate = False  # to the job's row, not to the log
    try:
        yield
    finally:
        progress.removeHandler(handler)
        progress.propagate = True


def work(app: Flask, db: Database, exports_dir: Path, limit: int) -> int:
    """Make queued books in this process until none is left; how many were made."""
    made = 0
    while (job := jobs.claim_next(db, os.getpid(), limit)) is not None:
        made += make_logged(app, db, job, exports_dir)
    return made


def claimed(db: Database, job_id: str) -> jobs.Job | None:
    """The job the supervisor claimed for this process, if it is still this worker's."""
    job = jobs.find(db, job_id)
    if job is None or job.status != "running" or job.pid != os.getpid():
        log.warning("export %s is no longer this worker's to make", job_id)
        return None
    return job


def _die_with_parent() -> None:
    # Linux: the kernel kills this process if the supervisor dies, even by kill -9.
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    """Load everything, then make the one book whose job id arrives on standard input."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", required=True)
    parser.add_argument("--exports", required=True, type=Path)
    parser.add_argument("--time-limit", type=float, default=300, help="seconds for one book")
    parser.add_argument("--parent", type=int, default=None, help="the supervisor's pid")
    parser.add_argument("--part-pages", type=int, default=DEFAULT_PART_PAGES)
    args = parser.parse_args(argv)
    os.environ["COMPANION_ROLE"] = "book"  # how its connections are named (PostgreSQL)
    _die_with_parent()
    # Loading the modules above takes seconds: a supervisor that died meanwhile was not there to
    # send the signal, and its pid is not this process's parent any more. Its book is another's.
    parent = os.getppid() if args.parent is None else args.parent
    if os.getppid() != parent:
        return 0
    logs.configure_process(sys.stderr)
    with contextlib.suppress(OSError):
        os.nice(5)  # on a small server the players' pages come before the book
    from .rendering import book_app

    config = {"DATABASE": args.database, "EXPORTS_DIR": str(args.exports)}
    config["EXPORT_PART_PAGES"] = args.part_pages
    app = book_app(config)
    import weasyprint  # noqa: F401 - loaded now, while no book waits for it

    job_id = sys.stdin.readline().strip()
    if not job_id or os.getppid() != parent:
        return 0  # the supervisor stopped before it had a book for this worker
    db = connect(args.database)
    try:
        job = claimed(db, job_id)
        if job is None:
            return 1
        # A last guard should the supervisor be unable to stop this process in time.
        signal.alarm(int(upkeep.time_limit(db, job, args.time_limit)) + 30)
        made = make_logged(app, db, job, args.exports)
    finally:
        db.conn.close()
    return 0 if made else 1


if __name__ == "__main__":
    raise SystemExit(main())
