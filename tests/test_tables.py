"""Card-game tables through the Flask test client: set-up, hot-seat cover, bots, links, replay."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import buttons, load, new_table, refused, sheet

from companion.cardgames import get_game

GAMES = ("traitors-flame", "age-of-summoners")


def play_first_actions(client: FlaskClient, app: Flask, token: str, limit: int = 2000) -> None:
    """As the only person at a hot-seat table: reveal and take the first legal action until the end."""
    for _ in range(limit):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            return
        page = client.get(f"/t/{token}/").get_data(as_text=True)
        if "Pass the device" in page:
            seat = re.search(r'name="seat" value="(\d+)"', page).group(1)  # type: ignore[union-attr]
            client.post(f"/t/{token}/reveal", data={"seat": seat})
            page = client.get(f"/t/{token}/").get_data(as_text=True)
        actions = buttons(page)
        if not actions and "batch-form" in page:  # boxes to tick (a discard-down): one move
            actions = match.game.legal_actions(match.state, match.acting_seats()[0])[:1]
        assert actions, page[-2000:]
        response = client.post(
            f"/t/{token}/act",
            data={"version": str(match.version), "action": json.dumps(actions[0])},
        )
        assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_lobby_and_rules_render(client: FlaskClient, lang: str) -> None:
    assert client.get(f"/games/?lang={lang}").status_code == 200
    for game in GAMES:
        page = client.get(f"/games/{game}/rules?lang={lang}")
        assert page.status_code == 200


def test_a_table_needs_enough_seats(client: FlaskClient) -> None:
    response = client.post(
        "/games/", data={"game": "traitors-flame", "seat-0-kind": "person", "seat-0-name": "A"}
    )
    shown = refused(client, response)
    assert "takes 2 to 6 seats, not 1" in shown
    assert 'value="A"' in shown  # the lobby form comes back as it was sent


def test_a_table_needs_a_person(client: FlaskClient) -> None:
    response = client.post(
        "/games/", data={"game": "traitors-flame", "seat-0-kind": "random", "seat-1-kind": "random"}
    )
    assert 'class="flash flash-error"' in refused(client, response)


@pytest.mark.parametrize("game", GAMES)
def test_hot_seat_shows_a_cover_until_the_player_takes_the_device(
    client: FlaskClient, app: Flask, game: str
) -> None:
    people = {"seat-0-kind": "person", "seat-0-name": "Ann"}
    token = new_table(client, game, **people, **{"seat-1-kind": "person", "seat-1-name": "Ben"})
    first = load(app, token).acting_seats()[0]
    name = ("Ann", "Ben")[first]
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    assert f"Pass the device to {name}" in page and not buttons(page)
    client.post(f"/t/{token}/reveal", data={"seat": str(first)})
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    assert buttons(page) and "Pass the device" not in page


@pytest.mark.parametrize("game", GAMES)
def test_illegal_and_stale_actions_store_nothing(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    before = load(app, token).version
    bad = client.post(
        f"/t/{token}/act", data={"version": str(before), "action": json.dumps({"type": "nonsense"})}
    )
    assert 'class="flash flash-error"' in refused(client, bad)
    stale = client.post(f"/t/{token}/act", data={"version": str(before - 1), "action": "{}"})
    assert "Someone moved first" in refused(client, stale)
    assert load(app, token).version == before


@pytest.mark.parametrize("game", GAMES)
def test_a_fault_in_an_engine_is_a_logged_500_not_a_refusal(
    client: FlaskClient,
    app: Flask,
    game: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = new_table(client, game)
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    match = load(app, token)
    action = buttons(client.get(f"/t/{token}/").get_data(as_text=True))[0]

    def broken(*_args: Any) -> Any:
        [].remove("a card the engine thought it held")  # a ValueError that is no refusal

    monkeypatch.setattr(get_game(game), "apply", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False  # as in production: the error handler answers
    response = client.post(
        f"/t/{token}/act", data={"version": str(match.version), "action": json.dumps(action)}
    )
    assert response.status_code == 500
    page = response.get_data(as_text=True)
    assert "could not be read" not in page
    reference = re.search(r"give whoever runs this server this reference: ([\w-]+)", page)
    assert reference is not None
    assert "list.remove" in caplog.text
    assert load(app, token).version == match.version


@pytest.mark.parametrize("game", GAMES)
def test_an_action_that_is_not_json_is_refused_with_a_sentence(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    before = load(app, token).version
    for sent in ("{not json", '{"type": "\\ud800"}'):
        bad = client.post(f"/t/{token}/act", data={"version": str(before), "action": sent})
        assert "That action could not be read." in refused(client, bad)
    assert load(app, token).version == before


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_against_a_bot_then_replay_and_rematch(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    play_first_actions(client, app, token)
    match = load(app, token)
    assert match.game.result(match.state) is not None
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    assert "The match is over" in page
    moves = len(match.state["log"])
    assert client.get(f"/t/{token}/replay?step=0").status_code == 200
    assert f"Move {moves // 2} of {moves}" in client.get(
        f"/t/{token}/replay?step={moves // 2}"
    ).get_data(as_text=True)
    client.post(f"/t/{token}/rematch", data={"version": str(match.version)})
    again = load(app, token)
    assert again.number == 2 and again.game.result(again.state) is None
    assert [s.name for s in again.seats] == ["Ann", "Bo"]


def test_devices_mode_gives_each_person_a_link(client: FlaskClient, app: Flask) -> None:
    token = new_table(
        client,
        "traitors-flame",
        mode="devices",
        **{
            "seat-0-kind": "person",
            "seat-0-name": "Ann",
            "seat-1-kind": "person",
            "seat-1-name": "Bo",
        },
    )
    page = sheet(client, f"/t/{token}/links")
    urls = re.findall(r"<code>https?://[^/]+/t/([^/]+)/</code>", page)
    assert len(urls) == 3  # Ann, Bo, spectators
    ann, bo, spectator = urls
    match = load(app, token)
    first = match.acting_seats()[0]
    mine, theirs = (ann, bo) if first == 0 else (bo, ann)
    assert buttons(client.get(f"/t/{mine}/").get_data(as_text=True))
    assert not buttons(client.get(f"/t/{theirs}/").get_data(as_text=True))
    assert not buttons(client.get(f"/t/{spectator}/").get_data(as_text=True))
    watched = client.post(f"/t/{spectator}/act", data={"version": "1", "action": "{}"})
    assert "allowed to read only" in refused(client, watched)  # a spectator cannot move
