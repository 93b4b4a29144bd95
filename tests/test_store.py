"""The append-only event store: sequences, stale versions, concurrency, migrations."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pg_server import fresh_database, on_postgresql

from companion.store import events as store
from companion.store.db import connect, init_db
from companion.store.migrations import POSTGRESQL_MIGRATIONS, migrations


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """The database of one test: a SQLite file, or a PostgreSQL schema (see pg_server)."""
    return fresh_database(tmp_path / "store.sqlite3")


def test_created_stream_holds_its_first_events(db_path: Path) -> None:
    db = connect(db_path)
    sid = store.create_stream(db, "legacy", [{"type": "a", "n": 1}, {"type": "b"}], title="Kaya")
    events = store.load_events(db, sid)
    assert [(e.seq, e.type) for e in events] == [(1, "a"), (2, "b")]
    assert events[0].data == {"type": "a", "n": 1}
    assert store.get_stream(db, sid).version == 2
    assert store.get_stream(db, sid).kind == "legacy"


def test_append_assigns_consecutive_sequence_numbers(db_path: Path) -> None:
    db = connect(db_path)
    sid = store.create_stream(db, "legacy", [{"type": "start"}])
    assert store.append(db, sid, 1, [{"type": "x"}, {"type": "y"}]) == 3
    assert [e.seq for e in store.load_events(db, sid, after=1)] == [2, 3]


def test_stale_version_is_refused_and_writes_nothing(db_path: Path) -> None:
    db = connect(db_path)
    sid = store.create_stream(db, "legacy", [{"type": "start"}])
    store.append(db, sid, 1, [{"type": "roll", "faces": [5]}])
    with pytest.raises(store.StaleVersionError) as refused:
        store.append(db, sid, 1, [{"type": "roll", "faces": [2]}])
    assert refused.value.current == 2
    assert [e.data.get("faces") for e in store.load_events(db, sid)] == [None, [5]]


def test_unknown_stream_is_refused(db_path: Path) -> None:
    db = connect(db_path)
    with pytest.raises(store.UnknownStreamError):
        store.append(db, "nope", 0, [{"type": "x"}])
    with pytest.raises(store.UnknownStreamError):
        store.get_stream(db, "nope")


def test_concurrent_appends_from_threads_lose_nothing(db_path: Path) -> None:
    sid = store.create_stream(connect(db_path), "legacy", [{"type": "start"}])
    accepted: list[tuple[int, int]] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        db = connect(db_path)
        for i in range(40):
            while True:
                version = store.get_stream(db, sid).version
                try:
                    store.append(db, sid, version, [{"type": "tick", "worker": n, "i": i}])
                except store.StaleVersionError:
                    continue
                with lock:
                    accepted.append((n, i))
                break

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.load_events(connect(db_path), sid)
    assert len(accepted) == 320
    assert [e.seq for e in events] == list(range(1, 322))
    assert sorted((e.data["worker"], e.data["i"]) for e in events[1:]) == sorted(accepted)


def test_racing_for_the_same_version_applies_exactly_one(db_path: Path) -> None:
    sid = store.create_stream(connect(db_path), "legacy", [{"type": "start"}])
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def racer(n: int) -> None:
        db = connect(db_path)
        barrier.wait()
        try:
            store.append(db, sid, 1, [{"type": "roll", "by": n}])
            outcomes.append("ok")
        except store.StaleVersionError:
            outcomes.append("stale")

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["stale"] * 5
    assert store.get_stream(connect(db_path), sid).version == 2


@pytest.mark.sqlite_only
def test_migrations_are_idempotent_and_enable_wal(db_path: Path) -> None:
    init_db(db_path)
    db = connect(db_path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"streams", "events", "capabilities", "drafts"} <= set(db.table_names())


def test_work_inside_creation_fails_and_leaves_nothing(db_path: Path) -> None:
    db = connect(db_path)

    def fail(_tx: object, _sid: str) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        store.create_stream(db, "legacy", [{"type": "start"}], within=fail)
    assert db.execute("SELECT count(*) FROM streams").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 0


def test_events_can_be_read_up_to_a_version(db_path: Path) -> None:
    db = connect(db_path)
    sid = store.create_stream(db, "legacy", [{"type": "a"}, {"type": "b"}, {"type": "c"}])
    assert [e.seq for e in store.load_events(db, sid, after=1, upto=2)] == [2]


def test_both_backends_have_the_same_migrations_in_the_same_order() -> None:
    sqlite_names = [migration.name for migration in migrations._migrations]
    assert [name for name, _ddl in POSTGRESQL_MIGRATIONS] == sqlite_names


def test_migrations_run_again_change_nothing_and_are_recorded(db_path: str) -> None:
    init_db(db_path)
    init_db(db_path)
    db = connect(db_path)
    if on_postgresql():
        rows = db.execute("SELECT name FROM _companion_migrations ORDER BY name").fetchall()
    else:
        rows = db.execute("SELECT name FROM _sqlite_migrations ORDER BY name").fetchall()
    assert [row[0] for row in rows] == sorted(name for name, _ddl in POSTGRESQL_MIGRATIONS)
    for table in ("streams", "events", "capabilities", "drafts", "exports"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_a_duplicate_sequence_number_is_refused_by_the_key(db_path: str) -> None:
    db = connect(db_path)
    sid = store.create_stream(db, "legacy", [{"type": "start"}])
    with pytest.raises(Exception) as refused:
        db.execute(
            "INSERT INTO events (stream_id, seq, type, data, created) VALUES (?, 1, 'x', '{}', '')",
            [sid],
        )
    assert "unique" in str(refused.value).lower() or "duplicate" in str(refused.value).lower()
