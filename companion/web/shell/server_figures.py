"""What an operator alerts on, measured at each scrape of ``/metrics`` (beside the counts of
``companion.base.metrics``): the version, the server's processes, its health, the exports folder
against its budget, and how long the oldest queued book has waited.

Each figure is read when the scraper asks, from the database, the exports folder and ``/proc``,
so it is the same whichever worker answers, and costs nothing between scrapes.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Flask

from companion.export import upkeep
from companion.export.heartbeat import free_bytes
from companion.export.keeper import health

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _gauge(name: str, help_text: str, value: float, labels: dict[str, str] | None = None) -> Any:
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily(name, help_text, labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), value)
    return family


class ServerFigures:
    """A collector of the figures above for the app ``app``, asked at each scrape."""

    def __init__(self, app: Flask, db: Any) -> None:
        self.app, self.db = app, db

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        from companion.base import __version__

        config = self.app.config
        info = GaugeMetricFamily(
            "companion_build_info",
            "Always 1: the version of the companion and of Python this server runs",
            labels=["version", "python"],
        )
        info.add_metric([__version__, platform.python_version()], 1)
        yield info
        cpu, memory, descriptors, count = _processes()
        yield CounterMetricFamily(
            "companion_process_cpu_seconds",
            "Processor time used by this server's processes (master, web workers, export"
            " supervisor and its workers), user and system",
            value=cpu,
        )
        yield _gauge(
            "companion_process_resident_memory_bytes",
            "Memory held by this server's processes (resident set, summed)",
            memory,
        )
        yield _gauge(
            "companion_process_open_fds",
            "Open file descriptors of this server's processes (connections, files), summed",
            descriptors,
        )
        yield _gauge("companion_processes", "Processes this server runs now", count)
        worker, worker_ok, _more = health(config)
        healthy = GaugeMetricFamily(
            "companion_health",
            "1 when the check holds, else 0: the database takes writes (database), the export"
            " worker's heartbeat is fresh and its folder has room (export_worker)",
            labels=["check"],
        )
        healthy.add_metric(["database"], 1 if _writable() else 0)
        healthy.add_metric(["export_worker"], 1 if worker_ok else 0)
        yield healthy
        yield from self._exports(config)

    def _exports(self, config: Any) -> Iterator[Any]:
        folder = Path(config["EXPORTS_DIR"])
        yield _gauge(
            "companion_exports_bytes",
            "Bytes of books kept in the exports folder (EXPORTS_DIR)",
            _folder_bytes(folder),
        )
        yield _gauge(
            "companion_exports_budget_bytes",
            "The bytes of books the exports folder keeps before the oldest go (EXPORTS_MAX_BYTES)",
            int(config.get("EXPORTS_MAX_BYTES", upkeep.KEEP_BYTES)),
        )
        free = free_bytes(folder)
        yield _gauge(
            "companion_exports_free_bytes",
            "Room left on the disk of the exports folder; below 1 MiB no book can be written",
            free if free is not None else 0,
        )
        yield _gauge(
            "companion_export_oldest_queued_seconds",
            "How long the oldest book still waiting in the queue has waited (0: none waits)",
            self._oldest_queued(),
        )

    def _oldest_queued(self) -> float:
        row = self.db.execute("SELECT min(created) FROM exports WHERE status = 'queued'").fetchone()
        if not row or not row[0]:
            return 0.0
        waited = time.time() - datetime.fromisoformat(str(row[0])).timestamp()
        return max(0.0, waited)


def _writable() -> bool:
    from companion.web.shell.main import database_writable

    return database_writable()


def _folder_bytes(folder: Path) -> int:
    total = 0
    try:
        for path in folder.iterdir():
            if path.is_file():
                total += path.stat().st_size
    except OSError:
        return 0
    return total


def _server_root() -> int:
    """The process that started this server: gunicorn's master under ``companion serve``."""
    parent = os.getppid()
    try:
        command = Path(f"/proc/{parent}/cmdline").read_bytes()
    except OSError:
        return os.getpid()
    return parent if b"companion" in command and b"serve" in command else os.getpid()


def _processes() -> tuple[float, int, int, int]:
    """CPU seconds, resident bytes, open descriptors and count of this server's processes."""
    root = _server_root()
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    cpu = 0.0
    memory = descriptors = count = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        found = stats.get(pid)
        if found is None:
            continue
        count += 1
        cpu += (int(found[11]) + int(found[12])) / CLOCK_TICKS  # utime, stime
        memory += int(found[21]) * PAGE_SIZE  # rss, in pages
        try:
            descriptors += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return cpu, memory, descriptors, count
