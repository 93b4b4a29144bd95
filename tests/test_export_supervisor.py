"""The export supervisor's rules, with stand-in workers: retry once, time limit, heartbeat."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlite_utils import Database
from waiting import HANG

import companion.base
from companion.export import heartbeat, jobs, keeper, supervisor
from companion.export.supervisor import Settings, Supervisor
from companion.store.db import connect
from companion.streams.demo import create_demo

# Reads its job id, then sleeps: a worker that is always in the middle of a book.
STAND_IN = "import sys, time; sys.stdin.readline(); time.sleep(60)"


@pytest.fixture
def db(app: Flask) -> Database:
    return connect(app.config["DATABASE"])


@pytest.fixture
def boss(
    app: Flask, db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Supervisor]:
    def stand_in(_settings: Settings) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-c", STAND_IN], stdin=subprocess.PIPE)

    monkeypatch.setattr(supervisor, "start_worker", stand_in)
    settings = Settings(app.config["DATABASE"], tmp_path / "exports", workers=1, time_limit=30)
    settings.exports_dir.mkdir()
    boss = Supervisor(settings, db, os.getppid())
    yield boss
    boss.stop_workers()


def queue(db: Database, exports: Path) -> str:
    stream = create_demo(db, "en").id
    return jobs.request_book(db, exports, stream, 10, "story", "a5")[0].id


def worker_of(boss: Supervisor) -> subprocess.Popen[bytes]:
    slot = boss.slots[0]
    assert slot is not None
    return slot.process


def test_a_job_is_handed_to_the_pool_and_the_heartbeat_written(
    boss: Supervisor, db: Database
) -> None:
    job_id = queue(db, boss.settings.exports_dir)
    boss.tick()
    job = jobs.find(db, job_id)
    assert job is not None and job.status == "running" and job.pid == worker_of(boss).pid
    assert heartbeat.age(boss.settings.exports_dir, boss.owner) is not None
    boss.tick()
    assert worker_of(boss).pid == job.pid  # busy: no second worker
    assert [slot.job_id for slot in boss.slots if slot] == [job_id]


@pytest.mark.slow
def test_a_lost_worker_is_retried_once_then_the_job_fails(boss: Supervisor, db: Database) -> None:
    job_id = queue(db, boss.settings.exports_dir)
    boss.tick()
    for expected in ("queued", "failed"):
        worker_of(boss).kill()
        worker_of(boss).wait()
        boss.reap()
        job = jobs.find(db, job_id)
        assert job is not None and job.status == expected, job
        boss.tick()
    assert job.reason == jobs.WORKER_LOST and job.error


@pytest.mark.slow
def test_a_book_over_the_time_limit_is_killed_and_failed(
    app: Flask, db: Database, boss: Supervisor
) -> None:
    quick = Supervisor(
        Settings(app.config["DATABASE"], boss.settings.exports_dir, 1, 0.2), db, os.getppid()
    )
    job_id = queue(db, quick.settings.exports_dir)
    quick.tick()
    worker = worker_of(quick)
    (slot,) = [slot for slot in quick.slots if slot and slot.job_id == job_id]
    slot.started -= 1.0  # the book began a second ago, past its 0.2 s limit
    quick.tick()
    job = jobs.find(db, job_id)
    assert job is not None and job.status == "failed" and job.reason == jobs.TIME_LIMIT
    assert worker.poll() is not None  # killed, not left to run
    quick.stop_workers()


def test_stopping_puts_a_book_cut_short_back_in_the_queue(boss: Supervisor, db: Database) -> None:
    job_id = queue(db, boss.settings.exports_dir)
    boss.tick()
    worker = worker_of(boss)
    boss.stop_workers()
    job = jobs.find(db, job_id)
    assert worker.poll() is not None and job is not None and job.status == "queued"


@pytest.mark.parametrize(
    "config", [{"EXPORT_WORKERS": -1}, {"EXPORT_WORKERS": "two"}, {"EXPORT_TIME_LIMIT": 0}]
)
def test_bad_settings_are_refused_by_name(config: dict[str, object]) -> None:
    base = {"DATABASE": "x.sqlite3", "EXPORTS_DIR": "exports", **config}
    with pytest.raises(ValueError, match=next(iter(config))):
        Settings.from_config(base)


def test_health_reports_the_export_worker(app: Flask, client: FlaskClient) -> None:
    answer = client.get("/healthz")
    assert (answer.status_code, answer.get_json()["export_worker"]) == (200, "on-demand")
    app.config["EXPORT_SUPERVISOR"] = "server"
    stale = client.get("/healthz")
    assert stale.status_code == 503 and stale.get_json()["export_worker"] == "stale"
    exports = Path(app.config["EXPORTS_DIR"])
    exports.mkdir(parents=True, exist_ok=True)
    # The web worker's parent is the server's master, which started the supervisor.
    beat = exports / heartbeat.file_name(heartbeat.owner_id(os.getppid(), 4242))
    beat.write_text("{}")
    assert client.get("/healthz").get_json() == {
        "status": "ok",
        "version": companion.base.__version__,
        "database_writable": True,
        "export_worker": "alive",
    }
    old = time.time() - 60
    os.utime(beat, (old, old))
    assert client.get("/healthz").status_code == 503
    app.config["EXPORT_WORKERS"] = 0
    assert client.get("/healthz").get_json()["export_worker"] == "off"


def test_health_says_a_full_exports_folder_is_full(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.config["EXPORT_SUPERVISOR"] = "server"
    exports = Path(app.config["EXPORTS_DIR"])
    exports.mkdir(parents=True, exist_ok=True)
    (exports / heartbeat.file_name(heartbeat.owner_id(os.getppid(), 4242))).write_text("{}")
    monkeypatch.setattr(keeper, "free_bytes", lambda _folder: 12_288)
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.get_json()["export_worker"] == "exports folder full"
    assert answer.get_json()["exports_free_bytes"] == 12_288


def test_a_restarted_supervisor_queues_its_books_again_at_once(
    boss: Supervisor, db: Database
) -> None:
    job_id = queue(db, boss.settings.exports_dir)
    # The supervisor before this one, killed: its process is a zombie nobody waited for yet.
    killed = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + HANG
    while not _zombie(killed.pid):
        assert time.monotonic() < deadline, "the stand-in never exited"
        time.sleep(0.05)
    os.kill(killed.pid, 0)  # a zombie still answers a signal: it is not gone for kill(2)
    assert not heartbeat.alive(killed.pid)
    owner = heartbeat.owner_id(boss.parent, killed.pid)
    claimed = jobs.claim_next(db, pid=killed.pid, limit=1, owner=owner)
    assert claimed is not None and claimed.id == job_id
    boss.recover()
    job = jobs.find(db, job_id)
    assert job is not None and job.status == "queued" and job.attempts == 1
    killed.wait()


def _zombie(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_a_heartbeat_that_cannot_be_written_is_said_in_the_log(
    boss: Supervisor, caplog: pytest.LogCaptureFixture
) -> None:
    exports = boss.settings.exports_dir
    (exports / heartbeat.file_name(boss.owner)).with_suffix(".part").mkdir()  # in the way
    with caplog.at_level(logging.ERROR, logger="companion.export.supervisor"):
        boss.beat()
        boss.beat()
    failures = [r for r in caplog.records if "cannot write its heartbeat" in r.getMessage()]
    assert len(failures) == 1 and "bytes free" in failures[0].getMessage()  # said once
