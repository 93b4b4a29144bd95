"""The play pages through the Flask test client: setup, turns, failures, undo, story, end."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import (
    SETUP_FORM,
    chronicle,
    create,
    faces,
    play_to_the_end,
    post_turn,
    refused_page,
)

LANGS = ("en", "ja")


def flashed_errors(html: str) -> list[str]:
    return re.findall(r'class="flash flash-error"[^>]*>(.*?)<', html, re.S)


@pytest.mark.parametrize("lang", LANGS)
def test_setup_page_renders(client: FlaskClient, lang: str) -> None:
    html = client.get(f"/new?lang={lang}").get_data(as_text=True)
    assert 'name="pioneer"' in html and 'name="resource-0-name"' in html
    assert ("輝礎" in html) == (lang == "ja")


def test_setup_errors_shown_beside_fields_and_nothing_typed_is_lost(client: FlaskClient) -> None:
    response = client.post(
        "/new", data={**SETUP_FORM, "pioneer": "", "player-1": "Ali", "concept": "Keep me"}
    )
    html = refused_page(client, response)
    assert 'id="pioneer-error"' in html and "Give the Pioneer a name." in html
    assert 'id="players-error"' in html
    assert "Keep me" in html and 'value="Sister Ide"' in html


def test_creating_a_chronicle_shows_the_links_once(client: FlaskClient) -> None:
    response = client.post("/new", data=SETUP_FORM, follow_redirects=True)
    html = response.get_data(as_text=True)
    assert "New read-only link" in html and "<svg" in html
    again = client.get(response.request.path).get_data(as_text=True)
    assert "New read-only link" not in again


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_renders_in_both_languages(client: FlaskClient, app: Flask, lang: str) -> None:
    token = create(client, language=lang)
    for path in ("/", "/story", "/end", "/links"):
        response = client.get(f"/c/{token}{path}?lang={lang}")
        assert response.status_code == 200, path
        assert f'<html lang="{lang}">' in response.get_data(as_text=True)


def test_table_mode_turn_success_passes_left(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="4H")
    response = post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="1",
        answer="She *leaves* at dawn.",
        stakes_success="She finds the road.",
        stakes_failure="She turns back.",
        **faces(4, hit=True),
    )
    assert response.status_code == 302
    state = chronicle(app, token).state
    assert state.step == "success" and state.check.rolls[0].faces == (6, 1, 1, 1)
    post_turn(client, app, token, action="narrate", narration="She did.")
    state = chronicle(app, token).state
    assert (state.turn, state.player, state.step) == (2, "Brianna", "draw")


def test_failure_offers_sacrifice_in_order_and_rerolls(client: FlaskClient, app: Flask) -> None:
    token = create(client)
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
        **faces(4, hit=False),
    )
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    sacrifice = page[
        page.index("Sacrifice a keystone") : page.index("Spend") if "Spend" in page else None
    ]
    assert (
        'name="keystone" value="r1"' in sacrifice and 'name="keystone" value="a1"' not in sacrifice
    )
    refused = post_turn(
        client,
        app,
        token,
        action="sacrifice",
        keystone="c1",
        why="w",
        outcome="o",
        **faces(4, True),
    )
    assert flashed_errors(refused_page(client, refused))
    assert chronicle(app, token).state.step == "failure"
    ok = post_turn(
        client,
        app,
        token,
        action="sacrifice",
        keystone="r1",
        why="Needed.",
        outcome="Gone.",
        **faces(4, hit=True),
    )
    assert ok.status_code == 302
    state = chronicle(app, token).state
    assert state.step == "success" and state.keystones[0].status == "sacrificed"


def test_roll_before_stakes_is_refused_and_appends_nothing(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    before = chronicle(app, token).version
    response = post_turn(
        client, app, token, action="roll", prompt="0", answer="a", **faces(4, True)
    )
    assert flashed_errors(refused_page(client, response))
    assert chronicle(app, token).version == before


def test_refused_form_keeps_the_typed_text(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    response = post_turn(
        client, app, token, action="roll", prompt="0", answer="My long answer", **faces(4, True)
    )
    assert "My long answer" in refused_page(client, response)
    assert "My long answer" in client.get(f"/c/{token}/").get_data(as_text=True)


def test_stale_version_is_told_what_happened(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    old = chronicle(app, token).version
    post_turn(client, app, token, action="draw", card="2H")
    response = client.post(
        f"/c/{token}/turn", data={"version": str(old), "action": "draw", "card": "3H"}
    )
    assert "The host already drew 2 of Hearts ♥ for Ali." in refused_page(client, response)


def test_undo_takes_back_a_draw_and_refuses_a_digital_roll(client: FlaskClient, app: Flask) -> None:
    token = create(client, mode="digital")
    post_turn(client, app, token, action="draw")
    assert chronicle(app, token).state.step == "choose"
    version = chronicle(app, token).version
    client.post(f"/c/{token}/undo", data={"version": str(version)})
    assert chronicle(app, token).state.step == "draw"
    post_turn(client, app, token, action="draw")
    post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        answer="a",
        stakes_success="s",
        stakes_failure="f",
    )
    version = chronicle(app, token).version
    refused = client.post(f"/c/{token}/undo", data={"version": str(version)})
    assert flashed_errors(refused_page(client, refused))
    assert chronicle(app, token).version == version


def test_x_card_hides_the_prompt_and_allows_an_own_question(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    state = chronicle(app, token).state
    hidden_text = state.setup.prompts["AH"][0]
    post_turn(client, app, token, action="veil:0")
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    assert hidden_text not in page and "X-card" in page
    assert 'value="own"' not in page  # one prompt is still open: choose it, or veil it too
    post_turn(client, app, token, action="veil:1")
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    assert 'value="own"' in page and state.setup.prompts["AH"][1] not in page
    post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="own",
        question="What does the sea owe her?",
        answer="a",
        stakes_success="s",
        stakes_failure="f",
        **faces(4, True),
    )
    story = client.get(f"/c/{token}/story").get_data(as_text=True)
    assert "What does the sea owe her?" in story and hidden_text not in story


@pytest.mark.parametrize("mode", ["table", "digital"])
def test_a_whole_life_to_the_end_page(client: FlaskClient, app: Flask, mode: str) -> None:
    token = create(client, mode=mode)
    if mode == "table":
        play_to_the_end(client, app, token)
    else:
        _play_digital(client, app, token)
    state = chronicle(app, token).state
    assert state.ended
    end = client.get(f"/c/{token}/end").get_data(as_text=True)
    assert 'class="timeline"' in end
    version = str(chronicle(app, token).version)
    client.post(f"/c/{token}/epilogue", data={"epilogue": "She is remembered.", "version": version})
    assert "She is remembered." in client.get(f"/c/{token}/story").get_data(as_text=True)


def _play_digital(client: FlaskClient, app: Flask, token: str) -> None:
    for _ in range(300):
        state = chronicle(app, token).state
        if state.ended:
            return
        step = state.step
        if step == "draw":
            post_turn(client, app, token, action="draw")
        elif step in ("choose", "answer", "stakes", "roll"):
            post_turn(
                client,
                app,
                token,
                action="roll",
                prompt="0",
                answer="a",
                stakes_success="s",
                stakes_failure="f",
            )
        elif step == "mark":
            post_turn(client, app, token, action="mark", mark_name="A mark")
        elif step == "success":
            post_turn(client, app, token, action="narrate")
        elif step == "failure":
            post_turn(client, app, token, action="accept")
    raise AssertionError("the life did not end")


def test_corrections_keep_the_history(client: FlaskClient, app: Flask) -> None:
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
    client.post(
        f"/c/{token}/revise",
        data={
            "target_seq": answer.seq,
            "field": answer.field,
            "text": "Better words.",
            "version": str(chronicle(app, token).version),
        },
    )
    story = client.get(f"/c/{token}/story").get_data(as_text=True)
    assert "Better words." in story
    assert "Corrected once" in story and "First words." in story


def test_texts_over_the_limit_are_refused_with_a_message(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    version = chronicle(app, token).version
    response = post_turn(client, app, token, action="save", prompt="0", answer="x" * 20_001)
    page = refused_page(client, response)
    # the start of the text too long is kept, to shorten; kept words hold no more than a text
    assert "20,000" in page and "x" * 20_000 in page and "x" * 20_001 not in page
    assert chronicle(app, token).version == version


def test_drafts_survive_a_reload_and_a_second_device(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    client.post(f"/c/{token}/draft", data={"field": "answer", "text": "half a thought"})
    other_device = app.test_client()
    assert "half a thought" in other_device.get(f"/c/{token}/").get_data(as_text=True)


def test_markdown_preview_is_cleaned(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    html = client.post(f"/c/{token}/preview", data={"text": "**b** <script>x()</script>"}).json[
        "html"
    ]
    assert "<strong>b</strong>" in html and "<script" not in html
