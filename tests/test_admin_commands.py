"""The commands an operator runs: looking writes nothing, a folder one may not write gets a
sentence, links are printed from BASE_URL, a restore leaves files the server can use."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_app

from companion.app import create_app, main
from companion.store import db

ROOT = Path(__file__).resolve().parent.parent
LOOKING = [
    ["info"],
    ["packs", "list"],
    ["packs", "show", "standard"],
    ["packs", "validate", str(ROOT / "companion/packs/data/standard.en.md")],
    ["simulate", "--games", "2", "--seed", "1"],
    ["export", "0123abcd", "--format", "md", "-o", "-"],
    ["--version"],
]


def _run(instance: Path, args: list[str]) -> tuple[int, str]:
    env = {"COMPANION_INSTANCE": str(instance)}
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("args", LOOKING, ids=lambda a: " ".join(a[:2]))
def test_a_command_that_only_looks_makes_no_instance(tmp_path: Path, args: list[str]) -> None:
    instance = tmp_path / "var-lib-companion"
    code, output = _run(instance, args)
    assert not instance.exists(), f"{args} made {sorted(os.listdir(instance))}"
    assert "Traceback" not in output
    if args[0] == "export":
        assert code == 1 and "There is no database" in output
    else:
        assert code == 0, output


def test_info_in_an_instance_without_a_secret_makes_none(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    instance.mkdir()
    db.init_db(instance / "companion.sqlite3")
    before = sorted(os.listdir(instance))
    code, output = _run(instance, ["info"])
    assert code == 0 and f"instance:     {instance}\n" in output
    assert sorted(os.listdir(instance)) == before  # no secret_key, no lock file


def test_info_says_when_the_instance_is_not_there_yet(tmp_path: Path) -> None:
    code, output = _run(tmp_path / "missing", ["info"])
    assert code == 0 and f"instance:     {tmp_path / 'missing'} (not created yet)" in output


def test_the_secret_key_is_made_once_on_first_use_by_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance = tmp_path / "instance"
    monkeypatch.setenv("COMPANION_INSTANCE", str(instance))
    settings = {"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3")}
    app, other = create_app(settings), create_app(settings)
    assert not instance.exists()  # building the apps made nothing
    key = app.secret_key
    secret = instance / "secret_key"
    assert secret.read_text() == key and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert other.secret_key == key  # a second server process takes the same key
    assert sorted(os.listdir(instance)) == ["secret_key"]


def test_a_folder_the_user_may_not_write_gets_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(_path: object) -> None:
        raise PermissionError(13, "Permission denied", "/var/lib/companion")

    monkeypatch.setattr(db, "init_db", refused)
    code, output = _run(tmp_path / "instance", ["init-db"])
    assert code == 1 and "Traceback" not in output
    assert "This user may not write /var/lib/companion" in output and "sudo -u companion" in output


def test_demo_and_import_print_links_with_the_base_url(tmp_path: Path) -> None:
    app = make_app(tmp_path, BASE_URL="https://play.example")
    runner = app.test_cli_runner()
    demo = runner.invoke(args=["demo", "--lang", "en"])
    assert demo.exit_code == 0 and "host link: https://play.example/c/" in demo.output
    chronicle = demo.output.split("chronicle ", 1)[1].split()[0]
    backup = tmp_path / "backup.json"
    exported = runner.invoke(args=["export", chronicle, "--format", "json", "-o", str(backup)])
    assert exported.exit_code == 0, exported.output
    imported = runner.invoke(args=["import", str(backup)])
    assert imported.exit_code == 0, imported.output
    assert "host link: https://play.example/c/" in imported.output
    assert "read-only link: https://play.example/c/" in imported.output
    assert "127.0.0.1" not in demo.output + imported.output


def _backup(tmp_path: Path) -> Path:
    app = make_app(tmp_path / "source")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["demo"]).exit_code == 0
    target = tmp_path / "backup.zip"
    assert runner.invoke(args=["backup", str(target)]).exit_code == 0
    return target


def test_a_restore_into_an_empty_folder_keeps_nothing_aside(tmp_path: Path) -> None:
    backup = _backup(tmp_path)
    instance = tmp_path / "fresh"
    code, output = _run(instance, ["restore", str(backup)])
    assert code == 0 and "Restored the backup" in output, output
    assert "previous data" not in output
    assert not [p for p in instance.iterdir() if "before-restore" in p.name]


def test_a_restored_database_keeps_the_mode_and_owner_of_the_one_it_replaced(
    tmp_path: Path,
) -> None:
    backup = _backup(tmp_path)
    instance = tmp_path / "instance"
    instance.mkdir()
    database = instance / "companion.sqlite3"
    db.init_db(database)
    database.chmod(0o600)
    owner = (65534, 65534) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    if os.geteuid() == 0:  # as root (sudo), the server's user must still own its files
        os.chown(database, *owner)
    previous = os.umask(0o022)  # sudo's usual umask: a file made as it is would be 0644
    try:
        code, output = _run(instance, ["restore", str(backup)])
    finally:
        os.umask(previous)
    assert code == 0, output
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    assert (database.stat().st_uid, database.stat().st_gid) == owner


def test_a_database_restored_into_an_empty_folder_is_not_readable_by_others(
    tmp_path: Path,
) -> None:
    backup = _backup(tmp_path)
    instance = tmp_path / "fresh"
    code, _output = _run(instance, ["restore", str(backup)])
    assert code == 0
    assert stat.S_IMODE((instance / "companion.sqlite3").stat().st_mode) == 0o640


def _settled(database: Path) -> int:
    """The database file's modification time once everything written is in the file itself.

    A connection the earlier commands left open for the garbage collector would, on closing,
    move what is still in the write-ahead log into the file (a checkpoint) whenever the
    collector runs; once the log is empty, closing writes nothing."""
    import gc
    import sqlite3

    gc.collect()
    conn = sqlite3.connect(database)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return database.stat().st_mtime_ns


def test_backup_verify_restores_a_sqlite_backup_aside_and_counts_it(tmp_path: Path) -> None:
    import sqlite3
    import zipfile

    backup = _backup(tmp_path)
    live = tmp_path / "source" / "test.sqlite3"
    app = make_app(tmp_path / "source")  # (making the app migrates the database: a write)
    before = _settled(live)
    good = app.test_cli_runner().invoke(args=["backup", "--verify", str(backup)])
    assert good.exit_code == 0 and "is a good backup" in good.output, good.output
    assert "1 streams" in good.output and "from sqlite" in good.output
    assert live.stat().st_mtime_ns == before

    # A copy that lost its last event: the stream's version no longer matches its events.
    work = tmp_path / "work"
    with zipfile.ZipFile(backup) as opened:
        opened.extractall(work)
    conn = sqlite3.connect(work / "companion.sqlite3")
    with conn:
        conn.execute("DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
    conn.close()
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as written:
        for member in work.iterdir():
            written.write(member, member.name)
    refused = app.test_cli_runner().invoke(args=["backup", "--verify", str(bad)])
    assert refused.exit_code == 1
    assert "rows in events" in refused.output and "does not match their events" in refused.output
