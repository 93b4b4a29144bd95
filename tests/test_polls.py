"""The version polls answered in front of Flask give exactly what the Flask views give: the same
status, body and headers, at every version of whole lives and matches, for every kind of link,
and every request they do not answer goes on to those views."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app
from flask import Flask, request_started
from werkzeug.test import Client

from companion.legacy.simulate import next_command, simulation_setup
from companion.store import capabilities, drafts
from companion.store.db import connect
from companion.streams import chronicles, matches
from companion.streams.match_replay import Seat
from companion.web.shell.polls import FastPolls

UNKNOWN = "no-such-link-no-such-link-no-such"


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    """An app that takes the request id a request brings, so two answers can be compared whole,
    and writes an access line for each request."""
    return make_app(tmp_path, TRUST_REQUEST_ID=True, ACCESS_LOG=True)


def _answers(app: Flask, path: str, **kwargs: Any) -> tuple[Any, Any]:
    """The poll as the app answers it, and as the Flask view alone answers it."""
    kwargs["headers"] = {"X-Request-Id": "poll-check-0001", **kwargs.get("headers", {})}
    polls: Any = app.wsgi_app  # behind the pages answered again (web/shell/echo.py)
    while not isinstance(polls, FastPolls):  # and the paths' one spelling (path_spelling.py)
        polls = polls.wsgi_app
    environ = {"REMOTE_ADDR": "127.0.0.1"}  # as the test client gives its requests
    # The app's own stack (what is in front of it, static files and compression, is the same
    # for both answers).
    fast = Client(app.wsgi_app).get(path, environ_base=environ, **kwargs)
    flask_only = Client(polls.wsgi_app).get(path, environ_base=environ, **kwargs)
    return fast, flask_only


def _same(app: Flask, path: str, **kwargs: Any) -> Any:
    fast, flask_only = _answers(app, path, **kwargs)
    assert fast.status_code == flask_only.status_code, path
    if fast.mimetype == "application/json":
        assert fast.get_data() == flask_only.get_data(), path
    else:  # a page: each request has its own CSRF token
        assert fast.get_data() != b"" and fast.mimetype == flask_only.mimetype == "text/html"
    assert sorted(fast.headers.keys()) == sorted(flask_only.headers.keys()), path
    if fast.status_code == 200:
        assert sorted(fast.headers.items()) == sorted(flask_only.headers.items()), path
    return fast


@pytest.fixture
def flask_requests(app: Flask) -> Iterator[list[str]]:
    """The paths of the requests that reached Flask."""
    seen: list[str] = []

    def record(_sender: Any, **_extra: Any) -> None:
        from flask import request

        seen.append(request.path)

    request_started.connect(record, app)
    yield seen
    request_started.disconnect(record, app)


def test_every_version_of_whole_lives_polls_alike(app: Flask, flask_requests: list[str]) -> None:
    db = connect(app.config["DATABASE"])
    rng = random.Random(7)
    asked = 0
    for life in range(3):
        created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(life))
        stream = capabilities.resolve(db, created.host_token)
        assert stream is not None
        seat = capabilities.issue(db, stream.stream_id, "seat", 1)
        links = (created.host_token, created.reader_token, seat)
        chronicle = chronicles.load(db, created.id)
        while True:
            for token in links:
                asked += 1
                fast = _same(app, f"/c/{token}/version")
                assert fast.get_json() == {
                    "version": chronicle.version,
                    "phase": chronicle.state.phase,
                    "drafts": drafts.signature(db, created.id),
                }
            if chronicle.state.ended:
                break
            policy = "always" if life % 2 else "never"
            command = next_command(chronicle.state, policy)
            chronicle = chronicles.execute(db, chronicle, [command], rng)
    # Only the Flask-only answers reached Flask: the app answered every poll in front of it.
    assert len(flask_requests) == asked > 500


def test_a_poll_says_every_change_of_the_drafts_as_the_view_does(app: Flask) -> None:
    """The poll reads the drafts' signature in the query that opens the link: it is the one the
    Flask view reads, it changes with every draft typed (shared, private, longer or newer), and
    words kept for a refused form are not drafts of the turn and leave it alone."""
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(2))
    token = created.host_token
    seen = []

    def polled() -> str:
        answer = _same(app, f"/c/{token}/version").get_json()
        assert answer["drafts"] == drafts.signature(db, created.id)
        return str(answer["drafts"])

    seen.append(polled())
    drafts.save(db, created.id, 1, "answer", "A first line")
    seen.append(polled())
    drafts.save(db, created.id, 1, "answer", "A first line, and more")
    seen.append(polled())
    drafts.save(db, created.id, 1, "stakes", "Mine alone", by="seat:1:x", private=True)
    seen.append(polled())
    assert len(set(seen)) == len(seen), seen
    drafts.keep(db, created.id, "seat:1:x", {"answer": "Words a refused form carried"})
    assert polled() == seen[-1]


def test_fast_answers_never_reach_flask(app: Flask, flask_requests: list[str]) -> None:
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(1))
    for _ in range(5):
        assert app.test_client().get(f"/c/{created.host_token}/version").status_code == 200
    assert flask_requests == []


def test_every_version_of_whole_matches_polls_alike(app: Flask) -> None:
    db = connect(app.config["DATABASE"])
    for game in ("traitors-flame", "age-of-summoners"):
        rng = random.Random(game)
        seats = [Seat("Ann"), Seat("Bo", "random")]
        sid, host = matches.create(db, game, seats, "devices", "en", seed=3)
        spectator = capabilities.issue(db, sid, "reader")
        match = matches.load(db, sid)
        for _ in range(400):
            for token in (host, spectator):
                assert _same(app, f"/t/{token}/version").get_json() == {"version": match.version}
            legal = match.game.legal_actions(match.state, 0)
            if not legal or match.game.result(match.state) is not None:
                break
            match = matches.act(db, match, 0, rng.choice(legal), match.version)


def test_what_the_fast_answers_leave_goes_on_to_flask(
    tmp_path: Path, flask_requests: list[str], app: Flask
) -> None:
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(1))
    sid, table = matches.create(
        db, "traitors-flame", [Seat("Ann"), Seat("Bo", "random")], "hotseat", "en"
    )
    revoked = capabilities.issue(db, created.id, "reader")
    capabilities.revoke(db, created.id, capabilities.hash_token(revoked))
    unsaid = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(2))
    db.execute("UPDATE streams SET status = NULL WHERE id = ?", [unsaid.id])
    db.conn.commit()
    cases = [
        f"/c/{UNKNOWN}/version",  # opens nothing: counted, 404
        f"/c/{revoked}/version",  # revoked
        f"/t/{created.host_token}/version",  # a chronicle's link under /t/
        f"/c/{table}/version",  # a table's link under /c/
        f"/c/{unsaid.host_token}/version",  # a header that has not said its phase
    ]
    for path in cases:
        flask_requests.clear()
        _same(app, path)
        assert flask_requests == [path, path], path  # the app passed it on, as the view alone
    assert _same(app, f"/c/{unsaid.host_token}/version").get_json()["phase"] == "draw"
    for path in (f"/c/{UNKNOWN}/version", f"/t/{created.host_token}/version"):
        assert _same(app, path, headers={"Accept": "application/json"}).status_code == 404


def test_a_host_the_server_does_not_answer_to_gets_flasks_refusal(tmp_path: Path) -> None:
    app = make_app(tmp_path, TRUSTED_HOSTS=["play.example"], TRUST_REQUEST_ID=True)
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(1))
    path = f"/c/{created.host_token}/version"
    refused = _same(app, path, headers={"Host": "evil.example"})
    assert refused.status_code == 400
    assert _same(app, path, headers={"Host": "play.example"}).status_code == 200


def test_a_fast_answer_is_counted_and_logged_as_the_views_answer_is(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(1))
    path = f"/c/{created.host_token}/version?seen=3"
    with caplog.at_level("INFO", logger="companion.access_log"):
        _same(app, path)
    lines = [r for r in caplog.records if r.name == "companion.access_log"]
    assert len(lines) == 2
    fast, flask_only = lines
    for field in ("method", "path", "route", "status", "remote"):
        assert getattr(fast, field) == getattr(flask_only, field), field
    assert fast.route == "chronicle.version" and fast.request_id == "poll-check-0001"


def test_fast_answers_give_their_connection_back(app: Flask) -> None:
    db = connect(app.config["DATABASE"])
    created = chronicles.create(db, simulation_setup(3, (3, 3, 3)), random.Random(1))
    client = app.test_client()
    for _ in range(50):
        assert client.get(f"/c/{created.host_token}/version").status_code == 200
    assert app.extensions["companion.db_pool"].connections(app.config["DATABASE"]) == 1
