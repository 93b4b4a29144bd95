"""The lock a running server holds on its database, so a restore never swaps it underneath.

``companion serve`` takes a shared lock on ``<database>.server.lock`` for as long as it runs
(its workers inherit it); a restore takes it exclusively, and is refused while any server holds
it. The operating system drops the lock when the last process holding it ends, however it ends.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

WAIT_SECONDS = 3


def lock_path(database: str | Path) -> Path:
    """The lock file beside ``database``."""
    return Path(f"{database}.server.lock")


def hold_shared(database: str | Path) -> IO[bytes] | None:
    """Take the server's shared lock; the open file (keep it open), or None during a restore."""
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("ab")
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                return None
            time.sleep(0.1)  # another command may be looking for a moment (companion info)


@contextmanager
def exclusive(database: str | Path) -> Iterator[bool]:
    """Hold the lock exclusively for the block; yields False when a server holds it."""
    path = lock_path(database)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def in_use(database: str | Path) -> bool:
    """Whether a server holds the lock now (looking only: a missing lock file is not made)."""
    try:
        handle = lock_path(database).open("rb")
    except FileNotFoundError:
        return False  # every server makes it as it starts
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False
