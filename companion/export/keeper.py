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

from .supervisor import (
    APP_IDLE_EXIT,
    RESTART_AFTER,
    ROOT,
    STALE_AFTER,
    Settings,
    heartbeat_age,
    heartbeat_name,
    log_file,
    wait_or_kill,
)

log = logging.getLogger("companion.export.keeper")


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
                return True
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

    def stop(self) -> None:
        """Stop the supervisor, which stops its workers; wait for it."""
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                self.process.terminate()
                wait_or_kill(self.process, 10)


def init_app(app: Any) -> None:
    """Give the app a keeper for the supervisor; nothing starts until a book is asked for."""
    settings = Settings.from_config(app.config, idle_exit=APP_IDLE_EXIT)
    app.extensions["export_supervisor"] = Keeper(settings)


def ensure_for_app(app: Any) -> None:
    """Make sure a supervisor will make the app's queued books; never starts a second one."""
    if app.config.get("EXPORT_SUPERVISOR") == "server":
        return  # the server's master runs it
    app.extensions["export_supervisor"].ensure()


def health(config: Mapping[str, Any]) -> tuple[str, bool]:
    """The export worker's state for ``/healthz`` and whether that is healthy."""
    if config.get("EXPORT_WORKERS", 1) == 0:
        return "off", True
    if config.get("EXPORT_SUPERVISOR") != "server":
        return "on-demand", True
    name = heartbeat_name(str(config["DATABASE"]), os.getppid())  # the master is the parent
    age = heartbeat_age(Path(config["EXPORTS_DIR"]), name)
    if age is None or age > STALE_AFTER:
        return "stale", False
    return "alive", True
