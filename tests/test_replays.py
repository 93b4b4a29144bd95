"""Replays that stay fast, and stay right: a state restored from a snapshot plus the events after
it equals the replay of the whole log, over many seeded lives; a correction finds its text
without walking the state; and a cold load reads a snapshot and the events after it only."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from legacy_factories import DETOURS, example_command, make_setup
from pg_server import fresh_database

from companion.legacy import (
    Recorded,
    ReviseText,
    State,
    Text,
    evolve,
    iter_texts,
    legal_commands,
    replay,
)
from companion.legacy.chronicle import start, step
from companion.legacy.copies import with_changes
from companion.legacy.events import NOT_DECISIONS, CardDrawn, PromptVeiled, TextRevised
from companion.legacy.model import DeferredLog
from companion.legacy.simulate import play_life, simulation_setup
from companion.legacy.snapshot import decode_state, encode_state
from companion.legacy.texts import revise
from companion.legacy.undo import _veiled_since, last_decision
from companion.store import capabilities, drafts, snapshots
from companion.store import events as store
from companion.store.db import connect
from companion.streams import chronicles, replays


def _log_of_random_game(seed: int) -> list[Recorded]:
    """Every record of a whole life of random legal commands: undos, veils, losses, revisions."""
    rng = random.Random(seed)
    setup = make_setup(mode="table" if seed % 2 else "digital", forgiving_undo=seed % 3 == 0)
    state, log = start(setup, rng)
    while (state.end is None or state.epilogue is None) and len(log) < 3000:
        legal = legal_commands(state)
        progress = [entry for entry in legal if entry.kind not in DETOURS]
        choices = legal if rng.random() < 0.2 or not progress else progress
        state, new = step(state, example_command(state, rng.choice(choices), rng.choice), rng)
        log.extend(new)
    return log


def _log_of_simulated_life(seed: int) -> list[Recorded]:
    policy = "always" if seed % 2 else "never"
    state = play_life(simulation_setup(2 + seed % 4, (3, 3, 3)), random.Random(seed), policy)
    return list(state.records())


def _restored(log: list[Recorded], cut: int) -> State:
    """The state a snapshot after ``cut`` records, read back as JSON, and the rest give."""
    kept = json.loads(json.dumps(encode_state(replay(log[:cut])), ensure_ascii=False))
    past: list[Recorded] = log[:cut]

    def read() -> Any:
        chain: Any = None
        for record in past:
            chain = (record, chain)
        return chain

    state = decode_state(kept, DeferredLog(read))
    for record in log[cut:]:
        state = evolve(state, record)
    return state


@functools.cache
def _lives() -> tuple[tuple[str, list[Recorded]], ...]:
    """Seeded whole lives: random legal play with detours, and simulated players' lives."""
    random_games = ((f"random game {seed}", _log_of_random_game(seed)) for seed in range(80))
    simulated = ((f"simulated life {seed}", _log_of_simulated_life(seed)) for seed in range(40))
    return (*random_games, *simulated)


@pytest.mark.slow
def test_a_snapshot_and_the_rest_equal_the_whole_replay_over_many_lives() -> None:
    rng = random.Random(5)
    undos = 0
    for name, log in _lives():
        whole = replay(log)
        undos += len(whole.undone)
        for cut in {1, 2, len(log), *(rng.randrange(1, len(log) + 1) for _ in range(2))}:
            restored = _restored(log, cut)
            assert restored == whole, (name, cut)
            assert list(restored.records()) == list(whole.records()), (name, cut)
            assert restored.step == whole.step, (name, cut)
    assert undos > 20  # the lives took decisions back, so refolds over a snapshot were met


def test_the_log_behind_a_snapshot_is_read_only_when_walked() -> None:
    log = _log_of_simulated_life(3)
    reads: list[int] = []

    def read() -> Any:
        reads.append(1)
        chain: Any = None
        for record in log[:100]:
            chain = (record, chain)
        return chain

    state = decode_state(json.loads(json.dumps(encode_state(replay(log[:100])))), DeferredLog(read))
    for record in log[100:]:
        state = evolve(state, record)
    assert state == replay(log) and reads == []
    assert list(state.records()) == log and reads == [1]
    assert list(state.records()) == log and reads == [1]  # read once


# The reference for corrections: the generic walk that changed every copy of a text wherever it
# was in the state, field by field (what revise did before it looked its target up).
def _walk(value: Any, change: Callable[[Text], Text]) -> Any:
    if isinstance(value, Text):
        return change(value)
    if isinstance(value, tuple):
        return tuple(_walk(item, change) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _walk(getattr(value, f.name), change) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **fields)
    return value


def _revised_everywhere(state: State, seq: int, field: str, value: str, revision: int) -> State:
    def change(text: Text) -> Text:
        if text.seq != seq or text.field != field:
            return text
        return with_changes(
            text,
            value=value,
            earlier=(*text.earlier, text.value),
            revisions=(*text.revisions, revision),
        )

    changed = {
        name: _walk(getattr(state, name), change)
        for name in ("story", "check", "keystones", "marks", "epilogue")
    }
    return with_changes(state, **changed)


@pytest.mark.slow
def test_a_correction_changes_exactly_what_the_walk_of_the_whole_state_changes() -> None:
    rng = random.Random(11)
    checked = 0
    for _name, log in _lives():
        for cut in sorted({rng.randrange(1, len(log) + 1) for _ in range(4)}):
            state = replay(log[:cut])
            texts = list(iter_texts(state))
            for text in rng.sample(texts, min(4, len(texts))):
                value = f"{text.value} / corrected {checked}"
                looked_up = with_changes(
                    state, **revise(state, text.seq, text.field, value, state.version + 1)
                )
                walked = _revised_everywhere(state, text.seq, text.field, value, state.version + 1)
                assert looked_up == walked, (text.seq, text.field)
                checked += 1
    assert checked > 1000


def test_a_correction_of_a_text_no_record_holds_changes_nothing() -> None:
    state = replay(_log_of_simulated_life(1))
    assert revise(state, 10_000, "answer", "x", state.version + 1) == {}


# The reference for the undo offer: the walk back through the whole log that the newest
# decisions a state keeps stand in for.
def _walked_last_decision(state: State) -> Recorded | None:
    check = state.check
    drawn, veil = (check.seq, check.set_aside[-1]) if check and check.set_aside else (0, 0)
    for record in state.newest_records():
        if record.seq in state.undone or isinstance(record.event, (*NOT_DECISIONS, PromptVeiled)):
            continue
        if drawn < record.seq < veil:
            continue
        return record
    return None


def _walked_veil(state: State, seq: int) -> bool:
    return any(
        isinstance(r.event, PromptVeiled) and r.seq > seq and r.seq not in state.undone
        for r in state.newest_records()
    )


def _check_undo_offers(lives: Any, every: int) -> int:
    checked = 0
    for name, log in lives:
        state = None
        for n, record in enumerate(log, 1):
            state = evolve(state, record)
            if n % every and n != len(log):
                continue
            found = last_decision(state)
            assert found == _walked_last_decision(state), (name, n)
            if found is not None and isinstance(found.event, CardDrawn):
                assert _veiled_since(state, found.seq) == _walked_veil(state, found.seq), (name, n)
            checked += 1
    return checked


def test_the_undo_offer_reads_the_state_and_agrees_with_the_walk_of_the_log() -> None:
    lives = _lives()
    assert _check_undo_offers([*lives[:6], *lives[80:82]], every=1) > 1000


@pytest.mark.slow
def test_the_undo_offer_agrees_with_the_walk_of_the_log_over_many_lives() -> None:
    assert _check_undo_offers(_lives(), every=1) > 20_000


def test_a_restored_state_offers_its_undo_without_reading_the_log_behind_it() -> None:
    log = _log_of_simulated_life(3)
    last = max(r.seq for r in log)
    corrections = [
        Recorded(last + n, TextRevised(0, text.seq, text.field, f"Again {n}."))
        for n, text in enumerate(list(iter_texts(replay(log)))[:40] * 5, 1)
    ]
    whole = [*log, *corrections]
    reads: list[int] = []

    def read() -> Any:
        reads.append(1)
        chain: Any = None
        for record in whole[:-10]:
            chain = (record, chain)
        return chain

    cut = replay(whole[:-10])
    state = decode_state(json.loads(json.dumps(encode_state(cut))), DeferredLog(read))
    for record in whole[-10:]:
        state = evolve(state, record)
    assert last_decision(state) == _walked_last_decision(replay(whole)) is not None
    assert reads == []  # 200 corrections after the last decision, none of them read


# --- The store: snapshots kept, read back, and left alone when they do not fit -----------------


@pytest.fixture
def db(tmp_path: Path) -> Any:
    return connect(fresh_database(tmp_path / "replays.sqlite3"))


def _long_chronicle(db: Any, events: int) -> chronicles.Chronicle:
    """A simulated life, then corrections until it holds at least ``events`` events."""
    setup = simulation_setup(3, (3, 3, 3))
    created = chronicles.create(db, setup, random.Random(1))
    chronicle = chronicles.load(db, created.id)
    rng = random.Random(2)
    from companion.legacy.simulate import next_command

    while not chronicle.state.ended:
        chronicle = chronicles.execute(db, chronicle, [next_command(chronicle.state, "never")], rng)
    n = 0
    while chronicle.version < events:
        texts = [t for t in iter_texts(chronicle.state)]
        batch = [
            ReviseText(0, t.seq, t.field, f"Corrected {n + i}.")
            for i, t in enumerate(rng.sample(texts, 5))
        ]
        chronicle = chronicles.execute(db, chronicle, batch, rng)
        n += 5
    return chronicle


def _cold(db: Any, sid: str) -> chronicles.Chronicle:
    chronicles.CACHE.clear()
    return chronicles.load(db, sid)


def test_a_cold_load_reads_the_snapshot_and_the_events_after_it_only(
    db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    chronicle = _long_chronicle(db, 700)
    kept = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert kept is not None and chronicle.version - replays.SNAPSHOT_EVERY < kept.version
    read: list[tuple[int, int | None]] = []
    real = store.load_events

    def load_events(conn: Any, sid: str, after: int = 0, upto: int | None = None) -> Any:
        read.append((after, upto))
        return real(conn, sid, after, upto)

    monkeypatch.setattr(store, "load_events", load_events)
    cold = _cold(db, chronicle.id)
    assert read == [(kept.version, chronicle.version)]
    whole = replay(replays.records(real(db, chronicle.id)))
    assert cold.state == whole
    assert list(cold.state.records()) == list(whole.records())  # the past, read when walked
    # ...from its newest end, each read four times the one before, each event once
    assert read[1] == (kept.version - replays.FIRST_READ, kept.version)
    spans = read[1:]
    assert [upto for _after, upto in spans[1:]] == [after for after, _upto in spans[:-1]]
    assert spans[-1][0] == 0 and len(spans) <= 5


def test_a_long_life_s_play_page_reads_only_the_newest_events_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import make_app

    app = make_app(tmp_path)
    db = connect(app.config["DATABASE"])
    chronicle = _long_chronicle(db, 3 * replays.SNAPSHOT_EVERY)  # corrections after the end
    kept = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert kept is not None
    tokens = {role: capabilities.issue(db, chronicle.id, role) for role in ("host", "reader")}
    db.conn.commit()
    decoded: list[int] = []
    real = store.load_events

    def load_events(conn: Any, sid: str, after: int = 0, upto: int | None = None) -> Any:
        found = real(conn, sid, after, upto)
        decoded.append(len(found))
        return found

    monkeypatch.setattr(store, "load_events", load_events)
    client = app.test_client()
    for role, token in tokens.items():
        chronicles.CACHE.clear()
        app.extensions["companion.render_cache"].clear()
        decoded.clear()
        page = client.get(f"/c/{token}/")
        assert page.status_code == 200, role
        # the snapshot, the events after it and the newest few behind it: never the whole log
        assert 0 < sum(decoded) <= chronicle.version - kept.version + replays.FIRST_READ, role
        assert chronicle.version > 2 * (chronicle.version - kept.version + replays.FIRST_READ)


def test_snapshots_follow_a_growing_chronicle(db: Any) -> None:
    chronicle = _long_chronicle(db, 300)
    first = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert first is not None
    chronicle = _long_chronicle_more(db, chronicle, 600)
    later = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert later is not None and later.version > first.version


def _long_chronicle_more(db: Any, chronicle: chronicles.Chronicle, events: int) -> Any:
    rng = random.Random(3)
    while chronicle.version < events:
        text = rng.choice(list(iter_texts(chronicle.state)))
        command = ReviseText(0, text.seq, text.field, f"Again {chronicle.version}.")
        chronicle = chronicles.execute(db, chronicle, [command], rng)
    return chronicle


@pytest.mark.parametrize("damage", ["other rules", "not json", "not a state", "a later version"])
def test_a_snapshot_that_does_not_fit_is_only_a_slower_load(db: Any, damage: str) -> None:
    chronicle = _long_chronicle(db, 300)
    kept = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert kept is not None
    if damage == "other rules":
        db.execute("UPDATE snapshots SET projection = 'legacy-older'")
    elif damage == "not json":
        db.execute("UPDATE snapshots SET data = '{not json'")
    elif damage == "not a state":
        db.execute("UPDATE snapshots SET data = ?", [json.dumps({"phase": "draw"})])
    else:
        db.execute("UPDATE snapshots SET version = ?", [chronicle.version + 5])
    if hasattr(db.conn, "commit"):
        db.conn.commit()
    whole = replay(replays.records(store.load_events(db, chronicle.id)))
    assert _cold(db, chronicle.id).state == whole
    if damage == "other rules":  # the replay under these rules keeps a snapshot of its own
        again = snapshots.read(db, chronicle.id, replays.PROJECTION)
        assert again is not None and again.version == chronicle.version


def test_an_undo_over_a_snapshot_takes_back_the_same_decision(db: Any) -> None:
    from companion.legacy.commands import Undo

    chronicle = _long_chronicle(db, 2 * replays.SNAPSHOT_EVERY + 10)  # corrections after the end
    kept = snapshots.read(db, chronicle.id, replays.PROJECTION)
    assert kept is not None and kept.version > chronicle.version - replays.SNAPSHOT_EVERY
    cold = _cold(db, chronicle.id)
    seat = int(cold.state.setup.oldest)
    from companion.legacy.undo import undoable

    target = undoable(cold.state)  # the life's last decision, long before the snapshot
    assert target is not None and target.seq < kept.version
    undone = chronicles.execute(db, cold, [Undo(target.event.seat)], random.Random(seat))  # type: ignore[union-attr]
    whole = replay(replays.records(store.load_events(db, chronicle.id)))
    assert undone.state == whole and target.seq in whole.undone
    assert _cold(db, chronicle.id).state == whole


def test_the_stream_header_counts_its_bytes(db: Any) -> None:
    chronicle = _long_chronicle(db, 250)
    stored = sum(
        len(row[0].encode("utf-8"))
        for row in db.execute("SELECT data FROM events WHERE stream_id = ?", [chronicle.id])
    )
    assert store.get_stream(db, chronicle.id).nbytes == stored == chronicle.nbytes


@pytest.mark.sqlite_only
def test_a_database_from_before_snapshots_upgrades_and_its_chronicles_poll_and_load(
    tmp_path: Path,
) -> None:
    """The migration counts each stream's stored bytes; a chronicle whose header has not said
    its phase yet is polled right, and loads (keeping its first snapshot) as it always did."""
    import sqlite3

    from conftest import make_app

    from companion.store import migrations
    from companion.store.db import migrate

    path = tmp_path / "old.sqlite3"
    old = connect(path)
    migrations.migrations.apply(old, stop_before="0010_stream_sizes_and_snapshots")
    assert "snapshots" not in old.table_names()
    old.conn.close()
    # A chronicle as the version before wrote it: its rows only (no size, no status columns).
    source = connect(fresh_database(tmp_path / "source.sqlite3"))
    created = _long_chronicle(source, 300)
    raw = sqlite3.connect(path)
    for table, columns in (
        ("streams", "id, kind, title, version, created, updated, meta"),
        ("events", "stream_id, seq, type, data, created"),
        ("capabilities", "token_hash, stream_id, role, seat, created, revoked"),
    ):
        rows = source.execute(
            f"SELECT {columns} FROM {table} WHERE {'id' if table == 'streams' else 'stream_id'} = ?",
            [created.id],
        ).fetchall()
        marks = ", ".join("?" * len(columns.split(", ")))
        raw.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
    raw.commit()
    raw.close()
    upgraded = connect(path)
    migrate(upgraded)
    header = store.get_stream(upgraded, created.id)
    assert header.nbytes == created.nbytes and header.status is None
    app = make_app(tmp_path, DATABASE=str(path))
    token = capabilities.issue(upgraded, created.id, "reader")
    assert app.test_client().get(f"/c/{token}/version").get_json() == {
        "version": created.version,
        "phase": created.state.phase,
        "drafts": drafts.signature(upgraded, created.id),
    }
    chronicles.CACHE.clear()
    assert chronicles.load(upgraded, created.id).state == created.state
    assert snapshots.read(upgraded, created.id, replays.PROJECTION) is not None
