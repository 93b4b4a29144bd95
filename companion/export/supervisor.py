"""The export supervisor: one process per server that keeps a fixed pool of PDF workers.

``python -m companion.export.supervisor --database DB --exports DIR [--workers N]
[--time-limit SECONDS] [--idle-exit SECONDS] [--parent PID]``

Why a process of its own, started by the gunicorn master (``companion/ops/server.py``) rather than a
thread in each web worker or a process per request: a server must have exactly one pool however
many web workers gunicorn runs, the pool must outlive any web worker (gunicorn replaces them), and
a request must never start a process, so that polling a job costs a read and nothing more. The
master starts the supervisor when the server is ready, starts it again if it stops, and stops it
on exit. The development server and the Flask test client start the same process lazily, once per
app, when a book is first asked for (``Keeper``, ``ensure_for_app``); that one stops after a
minute with nothing to do. Whoever started it, it stops when its parent process does.

Each tick (``TICK`` seconds) the supervisor

- writes its heartbeat file in EXPORTS_DIR (``heartbeat.py``), which ``/healthz`` reads and
  every other supervisor sharing the folder looks at;
- notices a worker that exited: if its job is still marked running, the job is queued again
  once, and marked failed (``WORKER_LOST``) the second time;
- does the same for a running book whose supervisor is gone, on this server (one that was
  killed and started again) or on another that shares the store (its heartbeat went stale);
- kills a worker whose book has taken longer than its time limit and fails its job
  (``TIME_LIMIT``), which the exports panel says in words;
- hands queued jobs to idle workers (loaded already, waiting on their standard input), each
  chronicle's books in turn (``jobs.claim_next``);
- starts a fresh worker in each empty slot (a worker makes one book, then exits);
- now and then keeps the exports folder within its budget (``upkeep.sweep``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sqlite_utils import Database

from companion.base import logs, metrics
from companion.store import pg

from . import DEFAULT_PART_PAGES, heartbeat, jobs, upkeep

log = logging.getLogger("companion.export.supervisor")
ROOT = Path(__file__).resolve().parents[2]
TICK = 0.5  # seconds between looks at the workers and the queue
APP_IDLE_EXIT = 60.0  # a supervisor started by an app stops after this long with nothing to do
RESTART_AFTER = 2.0  # the least time between two starts of a supervisor that keeps stopping
REST_AFTER_CRASH = 5.0  # a worker that stopped with no job to do is replaced after this long
SWEEP_EVERY = 30.0  # seconds between two looks at the exports folder's budget
MAX_WORKERS = 16


@dataclass(frozen=True)
class Settings:
    """Where the books go, how many are made at once, how long one may take, what is kept."""

    database: str
    exports_dir: Path
    workers: int = 1
    time_limit: float = 300.0
    idle_exit: float = 0.0  # 0: never stop for want of work
    keep_bytes: int = upkeep.KEEP_BYTES
    part_pages: int = DEFAULT_PART_PAGES  # a longer book is made in parts (parts.py); 0: never

    @classmethod
    def from_config(cls, config: Mapping[str, Any], idle_exit: float = 0.0) -> Settings:
        """The settings of an app's config (``EXPORT_WORKERS``, ``EXPORT_TIME_LIMIT``,
        ``EXPORTS_MAX_BYTES``, ``EXPORT_PART_PAGES``)."""
        workers, limit = config.get("EXPORT_WORKERS", 1), config.get("EXPORT_TIME_LIMIT", 300)
        keep = config.get("EXPORTS_MAX_BYTES", upkeep.KEEP_BYTES)
        if not isinstance(workers, int) or not 0 <= workers <= MAX_WORKERS:
            raise ValueError(f"EXPORT_WORKERS must be a number from 0 to 16, not {workers!r}")
        if not isinstance(limit, int | float) or not limit > 0:
            raise ValueError(f"EXPORT_TIME_LIMIT must be a number of seconds, not {limit!r}")
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ValueError(f"EXPORTS_MAX_BYTES must be a number of bytes, not {keep!r}")
        part_pages = config.get("EXPORT_PART_PAGES", DEFAULT_PART_PAGES)
        if isinstance(part_pages, bool) or not isinstance(part_pages, int) or part_pages < 0:
            raise ValueError(f"EXPORT_PART_PAGES must be a number of pages, not {part_pages!r}")
        exports = Path(config["EXPORTS_DIR"])
        return cls(
            str(config["DATABASE"]), exports, workers, float(limit), idle_exit, keep, part_pages
        )

    def command(self, parent: int) -> list[str]:
        """The command line that starts a supervisor with these settings."""
        return [
            *(sys.executable, "-m", "companion.export.supervisor"),
            *("--database", self.database, "--exports", str(self.exports_dir)),
            *("--workers", str(self.workers), "--time-limit", f"{self.time_limit:g}"),
            *("--idle-exit", f"{self.idle_exit:g}", "--parent", str(parent)),
            *("--keep-bytes", str(self.keep_bytes), "--part-pages", str(self.part_pages)),
        ]

    @property
    def longest(self) -> float:
        """The most time any book may take (a partial file older than this is left over)."""
        return self.time_limit * jobs.MAX_SCALE + 60


@dataclass
class Slot:
    """One worker process of the pool and the job it makes, if any."""

    process: subprocess.Popen[bytes]
    job_id: str | None = None
    started: float = field(default_factory=time.monotonic)
    limit: float = 0.0  # the seconds its book may take

    @property
    def idle(self) -> bool:
        return self.job_id is None and self.process.poll() is None


def log_file(settings: Settings) -> IO[bytes]:
    settings.exports_dir.mkdir(parents=True, exist_ok=True)
    return open(settings.exports_dir / "worker.log", "ab")  # noqa: SIM115 - closed by the caller


def start_worker(settings: Settings) -> subprocess.Popen[bytes]:
    """A worker process that loads everything, then waits for a job id on its input."""
    command = [sys.executable, "-m", "companion.export.worker", "--database", settings.database]
    command += ["--exports", str(settings.exports_dir), "--time-limit", f"{settings.time_limit:g}"]
    command += ["--parent", str(os.getpid()), "--part-pages", str(settings.part_pages)]
    with log_file(settings) as output:
        return subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT
        )


class Supervisor:
    """The pool of workers, the queue and the clock (see the module's docstring)."""

    def __init__(self, settings: Settings, db: Database, parent: int) -> None:
        self.settings, self.db, self.parent = settings, db, parent
        self.owner = heartbeat.owner_id(parent)
        self.slots: list[Slot | None] = [None] * settings.workers
        self.stopping = False
        self.idle_since = time.monotonic()
        self.rest_until = 0.0  # no worker is started before this (one stopped unasked)
        self.next_sweep = 0.0
        self.beat_error: str | None = None  # why the last heartbeat could not be written

    def request_stop(self, *_args: object) -> None:
        """Stop after this tick (a signal handler)."""
        self.stopping = True

    def run(self) -> None:
        """Tick until stopped, then stop the workers."""
        self.beat()  # before any claim: others must never see a book of ours without a beat
        self.recover()
        try:
            while not self.stopping:
                self.tick()
                time.sleep(TICK)
        finally:
            self.stop_workers()
            (self.settings.exports_dir / heartbeat.file_name(self.owner)).unlink(missing_ok=True)

    def tick(self) -> None:
        """One look at the workers, the clock and the queue."""
        self.beat()
        try:
            self.reap()
            self.enforce_time_limit()
            self.settle_lost()
            self.fill()
            self.hand_out()
            self.sweep()
        except sqlite3.OperationalError as err:  # locked for long: try again next tick
            log.warning("export supervisor: %s", err)
        except Exception as err:
            if not pg.is_error(err):
                raise
            log.warning("export supervisor: %s", err)  # the shared store is out of reach
            self._reconnect()
        if os.getppid() != self.parent:
            log.info("export supervisor: the server stopped, so do the workers")
            self.stopping = True
        elif self._idle_too_long():
            self.stopping = True

    def _reconnect(self) -> None:
        from companion.store.db import connect

        with contextlib.suppress(Exception):
            self.db.conn.close()
        with contextlib.suppress(Exception):
            self.db = connect(self.settings.database)

    def recover(self) -> None:
        """Queue again, at once, the books left running by supervisors that are gone (this
        server's previous one, killed, or another server's)."""
        try:
            self.settle_lost()
        except sqlite3.OperationalError as err:
            log.warning("export supervisor: %s", err)

    def settle_lost(self) -> None:
        """Queue again once (then fail) the running books nobody is making any more."""
        mine = {slot.job_id for slot in self.slots if slot is not None and slot.job_id}
        exports = self.settings.exports_dir
        for job in jobs.running_jobs(self.db):
            if job.host == self.owner:
                if job.id not in mine:
                    upkeep.settle_lost(self.db, job, "its worker is not running")
            elif jobs.lost(job, exports):
                upkeep.settle_lost(self.db, job, f"its maker ({job.host}) is gone")

    def reap(self) -> None:
        """Settle the jobs of workers that exited, and free their slots."""
        for index, slot in enumerate(self.slots):
            if slot is not None and slot.process.poll() is not None:
                self.slots[index] = None
                upkeep.remove_partials(self.settings.exports_dir, slot.process.pid)
                if slot.job_id is not None:
                    outcome = self._settle(slot.job_id, slot.process.pid, slot.process.returncode)
                    metrics.job_done(time.monotonic() - slot.started, outcome)
                    self.next_sweep = 0.0  # a book was made, perhaps: look at the budget
                else:  # it could not even load: do not start one twice a second
                    log.error("export worker %s stopped unasked", slot.process.pid)
                    self.rest_until = time.monotonic() + REST_AFTER_CRASH

    def _settle(self, job_id: str, pid: int, code: int | None) -> str:
        """Settle a finished worker's job; what became of it (``done``, ``failed``, ``requeued``)."""
        job = jobs.find(self.db, job_id)
        if job is None or job.status != "running" or job.pid != pid:
            if job is not None and job.status == "failed":  # its traceback is in worker.log
                log.error("export %s of %s failed: %s", job_id, job.stream_id, job.error)
            return job.status if job is not None else "gone"
        settled = upkeep.settle_lost(self.db, job, f"worker {pid} stopped ({code})")
        return "requeued" if settled == "queued" else settled or job.status

    def enforce_time_limit(self) -> None:
        """Kill a worker past its book's time limit and fail its job, saying why."""
        for index, slot in enumerate(self.slots):
            if slot is None or slot.job_id is None:
                continue
            if time.monotonic() - slot.started <= slot.limit:
                continue
            slot.process.kill()
            slot.process.wait(timeout=10)
            self.slots[index] = None
            upkeep.remove_partials(self.settings.exports_dir, slot.process.pid)
            job = jobs.find(self.db, slot.job_id)
            if job is not None and job.status == "running" and job.pid == slot.process.pid:
                log.error(
                    "export %s of %s took over %g s; stopped", job.id, job.stream_id, slot.limit
                )
                metrics.job_done(slot.limit, "time-limit")
                jobs.fail(self.db, job.id, f"{jobs.TIME_LIMIT}: stopped after {slot.limit:.0f} s")

    def fill(self) -> None:
        """Start a worker in each empty slot."""
        for index, slot in enumerate(self.slots):
            if slot is None and not self.stopping and time.monotonic() >= self.rest_until:
                try:
                    self.slots[index] = Slot(start_worker(self.settings))
                except OSError as err:
                    log.error("export supervisor: cannot start a worker: %s", err)

    def hand_out(self) -> None:
        """Give queued jobs to idle workers, each chronicle's in turn."""
        for slot in [slot for slot in self.slots if slot is not None and slot.idle]:
            if not jobs.has_queued(self.db):
                return
            pid = slot.process.pid
            job = jobs.claim_next(self.db, pid, self.settings.workers, self.owner)
            if job is None:
                return
            limit = upkeep.time_limit(self.db, job, self.settings.time_limit)
            if not self._send(slot, job.id):
                jobs.requeue(self.db, job.id, attempt_back=True)  # the worker died while idle
                continue
            slot.job_id, slot.started, slot.limit = job.id, time.monotonic(), limit

    @staticmethod
    def _send(slot: Slot, job_id: str) -> bool:
        assert slot.process.stdin is not None
        try:
            slot.process.stdin.write(f"{job_id}\n".encode())
            slot.process.stdin.close()
        except OSError:
            return False
        return True

    def sweep(self) -> None:
        """Now and then: the exports folder's budget, left-over files, dead heartbeats."""
        if time.monotonic() < self.next_sweep:
            return
        self.next_sweep = time.monotonic() + SWEEP_EVERY
        settings = self.settings
        upkeep.sweep(self.db, settings.exports_dir, settings.keep_bytes, settings.longest)

    def beat(self) -> None:
        """Write the heartbeat file: the time, this process and how busy the pool is."""
        busy = sum(1 for slot in self.slots if slot is not None and slot.job_id is not None)
        beat = {"pid": os.getpid(), "beat": time.time(), "workers": len(self.slots), "busy": busy}
        err = heartbeat.write(self.settings.exports_dir, self.owner, beat)
        error = None if err is None else f"{type(err).__name__}: {err}"
        if error and error != self.beat_error:
            free = heartbeat.free_bytes(self.settings.exports_dir)
            log.error(
                "export supervisor: cannot write its heartbeat in %s (%s; %s bytes free)",
                self.settings.exports_dir,
                error,
                free,
            )
        elif self.beat_error and not error:
            log.warning("export supervisor: its heartbeat is written again")
        self.beat_error = error

    def _idle_too_long(self) -> bool:
        busy = any(slot is not None and slot.job_id is not None for slot in self.slots)
        if busy or not self.settings.idle_exit or jobs.has_queued(self.db):
            self.idle_since = time.monotonic()
            return False
        return time.monotonic() - self.idle_since > self.settings.idle_exit

    def stop_workers(self) -> None:
        """Stop every worker; a book cut short by the stop is queued again for the next start."""
        for slot in self.slots:
            if slot is None:
                continue
            if slot.job_id is None and slot.process.stdin is not None:
                with contextlib.suppress(OSError):
                    slot.process.stdin.close()  # end of input: an idle worker exits
            else:
                slot.process.terminate()
        for index, slot in enumerate(self.slots):
            if slot is not None:
                wait_or_kill(slot.process, 5)
                self.slots[index] = None
                upkeep.remove_partials(self.settings.exports_dir, slot.process.pid)
                if slot.job_id is not None:
                    with contextlib.suppress(sqlite3.Error):
                        self._requeue_if_running(slot.job_id, slot.process.pid)

    def _requeue_if_running(self, job_id: str, pid: int) -> None:
        job = jobs.find(self.db, job_id)
        if job is not None and job.status == "running" and job.pid == pid:
            jobs.requeue(self.db, job_id, attempt_back=True)


def wait_or_kill(process: subprocess.Popen[bytes], seconds: float) -> None:
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, then supervise until stopped."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", required=True)
    parser.add_argument("--exports", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--idle-exit", type=float, default=0.0)
    parser.add_argument("--parent", type=int, default=os.getppid())
    parser.add_argument("--keep-bytes", type=int, default=upkeep.KEEP_BYTES)
    parser.add_argument("--part-pages", type=int, default=DEFAULT_PART_PAGES)
    args = parser.parse_args(argv)
    os.environ["COMPANION_ROLE"] = "supervisor"  # its connections' name; its workers': "book"
    logs.configure_process(sys.stderr, sys.stdout)  # the server's log, and worker.log
    if os.environ.get(metrics.MULTIPROC_ENV):
        metrics.enable()  # the server's scrapes read this process's figures too
    settings = Settings(
        *(args.database, args.exports, args.workers, args.time_limit, args.idle_exit),
        *(args.keep_bytes, args.part_pages),
    )
    settings.exports_dir.mkdir(parents=True, exist_ok=True)
    from companion.store.db import connect

    supervisor = Supervisor(settings, connect(settings.database), args.parent)
    log.info("export supervisor started: %d workers, pid %d", settings.workers, os.getpid())
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, supervisor.request_stop)
    supervisor.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
