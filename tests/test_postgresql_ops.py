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

from companion.app import create_app
from companion.base import __version__
from companion.store.db import init_db

pytestmark = pytest.mark.skipif(not available(), reason="psycopg or PostgreSQL missing")


@pytest.fixture(scope="module")
def cluster() -> Iterator[PostgresServer]:
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


_names = iter(range(1, 1000))


def _fresh(cluster: PostgresServer) -> str:
    return cluster.create_database(f"ops{next(_names)}")


@pytest.fixture(autouse=True)
def _instance_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's instance folder (its secret key) is its own, never the checkout's."""
    monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path / "instance"))


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


def _cli(tmp_path: Path, url: str, *args: str) -> tuple[int, str]:
    """A command as `companion` runs it, on an app that holds no connection of its own."""
    result = _app(tmp_path, url).test_cli_runner().invoke(args=list(args))
    return result.exit_code, result.output


def _store_with_data(cluster: PostgresServer, tmp_path: Path) -> tuple[str, str]:
    from companion.packs import stored
    from companion.packs.registry import get_pack, pack_to_text
    from companion.store import pg
    from companion.streams.demo import create_demo

    url = _fresh(cluster)
    init_db(url)
    db = pg.connect(url)
    try:
        chronicle = create_demo(db, "ja").id
        create_demo(db, "en")
        text = pack_to_text(get_pack("standard", "en")).replace("standard", "mine-1a2b")
        stored.put(db, "mine-1a2b", "en", text, "someone")
    finally:
        db.conn.close()
    (tmp_path / "instance").mkdir(parents=True, exist_ok=True)
    (tmp_path / "instance" / "secret_key").write_text("the-secret")
    return url, chronicle


def _count(url: str, table: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]


def _databases(cluster: PostgresServer) -> set[str]:
    import psycopg

    with psycopg.connect(cluster.url("postgres")) as conn:
        return {str(r[0]) for r in conn.execute("SELECT datname FROM pg_database")}


def test_backup_verify_and_restore_on_postgresql_keep_every_row(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    import json
    import zipfile

    url, chronicle = _store_with_data(cluster, tmp_path)
    events = _count(url, "events")
    backup = tmp_path / "nightly.zip"
    code, output = _cli(tmp_path, url, "backup", str(backup))
    assert code == 0 and "Backup written" in output and "2 streams" in output, output
    with zipfile.ZipFile(backup) as opened:
        manifest = json.loads(opened.read("manifest.json"))
        assert sorted(opened.namelist()) == ["companion.pgdump", "manifest.json", "secret_key"]
    assert manifest["store"] == "postgresql" and manifest["companion_version"] == __version__
    assert manifest["packs"] == ["mine-1a2b.en.md"]
    assert manifest["counts"]["events"] == events and manifest["counts"]["packs"] == 1

    before = _databases(cluster)
    code, output = _cli(tmp_path, url, "backup", "--verify", str(backup))
    assert code == 0 and "is a good backup" in output and f"{events} events" in output, output
    assert _databases(cluster) == before  # the scratch database is gone again

    # Later writes, then the restore: the store is as the backup had it, the rest kept aside.
    from companion.store import pg
    from companion.streams.demo import create_demo

    db = pg.connect(url)
    create_demo(db, "en")
    db.conn.close()
    assert _count(url, "streams") == 3
    code, output = _cli(tmp_path, url, "restore", str(backup))
    assert code == 0, output
    assert "The previous data is kept in the schema public_before_restore_" in output
    assert _count(url, "streams") == 2 and _count(url, "events") == events
    assert (tmp_path / "instance" / "secret_key").read_text() == "the-secret"
    app = _app(tmp_path, url)
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    token = client.post("/api/v1/chronicles", json=SETUP).get_json()["host_token"]
    assert client.get(f"/api/v1/chronicles/{token}/state").status_code == 200
    assert _count(url, "streams") == 3 and chronicle


def test_a_postgresql_restore_waits_for_the_servers_to_stop(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    url, _chronicle = _store_with_data(cluster, tmp_path)
    backup = tmp_path / "b.zip"
    assert _cli(tmp_path, url, "backup", str(backup))[0] == 0
    server = _app(tmp_path, url).test_client()
    assert server.get("/healthz").status_code == 200  # this "server" now holds a connection
    code, output = _cli(tmp_path, url, "restore", str(backup))
    assert code == 1 and "stop every `companion serve`" in output
    assert _count(url, "streams") == 2


def test_a_postgresql_backup_restores_into_an_empty_database_keeping_nothing_aside(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    url, _chronicle = _store_with_data(cluster, tmp_path)
    backup = tmp_path / "b.zip"
    assert _cli(tmp_path, url, "backup", str(backup))[0] == 0
    empty = _fresh(cluster)
    code, output = _cli(tmp_path / "other", empty, "restore", str(backup))
    assert code == 0 and "previous data" not in output, output
    assert _count(empty, "streams") == 2


def test_verify_refuses_a_postgresql_backup_whose_rows_do_not_match_its_manifest(
    cluster: PostgresServer, tmp_path: Path
) -> None:
    import json
    import zipfile

    url, _chronicle = _store_with_data(cluster, tmp_path)
    backup, bad = tmp_path / "b.zip", tmp_path / "bad.zip"
    assert _cli(tmp_path, url, "backup", str(backup))[0] == 0
    with zipfile.ZipFile(backup) as old, zipfile.ZipFile(bad, "w") as new:
        for name in old.namelist():
            data = old.read(name)
            if name == "manifest.json":
                manifest = json.loads(data)
                manifest["counts"]["events"] += 1
                data = json.dumps(manifest).encode()
            new.writestr(name, data)
    code, output = _cli(tmp_path, url, "backup", "--verify", str(bad))
    assert code == 1 and "counts" in output and "events" in output, output
    code, output = _cli(tmp_path, url, "backup", "--verify", str(tmp_path / "missing.zip"))
    assert code == 1 and "There is no file" in output
