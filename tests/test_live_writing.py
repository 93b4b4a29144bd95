"""The live view of a turn being written: the version answer changes as anyone types, every
other page says who is writing and (unless the group turned it off at set-up) shows the words,
read-only; with the choice off, no other page, fragment or API answer holds them."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import SETUP_FORM, chronicle, create, faces, post_turn

from companion.legacy import event_from_dict, event_to_dict, new_chronicle
from companion.legacy.setup import placeholder_keystones
from companion.store import capabilities
from companion.store.db import connect

WORDS = "灯台の灯が、嵐の中で揺れていた。"


def links(app: Flask, token: str) -> dict[str, str]:
    db = connect(app.config["DATABASE"])
    sid = chronicle(app, token).id
    return {
        "ali": capabilities.issue(db, sid, "seat", 0),
        "brianna": capabilities.issue(db, sid, "seat", 1),
        "reader": capabilities.issue(db, sid, "reader"),
    }


def typed(client: FlaskClient, app: Flask, token: str, field: str, text: str) -> Any:
    state = chronicle(app, token).state
    data = {"field": field, "text": text, "turn": str(state.turn_no), "version": str(state.version)}
    answer = client.post(f"/c/{token}/draft", data=data)
    assert answer.status_code == 200 and answer.get_json()["saved"] is True
    return answer.get_json()


def page(client: FlaskClient, token: str, fragment: bool = False) -> str:
    suffix = "?fragment=1" if fragment else ""
    return html.unescape(client.get(f"/c/{token}/{suffix}").get_data(as_text=True))


def at_success(client: FlaskClient, app: Flask, **setup: str) -> tuple[str, dict[str, str]]:
    token = create(client, **setup)
    post_turn(client, app, token, action="draw", card="AH")
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(client, app, token, action="roll", **fields, **faces(4, True))
    assert chronicle(app, token).state.step == "success"
    return token, links(app, token)


def test_the_version_answer_changes_as_a_draft_is_typed(client: FlaskClient, app: Flask) -> None:
    token, seats = at_success(client, app)
    before = client.get(f"/c/{token}/version").get_json()
    saved = typed(client, app, seats["ali"], "narration", WORDS)
    after = client.get(f"/c/{token}/version").get_json()
    assert after["version"] == before["version"] and after["drafts"] != before["drafts"]
    assert saved["drafts"] == after["drafts"]  # the writer's page knows its own change
    typed(client, app, seats["ali"], "narration", WORDS + "波が")
    assert client.get(f"/c/{token}/version").get_json()["drafts"] != after["drafts"]


def test_every_other_page_shows_who_writes_and_the_words(client: FlaskClient, app: Flask) -> None:
    token, seats = at_success(client, app)
    typed(client, app, seats["ali"], "narration", WORDS)
    for viewer in (seats["reader"], seats["brianna"]):
        shown = page(client, viewer, fragment=True)
        assert "Ali is writing…" in shown and WORDS in shown
        assert 'class="writing"' in shown and f">{WORDS}</textarea>" not in shown  # read-only
    host = page(client, token)
    assert "Ali is writing…" in host and f">{WORDS}</textarea>" in host  # the host may send them
    assert "is writing" not in page(client, seats["ali"])  # the writer is not told of itself


def test_the_host_typing_for_the_player_is_said_so(client: FlaskClient, app: Flask) -> None:
    token, seats = at_success(client, app)
    typed(client, app, token, "narration", WORDS)
    assert "The host is writing for Ali…" in page(client, seats["reader"])


def test_with_the_choice_off_no_other_page_holds_the_words(client: FlaskClient, app: Flask) -> None:
    token, seats = at_success(client, app, show_writing="off")
    assert chronicle(app, token).state.setup.show_writing is False
    typed(client, app, seats["ali"], "narration", WORDS)
    for viewer in (token, seats["reader"], seats["brianna"]):
        for shown in (page(client, viewer), page(client, viewer, fragment=True)):
            assert WORDS not in shown and "Ali is writing…" in shown
    for viewer in (token, seats["reader"]):
        for path in ("state", "story"):
            answer = client.get(f"/api/v1/chronicles/{viewer}/{path}").get_data(as_text=True)
            assert WORDS not in json.loads(answer).__repr__()
    assert f">{WORDS}</textarea>" in page(client, seats["ali"])  # the writer's own page keeps them
    typed(client, app, token, "narration", "ホストの語り")
    assert "ホストの語り" not in page(client, seats["ali"])
    assert f">{WORDS}</textarea>" in page(client, seats["ali"])  # nobody's draft overwrote it


def test_the_words_are_in_the_compose_form_of_the_others_read_only(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    seats = links(app, token)
    post_turn(client, app, token, action="draw", card="AH")
    typed(client, app, seats["ali"], "answer", WORDS)
    reader = page(client, seats["reader"])
    assert f'name="answer" rows="6" data-draft data-preview readonly>{WORDS}</textarea>' in reader
    assert "Ali is writing…" in reader


@pytest.mark.parametrize(("sent", "kept"), [(None, True), ("on", True), ("off", False)])
def test_the_set_up_choice_is_stored_on_by_default(
    client: FlaskClient, app: Flask, sent: str | None, kept: bool
) -> None:
    form: dict[str, Any] = dict(SETUP_FORM)
    if sent is not None:  # the page sends "off" then, ticked, "on"
        form["show_writing"] = ["off", "on"] if sent == "on" else ["off"]
    response = client.post("/new", data=form)
    token = response.headers["Location"].split("/c/")[1].split("/")[0]
    assert chronicle(app, token).state.setup.show_writing is kept
    box = client.get("/new").get_data(as_text=True)
    assert 'name="show_writing" value="on" checked' in box


def test_a_chronicle_begun_before_the_choice_reads_as_on() -> None:
    import random

    from companion.legacy.setup import Setup

    setup = Setup("Kaya", "", ("Ali",), 0, placeholder_keystones(), {c: ("p",) for c in _cards()})
    started = event_to_dict(new_chronicle(setup, random.Random(1))[0])
    del started["setup"]["show_writing"]
    assert event_from_dict(started).setup.show_writing is True  # type: ignore[attr-defined]


def _cards() -> list[str]:
    from companion.legacy.cards import CARDS

    return list(CARDS)


def pushed_part(app: Flask, token: str) -> tuple[bytes, list[tuple[str, str]]]:
    """The ``part`` event a live feed of ``token``'s play page pushes now, made as a worker
    makes it (an internal request with no cookie), and the headers that request was answered
    with."""
    from companion.live import feed as live
    from companion.web.shell.render_cache import live_parts

    outer = {"SERVER_NAME": "localhost", "SERVER_PORT": "80", "HTTP_HOST": "localhost"}
    outer |= {"wsgi.url_scheme": "http", "REMOTE_ADDR": "127.0.0.1"}
    version = live._environ(outer, f"/c/{token}/version", "")
    environ = live._environ(outer, f"/c/{token}/", "")
    environ.update(QUERY_STRING="fragment=1", HTTP_ACCEPT="text/html")
    said: list[tuple[str, str]] = []

    def start(_status: str, headers: list[tuple[str, str]], *_rest: Any) -> Any:
        said.extend(headers)
        return lambda _data: None

    with app.app_context():
        b"".join(app.wsgi_app(dict(environ, **{"wsgi.input": version["wsgi.input"]}), start))
    part = live.Part(f"/c/{token}/?fragment=1", live_parts)
    made = live.Pushed(part, environ, "key").event(app, live.ask(app, version))
    assert made is not None, "the part is pushed, not left to a fetch"
    return made, said


def test_a_pushed_part_holds_only_its_own_role_s_words_and_no_link_or_session(
    client: FlaskClient, app: Flask
) -> None:
    token, seats = at_success(client, app, show_writing="off")
    typed(client, app, seats["ali"], "narration", WORDS)
    viewers = {"ali": seats["ali"], "host": token, **seats}  # the writer's own part made first
    events = {}
    for name, link in viewers.items():
        events[name], headers = pushed_part(app, link)
        # an internal render seals no session: no cookie is made that no browser receives
        assert not [value for header, value in headers if header.lower() == "set-cookie"], name
    words = json.dumps(WORDS, ensure_ascii=False)[1:-1].encode()
    assert words in events["ali"]
    for name in ("host", "brianna", "reader"):
        assert words not in events[name], f"{name}'s part holds another seat's words"
    every_token = [token, *seats.values()]
    for name, event in events.items():
        for secret in every_token:
            assert secret.encode() not in event, f"{name}'s part holds a link"
    keys = repr(list(app.extensions["companion.render_cache"].keys()))
    assert len(app.extensions["companion.render_cache"]) >= len(viewers)  # one per role
    assert not [secret for secret in every_token if secret in keys]


def test_a_change_s_parts_are_rendered_once_for_every_worker(
    client: FlaskClient, app: Flask
) -> None:
    """Two workers on one store push the same parts after a change; the second renders none of
    them, it reads what the first kept (``companion.store.rendered``), and its events are the
    same bytes (no secret of either process is in them)."""
    from flask import template_rendered

    from companion.app import create_app

    token, seats = at_success(client, app, show_writing="off")
    typed(client, app, seats["ali"], "narration", WORDS)
    viewers = {"host": token, **seats}
    first = {name: pushed_part(app, link)[0] for name, link in viewers.items()}
    second_worker = create_app(dict(app.config))
    rendered: list[str] = []

    def heard(_sender: Flask, template: Any, **_extra: Any) -> None:
        rendered.append(str(template.name))

    template_rendered.connect(heard, second_worker)
    try:
        second = {name: pushed_part(second_worker, link)[0] for name, link in viewers.items()}
    finally:
        template_rendered.disconnect(heard, second_worker)
    assert rendered == [], "the second worker rendered a part again"
    assert second == first
    assert len(set(first.values())) == len(viewers)  # each role and seat its own part
