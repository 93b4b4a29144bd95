"""Each limit on what a person may send has one home (``companion/base/limits.py``): the rules core,
the forms, the JSON API and its OpenAPI document all read it, and a refusal names it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale
from play_helpers import create

from companion.base.limits import COMMAND_BATCH_LIMIT, NAME_LIMIT, TEXT_LIMIT
from companion.legacy import RuleError
from companion.legacy.setup import MAX_PER_KIND, MAX_PLAYERS, check_text
from companion.web.api.openapi import document as openapi
from companion.web.shell.text_errors import rule_message

ROOT = Path(__file__).resolve().parent.parent
# The numbers as someone might write them again, in code, a template or a message.
COPIES = {
    TEXT_LIMIT: re.compile(r"(?<![\d_.,])(20000|20_000|20,000)(?![\d_])"),
    NAME_LIMIT: re.compile(r"""maxlength="200"|"maxLength": 200\b|_LIMIT = 200$"""),
    COMMAND_BATCH_LIMIT: re.compile(r"""(?:maxItems"|BATCH\w*)["=:\s]+50\b"""),
}
# A link's token as a path holds it: its pattern is written once, in capabilities.py.
TOKEN_COPY = re.compile(re.escape("A-Za-z0-9_-]{1,100}"))


def _sources() -> list[Path]:
    found = [*(ROOT / "companion").rglob("*.py"), *(ROOT / "templates").rglob("*.html")]
    return [path for path in found if path.name != "limits.py"]


def test_each_limit_is_written_once() -> None:
    copies = [
        f"{path.relative_to(ROOT)}:{n + 1}: {line.strip()}"
        for path in _sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines())
        if any(pattern.search(line) for pattern in COPIES.values())
        or (TOKEN_COPY.search(line) and path.name != "capabilities.py")
    ]
    assert copies == []


def test_the_openapi_bodies_carry_the_limits() -> None:
    schemas = openapi.document()["components"]["schemas"]
    create_body = schemas["CreateChronicle"]["properties"]
    pioneer = create_body["pioneer"]["properties"]
    keystone = create_body["keystones"]["items"]["properties"]
    assert pioneer["concept"]["maxLength"] == TEXT_LIMIT
    assert create_body["lines"]["maxLength"] == create_body["veils"]["maxLength"] == TEXT_LIMIT
    assert keystone["description"]["maxLength"] == TEXT_LIMIT
    assert pioneer["name"]["maxLength"] == pioneer["people"]["maxLength"] == NAME_LIMIT
    assert keystone["name"]["maxLength"] == NAME_LIMIT
    assert create_body["players"]["items"]["maxLength"] == NAME_LIMIT
    assert create_body["players"]["maxItems"] == MAX_PLAYERS
    assert create_body["keystones"]["maxItems"] == 3 * MAX_PER_KIND
    assert schemas["Commands"]["properties"]["commands"]["maxItems"] == COMMAND_BATCH_LIMIT


def test_the_rules_core_refuses_one_character_more() -> None:
    assert check_text("x" * TEXT_LIMIT) == "x" * TEXT_LIMIT
    try:
        check_text("x" * (TEXT_LIMIT + 1))
    except RuleError as error:
        assert error.code == "text-too-long" and error.params["limit"] == TEXT_LIMIT
    else:
        raise AssertionError("a text over the limit was taken")


def test_the_refusal_names_the_limit_as_the_reader_writes_numbers(app: Flask) -> None:
    try:
        check_text("x" * (TEXT_LIMIT + 1))
    except RuleError as error:
        refused = error
    with app.test_request_context(), force_locale("en"):
        assert rule_message(refused) == "This text has 20,001 characters; the limit is 20,000."
    with app.test_request_context(), force_locale("ja"):
        assert rule_message(refused) == "このテキストは20,001文字あります。上限は20,000文字です。"


def test_pages_and_api_refuse_with_the_limit_named(client: FlaskClient) -> None:
    token = create(client)
    too_long = "a" * (TEXT_LIMIT + 1)
    for lang, words in (("en", "At most 20,000 characters."), ("ja", "20,000文字までです。")):
        answer = client.post(f"/c/{token}/preview?lang={lang}", data={"text": too_long})
        assert answer.status_code == 400
        assert answer.get_json() == {"error": words, "code": "too-long"}
    body: dict[str, Any] = {
        "pioneer": {"name": "Kaya", "concept": too_long},
        "players": ["Ali"],
    }
    refused = client.post("/api/v1/chronicles", json=body)
    assert refused.status_code == 400
    assert "20,000" in refused.get_data(as_text=True)


def test_the_forms_allow_what_the_server_takes(client: FlaskClient) -> None:
    form = client.get("/new").get_data(as_text=True)
    assert f'id="concept" name="concept" rows="3" maxlength="{TEXT_LIMIT}"' in form
    assert re.search(rf'id="pioneer" name="pioneer" value="[^"]*" maxlength="{NAME_LIMIT}"', form)
