"""The shared store: PostgreSQL out of reach answers 503, export jobs are shared between servers.

The tests that need a running PostgreSQL skip unless ``COMPANION_TEST_BACKEND=postgresql``
(``scripts/test`` runs this file that way); the others run on either backend.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from flask import Flask
from pg_server import available, on_postgresql
from waiting import HANG, wait_until

from companion.app import create_app
from companion.export import heartbeat, jobs
from companion.packs import stored
from companion.packs.registry import get_pack, pack_to_text
from companion.store import capabilities, pg
from companion.store.db import connect
from companion.store.events import StaleVersionError, append, create_stream
from companion.store.migrations import POSTGRESQL_MIGRATIONS
from companion.store.sql import write_transaction
from companion.streams.demo import create_demo

needs_server = pytest.mark.skipif(not on_postgresql(), reason="runs on the PostgreSQL backend")
needs_psycopg = pytest.mark.skipif(not available(), reason="psycopg or PostgreSQL missing")


def test_placeholders_become_psycopg_ones_and_percent_signs_stay_literal() -> None:
    assert pg.translate("SELECT ? WHERE a LIKE '5%' AND b = ?") == (
        "SELECT %s WHERE a LIKE '5%%' AND b = %s"
    )
    assert pg.is_url("postgresql://u@db/companion") and pg.is_url("postgres://db/x")
    assert not pg.is_url("/srv/instance/companion.sqlite3")


@needs_psycopg
@pytest.mark.parametrize(
    ("accept", "mimetype"), [("application/json", "application/json"), ("text/html", "text/html")]
)
def test_a_store_out_of_reach_answers_503_and_says_nothing_was_kept(
    tmp_path: Path, accept: str, mimetype: str
) -> None:
    # A socket folder with no server in it: the connection is refused at once.
    url = f"postgresql://postgres@/companion?host={tmp_path}"
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DATABASE": url,
            "EXPORTS_DIR": str(tmp_path / "exports"),
            "PACKS_DIR": str(tmp_path / "packs"),
            "WTF_CSRF_ENABLED": False,
        }
    )
    response = app.test_client().get("/c/" + "x" * 32 + "/", headers={"Accept": accept})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "10"
    assert response.mimetype == mimetype
    api = app.test_client().get("/api/v1/chronicles/" + "x" * 32 + "/state")
    assert api.status_code == 503
    assert api.get_json()["code"] == "database-unavailable"
    assert app.test_client().get("/healthz").status_code == 503


@needs_server
def test_healthz_finds_the_shared_store_writable(app: Flask) -> None:
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json()["database_writable"] is True
    # The health check's own time limit is not left on the pooled connection for the next request.
    from companion.store.db import get_db

    with app.app_context():
        assert get_db().execute("SHOW statement_timeout").fetchone()[0] == "0"


@needs_server
def test_a_racing_append_waits_for_the_row_lock_then_is_stale(app: Flask) -> None:
    first, second = connect(app.config["DATABASE"]), connect(app.config["DATABASE"])
    sid = create_stream(first, "legacy", [{"type": "start"}])
    outcome: list[str] = []
    with write_transaction(first):
        first.execute("SELECT version FROM streams WHERE id = ? FOR UPDATE", [sid])

        def racer() -> None:
            try:
                append(second, sid, 1, [{"type": "late"}])
                outcome.append("stored")
            except StaleVersionError as err:
                outcome.append(f"stale at {err.current}")

        (racer_pid,) = second.execute("SELECT pg_backend_pid()").fetchone()
        thread = threading.Thread(target=racer)
        thread.start()

        def waiting() -> bool:  # the racer's session asks for a lock it has not been granted
            query = "SELECT count(*) FROM pg_locks WHERE pid = ? AND NOT granted"
            return bool(first.execute(query, [racer_pid]).fetchone()[0])

        wait_until(
            lambda: waiting() or not thread.is_alive(), "the second append ending or waiting"
        )
        assert waiting() and not outcome, "the second append must wait for the first transaction"
        first.execute(
            "INSERT INTO events (stream_id, seq, type, data, created) VALUES (?, 2, 'x', '{}', '')",
            [sid],
        )
        first.execute("UPDATE streams SET version = 2 WHERE id = ?", [sid])
    thread.join(timeout=HANG)
    assert outcome == ["stale at 2"]
    assert (
        first.execute("SELECT count(*) FROM events WHERE stream_id = ?", [sid]).fetchone()[0] == 2
    )


@needs_server
def test_two_servers_claim_different_books_without_waiting(app: Flask, tmp_path: Path) -> None:
    a, b = connect(app.config["DATABASE"]), connect(app.config["DATABASE"])
    stream = create_demo(a, "en").id
    one, _ = jobs.request_book(a, tmp_path, stream, 181, "story", "a5")
    two, _ = jobs.request_book(a, tmp_path, stream, 181, "annotated", "a5")
    with write_transaction(a):  # server A is in the middle of claiming the oldest job
        a.execute("SELECT id FROM exports WHERE id = ? FOR UPDATE", [one.id])
        claimed = jobs.claim_next(b, pid=2, limit=1, owner="b-1-2")  # B skips it, takes the next
    assert claimed is not None and claimed.id == two.id and claimed.host == "b-1-2"
    again = jobs.claim_next(a, pid=1, limit=1, owner="a-1-1")
    assert again is not None and again.id == one.id


def test_a_book_made_on_another_machine_is_not_failed_for_want_of_its_pid(app: Flask) -> None:
    db = connect(app.config["DATABASE"])
    exports = Path(app.config["EXPORTS_DIR"])
    exports.mkdir(parents=True, exist_ok=True)
    stream = create_demo(db, "en").id
    jobs.request_book(db, exports, stream, 181, "story", "a5")
    far = "another-machine-1-2"  # its process numbers mean nothing here
    heartbeat.write(exports, far, {})
    claimed = jobs.claim_next(db, pid=2**22 + 7, limit=1, owner=far)  # no such process here
    assert claimed is not None and not jobs.lost(claimed, exports)
    assert jobs.running(db, heartbeat.owner_id(1)) == 0  # this machine's pool is free
    here = heartbeat.owner_id(1, 2**22 + 9)  # a supervisor of this machine that is not running
    db.execute("UPDATE exports SET host = ? WHERE id = ?", [here, claimed.id])
    assert jobs.lost(jobs.find(db, claimed.id), exports)  # type: ignore[arg-type]


@needs_server
def test_info_names_the_shared_store_and_backup_dumps_its_schema(
    app: Flask, tmp_path: Path
) -> None:
    runner = app.test_cli_runner()
    shown = runner.invoke(args=["info"])
    assert shown.exit_code == 0, shown.output
    known = len(POSTGRESQL_MIGRATIONS)
    assert f"schema:       {known} of {known} migrations applied" in shown.output
    assert "postgresql:   15" in shown.output
    create_demo(connect(app.config["DATABASE"]), "en")
    written = runner.invoke(args=["backup", str(tmp_path / "backup.zip")])
    assert written.exit_code == 0 and "1 streams" in written.output, written.output
    checked = runner.invoke(args=["backup", "--verify", str(tmp_path / "backup.zip")])
    assert checked.exit_code == 0 and "from postgresql" in checked.output, checked.output


@needs_server
def test_rate_limit_counts_kept_in_postgresql_are_shared_by_two_servers(tmp_path: Path) -> None:
    from conftest import make_app
    from pg_server import database_url

    from companion.store.ratelimit_store import prepare

    store = database_url()
    prepare(store)  # as `companion serve` does when it starts
    servers = [
        make_app(tmp_path / name, RATELIMIT_STORAGE_URI=store, RATELIMIT_GUESS=3)
        for name in ("a", "b")
    ]
    answers = [
        servers[n % 2].test_client().get("/c/" + "z" * 32 + "/").status_code for n in range(5)
    ]
    assert answers == [404, 404, 404, 429, 429]


@needs_server
def test_migrate_store_copies_a_sqlite_instance_checked_stream_by_stream(tmp_path: Path) -> None:
    from pg_server import database_url

    from companion.export.backup import export_backup
    from companion.store import drafts
    from companion.store.db import init_db
    from companion.streams import matches

    source_path = str(tmp_path / "instance.sqlite3")
    init_db(source_path)
    source = connect(source_path)
    chronicle = create_demo(source, "ja")
    drafts.save(source, chronicle.id, 3, "narration", "途中の下書き")
    match, _token = matches.create(
        source,
        "traitors-flame",
        [matches.Seat("A"), matches.Seat("B", "heuristic")] * 2,
        "devices",
        "en",
        5,
    )
    standard = pack_to_text(get_pack("standard", "en"))
    stored.put(
        source, "uploaded-1a2b3c", "en", standard.replace("standard", "uploaded-1a2b3c"), "b"
    )
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "old.en.md").write_text(standard.replace("name: standard", "name: old"))
    settings = {"TESTING": True, "SECRET_KEY": "t", "DATABASE": source_path}
    app = create_app({**settings, "PACKS_DIR": str(tmp_path / "packs")})
    target_url = database_url()
    copied = app.test_cli_runner().invoke(args=["migrate-store", "--to", target_url])
    assert copied.exit_code == 0, copied.output
    assert f"legacy {chronicle.id}: " in copied.output and "Copied 2 streams" in copied.output
    assert "Copied 2 uploaded packs" in copied.output
    target = connect(target_url)
    assert export_backup(target, chronicle.id) == export_backup(source, chronicle.id)
    assert drafts.for_turn(target, chronicle.id, 3) == {"narration": "途中の下書き"}
    assert matches.load(target, match).version == matches.load(source, match).version
    # The host link opens the copied chronicle; run again, nothing is copied twice.
    assert capabilities.resolve(target, chronicle.host_token) is not None
    again = app.test_cli_runner().invoke(args=["migrate-store", "--to", target_url])
    assert again.exit_code == 0 and "Copied 0 streams" in again.output
    assert "Copied 0 uploaded packs" in again.output
    assert target.execute("SELECT count(*) FROM streams").fetchone()[0] == 2
    packs = target.execute("SELECT name, owner FROM packs ORDER BY name").fetchall()
    assert [tuple(row) for row in packs] == [("old", None), ("uploaded-1a2b3c", "b")]
