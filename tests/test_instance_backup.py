"""Whole-instance backup and restore: consistent under writers, checked, refused when unsafe."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import zipfile
from pathlib import Path

import pytest
from conftest import make_app
from flask import Flask
from waiting import wait_until

from companion.base import __version__
from companion.ops import archive
from companion.packs.registry import get_pack
from companion.store import serverlock
from companion.store.db import connect, init_db
from companion.streams.demo import create_demo

WRITERS = 8


def _instance(tmp_path: Path) -> archive.Instance:
    return archive.Instance(tmp_path / "test.sqlite3", tmp_path / "packs", tmp_path / "secret_key")


def _pack(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shipped = Path(__file__).resolve().parent.parent / "companion/packs/data/standard.en.md"
    target = folder / "mine.en.md"
    target.write_text(shipped.read_text().replace("name: standard", "name: mine", 1))
    return target


def _writes(database: Path) -> set[str]:
    conn = sqlite3.connect(database)
    try:
        return {row[0] for row in conn.execute("SELECT id FROM streams WHERE kind = 'probe'")}
    finally:
        conn.close()


def _writer(database: Path, acked: list[tuple[float, str]], lock: threading.Lock, stop: threading.Event, n: int) -> None:  # fmt: skip
    db = connect(database)
    count = 0
    while not stop.is_set():
        stream = f"w{n}-{count}"
        with db.atomic():
            db.execute(
                "INSERT INTO streams (id, kind, title, version, created, updated, meta)"
                " VALUES (?, 'probe', ?, 0, 'now', 'now', '{}')",
                [stream, "x" * 200],
            )
        with lock:
            acked.append((time.monotonic(), stream))
        count += 1
    db.conn.close()


def test_a_backup_under_eight_writers_holds_every_write_acknowledged_before_it(
    tmp_path: Path,
) -> None:
    instance = _instance(tmp_path)
    init_db(instance.database)
    acked: list[tuple[float, str]] = []
    lock, stop = threading.Lock(), threading.Event()
    threads = [
        threading.Thread(target=_writer, args=(instance.database, acked, lock, stop, n))
        for n in range(WRITERS)
    ]
    for thread in threads:
        thread.start()
    wait_until(lambda: len(acked) > WRITERS * 5, "the writers writing")
    with lock:
        before = {stream for _t, stream in acked}
    archive.write_backup(instance, tmp_path / "b.zip", "test")
    with lock:
        written = len(acked)
    wait_until(lambda: len(acked) > written + WRITERS, "writes after the backup")
    stop.set()
    for thread in threads:
        thread.join()

    with zipfile.ZipFile(tmp_path / "b.zip") as backup:
        backup.extract(archive.DATABASE_MEMBER, tmp_path / "out")
    copy = tmp_path / "out" / archive.DATABASE_MEMBER
    held = _writes(copy)
    assert len(before) > WRITERS * 5, "the writers were not writing"
    assert before <= held
    assert len(_writes(instance.database)) > len(held), "no write landed after the backup began"
    conn = sqlite3.connect(copy)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


def _app_with_demo(tmp_path: Path) -> tuple[Flask, str]:
    app = make_app(tmp_path)
    db = connect(app.config["DATABASE"])
    created = create_demo(db, "ja")
    db.conn.close()
    return app, created.id


def test_backup_and_restore_round_trip_through_the_commands(tmp_path: Path) -> None:
    app, chronicle = _app_with_demo(tmp_path)
    runner = app.test_cli_runner()
    _pack(Path(app.config["PACKS_DIR"]))
    (Path(app.instance_path)).mkdir(parents=True, exist_ok=True)
    result = runner.invoke(args=["backup", str(tmp_path / "all.zip")])
    assert result.exit_code == 0, result.output
    events_before = _count(app, "events")

    db = connect(app.config["DATABASE"])
    assert get_pack("mine", "en", db).name == "mine", "the pack file was not taken into the backup"
    db.execute("DELETE FROM drafts")
    db.execute("DELETE FROM packs")
    db.execute("UPDATE streams SET title = 'changed after the backup'")
    db.conn.close()
    (Path(app.config["PACKS_DIR"]) / "mine.en.md").unlink()

    result = runner.invoke(args=["restore", str(tmp_path / "all.zip")])
    assert result.exit_code == 0, result.output
    assert "kept at" in result.output
    assert _count(app, "events") == events_before
    conn = sqlite3.connect(app.config["DATABASE"])
    titles = {row[0] for row in conn.execute("SELECT title FROM streams WHERE id = ?", [chronicle])}
    conn.close()
    assert titles and "changed after the backup" not in titles
    assert _stored_packs(app) == [("mine", "en")]
    aside = list(tmp_path.glob("test.sqlite3.before-restore-*"))
    assert len(aside) == 1
    conn = sqlite3.connect(aside[0])
    assert conn.execute("SELECT title FROM streams").fetchone()[0] == "changed after the backup"
    conn.close()


def _stored_packs(app: Flask) -> list[tuple[str, str]]:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return [tuple(row) for row in conn.execute("SELECT name, language FROM packs")]
    finally:
        conn.close()


def _as_an_older_backup(backup: Path, pack: Path) -> None:
    """Rewrite ``backup`` as older versions wrote it: no packs table, the packs as files."""
    with zipfile.ZipFile(backup) as read:
        members = {name: read.read(name) for name in read.namelist()}
    old = backup.with_name("old.sqlite3")
    old.write_bytes(members[archive.DATABASE_MEMBER])
    conn = sqlite3.connect(old)
    with conn:
        conn.execute("DROP TABLE packs")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0007_packs'")
    conn.close()
    members[archive.DATABASE_MEMBER] = old.read_bytes()
    members[archive.PACKS_PREFIX + pack.name] = pack.read_bytes()
    with zipfile.ZipFile(backup, "w") as write:
        for name, data in members.items():
            write.writestr(name, data)


@pytest.mark.sqlite_only
def test_an_older_backup_with_pack_files_restores_them_into_the_database(tmp_path: Path) -> None:
    app, _chronicle = _app_with_demo(tmp_path)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["backup", str(tmp_path / "old.zip")])
    assert result.exit_code == 0, result.output
    _as_an_older_backup(tmp_path / "old.zip", _pack(tmp_path / "elsewhere"))

    result = runner.invoke(args=["restore", str(tmp_path / "old.zip")])
    assert result.exit_code == 0, result.output
    assert _stored_packs(app) == [("mine", "en")]
    assert not Path(app.config["PACKS_DIR"]).exists()
    page = app.test_client().get("/packs/mine/en")
    assert page.status_code == 200


def _count(app: Flask, table: str) -> int:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def test_restore_refuses_while_a_server_holds_the_instance(tmp_path: Path) -> None:
    app, _ = _app_with_demo(tmp_path)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["backup", str(tmp_path / "b.zip")]).exit_code == 0
    held = serverlock.hold_shared(app.config["DATABASE"])
    assert held is not None
    try:
        result = runner.invoke(args=["restore", str(tmp_path / "b.zip")])
    finally:
        held.close()
    assert result.exit_code != 0
    assert "stop `companion serve`" in result.output
    assert not list(tmp_path.glob("*.before-restore-*"))


def _rewrite(source: Path, target: Path, change: dict[str, bytes]) -> None:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            new.writestr(name, change.pop(name, None) or old.read(name))
        for name, data in change.items():
            new.writestr(name, data)


def test_restore_refuses_a_backup_from_newer_code(tmp_path: Path) -> None:
    app, _ = _app_with_demo(tmp_path)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["backup", str(tmp_path / "b.zip")]).exit_code == 0
    with zipfile.ZipFile(tmp_path / "b.zip") as backup:
        backup.extract(archive.DATABASE_MEMBER, tmp_path / "x")
    newer = tmp_path / "x" / archive.DATABASE_MEMBER
    conn = sqlite3.connect(newer)
    with conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
            " VALUES ('companion', '0099_from_the_future', 'later')"
        )
    conn.close()
    _rewrite(
        tmp_path / "b.zip", tmp_path / "newer.zip", {archive.DATABASE_MEMBER: newer.read_bytes()}
    )
    result = runner.invoke(args=["restore", str(tmp_path / "newer.zip")])
    assert result.exit_code != 0
    assert f"written by companion {__version__}, whose database has changes" in result.output
    assert "0099_from_the_future" in result.output and "upgrade the companion" in result.output
    assert not list(tmp_path.glob("*.before-restore-*"))

    manifest = json.dumps(
        {"format": archive.FORMAT, "format_version": 99, "companion_version": "9.0.0"}
    ).encode()
    _rewrite(tmp_path / "b.zip", tmp_path / "v99.zip", {archive.MANIFEST_MEMBER: manifest})
    result = runner.invoke(args=["restore", str(tmp_path / "v99.zip")])
    assert result.exit_code != 0
    assert f"written by companion 9.0.0, newer than this one ({__version__})" in result.output


@pytest.mark.parametrize(
    ("member", "data", "reason"),
    [
        (archive.DATABASE_MEMBER, b"SQLite format 3\x00" + b"\x01" * 4000, "database"),
        ("packs/../../evil.en.md", b"x", "unexpected file"),
        ("notes.txt", b"x", "unexpected file"),
    ],
)
def test_restore_refuses_a_damaged_or_strange_backup(
    tmp_path: Path, member: str, data: bytes, reason: str
) -> None:
    app, _ = _app_with_demo(tmp_path)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["backup", str(tmp_path / "b.zip")]).exit_code == 0
    _rewrite(tmp_path / "b.zip", tmp_path / "bad.zip", {member: data})
    result = runner.invoke(args=["restore", str(tmp_path / "bad.zip")])
    assert result.exit_code != 0
    assert reason in result.output
    assert not list(tmp_path.glob("*.before-restore-*"))
    assert not (tmp_path.parent / "evil.en.md").exists()


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    app, _ = _app_with_demo(tmp_path)
    (tmp_path / "story.txt").write_text("once upon a time")
    result = app.test_cli_runner().invoke(args=["restore", str(tmp_path / "story.txt")])
    assert result.exit_code != 0 and "not a companion backup" in result.output
