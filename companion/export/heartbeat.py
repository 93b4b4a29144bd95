"""Who makes a running book, and whether they are still there: supervisors and their heartbeats.

Every export supervisor has an owner id, ``<machine>-<master pid>-<supervisor pid>``, that it
writes into the rows of the books it claims, and a heartbeat file of its own in EXPORTS_DIR
(``supervisor-<owner>.json``) that it rewrites twice a second. Servers that share a PostgreSQL
store share the exports folder too, so every supervisor sees every other's heartbeat: a running
book whose owner's heartbeat is older than ``STALE_AFTER`` seconds lost its server, and any
supervisor that sees it puts the book back in the queue. On the owner's own machine its process
can be looked at as well, so a supervisor that died (``kill -9``) is known dead at once.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any, Final

PREFIX: Final = "supervisor-"
STALE_AFTER: Final = 10.0  # a heartbeat older than this means its supervisor is gone
# A running book whose owner left no heartbeat at all (the folder is not shared, or the row was
# written by an older version) is given up for lost only after this long without progress.
SILENT_AFTER: Final = 300.0
FULL_BELOW: Final = 1024 * 1024  # an exports folder with less room than this holds no book
HOST: Final = socket.gethostname()
SUPERVISOR_MODULE: Final = "companion.export.supervisor"
WORKER_MODULE: Final = "companion.export.worker"


def owner_id(parent: int, pid: int | None = None) -> str:
    """The owner id of the supervisor ``pid`` (this process by default) under master ``parent``."""
    return f"{HOST}-{parent}-{os.getpid() if pid is None else pid}"


def parse_owner(owner: str | None) -> tuple[str, int, int] | None:
    """An owner id's machine, master and supervisor pid; None for rows of older versions."""
    if not owner:
        return None
    host, _, rest = owner.rpartition("-")
    host, _, parent = host.rpartition("-")
    if not host or not parent.isdigit() or not rest.isdigit():
        return None
    return host, int(parent), int(rest)


def file_name(owner: str) -> str:
    """The heartbeat file of a supervisor."""
    return f"{PREFIX}{owner}.json"


def write(exports_dir: Path, owner: str, beat: dict[str, Any]) -> OSError | None:
    """Write the heartbeat; the error if it could not be written (a full disk, a read-only one).

    When the new content cannot be written, the old file's time is still set to now (that needs
    no free space), so a supervisor that is alive is never taken for a dead one.
    """
    path = exports_dir / file_name(owner)
    partial = path.with_suffix(".part")
    try:
        partial.write_text(json.dumps(beat))
        partial.replace(path)
    except OSError as err:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            os.utime(path)
        return err
    return None


def age(exports_dir: Path, owner: str) -> float | None:
    """Seconds since this supervisor's last heartbeat; None if there is no heartbeat file."""
    try:
        return time.time() - (exports_dir / file_name(owner)).stat().st_mtime
    except OSError:
        return None


def server_age(exports_dir: Path, parent: int) -> float | None:
    """Seconds since the freshest heartbeat of any supervisor of the master ``parent`` here."""
    ages = [
        time.time() - path.stat().st_mtime
        for path in _beats(exports_dir)
        if (parsed := parse_owner(path.name[len(PREFIX) : -5])) and parsed[:2] == (HOST, parent)
    ]
    return min(ages, default=None)


def _beats(exports_dir: Path) -> list[Path]:
    try:
        return [path for path in exports_dir.glob(f"{PREFIX}*.json") if path.is_file()]
    except OSError:
        return []


def gone(exports_dir: Path, owner: str | None, silent_for: float) -> bool:
    """Whether the supervisor ``owner`` is gone, for a book not heard from in ``silent_for`` s."""
    parsed = parse_owner(owner)
    if parsed is None or owner is None:
        return silent_for > SILENT_AFTER
    host, _parent, pid = parsed
    beat = age(exports_dir, owner)
    if host == HOST:
        if not alive(pid, SUPERVISOR_MODULE):
            return True
        return beat is not None and beat > SILENT_AFTER  # alive, but stuck for minutes
    if beat is not None:
        return beat > STALE_AFTER
    return silent_for > SILENT_AFTER


def alive(pid: int, module: str | None = None) -> bool:
    """Whether process ``pid`` runs (a zombie does not), running ``python -m module`` if given.

    A process that exited stays a zombie until its parent waits for it, and its number may be
    given to another process later: neither is the supervisor or worker that once had it.
    """
    proc = Path("/proc") / str(pid)
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        words = (proc / "cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        return _signal_alive(pid)  # no /proc here: the old way, which counts zombies
    if state in ("Z", "X"):
        return False
    return module is None or module.encode() in words


def _signal_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_dead(exports_dir: Path, still_owning: set[str]) -> list[str]:
    """Remove the heartbeats of supervisors that are gone and own no running book any more."""
    removed = []
    older = exports_dir / "supervisor.json"  # the one heartbeat of versions before owner ids
    with contextlib.suppress(OSError):
        if time.time() - older.stat().st_mtime > STALE_AFTER:
            older.unlink()
            removed.append(older.name)
    for path in _beats(exports_dir):
        owner = path.name[len(PREFIX) : -5]
        # An older version's heartbeat (no owner id in its name) goes once it is long silent.
        silent = (age(exports_dir, owner) or 0.0) if parse_owner(owner) is None else 0.0
        if owner in still_owning or not gone(exports_dir, owner, silent):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(owner)
    return removed


def free_bytes(folder: Path) -> int | None:
    """The room left for books in ``folder``; None when it cannot be told (no such folder)."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def is_full(err: BaseException) -> bool:
    """Whether an error is a disk (or a quota) with no room left."""
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
