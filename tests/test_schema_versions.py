"""A database a newer companion migrated is refused in one sentence, a backup never migrates, and
going back (restoring the backup taken before the upgrade) works as docs/deploy.md says.

A newer companion is played by what it leaves in the database: one more migration recorded, and
the table it made. Then this version is the old one that must not use it.
"""

from __future__ import annotations

import sqlite3
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.app import main
from companion.base import __version__
from companion.base.metrics import MULTIPROC_ENV
from companion.store.schema import known_migrations

pytestmark = pytest.mark.sqlite_only
FUTURE = "0099_from_a_newer_release"


def _run(instance: Path, *args: str) -> tuple[int, str]:
    # `serve` names the folder its processes write their figures to in the environment; the
    # runner puts back what was there before (nothing), so no later test counts into it.
    env = {
        "COMPANION_INSTANCE": str(instance),
        "COMPANION_LOG_CONFIGURE": "false",
        MULTIPROC_ENV: None,
    }
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.output


def _migrate_as_a_newer_release(database: Path) -> None:
    conn = sqlite3.connect(database)
    with conn:
        conn.execute("CREATE TABLE newer_things (id TEXT PRIMARY KEY)")
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('companion', ?, '2030-01-01')",
            [FUTURE],
        )
    conn.close()


def _applied(database: Path) -> list[str]:
    conn = sqlite3.connect(database)
    try:
        return [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")]
    finally:
        conn.close()


def _dump(database: Path) -> list[str]:
    conn = sqlite3.connect(database)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


@pytest.fixture
def instance(tmp_path: Path) -> Path:
    folder = tmp_path / "instance"
    code, output = _run(folder, "demo", "--lang", "en")
    assert code == 0, output
    return folder


@pytest.mark.parametrize("command", [["init-db"], ["serve", "--port", "1"], ["demo"],
                                     ["backup", "x.zip"]])  # fmt: skip
def test_a_newer_schema_is_refused_in_one_sentence_naming_both_versions(
    instance: Path, command: list[str]
) -> None:
    database = instance / "companion.sqlite3"
    _migrate_as_a_newer_release(database)
    before = _dump(database)
    code, output = _run(instance, *command)
    assert code == 1 and "Traceback" not in output, output
    line = output.strip()
    assert line.count("\n") == 0, output
    known = len(known_migrations())
    assert f"schema {known + 1}" in line and f"companion {__version__} knows schema {known}" in line
    assert FUTURE in line and "restoring the backup taken before the upgrade" in line
    assert _dump(database) == before  # nothing written, nothing migrated
    assert not (instance.parent / "x.zip").exists()


def test_info_says_a_newer_companion_migrated_the_database(instance: Path) -> None:
    _migrate_as_a_newer_release(instance / "companion.sqlite3")
    code, output = _run(instance, "info")
    known = len(known_migrations())
    assert code == 0
    assert f"{known + 1} migrations applied, 1 of them by a newer companion" in output
    assert f"of {known} migrations applied" not in output


def test_a_backup_never_migrates_the_database_it_copies(instance: Path, tmp_path: Path) -> None:
    database = instance / "companion.sqlite3"
    conn = sqlite3.connect(database)
    with conn:  # as an older release left it: its newest migration not applied yet
        newest = known_migrations()[-1]
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = ?", [newest])
    conn.close()
    (instance / "packs").mkdir()
    code, output = _run(instance, "backup", str(tmp_path / "b.zip"))
    assert code == 0, output
    assert newest not in _applied(database)
    with zipfile.ZipFile(tmp_path / "b.zip") as opened:
        assert newest not in opened.read("manifest.json").decode()


def test_a_backup_is_readable_by_its_owner_only(instance: Path, tmp_path: Path) -> None:
    code, output = _run(instance, "backup", str(tmp_path / "b.zip"))
    assert code == 0, output
    assert stat.S_IMODE((tmp_path / "b.zip").stat().st_mode) == 0o600


def test_going_back_restores_the_backup_taken_before_the_upgrade(
    instance: Path, tmp_path: Path
) -> None:
    database = instance / "companion.sqlite3"
    before = tmp_path / f"before-{__version__}.zip"
    code, listed = _run(instance, "chronicles", "list", "--json")
    assert code == 0 and '"events"' in listed
    assert _run(instance, "backup", str(before))[0] == 0  # the upgrade's first step
    _migrate_as_a_newer_release(database)  # the newer release ran, then had to go
    assert _run(instance, "init-db")[0] == 1
    code, output = _run(instance, "restore", str(before))
    assert code == 0, output
    assert FUTURE not in _applied(database)
    assert _run(instance, "chronicles", "list", "--json") == (0, listed)
    assert _run(instance, "init-db")[0] == 0  # it serves again
    kept = list(instance.glob("companion.sqlite3.before-restore-*"))
    assert len(kept) == 1 and FUTURE in _applied(kept[0])  # the newer data is kept aside


@pytest.mark.slow
def test_a_running_server_stops_once_a_newer_version_migrates_its_store(tmp_path: Path) -> None:
    """As on a shared PostgreSQL store upgraded from another server: the old server must not
    go on writing to a schema it does not know. It stops, with status 2 (not restarted)."""
    from server_client import Server
    from waiting import HANG

    server = Server(tmp_path / "c.sqlite3").start()
    try:
        assert server.process is not None
        _migrate_as_a_newer_release(tmp_path / "c.sqlite3")
        assert server.process.wait(timeout=HANG) == 2
    finally:
        server.stop()
    log = (tmp_path / "c.log").read_text()
    assert "made by a newer companion" in log and "This server stops." in log
    assert "Traceback" not in log
