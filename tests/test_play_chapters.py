"""The play page's chapters: a new stage announced, solo wording, the prompt choice kept, history."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from legacy_factories import make_state
from play_helpers import chronicle, create, faces, play_turn, post_turn, refused_page

from companion.legacy.odds import p_finish
from companion.text.terms import percent

COMPOSE = {"answer": "An answer.", "stakes_success": "It holds.", "stakes_failure": "It breaks."}


def page(client: FlaskClient, token: str) -> str:
    return client.get(f"/c/{token}/").get_data(as_text=True)


def checked_prompt(html: str) -> list[str]:
    return re.findall(r'name="prompt" value="(\w+)" data-draft checked', html)


def test_a_chance_reads_100_or_0_percent_only_when_certain_or_impossible() -> None:
    near = p_finish(make_state())  # Hearts, turn 1, 3/3/3 keystones: 99.9996%
    assert 0.9999 < near < 1
    assert percent(near) == "99.9%+"
    assert (percent(1), percent(0), percent(0.0001), percent(0.5)) == (
        "100%",
        "0%",
        "<0.1%",
        "50.0%",
    )


def test_a_new_stage_opens_with_a_banner_during_its_first_turn(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    assert "A new stage of life begins" not in page(client, token)
    for _ in range(3):
        play_turn(client, app, token, hit=False)  # three lost rounds close Youth
    assert chronicle(app, token).state.stage == 1
    html = page(client, token)
    banner = html.split('<div class="stage-banner')[1].split("</div>")[0]
    assert "A new stage of life begins" in banner and "Prime" in banner and "3 dice" in banner
    post_turn(client, app, token, action="draw", card="AD")
    assert "stage-banner" in page(client, token)  # still the first turn
    post_turn(client, app, token, action="roll", prompt="0", **COMPOSE, **faces(3, True))
    post_turn(client, app, token, action="narrate", narration="On.")
    assert "stage-banner" not in page(client, token)


def test_solo_says_next_turning_point_and_still_names_whose_turn(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client, **{"player-1": "", "player-2": ""})
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(client, app, token, action="roll", prompt="0", **COMPOSE, **faces(4, True))
    html = page(client, token)
    assert "On to the next turning point" in html and "then on to the next turning point" in html
    assert "Pass the turn left" not in html and "turn passes left" not in html
    assert "Ali&#39;s turn" in html or "Ali's turn" in html


def test_solo_prompts_take_the_full_width_on_a_desktop() -> None:
    css = open("static/css/app.css", encoding="utf-8").read()
    solo = css.split("/* Solo:")[1].split("\n}\n")[0]
    assert "grid-template-columns: 18rem" not in solo
    assert re.search(r"\.solo \.compose-form\.writing \.prompts \{[^}]*grid-column: 1 / -1", solo)


def test_the_chosen_prompt_survives_a_refused_form_and_a_reload(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    refused = post_turn(client, app, token, action="roll", prompt="1", answer="Half done.")
    assert checked_prompt(refused_page(client, refused)) == ["1"]
    assert checked_prompt(page(client, token)) == ["1"]  # kept with the drafts
    saved = client.post(f"/c/{token}/draft", data={"field": "prompt", "text": "0"})
    assert saved.status_code == 200
    assert checked_prompt(page(client, token)) == ["0"]
    bad = client.post(f"/c/{token}/draft", data={"field": "prompt", "text": "<b>"})
    assert bad.status_code == 400
    response = post_turn(client, app, token, action="roll", **COMPOSE, prompt="0", **faces(4, True))
    assert response.status_code == 302


def test_a_roll_taken_back_stays_in_the_story_struck_through(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        **COMPOSE,
        **{"face-0": "2", "face-1": "3", "face-2": "3", "face-3": "4"},
    )
    version = chronicle(app, token).version
    assert client.post(f"/c/{token}/undo", data={"version": str(version)}).status_code == 302
    post_turn(client, app, token, action="roll", **faces(4, True))
    story = client.get(f"/c/{token}/story").get_data(as_text=True)
    withdrawn = story.split('class="roll withdrawn"')[1].split("</div>")[0]
    assert "<s>" in withdrawn and "this roll was withdrawn" in withdrawn
    assert 'aria-label="a 2"' in withdrawn or "a 2" in withdrawn


def test_the_forgiving_undo_is_labelled_a_house_rule(client: FlaskClient) -> None:
    html = client.get("/new").get_data(as_text=True)
    label = html.split('name="forgiving_undo"')[1].split("</label>")[0]
    assert "House rule" in label
