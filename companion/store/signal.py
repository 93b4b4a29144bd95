"""Telling every server process that a stream changed: the writer's side and the listener's.

A write that changes what a stream's version answer may say calls ``changed(db, stream_id)``
(the event store, drafts and links do). Processes that hold live feeds listen:

- On SQLite every process is on this machine. Each listening process binds a Unix datagram
  socket in a folder named after the database file; ``changed`` sends the stream's id to every
  socket there once the write has committed (a few microseconds a listener; a listener whose
  socket is full or gone is skipped, and its streams' periodic recheck catches up).
- On PostgreSQL the servers may be on other machines: ``changed`` runs ``pg_notify`` in the
  writer's transaction (delivered on commit, never for a rollback), and each listening process
  keeps one connection that ``LISTEN``s.

A request may ask which streams it changed (``noting``, for ``web.shell.ahead``): each change
is noted once it has committed, beside its signal.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import logging
import os
import secrets
import socket
import stat
import tempfile
import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from pathlib import Path
from typing import Any

from companion.store import pg
from companion.store.sql import after_commit, first_in_transaction

log = logging.getLogger(__name__)
CHANNEL = "companion_live"
ID_BYTES = 128  # a stream id is 16 hex characters; anything longer is not one
RECONNECT_AFTER = 2.0  # seconds before a lost PostgreSQL listener connects again
Noted = dict[str, None]  # the streams changed, in the order they changed
_noted: ContextVar[Noted | None] = ContextVar("companion_changes_noted", default=None)


def noting() -> tuple[Noted, Token[Noted | None]]:
    """Note in this context (a request) every stream whose change commits from now on, until
    ``stop_noting``."""
    noted: Noted = {}
    return noted, _noted.set(noted)


def stop_noting(token: Token[Noted | None]) -> None:
    _noted.reset(token)


def changed(db: Any, stream_id: str) -> None:
    """Tell every listening process that ``stream_id`` changed (after the write commits), once
    per transaction however many of its writes change the stream."""
    if not first_in_transaction(db, ("changed", stream_id)):
        return
    if isinstance(db, pg.Database):
        db.execute("SELECT pg_notify(?, ?)", [CHANNEL, stream_id])
        after_commit(db, lambda: _committed("", stream_id))
        return
    path = _database_path(db)
    if path:
        after_commit(db, lambda: _committed(path, stream_id))


def _committed(database: str, stream_id: str) -> None:
    """A change to ``stream_id`` committed: its local signal sent (``database`` empty:
    PostgreSQL sent it with the commit), and the change noted where a request notes them."""
    if database:
        send_local(database, stream_id)
    noted = _noted.get()
    if noted is not None:
        noted[stream_id] = None


def _database_path(db: Any) -> str:
    """The file of a SQLite connection ('' for an in-memory database)."""
    for _seq, name, file in db.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file or "")
    return ""


@functools.lru_cache(maxsize=64)
def folder(database: str) -> Path:
    """Where the listeners of one SQLite database keep their sockets.

    In the temporary folder, named by the database file's path: a socket's path must stay under
    about 100 bytes, which a folder next to the database could not promise.
    """
    digest = hashlib.sha256(os.path.realpath(database).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"companion-live-{digest}"


def _own_folder(path: Path) -> bool:
    """Whether ``path`` is a folder only this user can use (made so when missing)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = path.lstat()
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
        and stat.S_IMODE(info.st_mode) & 0o077 == 0
    )


class _Sender:
    """One unbound datagram socket per process and the listeners' addresses, re-read only
    when the folder changed (a listener came or went)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sock: socket.socket | None = None
        self.pid = 0
        self.listed: dict[str, tuple[int, list[str]]] = {}  # folder -> (mtime, sockets)

    def send(self, database: str, stream_id: str) -> int:
        place = folder(database)
        try:
            mtime = place.stat().st_mtime_ns
        except OSError:
            return 0  # nobody listens
        with self.lock:
            if self.sock is None or self.pid != os.getpid():
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self.sock.setblocking(False)
                self.pid = os.getpid()
            listed = self.listed.get(str(place))
            if listed is None or listed[0] != mtime:
                names = sorted(n for n in os.listdir(place) if n.endswith(".sock"))
                listed = (mtime, [str(place / n) for n in names])
                self.listed[str(place)] = listed
            sock = self.sock
        sent = 0
        for address in listed[1]:
            try:
                sock.sendto(stream_id.encode(), address)
                sent += 1
            except (ConnectionRefusedError, FileNotFoundError):
                with contextlib.suppress(OSError):
                    os.unlink(address)  # its process is gone
            except OSError as err:  # a full queue: that listener rechecks on its own
                if err.errno not in (errno.EAGAIN, errno.ENOBUFS):
                    log.warning("could not signal a live listener: %s", err)
        return sent


_sender = _Sender()


def send_local(database: str, stream_id: str) -> int:
    """Send ``stream_id`` to every listener of the SQLite ``database``; how many were reached."""
    return _sender.send(database, stream_id)


Wake = Callable[[str | None], None]  # a stream id, or None: anything may have changed


class Listener:
    """A daemon thread (a greenlet under gevent) that calls ``wake`` for each change heard."""

    def __init__(self, database: str, wake: Wake) -> None:
        self.database = database
        self.wake = wake
        self.stopped = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name="companion-live", daemon=True)

    def start(self) -> Listener:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()

    def _run(self) -> None:
        run = self._listen_server if pg.is_url(self.database) else self._listen_local
        while not self.stopped.is_set():
            try:
                run()
            except Exception as err:  # the connection or socket failed: start again shortly
                log.warning("live listener stopped (%s); starting again", err)
            self.wake(None)  # something may have been missed meanwhile
            self.stopped.wait(RECONNECT_AFTER)

    def _listen_local(self) -> None:
        place = folder(self.database)
        if not _own_folder(place):
            log.warning("%s is not this user's own folder: live pages rely on rechecks", place)
            self.ready.set()
            self.stopped.wait()
            return
        address = str(place / f"{os.getpid()}-{secrets.token_hex(4)}.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.bind(address)
            sock.settimeout(1.0)
            self.ready.set()
            while not self.stopped.is_set():
                try:
                    data = sock.recv(ID_BYTES)
                except TimeoutError:
                    continue
                self.wake(data.decode("ascii", "replace"))
        finally:
            sock.close()
            with contextlib.suppress(OSError):
                os.unlink(address)

    def _listen_server(self) -> None:
        import psycopg

        with psycopg.connect(self.database, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self.ready.set()
            while not self.stopped.is_set():
                for note in conn.notifies(timeout=1.0):
                    self.wake(note.payload)
