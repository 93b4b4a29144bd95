"""What a request costs: a cached page is served without rendering anything, a version poll reads
one row and never the stream's record, a browser's cookie is opened and its CSRF token signed
once, and the rate limits cost only the requests they apply to."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app
from flask import Flask, template_rendered
from flask.testing import FlaskClient
from play_helpers import create
from table_helpers import new_table

from companion.store import db as database
from companion.streams import chronicles, matches
from companion.web.shell import sealed_session


@contextmanager
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every SQL statement the app's requests run while the block runs."""
    seen: list[str] = []
    real = database._Pool.get

    def get(self: Any, path: str) -> Any:
        db = real(self, path)
        if hasattr(db.conn, "set_trace_callback"):
            db.conn.set_trace_callback(seen.append)  # SQLite: every statement, pragmas too
        else:  # PostgreSQL: every statement the app's code runs
            execute = type(db).execute

            def traced(sql: str, *args: Any) -> Any:
                seen.append(sql)
                return execute(db, sql, *args)

            db.execute = traced
        return db

    monkeypatch.setattr(database._Pool, "get", get)
    yield seen
    monkeypatch.setattr(database._Pool, "get", real)


@contextmanager
def rendered(app: Flask) -> Iterator[list[str]]:
    """The names of the templates rendered while the block runs."""
    names: list[str] = []

    def record(_sender: Any, template: Any, **_extra: Any) -> None:
        names.append(template.name)

    template_rendered.connect(record, app)
    try:
        yield names
    finally:
        template_rendered.disconnect(record, app)


def _queries(seen: list[str]) -> list[str]:
    return [s for s in seen if s.lstrip().upper().startswith(("SELECT", "INSERT", "UPDATE"))]


def _no_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a version poll loaded the stream")

    monkeypatch.setattr(chronicles, "load", refuse)
    monkeypatch.setattr(matches, "load", refuse)
    monkeypatch.setattr(chronicles, "replay", refuse)


def test_a_version_poll_reads_the_header_and_never_the_record(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host, table = create(client), new_table(client, "traitors-flame")
    before = client.get(f"/c/{host}/version").get_json()
    assert set(before) == {"version", "phase", "drafts"} and before["phase"] == "draw"
    table_version = client.get(f"/t/{table}/version").get_json()
    chronicles.CACHE.clear()
    matches.CACHE.clear()
    _no_loads(monkeypatch)
    with statements(monkeypatch) as seen:
        assert client.get(f"/c/{host}/version").get_json() == before
        # The link joined to its stream's header and the drafts' signature (who is writing).
        assert len(_queries(seen)) == 1, seen
        seen.clear()
        assert client.get(f"/t/{table}/version").get_json() == table_version
        assert len(_queries(seen)) == 1, seen


def test_the_phase_a_poll_says_moves_with_the_chronicle(app: Flask, client: FlaskClient) -> None:
    host = create(client)
    _draw(client, app, host)
    answer = client.get(f"/c/{host}/version").get_json()
    loaded = chronicles.load(database.connect(app.config["DATABASE"]), _stream(app, host))
    assert answer["version"] == loaded.version and answer["phase"] == loaded.state.phase
    assert answer["phase"] == "compose"


def _draw(client: FlaskClient, app: Flask, token: str) -> None:
    from play_helpers import chronicle, post_turn

    state = chronicle(app, token).state
    card = state.pile_cards(state.pile)[0]
    assert post_turn(client, app, token, action="draw", card=card).status_code == 302


def _stream(app: Flask, token: str) -> str:
    from companion.store.capabilities import resolve

    cap = resolve(database.connect(app.config["DATABASE"]), token)
    assert cap is not None
    return cap.stream_id


def test_a_chronicle_written_before_headers_said_its_phase_is_loaded_once(
    app: Flask, client: FlaskClient
) -> None:
    host = create(client)
    db = database.connect(app.config["DATABASE"])
    db.execute("UPDATE streams SET status = NULL")
    db.conn.commit()
    assert client.get(f"/c/{host}/version").get_json()["phase"] == "draw"


def test_a_cached_play_page_renders_nothing_and_reads_the_row_first(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = create(client)
    client.get(f"/c/{host}/")  # shows the creation's message, uncached
    first = client.get(f"/c/{host}/")
    assert first.status_code == 200
    with rendered(app) as names, statements(monkeypatch) as seen:
        again = client.get(f"/c/{host}/")
        fragment = client.get(f"/c/{host}/?fragment=1")
        fragment_again = client.get(f"/c/{host}/?fragment=1")
    assert again.data == first.data
    assert fragment.data == fragment_again.data and b'id="live"' in first.data
    assert names == []  # the fragment was kept when the page was first rendered
    # The page asked again, and the fragment asked again, are answered in front of Flask from
    # one row (web/shell/echo.py). The fragment's first ask reads that row, in Flask the same
    # row again (``streams.known_page``: the fragment was not kept under it yet), then the link
    # with its stream's header, this link's kept words, and the turn's drafts (this link's and
    # everyone's: who else is writing).
    assert len(_queries(seen)) == 1 + 1 + 4 + 1, seen


def test_a_cached_play_page_without_replay_costs_one_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_app(tmp_path, REPLAY_BYTES=0).test_client()
    host = create(client)
    client.get(f"/c/{host}/")  # shows the creation's message, uncached
    first = client.get(f"/c/{host}/")
    with statements(monkeypatch) as seen:
        again = client.get(f"/c/{host}/")
    assert again.data == first.data
    assert len(_queries(seen)) == 1, seen  # the link's row: the page kept under it


def test_a_cached_story_page_renders_nothing(app: Flask, client: FlaskClient) -> None:
    host = create(client)
    _draw(client, app, host)
    client.get(f"/c/{host}/story")  # shows the creation's message, uncached
    first = client.get(f"/c/{host}/story")
    with rendered(app) as names:
        again = client.get(f"/c/{host}/story")
    assert again.status_code == 200 and again.data == first.data and names == []


def test_a_cached_table_page_renders_nothing(app: Flask, client: FlaskClient) -> None:
    for game in ("traitors-flame", "age-of-summoners"):
        host = new_table(client, game)
        client.get(f"/t/{host}/")
        first = client.get(f"/t/{host}/")
        assert first.status_code == 200
        with rendered(app) as names:
            again = client.get(f"/t/{host}/")
        assert again.data == first.data
        assert names == [], game


def test_a_draft_shows_on_the_next_view_of_a_cached_page(app: Flask, client: FlaskClient) -> None:
    host = create(client)
    _draw(client, app, host)
    client.get(f"/c/{host}/")
    assert "Salt." not in client.get(f"/c/{host}/").get_data(as_text=True)
    saved = client.post(f"/c/{host}/draft", data={"field": "answer", "text": "Salt."})
    assert saved.get_json()["saved"] is True
    assert "Salt." in client.get(f"/c/{host}/").get_data(as_text=True)
    assert "Salt." in client.get(f"/c/{host}/?fragment=1").get_data(as_text=True)


class _NoLimits:
    """A rate limiter that fails any request that asks it anything."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def hit(self, item: Any, name: str, client: str) -> bool:
        self.asked.append(name)
        return True

    def get_window_stats(self, *_args: Any) -> Any:
        raise AssertionError("no window asked for")


def test_only_what_a_limit_applies_to_asks_the_limits(app: Flask, client: FlaskClient) -> None:
    host = create(client)
    table = new_table(client, "traitors-flame")
    limiter = _NoLimits()
    app.extensions["companion.limiter"] = limiter
    for path in (
        "/healthz",
        "/",
        f"/c/{host}/",
        f"/c/{host}/version",
        f"/c/{host}/story",
        f"/t/{table}/",
        f"/t/{table}/version",
    ):
        assert client.get(path).status_code == 200, path
    assert limiter.asked == []
    assert client.get("/c/no-such-link-no-such-link-no-such/version").status_code == 404
    assert limiter.asked == ["guess"]


def test_a_browsers_cookie_is_opened_once(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = create(client)
    client.get(f"/c/{host}/")  # the cookie now lists the link first: it stays as it is
    opened: list[bytes] = []
    real = sealed_session.Sealer.loads

    def loads(self: Any, sealed: bytes) -> Any:
        opened.append(sealed)
        return real(self, sealed)

    monkeypatch.setattr(sealed_session.Sealer, "loads", loads)
    app.session_interface.opened.clear()  # type: ignore[attr-defined]
    for _ in range(3):
        assert client.get(f"/c/{host}/version").status_code == 200
        assert client.get(f"/c/{host}/").status_code == 200
    assert len(opened) == 1


def test_a_session_opened_from_the_cache_is_its_own_copy(app: Flask) -> None:
    interface = app.session_interface
    assert isinstance(interface, sealed_session.SealedSessionInterface)
    serializer = interface.get_signing_serializer(app)
    assert serializer is not None
    cookie = serializer.dumps({"opened": ["/c/one/"], "revealed": {"t": 1}})
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}) as ctx:
        first = interface.open_session(app, ctx.request)
        assert first is not None
        first["opened"].append("/c/two/")
        first["revealed"]["t"] = 2
        second = interface.open_session(app, ctx.request)
    assert second == {"opened": ["/c/one/"], "revealed": {"t": 1}}


def test_a_cached_cookie_still_expires(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    import itsdangerous.timed

    interface = app.session_interface
    assert isinstance(interface, sealed_session.SealedSessionInterface)
    serializer = interface.get_signing_serializer(app)
    assert serializer is not None
    signed_at = time.time() - 100
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: signed_at)
    cookie = serializer.dumps({"opened": ["/c/one/"]})
    monkeypatch.undo()
    app.permanent_session_lifetime = timedelta(hours=1)
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}) as ctx:
        assert interface.open_session(app, ctx.request) == {"opened": ["/c/one/"]}
        assert interface.opened.get(cookie) is not None  # kept
        app.permanent_session_lifetime = timedelta(seconds=50)
        assert interface.open_session(app, ctx.request) == {}


def test_the_csrf_token_is_signed_once_per_session(
    csrf_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re

    from flask_wtf import csrf

    client = csrf_app.test_client()
    signed: list[Any] = []
    real = csrf.URLSafeTimedSerializer

    class Counting(real):  # type: ignore[misc, valid-type]
        def dumps(self, obj: Any, salt: Any = None) -> Any:
            signed.append(obj)
            return super().dumps(obj, salt)

    monkeypatch.setattr(csrf, "URLSafeTimedSerializer", Counting)
    pages = [client.get("/new").get_data(as_text=True) for _ in range(3)]
    tokens = {re.search(r'name="csrf_token" value="([^"]+)"', p).group(1) for p in pages}  # type: ignore[union-attr]
    assert len(tokens) == 1 and len(signed) == 1
    # The one signature is a token the forms accept.
    response = client.post("/language", data={"lang": "ja", "csrf_token": tokens.pop()})
    assert response.status_code == 302


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("fresh", "probes"), [(3600, 1), (0, 3)])
def test_healthz_takes_the_write_lock_once_while_the_database_stays_writable(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, fresh: int, probes: int
) -> None:
    from conftest import make_app

    client = make_app(tmp_path, HEALTH_PROBE_SECONDS=fresh).test_client()
    with statements(monkeypatch) as seen:
        for _ in range(3):
            assert client.get("/healthz").get_json()["database_writable"] is True
    assert seen.count("BEGIN IMMEDIATE") == probes
