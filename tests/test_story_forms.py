"""Corrections and the epilogue are posted at a version: a form made on a page that is out of
date is sent back (409 in JSON) to the page as it stands, the writer's text kept in its form and
who wrote first named, and overwrites nothing."""

from __future__ import annotations

import html
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn, refused_page

from companion.store.db import connect
from companion.streams.demo import create_demo

JSON = {"Accept": "application/json"}


def answered(client: FlaskClient, app: Flask) -> tuple[str, int, str]:
    """A chronicle with one answer written: (host token, the answer's seq, its field)."""
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        answer="First words.",
        stakes_success="s",
        stakes_failure="f",
        **faces(4, True),
    )
    answer = chronicle(app, token).state.check.answer
    return token, answer.seq, answer.field


def correct(client: FlaskClient, token: str, seq: int, field: str, text: str, version: int) -> Any:
    data = {"target_seq": str(seq), "field": field, "text": text, "version": str(version)}
    return client.post(f"/c/{token}/revise", data=data)


def test_a_correction_from_a_stale_page_is_409_and_keeps_both_texts(
    client: FlaskClient, app: Flask
) -> None:
    token, seq, field = answered(client, app)
    seen = chronicle(app, token).version
    assert correct(client, token, seq, field, "Newer words.", seen).status_code == 302
    late = correct(client, token, seq, field, "My late words.", seen)
    page = html.unescape(refused_page(client, late))
    assert "The host corrected a text meanwhile." in page
    assert ">My late words.</textarea>" in page  # the writer's text stays in the form
    assert "Newer words." in page  # the text as it stands now, in its history
    found = chronicle(app, token).state.check.answer
    assert found.value == "Newer words."


def test_a_correction_without_a_version_is_stale(client: FlaskClient, app: Flask) -> None:
    token, seq, field = answered(client, app)
    version = chronicle(app, token).version
    data = {"target_seq": str(seq), "field": field, "text": "No version."}
    answer = client.post(f"/c/{token}/revise", data=data, headers=JSON)
    assert answer.status_code == 409
    assert answer.get_json()["code"] == "stale-version"
    assert answer.get_json()["version"] == version == chronicle(app, token).version


def test_a_correction_at_the_current_version_is_kept(client: FlaskClient, app: Flask) -> None:
    token, seq, field = answered(client, app)
    form = client.get(f"/c/{token}/text/{seq}/{field}").get_data(as_text=True)
    version = chronicle(app, token).version
    assert f'name="version" value="{version}"' in form
    assert correct(client, token, seq, field, "Better words.", version).status_code == 302
    assert chronicle(app, token).state.check.answer.value == "Better words."


def test_a_correction_too_long_is_refused_with_the_text_kept(
    client: FlaskClient, app: Flask
) -> None:
    token, seq, field = answered(client, app)
    version = chronicle(app, token).version
    refused = correct(client, token, seq, field, "y" * 20_000 + "q" * 3_000_000, version)
    text = refused_page(client, refused)
    # the start is kept, to shorten: kept words hold no more than a text may
    assert "20,000" in text and ">" + "y" * 20_000 + "</textarea>" in text and "qqq" not in text
    assert chronicle(app, token).version == version


def test_an_epilogue_from_a_stale_page_is_409_and_keeps_both(
    client: FlaskClient, app: Flask
) -> None:
    demo = create_demo(connect(app.config["DATABASE"]), "en")
    token = demo.host_token
    seen = chronicle(app, token).version
    first = {"epilogue": "She is remembered.", "version": str(seen)}
    assert client.post(f"/c/{token}/epilogue", data=first).status_code == 302
    late = {"epilogue": "A late ending.", "version": str(seen)}
    refused = client.post(f"/c/{token}/epilogue", data=late)
    page = refused_page(client, refused)
    assert ">A late ending.</textarea>" in page and "She is remembered." in page
    assert "The host corrected a text meanwhile." in page
    epilogue = chronicle(app, token).state.epilogue
    assert epilogue is not None and epilogue.value == "She is remembered."
