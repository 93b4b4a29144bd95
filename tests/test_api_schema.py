"""Schemathesis against ``/api/openapi.json`` through the WSGI app: no server error, and every
response matches the document (status, content type, headers, body schema).

Bounded to stay well under a minute: 25 generated examples per operation plus schemathesis'
coverage cases (edge values, missing fields, other methods), no deadline.
``positive_data_acceptance`` is left out on purpose: a command can be well formed
and still break the rules (400), and a setup can be well typed and name a pack that is not
installed; the schema cannot express the rules of the game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from conftest import make_app
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ensure_resource_availability,
    missing_required_header,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
    use_after_free,
)

from companion.store.db import connect
from companion.streams import chronicles
from companion.web.api.openapi import document as openapi

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    unsupported_method,
    missing_required_header,
]
# A client that follows the document's links: what a creation answers must open (its state,
# its story, its books), and nothing found along the way may vanish.
STATEFUL_CHECKS = [*CHECKS, ensure_resource_availability, use_after_free]
SETUP = {"pioneer": {"name": "Kaya"}, "players": ["Ali", "Brianna"], "mode": "table"}


class Target:
    """The app under test and one chronicle whose host token every path is given."""

    def __init__(self, root: Path) -> None:
        self.app: Flask = make_app(root, RATELIMIT_ENABLED=False, EXPORT_WORKERS=0)
        created = self.app.test_client().post("/api/v1/chronicles", json=SETUP).get_json()
        self.token: str = created["host_token"]
        self.id: str = created["id"]
        book = {"format": "pdf"}  # queued and left so: EXPORT_WORKERS=0 starts no worker
        url = f"/api/v1/chronicles/{self.token}/exports"
        self.job: str = self.app.test_client().post(url, json=book).get_json()["id"]

    def version(self) -> int:
        db = connect(self.app.config["DATABASE"])
        try:
            return chronicles.load(db, self.id).version
        finally:
            db.conn.close()


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return Target(tmp_path_factory.mktemp("api-schema"))


# Loaded from the document itself at import (schemathesis' lazy fixture loader does not work
# with this pytest); requests go to the fixture's app through ``call_and_validate(app=...)``.
schema = schemathesis.openapi.from_dict(
    openapi.document(),
    config=SchemathesisConfig.from_dict({"generation": {"mode": "all", "max-examples": 25}}),
)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
)
def test_the_api_matches_its_openapi_document(case: Any, target: Target) -> None:
    if "token" in (case.path_parameters or {}):
        # A drawn token or job opens nothing (404): use real ones, so the routes do real work.
        case.path_parameters["token"] = target.token
    if "job" in (case.path_parameters or {}):
        case.path_parameters["job"] = target.job
    body = case.body
    if case.operation.path.endswith("/commands") and isinstance(body, dict):
        # A drawn version would nearly always meet 409: send the current one unless it is negative,
        # so the commands themselves are decoded and judged by the rules.
        version = body.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version >= 0:
            body["version"] = target.version()
    # Its WSGI client asks for compressed answers and does not undo brotli: the contract is the
    # same whatever the encoding (tests/test_compression.py holds the compression).
    case.call_and_validate(checks=CHECKS, app=target.app, headers={"Accept-Encoding": "identity"})


def test_the_document_is_valid_openapi_3_1(target: Target) -> None:
    document = target.app.test_client().get("/api/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    loaded = schemathesis.openapi.from_dict(document)
    operations = [result.ok() for result in loaded.get_all_operations()]
    assert {op.label for op in operations} >= {
        "POST /api/v1/chronicles",
        "GET /api/v1/chronicles/{token}/state",
        "POST /api/v1/chronicles/{token}/commands",
        "GET /api/v1/chronicles/{token}/story",
    }


def test_a_client_following_the_links_finds_what_they_promise(target: Target) -> None:
    """Schemathesis' stateful run: chains of operations along the document's links (a creation
    to its state, commands, story and books; a book's job to its file), every check on each."""
    workflow = schema.as_state_machine()
    # Uncompressed answers, as for the single operations above.
    calls = {"app": target.app, "headers": {"Accept-Encoding": "identity"}}

    class Client(workflow):  # type: ignore[misc, valid-type]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return dict(calls)

        def validate_response(self, response: Any, case: Any, *_a: Any, **_k: Any) -> None:
            case.validate_response(response, checks=STATEFUL_CHECKS, transport_kwargs=dict(calls))

    Client.run(
        settings=settings(
            max_examples=15,
            stateful_step_count=4,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
        )
    )


def test_a_creation_answers_with_the_state_s_address_and_no_token(target: Target) -> None:
    client = target.app.test_client()
    created = client.post("/api/v1/chronicles", json=SETUP)
    body = created.get_json()
    assert created.status_code == 201
    location = created.headers["Location"]
    assert location.endswith(f"/api/v1/chronicles/{body['id']}/state")
    assert body["host_token"] not in location and body["reader_token"] not in location
    state = client.get(location, headers={"Authorization": f"Bearer {body['host_token']}"})
    assert state.status_code == 200 and state.get_json()["version"] == body["state"]["version"]
    assert client.get(location).status_code == 404  # the id alone opens nothing


def test_the_document_links_a_creation_to_what_its_tokens_open(target: Target) -> None:
    document = target.app.test_client().get("/api/openapi.json").get_json()
    created = document["paths"]["/api/v1/chronicles"]["post"]["responses"]["201"]
    assert created["headers"]["Location"]["required"] is True
    operations = {link["operationId"] for link in created["links"].values()}
    assert operations == {"getState", "postCommands", "getStory", "requestExport"}
    every_id = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    assert operations <= every_id


@pytest.mark.parametrize(
    "body",
    [
        {**SETUP, "pioneer": {"name": "Ka\x07ya"}},  # a control character
        {**SETUP, "players": ["Ali", "B\x9bob"]},  # a C1 control (a terminal escape)
        {**SETUP, "keystones": [{"kind": "creed", "name": f"c{i}"} for i in range(7)]},
    ],
    ids=["control-character", "c1-control", "seven-of-one-kind"],
)
def test_what_the_server_refuses_the_document_refuses(target: Target, body: dict[str, Any]) -> None:
    import jsonschema_rs

    schemas = openapi.document()["components"]["schemas"]
    text = json.dumps({**schemas["CreateChronicle"], "$defs": schemas})
    create = json.loads(text.replace("#/components/schemas/", "#/$defs/"))
    assert jsonschema_rs.Draft202012Validator(create).is_valid(SETUP)
    assert not jsonschema_rs.Draft202012Validator(create).is_valid(body)
    assert target.app.test_client().post("/api/v1/chronicles", json=body).status_code == 400


def test_a_whole_number_written_with_a_fraction_is_that_number(target: Target) -> None:
    version = target.version()
    raw = json.dumps({"version": 0, "command": {"type": "draw-card"}})
    raw = raw.replace('"version": 0', f'"version": {version}.0')
    answer = target.app.test_client().post(
        f"/api/v1/chronicles/{target.token}/commands", data=raw,
        content_type="application/json",
    )  # fmt: skip
    assert answer.status_code != 400 or answer.get_json()["code"] != "version-required", answer.json


def test_a_stale_answer_keeps_the_text_of_a_command_with_no_type_as_documented(
    target: Target,
) -> None:
    """A refused batch's texts come back whatever its commands were, even one with no ``type``
    (its ``type`` is null); the 409 still matches the document."""
    import jsonschema_rs

    schemas = openapi.document()["components"]["schemas"]
    text = json.dumps({**schemas["StaleVersion"], "$defs": schemas})
    stale = json.loads(text.replace("#/components/schemas/", "#/$defs/"))
    body = {"version": target.version() + 5, "command": {"text": "words kept", "field": "x"}}
    answer = target.app.test_client().post(f"/api/v1/chronicles/{target.token}/commands", json=body)
    assert answer.status_code == 409
    said = answer.get_json()
    assert said["kept"] == [{"command": 0, "type": None, "field": "text", "text": "words kept"}]
    assert jsonschema_rs.Draft202012Validator(stale).is_valid(said)
