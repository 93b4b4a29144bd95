"""Pages rendered once for every server process: a part one process made after a change is
read from the store by the others (``companion.store.rendered``), never with a link in it.

Two apps on one database stand for two workers (or two servers); runs on SQLite and on the
shared store (``scripts/test``'s PostgreSQL lane).
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import another_worker, chronicle, create, post_turn, rendered_by

from companion.ops import deletion
from companion.store import rendered, snapshots
from companion.store.db import connect

CSRF = re.compile(r'name="csrf_token" value="[^"]*"')


def _rows(app: Flask, stream_id: str) -> list[tuple[str, int, str]]:
    db = connect(app.config["DATABASE"])
    query = "SELECT key, version, body FROM rendered WHERE stream_id = ? ORDER BY key"
    return [(str(k), int(v), str(b)) for k, v, b in db.execute(query, [stream_id]).fetchall()]


def test_a_second_worker_reads_the_part_the_first_made(app: Flask) -> None:
    """Each worker making pages as they are asked (none made ahead: ``test_ahead.py``)."""
    app = another_worker(app, AHEAD_PAGES=0)
    client = app.test_client()
    token = create(client)
    fragment = f"/c/{token}/?fragment=1"
    first = client.get(fragment).get_data(as_text=True)
    other = another_worker(app, AHEAD_PAGES=0)
    with rendered_by(other) as names:
        second = other.test_client().get(fragment).get_data(as_text=True)
    assert names == [], "the second worker rendered the part again"
    assert CSRF.sub("", second) == CSRF.sub("", first) and token in second
    # A change: the first worker to ask renders it once, and the other reads it.
    state = chronicle(app, token).state
    post_turn(client, app, token, action="draw", card=state.pile_cards(state.pile)[0])
    with rendered_by(other) as names:
        changed = other.test_client().get(fragment).get_data(as_text=True)
    assert "chronicle/_live.html" in names and changed != second
    with rendered_by(app) as names:
        again = client.get(fragment).get_data(as_text=True)
    assert CSRF.sub("", again) == CSRF.sub("", changed)
    assert names == []
    stream_id = chronicle(app, token).id
    versions = {version for _key, version, _body in _rows(app, stream_id)}
    assert versions == {chronicle(app, token).version}, "a stream keeps its newest version only"


def test_no_link_token_is_kept_in_a_shared_key_or_body(app: Flask, client: FlaskClient) -> None:
    token = create(client)
    client.get(f"/c/{token}/")  # the whole page, and the part inside it
    client.get(f"/c/{token}/?fragment=1")
    client.get(f"/c/{token}/story")
    rows = _rows(app, chronicle(app, token).id)
    assert len(rows) >= 3
    for key, _version, body in rows:
        assert token not in key and token not in body
        assert re.fullmatch(r"[0-9a-f]{64}", key)


def test_sharing_off_keeps_nothing_in_the_store(app: Flask) -> None:
    off = another_worker(app, SHARED_RENDER_BYTES=0)
    client = off.test_client()
    token = create(client)
    client.get(f"/c/{token}/?fragment=1")
    assert _rows(off, chronicle(off, token).id) == []


def test_the_rows_are_bounded_in_bytes_and_go_with_their_stream(
    app: Flask, client: FlaskClient
) -> None:
    db = connect(app.config["DATABASE"])
    token = create(client)
    stream_id = chronicle(app, token).id
    version = chronicle(app, token).version
    limit = 40_000
    for n in range(40):  # 40 pages of 2 kB, for a bound of 40 kB
        assert rendered.write(db, stream_id, version, f"{n:064x}", ["x" * 2000, 0, "y"], limit)
        total = db.execute("SELECT SUM(nbytes) FROM rendered").fetchone()[0]
        assert total <= limit
    assert rendered.read(db, stream_id, version, f"{39:064x}") == ["x" * 2000, 0, "y"]
    assert rendered.read(db, stream_id, version + 1, f"{39:064x}") is None
    assert not rendered.write(db, stream_id, version, "big", ["z" * limit], limit)
    found = deletion.find(db, stream_id, ["legacy"])
    assert found is not None
    removed = deletion.delete(db, found, app.config["EXPORTS_DIR"])
    assert removed.count("rendered") > 0
    assert db.execute("SELECT COUNT(*) FROM rendered").fetchone()[0] == 0


@pytest.mark.sqlite_only
def test_a_write_that_never_waits_leaves_the_connection_s_own_wait_as_it_was(
    app: Flask, client: FlaskClient
) -> None:
    """A gevent worker's connections wait 0 ms in SQLite (they wait cooperatively instead): a
    kept page or snapshot written on one must not leave it waiting 5 s in C for the next one."""
    db = connect(app.config["DATABASE"])
    stream_id = chronicle(app, create(client)).id
    db.conn.execute("PRAGMA busy_timeout = 0")
    assert rendered.write(db, stream_id, 1, "k" * 64, ["a"], 40_000)
    assert snapshots.write(db, stream_id, "p", snapshots.Snapshot(1, 1, "{}"))
    assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 0


def test_a_page_another_release_kept_is_never_served(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server upgraded in place (same stream version, new templates and static names) makes
    its pages again instead of serving the older release's from the store."""
    older = another_worker(app, AHEAD_PAGES=0)
    client = older.test_client()
    token = create(client)
    monkeypatch.setattr(rendered, "__version__", "0.0.1-older")
    client.get(f"/c/{token}/?fragment=1")
    assert len(_rows(older, chronicle(older, token).id)) == 1
    monkeypatch.undo()
    newer = another_worker(app, AHEAD_PAGES=0)
    with rendered_by(newer) as names:
        newer.test_client().get(f"/c/{token}/?fragment=1")
    assert names == ["chronicle/_live.html"]


def test_a_page_another_worker_is_making_is_waited_for_not_made_again(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers miss the same part after a change at once (each one's feeds woken by the
    commit): the first claims it and makes it, the second waits for what it keeps."""
    first = another_worker(app, AHEAD_PAGES=0)
    second = another_worker(app, AHEAD_PAGES=0)
    client = first.test_client()
    token = create(client)
    state = chronicle(first, token).state
    post_turn(client, first, token, action="draw", card=state.pile_cards(state.pile)[0])
    fragment = f"/c/{token}/?fragment=1"
    made, keeping, waiting = threading.Event(), threading.Event(), threading.Event()
    write, awaited = rendered.write, rendered.awaited

    def held_write(*args: Any) -> bool:  # the first worker has made the part: it keeps it when told
        if threading.current_thread().name == "first":
            made.set()
            assert keeping.wait(30), "the second worker never waited"
        return write(*args)

    def noted_wait(*args: Any) -> Any:
        waiting.set()
        return awaited(*args)

    monkeypatch.setattr(rendered, "write", held_write)
    monkeypatch.setattr(rendered, "awaited", noted_wait)
    pages: dict[str, str] = {}

    def ask(worker: Flask, name: str) -> None:
        pages[name] = worker.test_client().get(fragment).get_data(as_text=True)

    with rendered_by(first) as made_first, rendered_by(second) as made_second:
        asking = threading.Thread(target=ask, args=(first, "first"), name="first")
        asking.start()
        assert made.wait(30), "the first worker did not make the part"
        other = threading.Thread(target=ask, args=(second, "second"), name="second")
        other.start()
        assert waiting.wait(30), "the second worker did not wait for the claimed part"
        keeping.set()
        asking.join(30)
        other.join(30)
    assert not asking.is_alive() and not other.is_alive()
    assert made_first == ["chronicle/_live.html"]
    assert made_second == [], "the second worker made the part it should have waited for"
    assert CSRF.sub("", pages["second"]) == CSRF.sub("", pages["first"])
    assert token in pages["second"]


def test_a_claim_is_made_once_given_back_and_void_when_old(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = connect(app.config["DATABASE"])
    stream_id = chronicle(app, create(client)).id
    key = "c" * 64
    assert rendered.claim(db, stream_id, 3, key) == "claimed"
    assert rendered.claim(db, stream_id, 3, key) == "taken"
    assert rendered.read(db, stream_id, 3, key) is None  # a claim is no page
    assert rendered.claim(db, stream_id, 4, key) == "claimed", "a newer version is claimed anew"
    rendered.release(db, stream_id, 4, key)
    assert _rows(app, stream_id) == []
    assert rendered.claim(db, stream_id, 4, key) == "claimed"
    assert rendered.write(db, stream_id, 4, key, ["made"], 40_000)
    assert rendered.claim(db, stream_id, 4, key) == "taken", "a kept page is not claimed again"
    assert rendered.awaited(db, stream_id, 4, key) == ["made"]
    rendered.release(db, stream_id, 4, key)  # a kept page is never given back
    assert rendered.read(db, stream_id, 4, key) == ["made"]
    # A claim its process never kept nor gave back (it stopped) is void once old: a waiter
    # stops waiting at its first look, and the next to miss the page claims it.
    db.execute(
        "UPDATE rendered SET version = 5, body = '', created = '2000-01-01T00:00:00.000+00:00'"
        " WHERE stream_id = ? AND key = ?",
        [stream_id, key],
    )
    looks: list[float] = []
    monkeypatch.setattr(rendered.time, "sleep", looks.append)
    assert rendered.awaited(db, stream_id, 5, key) is None
    assert len(looks) == 1
    assert rendered.claim(db, stream_id, 5, key) == "claimed"


def test_a_page_too_big_to_keep_leaves_no_claim_behind(app: Flask) -> None:
    """Nobody waits for a page its claimant could not keep."""
    small = another_worker(app, AHEAD_PAGES=0, SHARED_RENDER_BYTES=4_000)
    client = small.test_client()
    token = create(client)
    client.get(f"/c/{token}/")  # the message the setup left: a page never kept
    for path in (f"/c/{token}/", f"/c/{token}/?fragment=1", f"/c/{token}/story"):
        assert client.get(path).status_code == 200
    stream_id = chronicle(small, token).id
    assert [body for _key, _version, body in _rows(small, stream_id) if not body] == []
