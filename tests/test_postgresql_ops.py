"""Running on PostgreSQL for years: the rate-limit tables come from the migrations, pooled
connections survive a restart of the database.

These tests start a PostgreSQL cluster of their own (tests/pg_server.py), because one of them
restarts it; they run wherever PostgreSQL and psycopg are installed, on either test backend.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from pg_server import PostgresServer, available
from server_client import SETUP

from companion import create_app
from companion.db import init_db

pytestmark = pytest.mark.skipif(not available(), reason="psycopg or PostgreSQL missing")


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


_databases = iter(range(1, 1000))


def _fresh(cluster: PostgresServer) -> str:
    return cluster.create_database(f"ops{next(_databases)}")


def _app(tmp_path: Path, url: str, **config: object) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "t",
            "DATABASE": url,
            "PACKS_DIR": str(tmp_path / "packs"),
            "EXPORTS_DIR": str(tmp_path / "exports"),
            "RATELIMIT_ENABLED": True,
            "RATELIMIT_STORAGE_URI": url,
            **config,
        }
    )


def _tables(url: str) -> set[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {str(row[0]) for row in rows}


def test_two_servers_on_a_fresh_database_create_at_once_without_a_failure(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    url = _fresh(cluster)
    servers = [_app(tmp_path / name, url) for name in ("a", "b")]
    for _server in servers:  # what `companion serve` does as it starts, on each machine
        init_db(url)
    # The migrations made the rate-limit tables: no request has to.
    assert {"ratelimit_counters", "ratelimit_entries"} <= _tables(url)

    start = threading.Barrier(8)
    statuses: list[int] = []

    def create(n: int) -> None:
        client = servers[n % 2].test_client()
        start.wait(timeout=30)
        statuses.append(client.post("/api/v1/chronicles", json=SETUP).status_code)

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert statuses == [201] * 8


def test_a_rate_limit_store_in_another_database_is_migrated_when_the_server_starts(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    store, counts = _fresh(cluster), _fresh(cluster)
    app = _app(tmp_path, store, RATELIMIT_STORAGE_URI=counts, RATELIMIT_GUESS=2)
    assert app.test_cli_runner().invoke(args=["init-db"]).exit_code == 0
    assert _tables(counts) == {"ratelimit_counters", "ratelimit_entries", "_companion_migrations"}
    client = app.test_client()
    answers = [client.get("/c/" + "z" * 32 + "/").status_code for _ in range(3)]
    assert answers == [404, 404, 429]


def test_every_pooled_connection_is_replaced_after_the_database_restarts(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    url = _fresh(cluster)
    init_db(url)
    app = _app(tmp_path, url, RATELIMIT_GUESS=100)
    client = app.test_client()
    token = client.post("/api/v1/chronicles", json=SETUP).get_json()["host_token"]
    state = f"/api/v1/chronicles/{token}/state"
    miss = "/c/" + "z" * 32 + "/"  # counted in the PostgreSQL rate-limit store
    assert client.get(state).status_code == 200 and client.get(miss).status_code == 404

    cluster.restart()  # every connection the app holds is now closed by the server

    assert [client.get(state).status_code for _ in range(3)] == [200, 200, 200]
    assert client.get(miss).status_code == 404
    assert client.get("/healthz").status_code == 200
