"""The JSON API through the Flask test client: a whole life, refusals, links, hidden piles."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient

from companion.legacy import CARDS
from companion.store import capabilities
from companion.store import events as store
from companion.store.db import connect
from companion.streams import chronicles
from companion.web.api.openapi import document as openapi

SETUP: dict[str, Any] = {
    "pioneer": {"name": "Kaya Wren", "people": "human", "concept": "A cartographer."},
    "players": ["Ali", "Brianna", "Cardon"],
    "oldest": 0,
    "keystones": [
        {"kind": "resource", "name": "The Tern", "description": "a small boat"},
        {"kind": "resource", "name": "The Old Maps"},
        {"kind": "attachment", "name": "Sister Ide"},
        {"kind": "creed", "name": "Maps must be true"},
    ],
    "language": "en",
    "mode": "table",
}


COMPONENTS = openapi.document()["components"]


def conforms(data: Any, name: str) -> bool:
    """Whether ``data`` matches the OpenAPI document's schema ``name`` (raises with the reason)."""
    schema = {"$ref": f"#/components/schemas/{name}", "components": COMPONENTS}
    jsonschema_rs.Draft202012Validator(schema).validate(data)
    return True


def create(client: FlaskClient, **overrides: Any) -> dict[str, Any]:
    """Create a chronicle through the API; returns the 201 body."""
    response = client.post("/api/v1/chronicles", json={**SETUP, **overrides})
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def get_state(client: FlaskClient, token: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/chronicles/{token}/state")
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def post(client: FlaskClient, token: str, version: int, *commands: dict[str, Any]) -> Any:
    """Post the commands (one as ``command``, several as ``commands``) at ``version``."""
    body: dict[str, Any] = {"version": version}
    if len(commands) == 1:
        body["command"] = commands[0]
    else:
        body["commands"] = list(commands)
    return client.post(f"/api/v1/chronicles/{token}/commands", json=body)


def events(app: Flask, chronicle_id: str) -> list[store.StoredEvent]:
    db = connect(app.config["DATABASE"])
    try:
        return store.load_events(db, chronicle_id)
    finally:
        db.conn.close()


def legal(state: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((entry for entry in state["legal"] if entry["type"] == kind), None)


def faces(dice: int, hit: bool) -> list[int]:
    return [6 if hit and i == 0 else 1 for i in range(dice)]


def compose(state: dict[str, Any], hit: bool) -> list[dict[str, Any]]:
    """Choose, answer, declare and roll: one atomic batch."""
    return [
        {"type": "choose-prompt", "index": 0},
        {"type": "answer-prompt", "answer": f"An answer for {state['check']['card']}."},
        {"type": "declare-stakes", "success": "It holds.", "failure": "It breaks."},
        {"type": "roll-dice", "faces": faces(state["stage"]["dice"], hit)},
    ]


class Player:
    """Plays a table-mode life through the API, choosing from the state's ``legal`` list."""

    def __init__(self) -> None:
        self.moves = 0
        self.sacrificed = 0
        self.lost = False

    def commands(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        self.moves += 1
        step = state["step"]
        if step == "draw":
            return [{"type": "draw-card", "card": legal(state, "draw-card")["options"]["cards"][0]}]
        if step == "choose":
            return compose(state, hit=self.moves % 5 != 0)
        if step == "reroll":
            return [{"type": "roll-dice", "faces": faces(state["stage"]["dice"], True)}]
        if step == "mark":
            return [{"type": "build-mark", "name": f"Mark {len(state['marks']) + 1}"}]
        if step == "success":
            return self.success(state)
        if step == "failure":
            return self.failure(state)
        raise AssertionError(f"unexpected step {step}")

    def success(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        loss = legal(state, "record-loss")
        if not self.lost and loss and state["stage"]["index"] == 1:
            self.lost = True
            keystone = loss["options"]["keystones"][-1]
            return [{"type": "record-loss", "keystone": keystone, "narration": "The fire took it."}]
        return [{"type": "narrate-success", "narration": "Through."}]

    def failure(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        if legal(state, "spend-token"):
            return [{"type": "spend-token"}]
        sacrifice = legal(state, "sacrifice-keystone")
        if sacrifice and self.sacrificed < 2:
            self.sacrificed += 1
            keystone = sacrifice["options"]["keystones"][0]
            return [
                {
                    "type": "sacrifice-keystone",
                    "keystone": keystone,
                    "why": "Why.",
                    "outcome": "So.",
                }
            ]
        return [{"type": "accept-failure", "narration": "It broke."}]


def play_to_the_end(client: FlaskClient, token: str) -> dict[str, Any]:
    """Play until the life ends; returns the final state."""
    player = Player()
    state = get_state(client, token)
    for _ in range(400):
        if state["ended"]:
            return state
        response = post(client, token, state["version"], *player.commands(state))
        assert response.status_code == 200, response.get_json()
        state = response.get_json()
        assert conforms(state, "State")
    raise AssertionError("the life did not end")


def test_create_returns_the_links_once_and_the_state(client: FlaskClient) -> None:
    body = create(client)
    assert set(body) == {"id", "host_token", "reader_token", "links", "state"}
    assert body["links"]["host"].endswith(f"/c/{body['host_token']}/")
    state = body["state"]
    assert state["id"] == body["id"] and state["version"] == 1
    assert state["you"] == {"role": "host", "seat": None, "can_act": True}
    assert [p["name"] for p in state["players"]] == SETUP["players"]
    assert [k["id"] for k in state["keystones"]] == ["r1", "r2", "a1", "c1"]
    assert (state["phase"], state["step"], state["seat"], state["pile"]) == (
        "draw",
        "draw",
        0,
        "hearts-low",
    )
    assert body["host_token"] not in json.dumps(state)


def test_create_defaults(client: FlaskClient) -> None:
    response = client.post(
        "/api/v1/chronicles", json={"pioneer": {"name": "Solo"}, "players": ["Ann"]}
    )
    state = response.get_json()["state"]
    assert response.status_code == 201
    assert (state["mode"], state["language"], state["pack"]) == ("digital", "en", "standard")
    kinds = [k["kind"] for k in state["keystones"]]
    assert kinds == ["resource"] * 3 + ["attachment"] * 3 + ["creed"] * 3


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**SETUP, "players": ["Ali", "ali"]}, "players"),
        ({**SETUP, "pioneer": {"name": " "}}, "pioneer.name"),
        ({**SETUP, "oldest": 7}, "oldest"),
        ({**SETUP, "pack": "no-such-pack"}, "pack"),
        ({**SETUP, "mode": "sideways"}, "mode"),
    ],
)
def test_create_refuses_a_bad_setup_field_by_field(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    response = client.post("/api/v1/chronicles", json=body)
    data = response.get_json()
    assert response.status_code == 400
    assert data["code"] == "bad-setup" and field in data["fields"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        [],
        {"pioneer": "Kaya", "players": ["A"]},
        {**SETUP, "players": "Ali"},
        {**SETUP, "players": [1, 2]},
        {**SETUP, "players": ["A"] * 9},
        {**SETUP, "players": ["Ali", ""]},
        {**SETUP, "oldest": True},
        {**SETUP, "oldest": "0"},
        {**SETUP, "keystones": {"kind": "creed"}},
        {**SETUP, "keystones": [{"kind": "virtue", "name": "x"}]},
        {**SETUP, "keystones": [{"kind": "creed", "name": ""}]},
        {**SETUP, "keystones": [{"kind": "creed", "name": "x", "extra": 1}]},
        {**SETUP, "keystones": [{"kind": "creed", "name": f"c{i}"} for i in range(7)]},
        {**SETUP, "language": 3},
        {**SETUP, "forgiving_undo": "yes"},
        {**SETUP, "colour": "red"},
    ],
)
def test_create_refuses_malformed_bodies_with_json(client: FlaskClient, body: Any) -> None:
    response = client.post("/api/v1/chronicles", json=body)
    assert response.status_code == 400
    assert response.get_json()["code"] in ("bad-setup", "bad-json")


def test_a_whole_life_in_table_mode(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    token = body["host_token"]
    state = play_to_the_end(client, token)
    assert state["legal"] == [
        {"type": "write-epilogue", "seat": None, "options": {}, "yours": True},
        *[entry for entry in state["legal"] if entry["type"] != "write-epilogue"],
    ]
    assert [k["status"] for k in state["keystones"]].count("sacrificed") >= 1
    assert any(k["status"] == "lost" for k in state["keystones"])
    epilogue = {"type": "write-epilogue", "epilogue": "She drew the last map."}
    state = post(client, token, state["version"], epilogue).get_json()
    assert state["epilogue"]["text"] == "She drew the last map."
    assert state["version"] == len(events(app, body["id"]))
    story = client.get(f"/api/v1/chronicles/{token}/story").get_json()
    assert conforms(story, "Story")
    points = [p for chapter in story["chapters"] for p in chapter["turning_points"]]
    assert story["ended"] and story["epilogue"]["text"] == "She drew the last map."
    assert len(points) == chronicles.load(_db(app), body["id"]).state.checks_rolled
    assert all(p["answer"]["text"].startswith("An answer for") for p in points)
    assert any(p["payments"] for p in points) and any(p["losses"] for p in points)
    assert len(story["marks"]) == len(state["marks"]) >= 1


def _db(app: Flask) -> Any:
    return connect(app.config["DATABASE"])


def test_a_stale_version_gets_409_with_the_current_state(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    token = body["host_token"]
    assert post(client, token, 1, {"type": "draw-card", "card": "3H"}).status_code == 200
    before = len(events(app, body["id"]))
    response = post(client, token, 1, {"type": "draw-card", "card": "4H"})
    data = response.get_json()
    assert response.status_code == 409
    assert data["code"] == "stale-version" and data["version"] == 2
    assert "The host already drew 3 of Hearts ♥ for Ali." in data["error"]
    assert data["kept"] == []
    assert data["state"]["check"]["card"] == "3H" and data["state"]["version"] == 2
    assert len(events(app, body["id"])) == before


REFUSED = [
    ({"type": "roll-dice", "faces": [6, 6, 6, 6]}, "card-not-drawn"),
    ({"type": "draw-card", "card": "7H"}, None),
    ({"type": "draw-card"}, "card-required"),
    ({"type": "draw-card", "card": "3H", "seat": 1}, "not-your-turn"),
    ({"type": "draw-card", "card": "3H", "seat": 9}, None),
    ({"type": "draw-card", "card": 3}, "bad-command"),
    ({"type": "draw-card", "card": "3H", "colour": "red"}, "bad-command"),
    ({"type": "fly"}, "bad-command"),
    ({"card": "3H"}, "bad-command"),
    ({"type": "write-epilogue", "epilogue": "Too soon."}, None),
    ({"type": "undo"}, None),
]


@pytest.mark.parametrize(("command", "code"), REFUSED)
def test_every_refused_command_appends_nothing(
    client: FlaskClient, app: Flask, command: dict[str, Any], code: str | None
) -> None:
    body = create(client)
    response = post(client, body["host_token"], 1, command)
    data = response.get_json()
    assert response.status_code == (409 if command.get("type") == "undo" else 400)
    assert set(data) == {"error", "code", "rule"} and data["error"]
    assert code is None or data["code"] == code
    assert len(events(app, body["id"])) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"command": {"type": "undo"}},
        {"version": "1", "command": {"type": "undo"}},
        {"version": 1},
        {"version": 1, "command": {"type": "undo"}, "commands": [{"type": "undo"}]},
        {"version": 1, "commands": []},
        {"version": 1, "commands": [{"type": "undo"}] * 51},
        {"version": 1, "commands": ["undo"]},
        {"version": 1, "command": "undo"},
        {"version": 1, "command": {"type": "undo"}, "extra": True},
        # Outside the store's whole numbers: refused before any query reads them.
        {"version": -(2**90), "command": {"type": "choose-prompt"}},
        {"version": 2**64, "command": {"type": "choose-prompt"}},
        {"version": -1, "command": {"type": "undo"}},
    ],
)
def test_malformed_command_bodies_are_400_json(
    client: FlaskClient, app: Flask, body: dict[str, Any]
) -> None:
    created = create(client)
    response = client.post(f"/api/v1/chronicles/{created['host_token']}/commands", json=body)
    assert response.status_code == 400 and response.get_json()["code"]
    assert len(events(app, created["id"])) == 1


def test_a_batch_is_applied_all_or_nothing(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    token = body["host_token"]
    draw = {"type": "draw-card", "card": "3H"}
    bad_roll = {"type": "roll-dice", "faces": [6]}
    response = post(client, token, 1, draw, {"type": "choose-prompt", "index": 0}, bad_roll)
    assert response.status_code == 400 and response.get_json()["code"] == "prompt-not-answered"
    assert len(events(app, body["id"])) == 1
    state = post(client, token, 1, draw, {"type": "choose-prompt", "index": 0}).get_json()
    assert state["version"] == 3 and state["step"] == "answer"


def test_a_read_only_link_reads_but_cannot_post(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    reader = body["reader_token"]
    state = get_state(client, reader)
    assert state["you"] == {"role": "reader", "seat": None, "can_act": False}
    assert not any(entry["yours"] for entry in state["legal"])
    assert client.get(f"/api/v1/chronicles/{reader}/story").status_code == 200
    response = post(client, reader, 1, {"type": "draw-card", "card": "3H"})
    assert response.status_code == 404
    assert response.get_json()["code"] == "not-found"
    assert response.get_json() == post(client, "no-such-token", 1, {"type": "undo"}).get_json()
    assert len(events(app, body["id"])) == 1


def test_a_seat_link_acts_only_for_its_seat(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    db = _db(app)
    brianna = capabilities.issue(db, body["id"], "seat", 1)
    ali = capabilities.issue(db, body["id"], "seat", 0)
    state = get_state(client, brianna)
    assert state["you"] == {"role": "seat", "seat": 1, "can_act": False}
    assert legal(state, "draw-card")["yours"] is False
    response = post(client, brianna, 1, {"type": "draw-card", "card": "3H"})
    assert response.status_code == 400 and response.get_json()["code"] == "not-your-turn"
    response = post(client, brianna, 1, {"type": "draw-card", "card": "3H", "seat": 0})
    assert response.status_code == 400 and response.get_json()["code"] == "not-your-seat"
    assert get_state(client, ali)["you"]["can_act"] is True
    assert post(client, ali, 1, {"type": "draw-card", "card": "3H"}).status_code == 200
    # Anyone at the table may veil a prompt: Brianna's seat issues it.
    assert post(client, brianna, 2, {"type": "veil-prompt", "index": 1}).status_code == 200
    assert [e.data.get("seat") for e in events(app, body["id"])][1:] == [0, 1]


def test_the_host_acts_for_the_seat_given_or_whose_turn_it_is(
    client: FlaskClient, app: Flask
) -> None:
    body = create(client)
    token = body["host_token"]
    response = post(client, token, 1, {"type": "draw-card", "card": "3H", "seat": 2})
    assert response.status_code == 400 and response.get_json()["code"] == "not-your-turn"
    state = post(client, token, 1, {"type": "draw-card", "card": "3H", "seat": 0}).get_json()
    state = post(client, token, state["version"], *compose(state, hit=True)).get_json()
    narrate = {"type": "narrate-success", "narration": "Through."}
    state = post(client, token, state["version"], narrate).get_json()
    assert state["seat"] == 1
    state = post(client, token, state["version"], {"type": "draw-card", "card": "6H"}).get_json()
    assert events(app, body["id"])[-1].data["seat"] == 1


def test_a_bearer_header_with_the_chronicle_id(client: FlaskClient) -> None:
    body = create(client)
    headers = {"Authorization": f"Bearer {body['reader_token']}"}
    response = client.get(f"/api/v1/chronicles/{body['id']}/state", headers=headers)
    assert response.status_code == 200 and response.get_json()["you"]["role"] == "reader"
    other = create(client)
    response = client.get(f"/api/v1/chronicles/{other['id']}/state", headers=headers)
    assert response.status_code == 404
    wrong = {"Authorization": "Bearer not-a-token"}
    response = client.get(f"/api/v1/chronicles/{body['host_token']}/state", headers=wrong)
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/chronicles/{t}/state"),
        ("get", "/api/v1/chronicles/{t}/story"),
        ("post", "/api/v1/chronicles/{t}/commands"),
        ("get", "/api/v1/nothing-here"),
        ("get", "/api/v2/chronicles"),
    ],
)
def test_unknown_tokens_and_paths_are_404_json(client: FlaskClient, method: str, path: str) -> None:
    response = getattr(client, method)(path.format(t="x" * 32), json={"version": 1})
    assert response.status_code == 404
    assert response.is_json and response.get_json()["code"] == "not-found"


def test_a_card_game_token_is_no_chronicle(client: FlaskClient, app: Flask) -> None:
    db = _db(app)
    sid = store.create_stream(db, "summoners", [{"type": "started"}])
    token = capabilities.issue(db, sid, "host")
    assert client.get(f"/api/v1/chronicles/{token}/state").status_code == 404


def test_request_errors_are_json(client: FlaskClient) -> None:
    token = create(client)["host_token"]
    url = f"/api/v1/chronicles/{token}/commands"
    response = client.post(url, data="version=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and response.get_json()["code"] == "unsupported-media-type"
    response = client.post(url, data="{not json", content_type="application/json")
    assert response.status_code == 400 and response.get_json()["code"] == "bad-json"
    response = client.delete(url)
    assert response.status_code == 405 and response.headers["Allow"] == "POST"
    assert response.get_json()["code"] == "method-not-allowed"


def test_a_body_too_large_is_413_json(tmp_path: Path) -> None:
    client = make_app(tmp_path, MAX_CONTENT_LENGTH=1000).test_client()
    big = {**SETUP, "lines": "x" * 5000}
    response = client.post("/api/v1/chronicles", json=big)
    assert response.status_code == 413 and response.get_json()["code"] == "too-large"


def test_rate_limits_answer_429_json(tmp_path: Path) -> None:
    client = make_app(tmp_path, RATELIMIT_CREATE=1, RATELIMIT_GUESS=2).test_client()
    create(client)
    response = client.post("/api/v1/chronicles", json=SETUP)
    assert response.status_code == 429 and response.get_json()["code"] == "rate-limited"
    for _ in range(2):
        assert client.get("/api/v1/chronicles/guess/state").status_code == 404
    response = client.get("/api/v1/chronicles/guess/state")
    assert response.status_code == 429 and response.get_json()["code"] == "rate-limited"


def test_a_text_over_the_limit_is_refused(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    token = body["host_token"]
    state = post(client, token, 1, {"type": "draw-card", "card": "3H"}).get_json()
    batch = [
        {"type": "choose-prompt", "index": 0},
        {"type": "answer-prompt", "answer": "x" * 20001},
    ]
    response = post(client, token, state["version"], *batch)
    assert response.status_code == 400 and response.get_json()["code"] == "text-too-long"
    assert len(events(app, body["id"])) == 2


def test_a_server_error_is_json_and_logged(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    token = create(client)["host_token"]

    def broken(*_args: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(chronicles, "load", broken)
    response = client.get(f"/api/v1/chronicles/{token}/state")
    assert response.status_code == 500
    assert response.get_json()["code"] == "server-error"
    assert "disk on fire" not in response.get_data(as_text=True)
    assert "disk on fire" in caplog.text


def test_the_api_needs_no_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    body = create(client)
    assert (
        post(client, body["host_token"], 1, {"type": "draw-card", "card": "3H"}).status_code == 200
    )
    refused = client.post("/new", data={})  # the pages still need one
    assert refused.status_code == 303 and refused.headers["Location"] == "/new"
    assert "nothing was sent" in client.get("/new").get_data(as_text=True)


def test_rule_errors_follow_the_requested_language(client: FlaskClient) -> None:
    token = create(client)["host_token"]
    roll = {"version": 1, "command": {"type": "roll-dice", "faces": [6, 6, 6, 6]}}
    english = client.post(f"/api/v1/chronicles/{token}/commands", json=roll).get_json()
    japanese = client.post(
        f"/api/v1/chronicles/{token}/commands", json=roll, headers={"Accept-Language": "ja"}
    ).get_json()
    assert english["code"] == japanese["code"]
    assert english["error"] != japanese["error"]
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese["error"])


def test_a_veiled_prompt_is_never_sent(client: FlaskClient) -> None:
    token = create(client)["host_token"]
    state = post(client, token, 1, {"type": "draw-card", "card": "3H"}).get_json()
    veiled_text = state["check"]["prompts"][1]["text"]
    response = post(client, token, state["version"], {"type": "veil-prompt", "index": 1})
    state = response.get_json()
    assert [p["index"] for p in state["check"]["prompts"]] == [0]
    assert state["check"]["veiled"] == [1]
    assert veiled_text not in response.get_data(as_text=True)
    story = client.get(f"/api/v1/chronicles/{token}/story").get_data(as_text=True)
    assert veiled_text not in story


def test_undo_through_the_api(client: FlaskClient, app: Flask) -> None:
    body = create(client)
    token = body["host_token"]
    state = post(client, token, 1, {"type": "draw-card", "card": "3H"}).get_json()
    assert legal(state, "undo")["options"] == {"target_seq": 2, "event": "card-drawn"}
    state = post(client, token, state["version"], {"type": "undo"}).get_json()
    assert state["step"] == "draw" and state["version"] == 3
    assert "3H" in legal(state, "draw-card")["options"]["cards"]


def export(client: FlaskClient, token: str, **body: Any) -> Any:
    return client.post(f"/api/v1/chronicles/{token}/exports", json=body)


def test_markdown_and_backup_are_made_at_once(client: FlaskClient) -> None:
    body = create(client)
    response = export(client, body["reader_token"], format="md", edition="story")
    made = response.get_json()
    assert response.status_code == 200 and made["status"] == "done"
    assert made["content"].startswith("# The life of Kaya Wren")
    backup = export(client, body["host_token"], format="json").get_json()
    assert json.loads(backup["content"])["format"] == "ijinsho-chronicle"
    assert backup["content_type"].startswith("application/json")


def test_only_the_host_backs_up_hidden_piles(client: FlaskClient, app: Flask) -> None:
    body = create(client, mode="digital")
    seat = capabilities.issue(_db(app), body["id"], "seat", 0)
    for token in (body["reader_token"], seat):
        response = export(client, token, format="json")
        assert response.status_code == 404 and response.get_json()["code"] == "host-only"
    backup = export(client, body["host_token"], format="json").get_json()
    assert "piles-shuffled" in backup["content"]
    table = create(client)
    assert export(client, table["reader_token"], format="json").status_code == 200


@pytest.mark.parametrize(
    "body",
    [{}, {"format": "docx"}, {"format": "pdf", "paper": "letter"}, {"format": "md", "x": 1}],
)
def test_a_bad_export_request_is_400(client: FlaskClient, body: dict[str, Any]) -> None:
    token = create(client)["host_token"]
    response = client.post(f"/api/v1/chronicles/{token}/exports", json=body)
    assert response.status_code == 400 and response.get_json()["code"] == "bad-export"


def test_a_pdf_book_is_a_job_made_by_a_worker(tmp_path: Path) -> None:
    from companion.export import worker

    app = make_app(tmp_path, EXPORT_WORKERS=0)  # no worker process: the test makes the book
    client = app.test_client()
    body = create(client)
    token = body["reader_token"]
    response = export(client, token, format="pdf", edition="story", paper="b6")
    job = response.get_json()
    assert response.status_code == 202 and job["status"] == "queued" and job["file_url"] is None
    assert client.get(job["status_url"]).get_json()["status"] == "queued"
    assert client.get(f"{job['status_url']}/file").status_code == 404
    exports = Path(app.config["EXPORTS_DIR"])
    exports.mkdir(parents=True, exist_ok=True)  # as jobs.start_worker does
    assert worker.work(app, _db(app), exports, 1) == 1
    done = client.get(job["status_url"]).get_json()
    assert done["status"] == "done" and done["progress"] == 100
    pdf = client.get(done["file_url"])
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    again = export(client, token, format="pdf", edition="story", paper="b6")
    assert again.status_code == 200 and again.get_json()["id"] == job["id"]
    other = create(client)["host_token"]
    assert client.get(f"/api/v1/chronicles/{other}/exports/{job['id']}").status_code == 404
    assert client.get(f"/api/v1/chronicles/{token}/exports/nope").status_code == 404


def card_strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value that is a card code."""
    if isinstance(value, dict):
        for item in value.values():
            yield from card_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from card_strings(item)
    elif isinstance(value, str) and value in CARDS:
        yield value


def test_digital_mode_never_sends_the_pile_order(client: FlaskClient, app: Flask) -> None:
    body = create(client, mode="digital")
    token, sid = body["host_token"], body["id"]
    assert not list(card_strings(body))
    version = body["state"]["version"]
    response = post(client, token, version, {"type": "draw-card"})
    state = response.get_json()
    drawn = state["check"]["card"]
    hidden = chronicles.load(_db(app), sid).state
    top = hidden.pile_cards("hearts-low")[0]
    assert top != drawn
    texts = [
        response.get_data(as_text=True),
        client.get(f"/api/v1/chronicles/{token}/state").get_data(as_text=True),
        client.get(f"/api/v1/chronicles/{token}/story").get_data(as_text=True),
        post(client, token, version, {"type": "undo"}).get_data(as_text=True),  # 409 with a state
    ]
    for text in texts:
        assert f'"{top}"' not in text
        assert set(card_strings(json.loads(text))) <= {drawn}
    assert all(set(pile) == {"pile", "count"} for pile in state["piles"])
    assert {p["pile"]: p["count"] for p in state["piles"]}["hearts-low"] == 4
    assert legal(state, "roll-dice") is None and state["step"] == "choose"


def test_table_mode_lists_only_the_current_pile(client: FlaskClient) -> None:
    state = create(client)["state"]
    listed = [pile for pile in state["piles"] if "cards" in pile]
    assert listed == [
        {"pile": "hearts-low", "count": 5, "cards": sorted(["AH", "2H", "3H", "4H", "5H"])}
    ]


def test_every_api_route_is_in_the_openapi_document(app: Flask) -> None:
    paths = openapi.document()["paths"]
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") or rule.endpoint == "api.unknown":
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        methods = set(rule.methods or ()) - {"HEAD", "OPTIONS"}
        assert {m.upper() for m in paths[path]} == methods, path


def test_a_roll_taken_back_stays_in_the_turning_point_as_withdrawn(client: FlaskClient) -> None:
    token = create(client)["host_token"]
    state = post(client, token, 1, {"type": "draw-card", "card": "3H"}).get_json()
    mistyped = {"type": "roll-dice", "faces": [2, 3, 1, 1]}
    state = post(client, token, state["version"], *compose(state, False)[:3], mistyped).get_json()
    state = post(client, token, state["version"], {"type": "undo"}).get_json()
    assert state["check"]["rolls"] == [] and state["step"] == "roll"
    fixed = {"type": "roll-dice", "faces": [6, 3, 1, 1]}
    state = post(client, token, state["version"], fixed).get_json()
    assert conforms(state, "State")
    (withdrawn,) = state["check"]["withdrawn"]
    assert withdrawn["faces"] == [2, 3, 1, 1] and withdrawn["success"] is False
    assert [r["faces"] for r in state["check"]["rolls"]] == [[6, 3, 1, 1]]
    story = client.get(f"/api/v1/chronicles/{token}/story").get_json()
    assert conforms(story, "Story")
    (point,) = story["chapters"][0]["turning_points"]
    assert point["withdrawn"] == [withdrawn]
