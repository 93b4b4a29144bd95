"""The kit chronicles and card tables share: one error page for a link that opens nothing, a stale
version sent back to the page as it stands (409 in JSON), the version poll, and the cached live
fragment."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import create
from table_helpers import buttons, finish, load, new_table, page, refused, sheet

JSON = {"Accept": "application/json"}
UNKNOWN = "n0-such-link-n0-such-link-n0-such"
PATHS = [
    f"/c/{UNKNOWN}/",
    f"/c/{UNKNOWN}/story",
    f"/c/{UNKNOWN}/export.md",
    f"/c/{UNKNOWN}/export.json",
    f"/t/{UNKNOWN}/",
    f"/t/{UNKNOWN}/version",
]


@pytest.mark.parametrize("path", PATHS)
def test_a_link_that_opens_nothing_gets_one_page_in_the_readers_language(
    client: FlaskClient, path: str
) -> None:
    english = client.get(path, headers={"Accept": "text/html"})
    assert english.status_code == 404
    assert "it may be mistyped, revoked, or allowed to read only" in english.get_data(as_text=True)
    japanese = client.get(f"{path}?lang=ja", headers={"Accept": "text/html"})
    assert japanese.status_code == 404
    assert "打ち間違いか、無効にされたリンクか、読むだけのリンクです" in japanese.get_data(
        as_text=True
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_link_that_opens_nothing_answers_json_when_asked(client: FlaskClient, path: str) -> None:
    response = client.get(path, headers=JSON)
    assert response.status_code == 404
    body = response.get_json()
    assert body["code"] == "not-found"
    assert "revoked" in body["error"]


def test_a_read_only_link_that_tries_to_move_gets_the_same_page(
    client: FlaskClient, app: Flask
) -> None:
    host = new_table(client, "traitors-flame", mode="devices", **two_people())
    spectator = sheet_tokens(client, host)[-1]
    sent = client.post(f"/t/{spectator}/act", data={"version": "1", "action": "{}"})
    assert "allowed to read only" in refused(client, sent)  # its own page says so
    asked = client.post(f"/t/{spectator}/act", data={"version": "1", "action": "{}"}, headers=JSON)
    assert asked.status_code == 404 and "allowed to read only" in asked.get_json()["error"]


def test_a_stale_move_at_a_table_is_409_in_json_when_asked(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "traitors-flame")
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    match = load(app, token)
    action = json.dumps(buttons(page(client, f"/t/{token}/"))[0])
    stale = {"version": str(match.version - 1), "action": action}
    answer = client.post(f"/t/{token}/act", data=stale, headers=JSON)
    assert answer.status_code == 409
    assert answer.get_json() == {
        "error": "Someone moved first; the table now shows the new state.",
        "code": "stale-version",
        "version": match.version,
    }
    shown = refused(client, client.post(f"/t/{token}/act", data=stale))
    assert "Someone moved first" in shown
    assert load(app, token).version == match.version


@pytest.mark.parametrize("version", ["x", "", "1.0", " 1", "9" * 100_000])
def test_an_unreadable_version_is_a_stale_move(
    client: FlaskClient, app: Flask, version: str
) -> None:
    token = new_table(client, "traitors-flame")
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    match = load(app, token)
    action = json.dumps(buttons(page(client, f"/t/{token}/"))[0])
    answer = client.post(
        f"/t/{token}/act", data={"version": version, "action": action}, headers=JSON
    )
    assert answer.status_code == 409
    assert answer.get_json()["code"] == "stale-version"
    assert load(app, token).version == match.version


def test_a_stale_rematch_is_409_with_the_table_as_it_stands(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame")
    over = finish(app, token)
    stale = {"version": str(over.version - 1)}
    answer = client.post(f"/t/{token}/rematch", data=stale, headers=JSON)
    assert answer.status_code == 409
    assert answer.get_json() == {
        "error": "Someone moved first; the table now shows the new state.",
        "code": "stale-version",
        "version": over.version,
    }
    text = refused(client, client.post(f"/t/{token}/rematch", data=stale))
    assert "Someone moved first" in text and 'class="result-panel"' in text
    assert load(app, token).number == 1
    dealt = client.post(f"/t/{token}/rematch", data={"version": str(over.version)})
    assert dealt.status_code == 302 and load(app, token).number == 2


def test_a_rematch_while_the_match_runs_is_refused(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "age-of-summoners")
    version = load(app, token).version
    answer = client.post(f"/t/{token}/rematch", data={"version": str(version)}, headers=JSON)
    assert answer.status_code == 409
    assert answer.get_json() == {"error": "The match is still being played.", "code": "refused"}
    assert load(app, token).version == version


def test_a_refused_move_at_a_table_is_400_in_json_when_asked(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame")
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    version = load(app, token).version
    unreadable = {"version": str(version), "action": "not an action"}
    answer = client.post(f"/t/{token}/act", data=unreadable, headers=JSON)
    assert answer.status_code == 400
    assert answer.get_json() == {"error": "That action could not be read.", "code": "refused"}
    assert load(app, token).version == version


def test_a_stale_chronicle_form_is_409_in_json_when_asked(client: FlaskClient) -> None:
    token = create(client)
    version = client.get(f"/c/{token}/version").get_json()["version"]
    answer = client.post(
        f"/c/{token}/turn", data={"version": str(version - 1), "action": "draw"}, headers=JSON
    )
    assert answer.status_code == 409
    body = answer.get_json()
    assert body["code"] == "stale-version" and body["version"] == version and body["error"]
    assert body["kept"] == {}


def test_the_table_fragment_is_rendered_once_per_version_and_viewer(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flask import template_rendered

    rendered: list[str] = []

    def counting(_sender: Any, template: Any, **_extra: Any) -> None:
        rendered.append(template.name)

    host = new_table(client, "traitors-flame", mode="devices", **two_people())
    ann, bo, spectator = sheet_tokens(client, host)
    template_rendered.connect(counting, app)
    try:
        for token in (host, host, ann, ann, spectator):
            page(client, f"/t/{token}/?fragment=1")
    finally:
        template_rendered.disconnect(counting, app)
    assert rendered == ["tables/_live.html"] * 3  # host, Ann, spectator: once each
    first = load(app, host).acting_seats()[0]
    acting, waiting = (ann, bo) if first == 0 else (bo, ann)
    assert buttons(page(client, f"/t/{acting}/?fragment=1"))
    assert not buttons(page(client, f"/t/{waiting}/?fragment=1"))


def test_the_table_fragment_follows_the_readers_language(client: FlaskClient) -> None:
    host = new_table(client, "traitors-flame")
    english = page(client, f"/t/{host}/?fragment=1&lang=en")
    japanese = page(client, f"/t/{host}/?fragment=1&lang=ja")
    assert "Game log" in english and "Game log" not in japanese


def test_the_version_poll_answers_the_current_version(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "traitors-flame")
    assert client.get(f"/t/{token}/version").get_json() == {"version": load(app, token).version}


def two_people() -> dict[str, str]:
    return {
        "seat-0-kind": "person",
        "seat-0-name": "Ann",
        "seat-1-kind": "person",
        "seat-1-name": "Bo",
    }


def sheet_tokens(client: FlaskClient, host: str) -> list[str]:
    """Make everyone's links on the table's sheet: the seats' tokens, then the spectators'."""
    import re

    text = sheet(client, f"/t/{host}/links", {"issue": "everyone"})
    return re.findall(r"<code>https?://[^/]+/t/([^/]+)/</code>", text)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_api_says_why_a_link_opens_nothing_as_the_pages_do(
    client: FlaskClient, lang: str
) -> None:
    page = client.get(f"/c/{UNKNOWN}/?lang={lang}", headers=JSON).get_json()
    for path in (f"/api/v1/chronicles/{UNKNOWN}/state", f"/api/v1/chronicles/{UNKNOWN}/story"):
        answer = client.get(f"{path}?lang={lang}")
        assert answer.status_code == 404
        assert answer.get_json() == page == {"error": page["error"], "code": "not-found"}
