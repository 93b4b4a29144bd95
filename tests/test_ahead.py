"""Pages made ahead (``companion.web.shell.ahead``): after a write, the process that wrote it makes
the pages its visitors have been asking, so every worker's first ask after the change is a hit;
what one link can make it note and make is bounded.

Two apps on one database stand for two workers; runs on SQLite and on the shared store.
"""

from __future__ import annotations

import re
import tracemalloc
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import another_worker, chronicle, create, post_turn, rendered_by, with_reader

from companion.store import capabilities, signal
from companion.store.db import connect
from companion.web.shell import ahead as ahead_module
from companion.web.shell.ahead import CHANGES, STREAMS, Ahead

CSRF = re.compile(r'name="csrf_token" value="[^"]*"|data-csrf="[^"]*"')


def _draw(client: FlaskClient, app: Flask, token: str) -> None:
    state = chronicle(app, token).state
    response = post_turn(client, app, token, action="draw", card=state.pile_cards(state.pile)[0])
    assert response.status_code == 302


def _ahead(app: Flask) -> Ahead:
    ahead = app.extensions["companion.ahead"]
    assert isinstance(ahead, Ahead)
    return ahead


def test_a_second_worker_s_first_ask_after_a_change_is_a_hit(
    app: Flask, client: FlaskClient
) -> None:
    token, _stream_id, reader = with_reader(client, app)
    asked = [f"/c/{token}/", f"/c/{token}/?fragment=1", f"/c/{reader}/", f"/c/{reader}/?lang=ja"]
    client.get(asked[0])  # shows the message the setup left: a page never kept
    before = {path: client.get(path).get_data(as_text=True) for path in asked}
    other = another_worker(app)
    _draw(client, app, token)  # the first worker writes the change, and makes its pages
    with rendered_by(other) as names:
        after = {path: other.test_client().get(path).get_data(as_text=True) for path in asked}
    assert names == [], "the second worker rendered a page made ahead"
    with rendered_by(app) as names:
        again = {path: client.get(path).get_data(as_text=True) for path in asked}
    assert names == []
    for path in asked:
        assert after[path] != before[path], path  # the change is on it
        assert CSRF.sub("", after[path]) == CSRF.sub("", again[path]), path
    assert 'lang="ja"' in after[f"/c/{reader}/?lang=ja"]
    assert token not in after[f"/c/{reader}/"] and reader in after[f"/c/{reader}/"]


def test_a_page_is_made_in_the_language_its_visitor_had(app: Flask, client: FlaskClient) -> None:
    token = create(client)
    headers = {"Accept-Language": "ja"}
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    assert 'lang="ja"' in client.get(f"/c/{token}/", headers=headers).get_data(as_text=True)
    _draw(client, app, token)
    other = another_worker(app)
    with rendered_by(other) as names:
        page = other.test_client().get(f"/c/{token}/", headers=headers).get_data(as_text=True)
    assert names == [] and 'lang="ja"' in page


def test_a_page_not_asked_again_is_forgotten_after_a_few_changes(
    app: Flask, client: FlaskClient
) -> None:
    token = create(client)
    stream_id = chronicle(app, token).id
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    client.get(f"/c/{token}/?fragment=1")
    ahead = _ahead(app)
    made = []
    with app.test_request_context():
        for _ in range(CHANGES + 2):  # its own making does not count as asking
            made.append(ahead.make([stream_id]))
    assert made == [1] * CHANGES + [0, 0]
    assert ahead.noted(stream_id) == []
    app.test_client().get(f"/c/{token}/?fragment=1")  # asked again: noted again
    assert len(ahead.noted(stream_id)) == 1


def test_what_one_link_can_make_a_process_note_and_make_is_bounded(
    app: Flask, client: FlaskClient
) -> None:
    """A reader's link asks its page in every way a query lets it (and some it does not), under
    many host names: the process notes at most AHEAD_PAGES pages of the stream, and a change
    makes at most that many."""
    bound = int(app.config["AHEAD_PAGES"])
    token = create(client)
    stream_id = chronicle(app, token).id
    reader = capabilities.issue(connect(app.config["DATABASE"]), stream_id, "reader", None)
    stranger = app.test_client()
    queries = ["", "?fragment=1", "?lang=en", "?lang=ja", "?fragment=1&lang=ja", "?v=3", "?x=1"]
    for n in range(3 * bound):
        for query in queries:
            path = f"/c/{reader}/{query}"
            response = stranger.get(path, headers={"Host": f"h{n}.example"})
            assert response.status_code == 200
    noted = _ahead(app).noted(stream_id)
    assert len(noted) == bound
    assert all(
        page.environ["QUERY_STRING"]
        in ("", "fragment=1", "lang=en", "lang=ja", "fragment=1&lang=ja")
        for page in noted
    )
    with rendered_by(app) as names:
        _draw(client, app, token)
    wholes = [n for n in names if n in ("chronicle/play.html", "chronicle/_live.html")]
    assert 0 < len(wholes) <= bound + 1  # ahead, and the writer's own redirect is not asked


def test_a_revoked_link_s_pages_are_not_made_and_are_forgotten(
    app: Flask, client: FlaskClient
) -> None:
    token, stream_id, reader = with_reader(client, app)
    db = connect(app.config["DATABASE"])
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    client.get(f"/c/{reader}/")
    client.get(f"/c/{token}/")
    assert len(_ahead(app).noted(stream_id)) == 2
    capabilities.revoke(db, stream_id, capabilities.hash_token(reader))
    _draw(client, app, token)
    assert [page.environ["PATH_INFO"] for page in _ahead(app).noted(stream_id)] == [f"/c/{token}/"]


def test_the_pages_noted_at_their_bound_take_under_two_mib(app: Flask) -> None:
    """What a process notes is bounded by counts (``AHEAD_PAGES`` a stream, ``STREAMS``
    streams): at their defaults, with hosts' longest names, it stays under 2 MiB (README)."""
    ahead = Ahead(app, int(app.config["AHEAD_PAGES"]))
    host = "h" * 253  # the longest host name
    with app.test_request_context("/", headers={"Host": host}) as ctx:
        outer = dict(ctx.request.environ)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for stream in range(STREAMS + 10):
            for page in range(ahead.per_stream + 2):
                environ = {**outer, "PATH_INFO": f"/c/{'t' * 43}{page:03d}/", "QUERY_STRING": ""}
                ahead.seen(f"{stream:016x}", 1, environ, "ja")
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert sum(len(ahead.noted(f"{s:016x}")) for s in range(STREAMS + 10)) == (
        STREAMS * ahead.per_stream
    )
    assert held < 2 * 1024 * 1024, held


@pytest.mark.sqlite_only
def test_a_page_that_fails_to_be_made_ahead_costs_the_writer_nothing(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """The change is written: the writer has its answer and every process hears of it, with a
    line in the log, whatever went wrong making its pages."""
    token = create(client)
    client.get(f"/c/{token}/")  # shows the message the setup left: a page never kept
    client.get(f"/c/{token}/")
    version = chronicle(app, token).version
    told: list[str] = []
    monkeypatch.setattr(signal, "send_local", lambda _db, stream: told.append(stream) or 1)

    def broken(_stream_id: str) -> int:
        raise RuntimeError("the store went away")

    monkeypatch.setattr(ahead_module, "_version", broken)
    _draw(client, app, token)
    assert chronicle(app, token).version == version + 1
    assert told == [chronicle(app, token).id]
    assert "were not made ahead" in caplog.text
