"""A match records its engine version; one from another version, one that no longer replays and
one whose record is damaged open read-only as far as they replay, with a notice: never a 500, and
a 404 that says why only when not even the table's seats can be read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import ServedClient, buttons, finish, load, new_table

from companion.cardgames import get_game
from companion.store.capabilities import hash_token
from companion.store.db import connect
from companion.streams import matches

JSON = {"Accept": "application/json"}
GAMES = ("traitors-flame", "age-of-summoners")
CHANGED_EN = "recorded under an earlier version of the rules"
BROKEN_EN = "no longer replays under the current rules"
CHANGED_JA = "以前のルール"
DAMAGED_EN = "record is damaged from"
UNREADABLE_EN = "not even its seats can be read"


def _events(app: Flask, token: str) -> list[dict[str, Any]]:
    db = connect(app.config["DATABASE"])
    sid = load(app, token).id
    rows = db.execute(
        "SELECT seq, data FROM events WHERE stream_id = ? ORDER BY seq", [sid]
    ).fetchall()
    return [{"seq": seq, "data": json.loads(data)} for seq, data in rows]


def _tamper(app: Flask, token: str, seq: int, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite one stored event in place, as an older engine (or a damaged file) left it."""
    data = next(e["data"] for e in _events(app, token) if e["seq"] == seq)
    change(data)
    _store_raw(app, token, seq, json.dumps(data, sort_keys=True))


def _store_raw(app: Flask, token: str, seq: int, text: str) -> None:
    """Store ``text`` as the data of event ``seq``, whatever it holds, then open it as a server
    of another release would: nothing this one replayed or rendered kept (the store's rendered
    pages are keyed by the release, ``store.rendered.digest``)."""
    db = connect(app.config["DATABASE"])
    sid = load(app, token).id
    with db.conn:
        db.execute("UPDATE events SET data = ? WHERE stream_id = ? AND seq = ?", [text, sid, seq])
        db.execute("DELETE FROM rendered WHERE stream_id = ?", [sid])
    matches.CACHE.clear()
    app.extensions["companion.render_cache"].clear()


def _one_move(client: FlaskClient, app: Flask, token: str) -> None:
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    match = load(app, token)
    page = client.get(f"/t/{token}/").get_data(as_text=True)
    action = buttons(page)[0]
    response = client.post(
        f"/t/{token}/act", data={"version": str(match.version), "action": json.dumps(action)}
    )
    assert response.status_code == 302


def _assert_read_only(client: Any, app: Flask, token: str, message: str) -> None:
    """Every page of the table shows ``message`` and no move; every post is refused with it."""
    before = load(app, token)
    assert before.read_only is not None
    assert before.acting_seats() == []
    table = client.get(f"/t/{token}/")
    pages = [table, client.get(f"/t/{token}/?fragment=1"), client.get(f"/t/{token}/replay")]
    pages.append(client.get(f"/t/{token}/replay?step=0"))
    for response in pages:
        assert response.status_code == 200
        assert message in response.get_data(as_text=True)
    assert not buttons(table.get_data(as_text=True))
    assert 'action="/t/' + token + '/rematch"' not in table.get_data(as_text=True)
    assert client.get(f"/t/{token}/version").get_json() == {"version": before.version}
    assert client.get(f"/t/{token}/links").status_code == 200
    version = str(before.version)
    for path, form in (
        ("act", {"version": version, "action": json.dumps({"type": "draw"})}),
        ("rematch", {"version": version}),
    ):
        posted = _post(client, f"/t/{token}/{path}", form)
        assert posted.status_code == 303, path
        assert message in _followed(client, posted)
    assert _post(client, f"/t/{token}/reveal", {"seat": "0"}).status_code == 303
    assert _post(client, f"/t/{token}/links", {"issue": "reader"}).status_code == 303
    after = load(app, token)
    assert after.version == before.version and after.state == before.state


def _post(client: Any, path: str, form: dict[str, str]) -> Any:
    if isinstance(client, ServedClient):
        return client.post(path, form)
    return client.post(path, data=form)


def _followed(client: Any, response: Any) -> str:
    """The page a refused post sends the browser to (post/redirect/get)."""
    return str(client.get(response.headers["Location"]).get_data(as_text=True))


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


def _play(client: FlaskClient, app: Flask, token: str, moves: int) -> None:
    """Play the person's seat with its first legal move until ``moves`` actions are stored."""
    db = connect(app.config["DATABASE"])
    while True:
        match = load(app, token)
        actions = [e for e in _events(app, token) if e["data"]["type"] == "action"]
        if len(actions) >= moves:
            return
        seat = next(s for s in match.acting_seats() if match.seats[s].bot is None)
        matches.act(db, match, seat, match.game.legal_actions(match.state, seat)[0], match.version)


@pytest.mark.parametrize("game", GAMES)
def test_a_match_whose_moves_no_longer_replay_opens_read_only_up_to_the_last_good_move(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    _play(client, app, token, 8)
    actions = [e for e in _events(app, token) if e["data"]["type"] == "action"]
    good = [(a["data"]["seat"], a["data"]["action"]) for a in actions[:5]]

    def refused(data: dict[str, Any]) -> None:
        data["action"] = {"type": "a move the rules never had"}

    _tamper(app, token, actions[5]["seq"], refused)
    _assert_read_only(client, app, token, BROKEN_EN)
    match = load(app, token)
    assert match.read_only == matches.REPLAY_FAILED
    assert [[s, a] for s, a in match.game.log(match.state)] == [[s, a] for s, a in good]
    replay = client.get(f"/t/{token}/replay").get_data(as_text=True)
    assert "Move 5 of 5" in replay


def test_an_option_the_game_no_longer_has_opens_read_only(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, "traitors-flame")

    def gone(data: dict[str, Any]) -> None:
        data["options"] = {"a rule since removed": True}

    _tamper(app, token, 1, gone)
    _assert_read_only(client, app, token, BROKEN_EN)
    assert load(app, token).read_only == matches.REPLAY_FAILED


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_match_from_another_version_offers_no_rematch(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    over = finish(app, token)
    assert over.game.result(over.state) is not None

    def older(data: dict[str, Any]) -> None:
        data["engine"] = get_game(game).engine_version + 1

    _tamper(app, token, 1, older)
    table = client.get(f"/t/{token}/").get_data(as_text=True)
    assert 'class="result-panel"' in table and "Rematch with the same seats" not in table
    refused = client.post(f"/t/{token}/rematch", data={"version": str(over.version)})
    assert refused.status_code == 303 and CHANGED_EN in _followed(client, refused)
    after = load(app, token)
    assert after.number == 1 and after.version == over.version


@pytest.fixture
def served(tmp_path: Path) -> tuple[Flask, ServedClient]:
    """The app as `companion serve` runs it (TESTING off, CSRF on) and a browser on it."""
    app = make_app(tmp_path, TESTING=False, WTF_CSRF_ENABLED=True)
    return app, ServedClient(app)


def _table_with_moves(served: tuple[Flask, ServedClient], game: str, moves: int = 6) -> str:
    app, browser = served
    token = browser.new_table(game)
    _play(browser.client, app, token, moves)
    return token


def _action_seqs(app: Flask, token: str) -> list[int]:
    return [e["seq"] for e in _events(app, token) if e["data"]["type"] == "action"]


RAW_DAMAGE = {
    "a list": json.dumps([0, {"type": "draw"}]),
    "a string": json.dumps("action"),
    "not JSON": '{"type": "action", "seat": 0, "action": {',
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("damage", sorted(RAW_DAMAGE))
def test_a_move_stored_damaged_opens_read_only_up_to_the_move_before(
    served: tuple[Flask, ServedClient], game: str, damage: str
) -> None:
    app, browser = served
    token = _table_with_moves(served, game)
    seqs = _action_seqs(app, token)
    good = load(app, token).game.log(load(app, token).state)[:3]
    _store_raw(app, token, seqs[3], RAW_DAMAGE[damage])
    _assert_read_only(browser, app, token, "record is damaged from move 4")
    match = load(app, token)
    assert match.read_only == matches.DAMAGED and match.damaged_from == 4
    assert match.game.log(match.state) == good


MOVE_DAMAGE: dict[str, Callable[[dict[str, Any]], None]] = {
    "no action": lambda data: data.pop("action"),
    "no seat": lambda data: data.pop("seat"),
    "no type": lambda data: data.pop("type"),
    "a seat out of range": lambda data: data.update(seat=9),
    "an action that is a list": lambda data: data.update(action=["draw"]),
}


@pytest.mark.parametrize("damage", sorted(MOVE_DAMAGE))
def test_a_move_missing_what_it_needs_opens_read_only(
    served: tuple[Flask, ServedClient], damage: str
) -> None:
    app, browser = served
    token = _table_with_moves(served, "age-of-summoners")
    _tamper(app, token, _action_seqs(app, token)[2], MOVE_DAMAGE[damage])
    _assert_read_only(browser, app, token, "record is damaged from move 3")
    assert len(load(app, token).game.log(load(app, token).state)) == 2


DEAL_DAMAGE: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "options as a list": ("traitors-flame", lambda data: data.update(options=["start"])),
    "a start seat as text": ("age-of-summoners", lambda data: data.update(options={"start": "x"})),
    "a start seat out of range": (
        "traitors-flame",
        lambda data: data.update(options={"start": 99}),
    ),
    "a seed that is a list": ("age-of-summoners", lambda data: data.update(seed=[1])),
    "no seed": ("traitors-flame", lambda data: data.pop("seed")),
    "no mode": ("age-of-summoners", lambda data: data.pop("mode")),
    "seats as bare names": ("traitors-flame", lambda data: data.update(seats=["a", "b"])),
    "a bot level no game has": (
        "age-of-summoners",
        lambda data: data["seats"][1].update(bot="oracle"),
    ),
}


@pytest.mark.parametrize("damage", sorted(DEAL_DAMAGE))
def test_a_deal_stored_damaged_opens_read_only(
    served: tuple[Flask, ServedClient], damage: str
) -> None:
    app, browser = served
    game, change = DEAL_DAMAGE[damage]
    token = _table_with_moves(served, game, moves=2)
    _tamper(app, token, 1, change)
    _assert_read_only(browser, app, token, "record is damaged from its deal")
    assert load(app, token).read_only == matches.DAMAGED


UNREADABLE: dict[str, Callable[[dict[str, Any]], None]] = {
    "no seats": lambda data: data.pop("seats"),
    "a seat that is a number": lambda data: data.update(seats=[1, 2]),
    "an unknown game": lambda data: data.update(key="chess"),
    "too many seats": lambda data: data.update(seats=[{"name": str(n)} for n in range(9)]),
    "one seat": lambda data: data.update(seats=[{"name": "Ann"}]),
}


@pytest.mark.parametrize("damage", [*sorted(UNREADABLE), "stored as a list"])
def test_a_table_whose_seats_cannot_be_read_is_404_saying_why(
    served: tuple[Flask, ServedClient], damage: str
) -> None:
    app, browser = served
    token = _table_with_moves(served, "traitors-flame", moves=1)
    if damage == "stored as a list":
        _store_raw(app, token, 1, "[]")
    else:
        _tamper(app, token, 1, UNREADABLE[damage])
    for path in ("", "?fragment=1", "replay", "links"):
        page = browser.get(f"/t/{token}/{path}")
        assert page.status_code == 404, path
        assert UNREADABLE_EN in page.get_data(as_text=True), path
    # The version poll reads the stream's header only, never its record: it still says where
    # the stream stands (an open page learns nothing else from it).
    stored = connect(app.config["DATABASE"]).execute(
        "SELECT s.version FROM streams s JOIN capabilities c ON c.stream_id = s.id"
        " WHERE c.token_hash = ?",
        [hash_token(token)],
    )
    assert browser.get(f"/t/{token}/version").get_json() == {"version": stored.fetchone()[0]}
    for path in ("act", "rematch", "reveal", "links"):  # a form is sent to the page saying why
        sent = browser.post(f"/t/{token}/{path}", {"version": "1"})
        assert sent.status_code == 303 and sent.headers["Location"] == f"/t/{token}/"
        asked = browser.post(f"/t/{token}/{path}", {"version": "1"}, headers=JSON)
        assert asked.status_code == 404
    answer = browser.get(f"/t/{token}/", headers={"Accept": "application/json"}).get_json()
    assert answer["code"] == "not-found" and UNREADABLE_EN in answer["error"]
