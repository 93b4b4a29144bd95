"""A throwaway PostgreSQL for the tests: its own data folder, a Unix socket only, no network.

``COMPANION_TEST_BACKEND=postgresql`` runs the database tests against it: ``database_url()``
gives each test an empty schema of its own in one cluster started once per test session
(``initdb`` takes seconds; a schema takes milliseconds). The cluster runs with fsync off, as
nothing in it needs to survive the run, and is stopped and deleted when the session ends.

``initdb`` refuses to run as root, so as root the cluster runs as the ``postgres`` system user
(the Debian package creates it) through ``runuser``.
"""

from __future__ import annotations

import atexit
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

BACKEND_VARIABLE = "COMPANION_TEST_BACKEND"
POSTGRESQL = "postgresql"
BIN = Path("/usr/lib/postgresql/15/bin")
DATABASE = "companion_test"


def on_postgresql() -> bool:
    """Whether this run keeps the tests' data in PostgreSQL."""
    return backend() == POSTGRESQL


def fresh_database(path: Path) -> str:
    """A new database for one test, migrated: the SQLite file ``path``, or with
    ``COMPANION_TEST_BACKEND=postgresql`` a schema of its own in the session's PostgreSQL."""
    from companion.store.db import init_db

    database = database_url() if on_postgresql() else str(path)
    init_db(database)
    return database


def backend() -> str:
    """The backend the database tests run on: ``sqlite`` (the default) or ``postgresql``."""
    return os.environ.get(BACKEND_VARIABLE, "sqlite")


def available() -> bool:
    """Whether a PostgreSQL server and psycopg are installed here."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return (BIN / "initdb").exists()


class PostgresServer:
    """One cluster in a temporary folder, reached by its socket in that folder."""

    def __init__(self) -> None:
        # A short path: a Unix socket's address holds about a hundred bytes.
        self.root = Path(tempfile.mkdtemp(prefix="cpg-", dir="/tmp"))
        self.data = self.root / "data"
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        self.schemas = itertools.count(1)
        self.running = False

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> PostgresServer:
        if os.geteuid() == 0:
            shutil.chown(self.root, self.user)
        self._run(
            str(BIN / "initdb"),
            *("-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8"),
            "--no-sync",
            "--no-instructions",
        )
        options = (
            f"-k {self.root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=200"
        )
        log = str(self.root / "server.log")
        self._run(
            str(BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start"
        )
        self.running = True
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        return self

    def url(self, database: str = DATABASE, schema: str | None = None) -> str:
        """The address of a database, with ``schema`` as its search path when given."""
        address = f"postgresql://postgres@/{database}?host={self.root}"
        return f"{address}&options=-csearch_path%3D{schema}" if schema else address

    def fresh(self) -> str:
        """The address of a new, empty schema: a database of its own for one test."""
        import psycopg

        schema = f"t{os.getpid()}_{next(self.schemas)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        return self.url(schema=schema)

    def restart(self) -> None:
        """Stop the server (dropping every connection) and start it again on the same files."""
        log = str(self.root / "server.log")  # else the server would hold our output pipe open
        self._run(
            str(BIN / "pg_ctl"), "-D", str(self.data), "-l", log, "-m", "fast", "-w", "restart"
        )

    def create_database(self, name: str) -> str:
        """A new, empty database in this cluster; its address."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        if self.running:
            self.running = False
            self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


_shared: PostgresServer | None = None


def shared() -> PostgresServer:
    """The session's cluster, started on first use and stopped when the process exits."""
    global _shared
    if _shared is None:
        _shared = PostgresServer()
        atexit.register(_shared.stop)
        _shared.start()
    return _shared


def database_url() -> str:
    """A fresh schema in the session's cluster."""
    return shared().fresh()
