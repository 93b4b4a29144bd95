"""The exports folder kept in bounds: the byte budget, left-over files, dead servers' heartbeats,
and a full disk that does not stay full."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest
from flask import Flask
from sqlite_utils import Database

from companion.export import heartbeat, jobs, upkeep
from companion.export.worker import make_logged
from companion.store.db import connect
from companion.streams.demo import create_demo

OWNER = "here-1-1"


@pytest.fixture
def db(app: Flask) -> Database:
    return connect(app.config["DATABASE"])


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    path = tmp_path / "exports"
    path.mkdir()
    return path


def made(db: Database, exports: Path, stream: str, version: int, paper: str, size: int) -> str:
    """A book made (a file of ``size`` bytes), as a worker leaves it."""
    job, _ = jobs.request_book(db, exports, stream, version, "story", paper)
    claimed = jobs.claim_next(db, pid=1, limit=1, owner=OWNER)
    assert claimed is not None and claimed.id == job.id
    (exports / job.filename).write_bytes(b"%" * size)
    jobs.finish(db, claimed, exports)
    return job.filename


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_the_oldest_books_go_first_to_keep_the_folder_in_its_budget(
    db: Database, exports: Path
) -> None:
    stream = create_demo(db, "en").id
    names = [made(db, exports, stream, 181, paper, 1000) for paper in ("a5", "a4", "b6", "a6")]
    for seconds, name in zip((400, 300, 200, 100), names, strict=True):
        age(exports / name, seconds)
    swept = upkeep.sweep(db, exports, keep_bytes=2500, partial_age=600)
    assert swept.over_budget == names[:2]
    assert sorted(path.name for path in exports.glob("*.pdf")) == sorted(names[2:])
    first = jobs.find_book(db, stream, 181, "story", "a5")
    assert first is not None and first.shown_status(exports) == "removed"  # still listed
    again, needed = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert again.status == "queued" and needed  # made again on request
    assert upkeep.sweep(db, exports, keep_bytes=2500, partial_age=600).over_budget == []


def test_a_removed_book_of_a_past_version_loses_its_row(db: Database, exports: Path) -> None:
    stream = create_demo(db, "en").id
    old = made(db, exports, stream, 12, "a5", 1000)
    made(db, exports, stream, 181, "a4", 1000)
    age(exports / old, 100)
    assert upkeep.sweep(db, exports, keep_bytes=1500, partial_age=600).over_budget == [old]
    assert jobs.find_book(db, stream, 12, "story", "a5") is None


def test_files_no_job_makes_are_removed_once_old_enough(db: Database, exports: Path) -> None:
    stream = create_demo(db, "en").id
    kept = made(db, exports, stream, 181, "a5", 10)
    restored = exports / f"{stream}-v999-story-a5.pdf"  # a later version, before a restore
    restored.write_bytes(b"%PDF")
    fresh = exports / f"{stream}-v998-story-a5.pdf"  # perhaps a book whose row is on its way
    fresh.write_bytes(b"%PDF")
    partial = exports / f"{stream}-v181-story-a4.4242.part"
    partial.write_bytes(b"%PDF half")
    log = exports / "worker.log"
    log.write_text("kept")
    for path in (restored, partial, log):
        age(path, 3600)
    swept = upkeep.sweep(db, exports, keep_bytes=10**9, partial_age=600)
    assert swept.orphans == [restored.name] and swept.partials == [partial.name]
    assert sorted(p.name for p in exports.iterdir()) == sorted([kept, fresh.name, log.name])


def test_dead_servers_heartbeats_are_removed_live_ones_kept(db: Database, exports: Path) -> None:
    live = heartbeat.owner_id(os.getpid(), os.getpid())
    far_fresh, far_stale = "box-a-1-2", "box-b-1-2"  # supervisors on other machines
    for owner in (live, far_fresh, far_stale):
        heartbeat.write(exports, owner, {})
    age(exports / heartbeat.file_name(far_stale), 60)
    (exports / "supervisor.json").write_text("{}")  # an older version's, left by an upgrade
    age(exports / "supervisor.json", 60)
    # This process is no supervisor (its command line does not say so): as good as gone.
    assert heartbeat.gone(exports, live, 0) and not heartbeat.gone(exports, far_fresh, 0)
    assert heartbeat.gone(exports, far_stale, 0)
    removed = upkeep.sweep(db, exports, 10**9, 600).heartbeats
    assert sorted(removed) == sorted([live, far_stale, "supervisor.json"])
    assert [p.name for p in exports.glob("supervisor-*")] == [heartbeat.file_name(far_fresh)]


def test_a_book_of_a_silent_server_on_another_machine_is_lost_when_its_heartbeat_is_stale(
    db: Database, exports: Path
) -> None:
    stream = create_demo(db, "en").id
    jobs.request_book(db, exports, stream, 181, "story", "a5")
    far = "other-machine-77-78"
    claimed = jobs.claim_next(db, pid=5, limit=1, owner=far)
    assert claimed is not None
    # No heartbeat there at all: perhaps the folder is not shared; the row's age decides.
    assert not jobs.lost(claimed, exports)
    heartbeat.write(exports, far, {})
    assert not jobs.lost(claimed, exports)
    age(exports / heartbeat.file_name(far), heartbeat.STALE_AFTER + 5)
    assert jobs.lost(claimed, exports)
    assert upkeep.settle_lost(db, claimed, "its server is gone") == "queued"
    assert upkeep.sweep(db, exports, 10**9, 600).heartbeats == [far]  # its books settled first


def test_a_full_disk_keeps_no_part_of_a_failed_book(
    app: Flask, db: Database, exports: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = create_demo(db, "en").id
    job, _ = jobs.request_book(db, exports, stream, 12, "story", "a6")
    claimed = jobs.claim_next(db, pid=os.getpid(), limit=1, owner=OWNER)
    assert claimed is not None
    real_write = Path.write_bytes

    def full_disk(path: Path, data: bytes) -> int:  # the disk fills half-way through the book
        real_write(path, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert not make_logged(app, db, claimed, exports)
    assert list(exports.iterdir()) == []
    failed = jobs.find(db, job.id)
    assert failed is not None and failed.status == "failed" and failed.reason == jobs.DISK_FULL
    with app.test_request_context("/?lang=en"):
        from companion.web.chronicle.export_view import describe

        assert "exports folder is full" in describe("token", failed)["message"]
