"""The export supervisor: one process per server that keeps a fixed pool of PDF workers.

``python -m companion.export.supervisor --database DB --exports DIR [--workers N]
[--time-limit SECONDS] [--idle-exit SECONDS] [--parent PID]``

Why a process of its own, started by the gunicorn master (``companion/server.py``) rather than a
thread in each web worker or a process per request: a server must have exactly one pool however
many web workers gunicorn runs, the pool must outlive any web worker (gunicorn replaces them), and
a request must never start a process, so that polling a job costs a read and nothing more. The
master starts the supervisor when the server is ready, starts it again if it stops, and stops it
on exit. The development server and the Flask test client start the same process lazily, once per
app, when a book is first asked for (``Keeper``, ``ensure_for_app``); that one stops after a
minute with nothing to do. Whoever started it, it stops when its parent process does.

Each tick (``TICK`` seconds) the supervisor

- writes the heartbeat file ``EXPORTS_DIR/supervisor.json`` that ``/healthz`` reads;
- notices a worker that exited: if its job is still marked running, the job is queued again
  once, and marked failed (``WORKER_LOST``) the second time;
- kills a worker whose book has taken longer than the time limit and fails its job
  (``TIME_LIMIT``), which the exports panel says in words;
- hands each queued job to an idle worker (loaded already, waiting on its standard input);
- starts a fresh worker in each empty slot (a worker makes one book, then exits).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sqlite_utils import Database

from .. import logs, metrics, pg
from . import jobs

log = logging.getLogger("companion.export.supervisor")
ROOT = Path(__file__).resolve().parents[2]
TICK = 0.5  # seconds between looks at the workers and the queue
HEARTBEAT = "supervisor.json"
STALE_AFTER = 10.0  # a heartbeat older than this means the supervisor is gone
ATTEMPTS = 2  # a job whose worker died is made at most this many times
APP_IDLE_EXIT = 60.0  # a supervisor started by an app stops after this long with nothing to do
RESTART_AFTER = 2.0  # the least time between two starts of a supervisor that keeps stopping
REST_AFTER_CRASH = 5.0  # a worker that stopped with no job to do is replaced after this long
MAX_WORKERS = 16


@dataclass(frozen=True)
class Settings:
    """Where the books go, how many are made at once and how long one may take."""

    database: str
    exports_dir: Path
    workers: int = 1
    time_limit: float = 300.0
    idle_exit: float = 0.0  # 0: never stop for want of work

    @classmethod
    def from_config(cls, config: Mapping[str, Any], idle_exit: float = 0.0) -> Settings:
        """The settings of an app's config (``EXPORT_WORKERS``, ``EXPORT_TIME_LIMIT``)."""
        workers, limit = config.get("EXPORT_WORKERS", 1), config.get("EXPORT_TIME_LIMIT", 300)
        if not isinstance(workers, int) or not 0 <= workers <= MAX_WORKERS:
            raise ValueError(f"EXPORT_WORKERS must be a number from 0 to 16, not {workers!r}")
        if not isinstance(limit, int | float) or not limit > 0:
            raise ValueError(f"EXPORT_TIME_LIMIT must be a number of seconds, not {limit!r}")
        exports = Path(config["EXPORTS_DIR"])
        return cls(str(config["DATABASE"]), exports, workers, float(limit), idle_exit)

    def command(self, parent: int) -> list[str]:
        """The command line that starts a supervisor with these settings."""
        return [
            *(sys.executable, "-m", "companion.export.supervisor"),
            *("--database", self.database, "--exports", str(self.exports_dir)),
            *("--workers", str(self.workers), "--time-limit", f"{self.time_limit:g}"),
            *("--idle-exit", f"{self.idle_exit:g}", "--parent", str(parent)),
        ]


@dataclass
class Slot:
    """One worker process of the pool and the job it makes, if any."""

    process: subprocess.Popen[bytes]
    job_id: str | None = None
    started: float = field(default_factory=time.monotonic)

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
    with log_file(settings) as output:
        return subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT
        )


class Supervisor:
    """The pool of workers, the queue and the clock (see the module's docstring)."""

    def __init__(self, settings: Settings, db: Database, parent: int) -> None:
        self.settings, self.db, self.parent = settings, db, parent
        self.heartbeat = settings.exports_dir / heartbeat_name(settings.database, parent)
        self.slots: list[Slot | None] = [None] * settings.workers
        self.attempts: dict[str, int] = {}
        self.stopping = False
        self.idle_since = time.monotonic()
        self.rest_until = 0.0  # no worker is started before this (one stopped unasked)

    def request_stop(self, *_args: object) -> None:
        """Stop after this tick (a signal handler)."""
        self.stopping = True

    def run(self) -> None:
        """Tick until stopped, then stop the workers."""
        self.recover()
        try:
            while not self.stopping:
                self.tick()
                time.sleep(TICK)
        finally:
            self.stop_workers()
            self.heartbeat.unlink(missing_ok=True)

    def tick(self) -> None:
        """One look at the workers, the clock and the queue."""
        try:
            self.reap()
            self.enforce_time_limit()
            self.fill()
            self.hand_out()
        except sqlite3.OperationalError as err:  # locked for long: try again next tick
            log.warning("export supervisor: %s", err)
        except Exception as err:
            if not pg.is_error(err):
                raise
            log.warning("export supervisor: %s", err)  # the shared store is out of reach
            self._reconnect()
        self.beat()
        if os.getppid() != self.parent:
            log.info("export supervisor: the server stopped, so do the workers")
            self.stopping = True
        elif self._idle_too_long():
            self.stopping = True

    def _reconnect(self) -> None:
        from ..db import connect

        with contextlib.suppress(Exception):
            self.db.conn.close()
        with contextlib.suppress(Exception):
            self.db = connect(self.settings.database)

    def recover(self) -> None:
        """Queue again the jobs left running by workers that are gone (a server restart)."""
        for job in jobs.running_jobs(self.db):
            if jobs.here(job) and (job.pid is None or not jobs.alive(job.pid)):
                log.warning("export %s was left unfinished; queued again", job.id)
                jobs.requeue(self.db, job.id)

    def reap(self) -> None:
        """Settle the jobs of workers that exited, and free their slots."""
        for index, slot in enumerate(self.slots):
            if slot is not None and slot.process.poll() is not None:
                self.slots[index] = None
                if slot.job_id is not None:
                    outcome = self._settle(slot.job_id, slot.process.pid, slot.process.returncode)
                    metrics.job_done(time.monotonic() - slot.started, outcome)
                else:  # it could not even load: do not start one twice a second
                    log.error("export worker %s stopped unasked", slot.process.pid)
                    self.rest_until = time.monotonic() + REST_AFTER_CRASH

    def _settle(self, job_id: str, pid: int, code: int | None) -> str:
        """Settle a finished worker's job; what became of it (``done``, ``failed``, ``requeued``)."""
        job = jobs.find(self.db, job_id)
        if job is None or job.status != "running" or job.pid != pid:
            self.attempts.pop(job_id, None)  # made or failed, and said so itself
            if job is not None and job.status == "failed":  # its traceback is in worker.log
                log.error("export %s of %s failed: %s", job_id, job.stream_id, job.error)
            return job.status if job is not None else "gone"
        if self.attempts.get(job_id, 0) < ATTEMPTS:
            log.warning("export %s: worker %s stopped (%s); queued again", job_id, pid, code)
            jobs.requeue(self.db, job_id)
            return "requeued"
        log.error(
            "export %s of %s: worker %s stopped (%s) again; failed",
            job_id,
            job.stream_id,
            pid,
            code,
        )
        self.attempts.pop(job_id, None)
        detail = f"the worker process stopped {ATTEMPTS} times before the book was made"
        jobs.fail(self.db, job_id, f"{jobs.WORKER_LOST}: {detail}")
        return "failed"

    def enforce_time_limit(self) -> None:
        """Kill a worker past the time limit and fail its job, saying why."""
        limit = self.settings.time_limit
        for index, slot in enumerate(self.slots):
            if slot is None or slot.job_id is None or time.monotonic() - slot.started <= limit:
                continue
            slot.process.kill()
            slot.process.wait(timeout=10)
            self.slots[index] = None
            self.attempts.pop(slot.job_id, None)
            job = jobs.find(self.db, slot.job_id)
            if job is not None and job.status == "running" and job.pid == slot.process.pid:
                log.error("export %s of %s took over %g s; stopped", job.id, job.stream_id, limit)
                metrics.job_done(limit, "time-limit")
                jobs.fail(self.db, job.id, f"{jobs.TIME_LIMIT}: stopped after {limit:g} s")

    def fill(self) -> None:
        """Start a worker in each empty slot."""
        for index, slot in enumerate(self.slots):
            if slot is None and not self.stopping and time.monotonic() >= self.rest_until:
                try:
                    self.slots[index] = Slot(start_worker(self.settings))
                except OSError as err:
                    log.error("export supervisor: cannot start a worker: %s", err)

    def hand_out(self) -> None:
        """Give queued jobs to idle workers, oldest first."""
        for slot in [slot for slot in self.slots if slot is not None and slot.idle]:
            if not jobs.has_queued(self.db):
                return
            job = jobs.claim_next(self.db, slot.process.pid, self.settings.workers)
            if job is None:
                return
            if not self._send(slot, job.id):
                jobs.requeue(self.db, job.id)  # the worker died while idle: next tick
                continue
            slot.job_id, slot.started = job.id, time.monotonic()
            self.attempts[job.id] = self.attempts.get(job.id, 0) + 1

    @staticmethod
    def _send(slot: Slot, job_id: str) -> bool:
        assert slot.process.stdin is not None
        try:
            slot.process.stdin.write(f"{job_id}\n".encode())
            slot.process.stdin.close()
        except OSError:
            return False
        return True

    def beat(self) -> None:
        """Write the heartbeat file: the time, this process and how busy the pool is."""
        busy = sum(1 for slot in self.slots if slot is not None and slot.job_id is not None)
        beat = {"pid": os.getpid(), "beat": time.time(), "workers": len(self.slots), "busy": busy}
        path = self.heartbeat
        partial = path.with_suffix(".part")
        with contextlib.suppress(OSError):
            partial.write_text(json.dumps(beat))
            partial.replace(path)

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
                if slot.job_id is not None:
                    with contextlib.suppress(sqlite3.Error):
                        self._requeue_if_running(slot.job_id, slot.process.pid)

    def _requeue_if_running(self, job_id: str, pid: int) -> None:
        job = jobs.find(self.db, job_id)
        if job is not None and job.status == "running" and job.pid == pid:
            jobs.requeue(self.db, job_id)


def wait_or_kill(process: subprocess.Popen[bytes], seconds: float) -> None:
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def heartbeat_name(database: str, parent: int) -> str:
    """The heartbeat file of the server whose master is ``parent``.

    Servers that share a PostgreSQL store share EXPORTS_DIR too (a shared folder, see
    docs/deploy.md): each writes a heartbeat of its own there, named by machine and master.
    """
    if pg.is_url(database):
        return f"supervisor-{socket.gethostname()}-{parent}.json"
    return HEARTBEAT


def heartbeat_age(exports_dir: Path, name: str = HEARTBEAT) -> float | None:
    """Seconds since the supervisor's last heartbeat; None if it has written none."""
    try:
        return time.time() - (exports_dir / name).stat().st_mtime
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, then supervise until stopped."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", required=True)
    parser.add_argument("--exports", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--idle-exit", type=float, default=0.0)
    parser.add_argument("--parent", type=int, default=os.getppid())
    args = parser.parse_args(argv)
    logs.configure_process(sys.stderr, sys.stdout)  # the server's log, and worker.log
    if os.environ.get(metrics.MULTIPROC_ENV):
        metrics.enable()  # the server's scrapes read this process's figures too
    settings = Settings(args.database, args.exports, args.workers, args.time_limit, args.idle_exit)
    settings.exports_dir.mkdir(parents=True, exist_ok=True)
    from ..db import connect

    supervisor = Supervisor(settings, connect(settings.database), args.parent)
    log.info("export supervisor started: %d workers, pid %d", settings.workers, os.getpid())
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, supervisor.request_stop)
    supervisor.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
