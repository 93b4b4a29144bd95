"""Capabilities: who may write, who may only read, and what a wrong or revoked link sees."""

from __future__ import annotations

import re

import pytest
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import SETUP_FORM, chronicle, create, post_turn, refused_page
from table_helpers import sheet

from companion.store import capabilities
from companion.store.db import connect

JSON = {"Accept": "application/json"}
SCRIPT_ROUTES = ("/draft",)  # posted by the page's script, which reads the status
WRITE_ROUTES = [
    ("/turn", {"action": "draw", "card": "AH"}),
    ("/undo", {}),
    ("/draft", {"field": "answer", "text": "x"}),
    ("/revise", {"target_seq": "1", "field": "answer", "text": "x"}),
    ("/epilogue", {"epilogue": "x"}),
    ("/links", {"issue": "reader"}),
]


def links(app: Flask, token: str) -> dict[str, str]:
    """A reader token and a seat-1 token for the chronicle of ``token``."""
    db = connect(app.config["DATABASE"])
    cap = capabilities.resolve(db, token)
    assert cap is not None
    return {
        "reader": capabilities.issue(db, cap.stream_id, "reader"),
        "seat": capabilities.issue(db, cap.stream_id, "seat", 1),
    }


def with_version(app: Flask, token: str, data: dict[str, str]) -> dict[str, str]:
    return {"version": str(chronicle(app, token).version), **data}


@pytest.mark.parametrize(("route", "data"), WRITE_ROUTES)
def test_unknown_link_gets_404_on_every_write(client: FlaskClient, route: str, data: dict) -> None:
    response = client.post(f"/c/not-a-real-token-at-all{route}", data=data)
    if route in SCRIPT_ROUTES:  # the page's script gets its answer, never a page
        assert response.status_code == 404
    else:  # a form: to the link's page, which says it opens nothing
        assert response.status_code == 303
        assert client.get(response.headers["Location"]).status_code == 404
    asked = client.post(f"/c/not-a-real-token-at-all{route}", data=data, headers=JSON)
    assert asked.status_code == 404 and asked.get_json()["code"] == "not-found"


@pytest.mark.parametrize(("route", "data"), WRITE_ROUTES)
def test_read_only_link_cannot_write(
    client: FlaskClient, app: Flask, route: str, data: dict
) -> None:
    token = create(client)
    reader = links(app, token)["reader"]
    before = chronicle(app, token).version
    response = client.post(f"/c/{reader}{route}", data=with_version(app, token, data))
    if route in SCRIPT_ROUTES:
        assert response.status_code == 404
    else:
        assert response.status_code == 303 and response.headers["Location"] == f"/c/{reader}/"
    asked = client.post(f"/c/{reader}{route}", data=with_version(app, token, data), headers=JSON)
    assert asked.status_code == 404
    assert chronicle(app, token).version == before


@pytest.mark.parametrize(("route", "data"), WRITE_ROUTES)
def test_revoked_link_is_the_same_404(
    client: FlaskClient, app: Flask, route: str, data: dict
) -> None:
    token = create(client)
    client.get("/")  # show the creation's flash, so both 404 pages are alike
    seat = links(app, token)["seat"]
    db = connect(app.config["DATABASE"])
    capabilities.revoke(db, chronicle(app, token).id, capabilities.hash_token(seat))
    response = client.post(f"/c/{seat}{route}", data=with_version(app, token, data))
    if route in SCRIPT_ROUTES:
        shown, unknown = response, client.post(f"/c/nonexistent{route}", data=data)
    else:
        assert response.status_code == 303
        shown = client.get(response.headers["Location"])
        unknown = client.get(client.post(f"/c/nonexistent{route}", data=data).headers["Location"])
    assert shown.status_code == 404 and unknown.status_code == 404
    assert without_paths(shown.get_data(as_text=True)) == without_paths(
        unknown.get_data(as_text=True)
    )


def without_paths(html: str) -> str:
    """The page without the request path (in the language switch's return address) and the CSRF
    token (it carries a timestamp, so two pages a second apart differ there)."""
    html = re.sub(r'name="next" value="[^"]*"', "", html)
    return re.sub(r'name="csrf_token" value="[^"]*"', "", html)


@pytest.mark.parametrize(("route", "data"), WRITE_ROUTES)
def test_every_write_needs_a_csrf_token(tmp_path, route: str, data: dict) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    page = client.get("/new").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    response = client.post("/new", data={**SETUP_FORM, "csrf_token": csrf})
    token = response.headers["Location"].split("/c/")[1].split("/")[0]
    before = chronicle(app, token).version
    refused = client.post(f"/c/{token}{route}", data=with_version(app, token, data))
    if route in SCRIPT_ROUTES:
        assert refused.status_code == 400
    else:
        assert refused.status_code == 303 and refused.headers["Location"] == f"/c/{token}/"
        assert "nothing was sent" in client.get(f"/c/{token}/").get_data(as_text=True)
    asked = client.post(f"/c/{token}{route}", data=with_version(app, token, data), headers=JSON)
    assert asked.status_code == 400
    assert chronicle(app, token).version == before


def test_reader_sees_the_table_without_forms(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    reader = links(app, token)["reader"]
    html = client.get(f"/c/{reader}/").get_data(as_text=True)
    assert "read-only" in html
    assert 'value="draw"' not in html
    assert client.get(f"/c/{reader}/links").status_code == 404


def test_a_seat_link_acts_only_on_its_own_turn(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    seat = links(app, token)["seat"]  # Brianna, seat 1; Ali (seat 0) starts
    refused = client.post(
        f"/c/{seat}/turn", data=with_version(app, token, {"action": "draw", "card": "AH"})
    )
    assert "Ali" in refused_page(client, refused)
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        answer="a",
        stakes_success="s",
        stakes_failure="f",
        **{"face-0": "6", "face-1": "1", "face-2": "1", "face-3": "1"},
    )
    post_turn(client, app, token, action="narrate")
    ok = client.post(
        f"/c/{seat}/turn", data=with_version(app, token, {"action": "draw", "card": "6H"})
    )
    assert ok.status_code == 302
    assert chronicle(app, token).state.check.card == "6H"


def test_host_can_revoke_and_reissue_links(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    page = sheet(client, f"/c/{token}/links", {"issue": "seat-1"})
    new = re.search(r"/c/([A-Za-z0-9_-]{30,})/", page.split("New link for")[1]).group(1)  # type: ignore[union-attr]
    assert client.get(f"/c/{new}/").status_code == 200
    hashes = re.findall(
        r'name="revoke" value="([0-9a-f]{64})"',
        client.get(f"/c/{token}/links").get_data(as_text=True),
    )
    for value in hashes:
        client.post(f"/c/{token}/links", data={"revoke": value})
    assert client.get(f"/c/{new}/").status_code == 404


def test_guessing_links_is_rate_limited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path, RATELIMIT_GUESS=5)
    client = app.test_client()
    statuses = [client.get(f"/c/guess-{i}/").status_code for i in range(8)]
    assert statuses[:5] == [404] * 5
    assert statuses[5:] == [429] * 3


def test_creating_chronicles_is_rate_limited(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path, RATELIMIT_CREATE=2)
    client = app.test_client()
    statuses = [client.post("/new", data=SETUP_FORM).status_code for _ in range(3)]
    assert statuses == [302, 302, 429]
