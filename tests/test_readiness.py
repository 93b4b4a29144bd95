"""Readiness (`/readyz`, for the proxy: the database takes a write) apart from health
(`/healthz`, for monitoring: the database, the export worker, its folder), each found by a real
write that is rolled back, so a database that is read-only or full is never called writable."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_client import Server, request

from companion.store.db import get_db

pytestmark = pytest.mark.sqlite_only


def _pooled(app: Flask) -> sqlite3.Connection:
    """The connection the next request is lent (the pool keeps the one given back last)."""
    with app.app_context():
        return get_db().conn


def test_readiness_says_the_database_takes_writes_and_nothing_else(client: FlaskClient) -> None:
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json == {"status": "ready", "database_writable": True}


def test_readiness_ignores_a_stale_export_worker_that_health_reports(app: Flask) -> None:
    app.config["EXPORT_SUPERVISOR"] = "server"  # a server whose supervisor left no heartbeat
    client = app.test_client()
    assert client.get("/healthz").status_code == 503
    assert client.get("/healthz").json["export_worker"] == "stale"  # type: ignore[index]
    assert client.get("/readyz").status_code == 200


@pytest.mark.parametrize("path", ["/readyz", "/healthz"])
def test_a_full_database_is_not_called_writable(app: Flask, path: str) -> None:
    client = app.test_client()
    app.config["HEALTH_PROBE_SECONDS"] = 0
    assert client.get(path).status_code == 200
    conn = _pooled(app)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow: full
    conn.execute("BEGIN IMMEDIATE")  # which starting a write transaction does not show
    conn.execute("ROLLBACK")
    answer = client.get(path)
    assert answer.status_code == 503 and answer.json["database_writable"] is False  # type: ignore[index]
    conn.execute("PRAGMA max_page_count = 1073741823")
    assert client.get(path).status_code == 200


def test_the_trial_write_leaves_nothing(app: Flask) -> None:
    app.config["HEALTH_PROBE_SECONDS"] = 0
    client = app.test_client()
    for _ in range(3):
        assert client.get("/readyz").status_code == 200
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        assert conn.execute("SELECT count(*) FROM held_forms").fetchone()[0] == 0
    finally:
        conn.close()


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv to drop root"
)
def test_a_file_made_read_only_under_a_running_server_makes_it_not_ready(tmp_path: Path) -> None:
    # As root, a server that may not override file modes is refused a read-only file, as the
    # service user is.
    wrapper = ["setpriv", "--bounding-set", "-dac_override,-fowner",
               "--inh-caps", "-dac_override,-fowner", "--"] if os.geteuid() == 0 else []  # fmt: skip
    fresh = {"COMPANION_HEALTH_PROBE_SECONDS": "0.001"}  # each check writes
    server = Server(tmp_path / "c.sqlite3", wrapper=wrapper, env=fresh).start()
    try:
        assert request(server.port, "GET", "/readyz")[0] == 200
        files = [p for p in tmp_path.glob("c.sqlite3*") if p.is_file() and p.suffix != ".lock"]
        for path in files:
            path.chmod(0o444)
        status, body = request(server.port, "GET", "/readyz")
        assert status == 503 and body["database_writable"] is False
        status, body = request(server.port, "GET", "/healthz")
        assert status == 503 and body["database_writable"] is False
        for path in files:
            path.chmod(0o644)
        assert request(server.port, "GET", "/readyz")[0] == 200
    finally:
        server.stop()
