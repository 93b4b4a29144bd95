"""A match records its engine version; one that no longer replays opens read-only, never a 500."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import buttons, load, new_table

from companion import matches
from companion.cardgames import get_game
from companion.db import connect

GAMES = ("traitors-flame", "age-of-summoners")
CHANGED_EN = "recorded under an earlier version of the rules"
BROKEN_EN = "no longer replays under the current rules"
CHANGED_JA = "以前のルール"
REFUSED_EN = "it can be read and replayed, not played"


def _events(app: Flask, token: str) -> list[dict[str, Any]]:
    db = connect(app.config["DATABASE"])
    sid = load(app, token).id
    rows = db.execute(
        "SELECT seq, data FROM events WHERE stream_id = ? ORDER BY seq", [sid]
    ).fetchall()
    return [{"seq": seq, "data": json.loads(data)} for seq, data in rows]


def _tamper(app: Flask, token: str, seq: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite one stored event in place, as an older engine (or a damaged file) left it."""
    db = connect(app.config["DATABASE"])
    sid = load(app, token).id
    (raw,) = db.execute(
        "SELECT data FROM events WHERE stream_id = ? AND seq = ?", [sid, seq]
    ).fetchone()
    data = json.loads(raw)
    change(data)
    with db.conn:
        db.execute(
            "UPDATE events SET data = ? WHERE stream_id = ? AND seq = ?",
            [json.dumps(data, sort_keys=True), sid, seq],
        )
    matches.CACHE.clear()


def _one_move(client: FlaskClient, app: Flask, token: str) -> None:
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    match = load(app, token)
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    action = buttons(page)[0]
    response = client.post(
        f"/t/{token}/act", data={"version": str(match.version), "action": json.dumps(action)}
    )
    assert response.status_code == 302


def _assert_read_only(client: FlaskClient, app: Flask, token: str, message: str) -> None:
    before = load(app, token)
    assert before.read_only is not None
    assert before.acting_seats() == []
    table = client.get(f"/t/{token}/")
    fragment = client.get(f"/t/{token}/?fragment=1")
    replay = client.get(f"/t/{token}/replay")
    replay_start = client.get(f"/t/{token}/replay?step=0")
    for response in (table, fragment, replay, replay_start):
        assert response.status_code == 200
        assert message in response.get_data(as_text=True)
    assert not buttons(table.get_data(as_text=True))
    posted = client.post(
        f"/t/{token}/act", data={"version": str(before.version), "action": json.dumps({})}
    )
    assert posted.status_code == 409
    assert REFUSED_EN in posted.get_data(as_text=True)
    client.post(f"/t/{token}/rematch", data={"version": str(before.version)})
    after = load(app, token)
    assert after.version == before.version and after.state == before.state


def test_a_new_match_records_the_engine_version(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "age-of-summoners")
    first = _events(app, token)[0]["data"]
    assert first["engine"] == get_game("age-of-summoners").engine_version
    match = load(app, token)
    assert match.engine_version == first["engine"] and match.read_only is None


@pytest.mark.parametrize("game", GAMES)
def test_a_match_from_another_engine_version_opens_read_only(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    _one_move(client, app, token)
    moves = len(get_game(game).log(load(app, token).state))

    def older(data: dict[str, Any]) -> None:
        data["engine"] = get_game(game).engine_version + 7

    _tamper(app, token, 1, older)
    _assert_read_only(client, app, token, CHANGED_EN)
    match = load(app, token)
    assert match.read_only == matches.ENGINE_CHANGED
    assert len(match.game.log(match.state)) == moves  # every move still shows
    ja = client.get(f"/t/{token}/?lang=ja")
    assert ja.status_code == 200


def test_the_notice_is_in_the_table_language(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "traitors-flame", lang="ja")

    def older(data: dict[str, Any]) -> None:
        data["engine"] = 0

    _tamper(app, token, 1, older)
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    assert CHANGED_JA in page and CHANGED_EN not in page


def test_a_match_stored_before_versions_counts_as_the_first_release(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame")
    _tamper(app, token, 1, lambda data: data.pop("engine"))
    match = load(app, token)
    assert match.engine_version == matches.FIRST_ENGINE_VERSION
    expected = None if match.game.engine_version == matches.FIRST_ENGINE_VERSION else "changed"
    assert (match.read_only and "changed") == expected


@pytest.mark.parametrize("game", GAMES)
def test_a_match_whose_moves_no_longer_replay_opens_read_only(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    _one_move(client, app, token)
    events = _events(app, token)
    first_action = next(e for e in events if e["data"]["type"] == "action")

    def refused(data: dict[str, Any]) -> None:
        data["action"] = {"type": "a move the rules never had"}

    _tamper(app, token, first_action["seq"], refused)
    _assert_read_only(client, app, token, BROKEN_EN)
    match = load(app, token)
    assert match.read_only == matches.REPLAY_FAILED
    assert match.game.log(match.state) == []  # shown up to the last move that still holds


def test_options_the_engine_now_refuses_open_read_only(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "traitors-flame")

    def bad_start(data: dict[str, Any]) -> None:
        data["options"] = {"start": 99}

    _tamper(app, token, 1, bad_start)
    _assert_read_only(client, app, token, BROKEN_EN)
