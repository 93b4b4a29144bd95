"""The play page through a whole evening: stakes after the roll, X-card, undo, chances, table mode."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn, refused_page

from companion.store import capabilities
from companion.store.db import connect

KINDS = ("resource", "attachment", "creed")

COMPOSE = {
    "prompt": "0",
    "answer": "She *rows* out at dawn.",
    "stakes_success": "The **light** stays lit.",
    "stakes_failure": "The lamp goes dark.",
}


def seat_link(app: Flask, token: str, seat: int | None, role: str = "seat") -> str:
    db = connect(app.config["DATABASE"])
    cap = capabilities.resolve(db, token)
    assert cap is not None
    return capabilities.issue(db, cap.stream_id, role, seat)


def page(client: FlaskClient, token: str) -> str:
    return client.get(f"/c/{token}/").get_data(as_text=True)


def rolled(client: FlaskClient, app: Flask, hit: bool) -> str:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    response = post_turn(client, app, token, action="roll", **COMPOSE, **faces(4, hit))
    assert response.status_code == 302
    return token


def test_after_a_success_every_device_still_sees_the_stakes_and_which_came_true(
    client: FlaskClient, app: Flask
) -> None:
    token = rolled(client, app, hit=True)
    state = chronicle(app, token).state
    reader = seat_link(app, token, None, "reader")
    for link in (token, reader):
        html = page(client, link)
        declared = html.split('class="declared"')[1].split("</section>")[0]
        assert state.setup.prompts["AH"][0] in declared
        assert "<em>rows</em>" in declared and "<strong>light</strong>" in declared
        assert "The lamp goes dark." in declared
        assert re.search(r'stake-success came-true">.*?came true', declared, re.S)
        assert "stake-failure came-true" not in declared


def test_after_a_failure_the_failure_stake_is_marked(client: FlaskClient, app: Flask) -> None:
    html = page(client, rolled(client, app, hit=False))
    declared = html.split('class="declared"')[1].split("</section>")[0]
    assert "stake-failure came-true" in declared and "stake-success came-true" not in declared


def test_another_seat_may_x_card_before_the_roll_and_a_reader_may_not(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    brianna, reader = seat_link(app, token, 1), seat_link(app, token, None, "reader")
    assert "xcard" in page(client, brianna) and "xcard" not in page(client, reader)
    post_turn(client, app, token, action="save", **COMPOSE)
    assert chronicle(app, token).state.step == "roll"
    html = page(client, brianna)
    assert html.count('class="xcard"') == 2  # still before the roll: the stakes are declared
    response = post_turn(client, app, brianna, action="veil:1", answer="stale text")
    assert response.status_code == 302
    state = chronicle(app, token).state
    assert state.check is not None and state.check.veiled == (1,)
    assert state.check.answer is not None and state.check.answer.value == COMPOSE["answer"]
    refused = post_turn(client, app, reader, action="veil:0")
    assert refused.status_code == 303 and refused.headers["Location"] == f"/c/{reader}/"
    assert chronicle(app, token).state.check.veiled == (1,)  # type: ignore[union-attr]
    post_turn(client, app, token, action="roll", **faces(4, True))
    assert "xcard" not in page(client, brianna)


def test_a_seat_cannot_undo_another_seats_draw_and_the_button_says_so(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="5H")
    brianna = seat_link(app, token, 1)
    html = page(client, brianna)
    assert "Take back: Ali’s draw (5 of Hearts" in html.replace("&#39;", "’").replace("'", "’")
    assert re.search(r"<button type=\"submit\" disabled[^>]*>↶ Take back", html)
    assert "Only Ali or the host may take this back." in html
    version = chronicle(app, token).version
    response = client.post(f"/c/{brianna}/undo", data={"version": str(version)})
    assert "Only Ali or the host may take this back." in refused_page(client, response)
    assert chronicle(app, token).state.step == "choose"
    ali = seat_link(app, token, 0)
    assert 'disabled aria-describedby="undo-reason"' not in page(client, ali)
    client.post(f"/c/{ali}/undo", data={"version": str(version)})
    assert chronicle(app, token).state.step == "draw"


def test_the_host_undoes_for_the_player_who_decided(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(client, app, token, action="roll", **COMPOSE, **faces(4, True))
    post_turn(client, app, token, action="narrate", narration="It held.")
    assert chronicle(app, token).state.seat == 1  # Brianna's turn; Ali narrated
    version = chronicle(app, token).version
    response = client.post(f"/c/{token}/undo", data={"version": str(version)})
    assert response.status_code == 302
    assert chronicle(app, token).state.step == "success"


def test_an_x_card_is_not_taken_back_and_a_digital_roll_is_disabled_beforehand(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client, mode="digital")
    post_turn(client, app, token, action="draw")
    post_turn(client, app, token, action="veil:1")
    html = page(client, token)
    assert "Take back:" in html and "X-card" in html
    assert "disabled" in html.split('class="undo-form"')[1].split("</form>")[0]
    version = chronicle(app, token).version
    undo = client.post(f"/c/{token}/undo", data={"version": str(version)})
    assert 'class="flash flash-error"' in refused_page(client, undo)
    assert chronicle(app, token).state.check.veiled == (1,)  # type: ignore[union-attr]
    post_turn(client, app, token, action="roll", **COMPOSE)
    html = page(client, token)
    form = html.split('class="undo-form"')[1].split("</form>")[0]
    assert "disabled" in form and "Dice rolled by the app stay rolled" in form


def test_api_undo_is_403_for_another_seat_and_409_for_the_apps_dice(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client, mode="digital")
    post_turn(client, app, token, action="draw")
    brianna = seat_link(app, token, 1)
    version = chronicle(app, token).version
    body = {"version": version, "command": {"type": "undo"}}
    response = client.post(f"/api/v1/chronicles/{brianna}/commands", json=body)
    assert response.status_code == 403 and response.get_json()["code"] == "not-your-decision"
    assert "Only Ali or the host" in response.get_json()["error"]
    post_turn(client, app, token, action="roll", **COMPOSE)
    body = {"version": chronicle(app, token).version, "command": {"type": "undo"}}
    response = client.post(f"/api/v1/chronicles/{token}/commands", json=body)
    assert response.status_code == 409 and response.get_json()["code"] == "dice-stay-rolled"


def test_a_failure_with_nothing_to_pay_shows_no_reroll_chance(
    client: FlaskClient, app: Flask
) -> None:
    token = rolled(client, app, hit=False)
    assert "chance that a reroll succeeds" in page(client, token)
    for keystone in ("r1", "a1", "c1"):  # every keystone paid, every reroll failed
        response = post_turn(
            client,
            app,
            token,
            action="sacrifice",
            keystone=keystone,
            why="w",
            outcome="o",
            **faces(4, False),
        )
        assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
    html = page(client, token)
    assert "chance that a reroll succeeds" not in html and "this roll succeeds" not in html
    assert "<strong>0%</strong>" in html


def test_a_near_certain_chance_is_never_shown_as_100_percent(
    client: FlaskClient, app: Flask
) -> None:
    names = {f"{kind}-{i}-name": f"{kind} {i}" for kind in KINDS for i in (1, 2)}
    token = create(client, **names)
    post_turn(client, app, token, action="draw", card="AH")
    html = page(client, token)  # Hearts, turn 1, 3/3/3 keystones: 99.9996%
    assert "<strong>99.9%+</strong>" in html and "<strong>100%</strong>" not in html


def test_table_mode_card_picker_starts_empty_and_refuses_no_choice(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    html = page(client, token)
    select = html.split('<select id="card"')[1].split("</select>")[0]
    assert re.search(r'<option value="" selected>— choose the card —</option>', select)
    assert 'value="AH" selected' not in select
    response = post_turn(client, app, token, action="draw", card="")
    assert "Choose the card you drew" in refused_page(client, response)
    assert chronicle(app, token).state.step == "draw"
