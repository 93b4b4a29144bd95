"""Prometheus metrics, served at ``/metrics`` (``companion.web.shell.metrics_view``): off unless
``METRICS_TOKEN`` is set, then behind it.

A scrape sends ``Authorization: Bearer <METRICS_TOKEN>``; without the setting the address is a
404 like any other. What is counted:

- ``companion_requests_total{route, method, status}`` and ``companion_request_seconds{route}``:
  the route is the endpoint's name (``chronicle.play``), never the path, which holds a link;
  the method is one of ``METHODS`` or ``other`` (gunicorn passes on any method a client
  invents, and each new label would be a series every scrape carries for ever);
- ``companion_db_query_seconds{statement}``: each query's time, by its first keyword;
- ``companion_export_jobs{status}``: books queued and being made, counted at each scrape;
- ``companion_export_job_seconds{outcome}``: how long each book took its worker;
- ``companion_live_watchers``: open live feeds; whoever holds one calls ``watchers(+1)`` when
  it opens and ``watchers(-1)`` when it closes;
- ``companion_unavailable_answers_total{reason}``: 503s because the database could not be used.

At each scrape ``companion.web.shell.server_figures`` adds what is read then: the version, the
server's processes, its health, the exports folder against its budget, the oldest queued book.

gunicorn runs several worker processes, each answering a share of the scrapes, so each writes its
figures to files in one folder (prometheus_client's multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``,
which ``companion serve`` makes and removes) and a scrape adds them all up; the export supervisor,
started by the same server, writes there too. The client library chooses that mode when it is
first imported, so it is imported only once a process counts something: the server's master,
which loads the app before the folder exists, never does before it forks.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
import time
from typing import Any

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
QUERY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5)
JOB_BUCKETS = (1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600)
# HTTP's methods (RFC 9110) and PATCH: any other a client sends is counted as "other".
METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}
)
STATEMENTS = ("select", "insert", "update", "delete", "begin", "commit", "rollback")
_state: dict[str, Any] = {"on": False, "made": None}


def enabled() -> bool:
    """Whether this process counts anything."""
    return bool(_state["on"])


def enable() -> None:
    """Count from now on (the app when ``METRICS_TOKEN`` is set; a process the server started)."""
    _state["on"] = True


def _made() -> dict[str, Any]:
    made = _state["made"]
    if made is None:
        from prometheus_client import Counter, Gauge, Histogram

        made = _state["made"] = {
            "requests": Counter(
                "companion_requests",
                "Requests answered, by route (the endpoint's name, never the path), method and"
                " status",
                ["route", "method", "status"],
            ),
            "latency": Histogram(
                "companion_request_seconds",
                "Seconds from a request's arrival to its answer, by route",
                ["route"],
                buckets=LATENCY_BUCKETS,
            ),
            "query": Histogram(
                "companion_db_query_seconds",
                "Seconds one database query took, by its first keyword",
                ["statement"],
                buckets=QUERY_BUCKETS,
            ),
            "job": Histogram(
                "companion_export_job_seconds",
                "Seconds a book took its worker, by outcome (done, failed, requeued, time-limit)",
                ["outcome"],
                buckets=JOB_BUCKETS,
            ),
            "unavailable": Counter(
                "companion_unavailable_answers",
                "Answers 503 because the database could not be used, by reason (busy, locked,"
                " readonly, full, ioerr, cantopen, or PostgreSQL's SQLSTATE)",
                ["reason"],
            ),
            "pages": Counter(
                "companion_shared_pages",
                "A stream's page or part missing from a worker's own cache after a change, by"
                " how it was had: made (rendered here under its claim), kept (read from the"
                " store), waited (for the worker that claimed it), unclaimed (rendered with no"
                " claim)",
                ["how"],
            ),
            "watchers": Gauge(
                "companion_live_watchers",
                "Live feeds (open pages' server-sent events) held open now",
                multiprocess_mode="livesum",
            ),
        }
    return made  # type: ignore[no-any-return]


def request_done(route: str, method: str, status: int, seconds: float) -> None:
    """Count one answered request."""
    if _state["on"]:
        made = _made()
        known = method if method in METHODS else "other"
        made["requests"].labels(route, known, str(status)).inc()
        made["latency"].labels(route).observe(seconds)


def query_done(sql: str, seconds: float) -> None:
    """Count one database query by its first keyword."""
    if _state["on"]:
        word = sql.lstrip()[:8].split(" ", 1)[0].lower()
        _made()["query"].labels(word if word in STATEMENTS else "other").observe(seconds)


def job_done(seconds: float, outcome: str) -> None:
    """Count one book its worker finished (``done``, ``failed``, ``requeued``, ``time-limit``)."""
    if _state["on"]:
        _made()["job"].labels(outcome).observe(seconds)


def unavailable(reason: str) -> None:
    """Count one 503 answered because the database could not be used, by why."""
    if _state["on"]:
        _made()["unavailable"].labels(reason or "unknown").inc()


def shared_page(how: str) -> None:
    """Count one stream's page missing from this worker's cache, by how it was had: ``made``,
    ``kept``, ``waited`` or ``unclaimed``."""
    if _state["on"]:
        _made()["pages"].labels(how).inc()


def watchers(change: int) -> None:
    """A live feed opened (``+1``) or closed (``-1``)."""
    if _state["on"]:
        _made()["watchers"].inc(change)


class Timed:
    """Wraps a connection's ``execute`` or ``executemany`` to count their time."""

    def __init__(self, execute: Any) -> None:
        self.execute = execute

    def __call__(self, sql: str, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.execute(sql, *args)
        finally:
            query_done(sql, time.perf_counter() - started)


class TimedSqlite(sqlite3.Connection):
    """A SQLite connection whose queries are counted (its methods cannot be wrapped in place)."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        started = time.perf_counter()
        try:
            return super().execute(sql, parameters)
        finally:
            query_done(sql, time.perf_counter() - started)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        started = time.perf_counter()
        try:
            return super().executemany(sql, parameters)
        finally:
            query_done(sql, time.perf_counter() - started)


def sqlite_factory() -> type[sqlite3.Connection]:
    """The connection class ``sqlite3.connect`` should make in this process."""
    return TimedSqlite if _state["on"] else sqlite3.Connection


def timed(db: Any) -> Any:
    """A PostgreSQL connection (``companion.store.pg.Database``) whose queries are counted, if on."""
    if _state["on"]:
        db.conn.execute = Timed(db.conn.execute)
        db.conn.executemany = Timed(db.conn.executemany)
    return db


def prepare_server() -> None:
    """Make the folder every process of this server writes its figures to, before anything
    counts (``companion serve`` calls it first: even the master's own queries count)."""
    if os.environ.get(MULTIPROC_ENV):
        return  # an operator's own folder, or made already
    folder = tempfile.mkdtemp(prefix="companion-metrics-")
    os.environ[MULTIPROC_ENV] = folder
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:  # forked workers inherit this hook: only the master removes
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)


def gunicorn_hooks() -> dict[str, Any]:
    """gunicorn's hook that forgets a dead worker's live gauges (its counts stay summed)."""

    def child_exit(_server: Any, worker: Any) -> None:
        if os.environ.get(MULTIPROC_ENV):
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(worker.pid)

    return {"child_exit": child_exit}


def _queue(db: Any) -> Any:
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily(
        "companion_export_jobs", "Books waiting or being made", None, ["status"]
    )
    counts = dict.fromkeys(("queued", "running"), 0)
    rows = db.execute(
        "SELECT status, count(*) FROM exports WHERE status IN ('queued', 'running') GROUP BY status"
    ).fetchall()
    counts.update({str(status): int(n) for status, n in rows})
    for status, n in counts.items():
        family.add_metric([status], n)
    return family


class _Queue:
    """The export queue, read from the database at each scrape (any server's books count)."""

    def __init__(self, db: Any) -> None:
        self.db = db

    def collect(self) -> list[Any]:
        return [_queue(self.db)]


def exposition(db: Any, *now: Any) -> tuple[bytes, str]:
    """The text a scrape gets: every process's figures, the export queue as it is now, and what
    the collectors ``now`` read at this scrape."""
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        REGISTRY,
        CollectorRegistry,
        generate_latest,
        values,
    )

    _made()
    registry = REGISTRY
    # Every process's files only when this process writes its own figures there too (the
    # library chose that when first imported): else its figures are in its own registry.
    if os.environ.get(MULTIPROC_ENV) and values.ValueClass is not values.MutexValue:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    queue = CollectorRegistry()
    queue.register(_Queue(db))
    for collector in now:
        queue.register(collector)
    return generate_latest(registry) + generate_latest(queue), CONTENT_TYPE_LATEST
