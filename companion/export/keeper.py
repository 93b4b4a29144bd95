"""The app's side of the export supervisor: a ``Keeper`` starts the supervisor process (and
starts it again if it stopped), and ``health`` reads its heartbeat for ``/healthz``."""

from __future__ import annotations

import atexit
import logging
import os
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .heartbeat import FULL_BELOW, STALE_AFTER, age, free_bytes, owner_id, server_age
from .jobs import PER_STREAM
from .supervisor import APP_IDLE_EXIT, RESTART_AFTER, ROOT, Settings, log_file, wait_or_kill

log = logging.getLogger("companion.export.keeper")
# A supervisor beats twice a second; one silent for this long is hung, and is replaced.
HUNG_AFTER = 3 * STALE_AFTER


class Keeper:
    """Starts the supervisor process, starts it again if it stopped, and stops it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.started = float("-inf")
        self.lock = threading.Lock()

    def ensure(self) -> bool:
        """Start the supervisor unless it runs (or was started moments ago); whether it runs."""
        if self.settings.workers == 0:
            return False
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                if not self._hung():
                    return True
                # Stopped (SIGSTOP), deadlocked or stuck on a dead mount: it answers no signal
                # it could catch, so it is killed; its workers stop when they see it gone.
                log.error(
                    "export supervisor %d has written no heartbeat for %.0f s; starting a new one",
                    self.process.pid,
                    HUNG_AFTER,
                )
                self.process.kill()
                wait_or_kill(self.process, 10)
            if time.monotonic() - self.started < RESTART_AFTER:
                return False
            if self.process is None:
                atexit.register(self.stop)
            else:
                # No exit code: gunicorn's master reaps every child, this one too.
                log.error("export supervisor %d stopped; starting it again", self.process.pid)
            with log_file(self.settings) as output:
                # Its own lines go to the server's log (its standard error), its workers' to
                # worker.log (its standard output, which they inherit).
                self.process = subprocess.Popen(
                    self.settings.command(os.getpid()),
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    cwd=ROOT,
                )
            self.started = time.monotonic()
            return True

    def _hung(self) -> bool:
        """Whether the running supervisor's heartbeat is older than ``HUNG_AFTER`` seconds."""
        assert self.process is not None
        if time.monotonic() - self.started < HUNG_AFTER:
            return False  # its first heartbeat may still be coming
        owner = owner_id(os.getpid(), self.process.pid)
        beat = age(self.settings.exports_dir, owner)
        return beat is not None and beat > HUNG_AFTER

    def stop(self) -> None:
        """Stop the supervisor, which stops its workers; wait for it."""
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                wait_or_kill(self.process, 10)


def per_stream(config: Mapping[str, Any]) -> int:
    """EXPORT_QUEUE_PER_STREAM: books of one chronicle waiting or being made at once."""
    limit = config.get("EXPORT_QUEUE_PER_STREAM", PER_STREAM)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 2 <= limit <= 1000:
        # Two at least: the print shop's body and cover are asked for together.
        raise ValueError(f"EXPORT_QUEUE_PER_STREAM must be a number from 2 to 1000, not {limit!r}")
    return limit


def init_app(app: Any) -> None:
    """Give the app a keeper for the supervisor; nothing starts until a book is asked for."""
    settings = Settings.from_config(app.config, idle_exit=APP_IDLE_EXIT)
    per_stream(app.config)  # a bad setting is said when the app starts, not on a request
    app.extensions["export_supervisor"] = Keeper(settings)


def ensure_for_app(app: Any) -> None:
    """Make sure a supervisor will make the app's queued books; never starts a second one."""
    if app.config.get("EXPORT_SUPERVISOR") == "server":
        return  # the server's master runs it
    app.extensions["export_supervisor"].ensure()


def health(config: Mapping[str, Any]) -> tuple[str, bool, dict[str, Any]]:
    """The export worker's state for ``/healthz``, whether that is healthy, and more to say.

    A full exports folder is said as such, with the room left: the supervisor is alive then (its
    heartbeat's time is still set), but no book can be written.
    """
    if config.get("EXPORT_WORKERS", 1) == 0:
        return "off", True, {}
    exports = Path(config["EXPORTS_DIR"])
    free = free_bytes(exports)
    if free is not None and free < FULL_BELOW:
        return "exports folder full", False, {"exports_free_bytes": free}
    if config.get("EXPORT_SUPERVISOR") != "server":
        return "on-demand", True, {}
    age = server_age(exports, os.getppid())  # the server's master is this worker's parent
    if age is None or age > STALE_AFTER:
        return "stale", False, {}
    return "alive", True, {}
