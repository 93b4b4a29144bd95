"""Database faults: a full, locked or read-only database answers 503; a real bug is still a 500.

The full disk is a real SQLITE_FULL: the connection's ``max_page_count`` is held at the
database's current size, so any write needing a new page fails as it would on a full disk.
(Read-only and locked databases are reproduced against the real server in tests/attacks.)
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.store import drafts
from companion.store.db import connect, get_db, unavailable
from companion.web.api import state as api_state

SETUP = {
    "pioneer": {"name": "Kaya", "people": "human", "concept": "A cartographer."},
    "players": ["Ali", "Brianna"],
    "language": "en",
}
BIG = "A long answer. " * 1300  # about 20,000 characters: it needs pages of its own
PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def _host(client: FlaskClient) -> str:
    response = client.post("/api/v1/chronicles", json=SETUP)
    assert response.status_code == 201
    return str(response.get_json()["host_token"])


def _fill_disk(app: Flask) -> None:
    """From now on this thread's connection cannot grow the database file: SQLITE_FULL."""
    with app.app_context():
        db = get_db()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")


def _drafts(app: Flask) -> list[str]:
    with app.app_context():
        return [text for (text,) in get_db().execute("SELECT text FROM drafts")]


def test_a_full_disk_answers_a_draft_save_with_503_and_then_saves(
    app: Flask, client: FlaskClient
) -> None:
    host = _host(client)
    _fill_disk(app)
    response = client.post(f"/c/{host}/draft", data={"field": "answer", "text": BIG})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "10"
    body = response.get_json()
    assert body["code"] == "database-unavailable"
    assert "saved" not in body
    assert "nothing from this request was kept" in body["error"]
    assert BIG not in _drafts(app)

    # The faulty connection was dropped: the next request opens a fresh one and writes.
    response = client.post(f"/c/{host}/draft", data={"field": "answer", "text": BIG})
    assert response.status_code == 200 and response.get_json()["saved"] is True
    assert BIG in _drafts(app)


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        ("en", "If you were writing, go back: your text is still in the form."),
        ("ja", "文章はフォームに残っています。"),
    ],
)
def test_a_full_disk_shows_a_browser_the_503_page(
    app: Flask, client: FlaskClient, lang: str, sentence: str
) -> None:
    host = _host(client)
    _fill_disk(app)
    form = {"version": "-1", "action": "x", "narration": BIG}
    response = client.post(f"/c/{host}/turn?lang={lang}", data=form, headers=PAGE)
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "10"
    assert response.mimetype == "text/html"
    assert sentence in response.get_data(as_text=True)


def test_a_full_disk_answers_the_api_with_503_json(app: Flask, client: FlaskClient) -> None:
    _host(client)
    _fill_disk(app)
    response = client.post("/api/v1/chronicles", json={**SETUP, "lines": BIG})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "10"
    assert response.get_json()["code"] == "database-unavailable"


def _fault(message: str, code: int | None) -> sqlite3.OperationalError:
    err = sqlite3.OperationalError(message)
    if code is not None:
        err.sqlite_errorcode = code  # type: ignore[attr-defined]
    return err


@pytest.mark.parametrize(
    ("err", "expected"),
    [
        (_fault("database is locked", 5), True),
        (_fault("database table is locked", 6), True),
        (_fault("attempt to write a readonly database", 8), True),
        (_fault("attempt to write a readonly database", 8 | 1 << 8), True),  # READONLY_RECOVERY
        (_fault("disk I/O error", 10 | 3 << 8), True),  # IOERR_WRITE
        (_fault("database or disk is full", 13), True),
        (_fault("unable to open database file", 14), True),
        (_fault("database or disk is full", None), True),
        (_fault("no such table: nowhere", 1), False),
        (_fault("no such column: nothing", None), False),
        (sqlite3.IntegrityError("UNIQUE constraint failed"), False),
        (ValueError("database is locked"), False),
    ],
)
def test_which_errors_mean_the_database_is_unavailable(err: Exception, expected: bool) -> None:
    assert unavailable(err) is expected


def _broken_query(*_args: Any, **_kwargs: Any) -> Any:
    with sqlite3.connect(":memory:") as conn:
        return conn.execute("SELECT * FROM nowhere")


def test_a_bug_in_a_query_is_still_a_500_page(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = _host(client)
    monkeypatch.setattr(drafts, "save", _broken_query)
    monkeypatch.setattr(drafts, "keep", _broken_query)  # a draft for a step not reached yet
    response = client.post(f"/c/{host}/draft", data={"field": "answer", "text": "x"})
    assert response.status_code == 500
    assert "Retry-After" not in response.headers


def test_a_bug_in_a_query_is_still_a_500_in_the_api(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = _host(client)
    monkeypatch.setattr(api_state, "state_json", _broken_query)
    response = client.get(f"/api/v1/chronicles/{host}/state")
    assert response.status_code == 500
    assert response.get_json()["code"] == "server-error"


def test_a_draft_save_that_met_a_full_disk_stores_the_next_one_on_the_same_connection(
    app: Flask, client: FlaskClient
) -> None:
    _host(client)
    db = connect(app.config["DATABASE"])
    stream_id = db.execute("SELECT id FROM streams").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        drafts.save(db, stream_id, 1, "answer", BIG)
    db.execute("PRAGMA max_page_count = 1000000")
    drafts.save(db, stream_id, 1, "answer", BIG)
    assert drafts.for_turn(db, stream_id, 1) == {"answer": BIG}
    db.conn.close()
