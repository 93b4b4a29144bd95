"""The table shell both card games share: the game log, the hot-seat cover, the lobby, scores."""

from __future__ import annotations

import html
import json
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_babel import force_locale
from table_helpers import buttons, finish, load, new_table, page, refused

from companion.store.db import connect
from companion.streams import matches
from companion.web.boards import board_for

GAMES = ("traitors-flame", "age-of-summoners")


def log_lines(text: str) -> list[str]:
    """The lines of a table page's game log."""
    section = text[text.index('class="log-lines"') :]
    return re.findall(r"<li>(.*?)</li>", section, re.DOTALL)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_log_line_names_players_by_name(
    client: FlaskClient, app: Flask, game: str, lang: str
) -> None:
    token = new_table(
        client,
        game,
        lang=lang,
        **{
            "seat-0-kind": "heuristic",
            "seat-0-name": "Zed",
            "seat-1-kind": "heuristic",
            "seat-1-name": "Yolanda",
            "seat-2-kind": "person",
            "seat-2-name": "Xavier",
        },
    )
    db = connect(app.config["DATABASE"])
    for _ in range(30):  # Xavier moves, and the bots after him, until the log has a few lines
        text = page(client, f"/t/{token}/?lang={lang}")
        lines = log_lines(text)
        match = load(app, token)
        if len(lines) >= 4 or 2 not in match.acting_seats():
            break
        action = match.game.legal_actions(match.state, 2)[0]
        matches.act(db, match, 2, action, match.version)
    assert len(lines) >= 4
    joined = "\n".join(lines)
    for seat_word in ("Seat 1", "Seat 2", "Seat 3", "1番席", "2番席", "3番席"):
        assert seat_word not in joined
    assert not re.search(r"(?<![A-Za-z0-9])P[1-3](?![0-9])", joined)
    # Every line that mentions a seat names that seat's player: the board words each event again
    # with stand-ins for the names, and each stand-in it uses must be that player's name.
    match = load(app, token)
    events = match.game.view(match.state, 2)["events"][-len(lines) :]
    stand_ins = [f"SEAT{n}X" for n in range(3)]
    mentioned = 0
    with app.test_request_context(f"/?lang={lang}"), force_locale(lang):
        board = board_for(game)
        for line, event in zip(reversed(lines), events, strict=True):
            assert html.unescape(line) == board.describe(event, match.names())
            said = board.describe(event, stand_ins)
            for seat, stand_in in enumerate(stand_ins):
                if stand_in in said:
                    assert match.names()[seat] in html.unescape(line), (event, line)
                    mentioned += 1
    assert mentioned >= 3


def covered(text: str) -> bool:
    return 'class="cover-screen"' in text


@pytest.mark.parametrize("game", GAMES)
def test_one_person_against_bots_never_sees_the_cover(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    for _ in range(10):  # the first moves through the pages, then the rest of the match
        match = load(app, token)
        text = page(client, f"/t/{token}/")
        assert not covered(text) and "Your move, Ann" in text
        action = json.dumps(buttons(text)[-1])
        response = client.post(
            f"/t/{token}/act", data={"version": str(match.version), "action": action}
        )
        assert response.status_code == 302
    over = finish(app, token)
    assert (
        client.post(f"/t/{token}/rematch", data={"version": str(over.version)}).status_code == 302
    )
    assert load(app, token).number == 2
    text = page(client, f"/t/{token}/")  # the start of the next match
    assert not covered(text) and "Your move, Ann" in text


BOTS_AND_ANN = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    "seat-1-kind": "heuristic",
    "seat-1-name": "Bo",
    "seat-2-kind": "random",
    "seat-2-name": "Cy",
}


@pytest.mark.parametrize("game", GAMES)
def test_a_rematch_deals_again_for_the_same_seats_and_bots(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game, **BOTS_AND_ANN)
    over = finish(app, token)
    assert "The match is over" in page(client, f"/t/{token}/")
    answer = client.post(f"/t/{token}/rematch", data={"version": str(over.version)})
    assert answer.status_code == 302 and answer.headers["Location"] == f"/t/{token}/"
    again = load(app, token)
    assert again.number == 2 and again.game.result(again.state) is None
    assert [(s.name, s.bot) for s in again.seats] == [
        ("Ann", None),
        ("Bo", "heuristic"),
        ("Cy", "random"),
    ]
    assert "The match is over" not in page(client, f"/t/{token}/")


TWO_PEOPLE = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    "seat-1-kind": "person",
    "seat-1-name": "Ben",
}


def test_a_poll_answered_after_a_reveal_does_not_bring_the_cover_back(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame", **TWO_PEOPLE)
    assert covered(page(client, f"/t/{token}/"))
    before = client.get_cookie("session")
    assert before is not None
    # The page polls with the cookie it had; the person reveals their hand meanwhile.
    poller = app.test_client()
    poller.set_cookie("session", before.value)
    seat = load(app, token).acting_seats()[0]
    assert client.post(f"/t/{token}/reveal", data={"seat": str(seat)}).status_code == 302
    poll = poller.get(f"/t/{token}/version")
    assert poll.status_code == 200
    for name, value in (c.split("=", 1) for c in poll.headers.getlist("Set-Cookie")):
        client.set_cookie(name, value.split(";")[0])  # the browser keeps what the poll set
    assert not covered(page(client, f"/t/{token}/"))
    assert "Set-Cookie" not in poll.headers  # the poll answered without writing the session


def test_reading_a_table_sets_no_cookie_once_the_session_holds_it(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "age-of-summoners")
    page(client, f"/t/{token}/")
    for path in ("", "?fragment=1", "version", "replay"):
        response = client.get(f"/t/{token}/{path}")
        assert response.status_code == 200 and "Set-Cookie" not in response.headers, path


@pytest.mark.parametrize("game", GAMES)
def test_the_cover_shows_when_the_device_changes_hands(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game, **TWO_PEOPLE)
    holder = None
    changes = 0
    for _ in range(40):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        acting = match.acting_seats()
        text = page(client, f"/t/{token}/")
        if 'class="pass-on' in text:  # the mover saw something hidden: they pass it on
            assert holder not in acting and not covered(text)
            client.post(f"/t/{token}/pass")
            text = page(client, f"/t/{token}/")
        assert covered(text) == (holder not in acting), (holder, acting)
        if covered(text):
            changes += 1
            holder = acting[0]
            client.post(f"/t/{token}/reveal", data={"seat": str(holder)})
            text = page(client, f"/t/{token}/")
        assert not covered(text)
        response = client.post(
            f"/t/{token}/act",
            data={"version": str(match.version), "action": json.dumps(buttons(text)[-1])},
        )
        assert response.status_code == 302
    assert changes >= 2


def action_buttons(text: str) -> list[str]:
    return re.findall(r'<button name="action"[^>]*>', text)


@pytest.mark.parametrize("game", GAMES)
def test_no_move_is_highlighted_when_there_is_a_choice(
    client: FlaskClient, app: Flask, game: str
) -> None:
    token = new_table(client, game)
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    seen_choice = False
    for _ in range(30):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        text = page(client, f"/t/{token}/")
        tags = action_buttons(text)
        if len(tags) > 1:
            seen_choice = True
            assert not any("primary" in tag for tag in tags)
        else:
            assert "primary" in tags[0]  # the only move may stand out
        response = client.post(
            f"/t/{token}/act",
            data={"version": str(match.version), "action": json.dumps(buttons(text)[0])},
        )
        assert response.status_code == 302
    assert seen_choice


def default_form(game: str, lang: str = "en") -> dict[str, str]:
    """What the lobby sends when nobody edits it: two unnamed people and a steady bot, and
    every game's options as they start (the catch-up chips on, the start seat to chance)."""
    return {
        "game": game,
        "language": lang,
        "mode": "hotseat",
        "seat-0-kind": "person",
        "seat-1-kind": "person",
        "seat-2-kind": "heuristic",
        "seat-3-kind": "none",
        "options-age-of-summoners": "1",
        "option-age-of-summoners-catch_up": "1",
        "options-traitors-flame": "1",
        "option-traitors-flame-start": "",
    }


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("lang", "person"), [("en", "Player 2"), ("ja", "プレイヤー2")])
def test_the_default_lobby_form_deals_with_default_names(
    client: FlaskClient, app: Flask, game: str, lang: str, person: str
) -> None:
    response = client.post("/games/", data=default_form(game, lang))
    assert response.status_code == 302, response.get_data(as_text=True)[-800:]
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    names = load(app, token).names()
    assert len(names) == 3 and names[1] == person


def test_one_unnamed_person_keeps_a_seat(client: FlaskClient, app: Flask) -> None:
    token = new_table(
        client,
        "traitors-flame",
        **{"seat-0-kind": "person", "seat-0-name": "Ann", "seat-1-kind": "person"},
    )
    assert load(app, token).names() == ["Ann", "Player 2"]


@pytest.mark.parametrize(
    ("lang", "words", "advice"),
    [
        ("en", "Catch-up chips (house rule)", "Recommended, though not in the printed rules"),
        ("ja", "後手の勝利点チップ（ハウスルール）", "印刷版のルールにはないハウスルールですが"),
    ],
)
def test_the_lobby_offers_the_games_options(
    client: FlaskClient, lang: str, words: str, advice: str
) -> None:
    """The printed set-up is the default; the lobby recommends the catch-up chips in a sentence."""
    text = page(client, f"/games/?lang={lang}")
    assert words in text and advice in text
    box = re.search(r'<input type="checkbox" name="option-age-of-summoners-catch_up"[^>]*>', text)
    assert box is not None and "checked" not in box.group(0)


@pytest.mark.parametrize("on", [True, False])
def test_catch_up_chips_follow_the_lobby(client: FlaskClient, app: Flask, on: bool) -> None:
    form = default_form("age-of-summoners")
    if not on:
        del form["option-age-of-summoners-catch_up"]
    response = client.post("/games/", data=form)
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    match = load(app, token)
    assert match.options == {"catch_up": on, "always_use": False}  # every box the lobby shows
    events = [e["type"] for e in match.state["events"]]
    assert ("catch-up" in events) == on


def test_a_table_may_choose_to_use_every_ability_unasked(client: FlaskClient, app: Flask) -> None:
    """The lobby offers the printed rules (every ability asks, unticked) or using each at once."""
    text = page(client, "/games/?lang=en")
    box = re.search(r'<input type="checkbox" name="option-age-of-summoners-always_use"[^>]*>', text)
    assert box is not None and "checked" not in box.group(0)
    form = {**default_form("age-of-summoners"), "option-age-of-summoners-always_use": "1"}
    response = client.post("/games/", data=form)
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    assert load(app, token).options["always_use"] is True


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("age-of-summoners", {"turn_cap": "3"}),
        ("age-of-summoners", {"turn_cap": 0}),
        ("age-of-summoners", {"catch_up": 1}),
        ("age-of-summoners", {"start": 3}),
        ("traitors-flame", {"catch_up": True}),
        ("traitors-flame", {"start": True}),
        ("traitors-flame", {"max_rounds": 10**6}),
    ],
)
def test_options_outside_the_schema_are_refused(game: str, options: dict[str, object]) -> None:
    from companion.streams import matches

    with pytest.raises(matches.MatchSetupError):
        matches.check_options(game, options, 3)


def test_options_inside_the_schema_pass() -> None:
    from companion.streams import matches

    matches.check_options("age-of-summoners", {"catch_up": False, "start": 2, "turn_cap": 3}, 3)
    matches.check_options("traitors-flame", {"start": None, "max_rounds": 5}, 2)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("option-traitors-flame-catch_up", "1", "There is no option 'catch_up' in this game."),
        ("option-traitors-flame-start", "5", "The option start cannot be 5."),
        ("option-traitors-flame-start", "first", "Choose the table's options from the list."),
        ("option-traitors-flame-start", "9" * 5000, "Choose the table's options from the list."),
        ("option-traitors-flame-max_rounds", "3", "There is no option 'max_rounds' in this game."),
        ("option-chess-castling", "1", "There is no option 'option-chess-castling' in this game."),
    ],
)
def test_the_lobby_refuses_an_option_it_does_not_offer(
    client: FlaskClient, app: Flask, field: str, value: str, words: str
) -> None:
    form = {**default_form("traitors-flame"), field: value}
    answer = client.post("/games/", data=form)
    assert words in html.unescape(refused(client, answer))


def test_the_host_may_pick_the_start_player_in_the_lobby(client: FlaskClient, app: Flask) -> None:
    lobby = page(client, "/games/")
    picker = re.search(r'<select id="option-traitors-flame-start".*?</select>', lobby, re.S)
    assert picker is not None
    assert "Chosen at random" in picker.group(0) and "Seat 6" in picker.group(0)
    assert "option-age-of-summoners-start" not in lobby  # the hidden options stay hidden
    assert "turn_cap" not in lobby and "max_rounds" not in lobby
    form = {**default_form("traitors-flame"), "option-traitors-flame-start": "2"}
    response = client.post("/games/", data=form)
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    match = load(app, token)
    assert match.options == {"start": 2} and match.state["first"] == 2


def test_the_schema_describes_every_option_the_engines_read() -> None:
    from pathlib import Path

    from companion.cardgames import game_keys, get_game

    read = re.compile(r'(?:options|opts|\["options"\])\.get\(\s*"(\w+)"')
    for key in game_keys():
        game = get_game(key)
        package = Path(__file__).parent.parent / "companion" / "cardgames" / key.replace("-", "_")
        if not package.is_dir():
            package = package.with_name("summoners")
        names = {
            name
            for path in package.glob("*.py")
            if path.name != "simulate.py"
            for name in read.findall(path.read_text("utf-8"))
        }
        assert names, key
        assert names <= {option["key"] for option in game.options}, key


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("lang", "title"), [("en", "Where everyone stands"), ("ja", "いまの得点")])
def test_the_table_shows_where_every_seat_stands(
    client: FlaskClient, app: Flask, game: str, lang: str, title: str
) -> None:
    # Each table deals from its own random seed; a few deals end the match before the seats'
    # totals ever differ, so the test sets up another table then.
    for _ in range(TABLES_TO_SCORE):
        token = new_table(client, game, lang=lang)
        match = scored(app, token)
        if match is not None:
            break
    else:
        raise AssertionError(f"no match of {TABLES_TO_SCORE} had scores apart while running")
    text = page(client, f"/t/{token}/?lang={lang}")
    section = text[text.index('class="standing"') : text.index('class="log-lines"')]
    assert title in section
    rows = re.findall(
        r'standing-name">([^<]+)</span> <strong class="standing-total">(\d+)</strong>', section
    )
    totals = [row["total"] for row in match.game.standings(match.state)]
    assert any(totals) and len(set(totals)) > 1  # scores that tell the seats apart
    assert rows == [(name, str(total)) for name, total in zip(match.names(), totals, strict=True)]


TABLES_TO_SCORE = 20


def scored(app: Flask, token: str) -> matches.Match | None:
    """Play Ann's seat with seeded random moves until the seats' running totals differ (after a
    Traitor's Flame round has been banked) while the match still runs; None if it ended first."""
    import random

    db, rng = connect(app.config["DATABASE"]), random.Random(7)
    match = load(app, token)
    for _ in range(500):
        totals = [row["total"] for row in match.game.standings(match.state)]
        if len(set(totals)) > 1 and match.state.get("rounds", [None]):
            return match
        action = rng.choice(match.game.legal_actions(match.state, 0))
        match = matches.act(db, match, 0, action, match.version)
        if match.game.result(match.state) is not None:
            return None
    raise AssertionError("the scores never moved apart")


def test_summoners_standings_are_what_the_result_counts_and_ignore_hands() -> None:
    import random

    from companion.cardgames import get_game

    game = get_game("age-of-summoners")
    state = game.new(3, 11, {})
    rng = random.Random(4)
    checked = False
    while game.result(state) is None:
        seat = next(s for s in range(3) if game.legal_actions(state, s))
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        if len(state["log"]) == 40:
            swapped = {**state, "seats": [dict(p) for p in state["seats"]]}
            swapped["seats"][1]["hand"] = list(reversed(state["seats"][2]["hand"]))
            assert game.standings(swapped) == game.standings(state)
            checked = True
    result = game.result(state)
    assert result is not None and checked
    assert game.standings(state) == result["breakdown"]
    assert [row["total"] for row in game.standings(state)] == result["totals"]


def test_traitors_flame_standings_are_the_banked_totals(app: Flask) -> None:
    from flask_babel import force_locale

    from companion.cardgames import get_game
    from companion.web.boards.traitors_flame import standing_line

    game = get_game("traitors-flame")
    state = game.new(3, 2, {})
    state = {**state, "totals": [4, 20, 0]}
    rows = game.standings(state)
    assert [row["to_go"] for row in rows] == [16, 0, 20]
    assert standing_line(rows[0]) == "4 of 20 points; 16 to go"
    with app.test_request_context(), force_locale("ja"):
        assert standing_line(rows[0]) == "20点中4点（あと16点）"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_card_texts_draw_mana_placeholders_as_symbols(lang: str) -> None:
    from summoners_helpers import speaking

    from companion.cardgames.summoners.cards import kinds
    from companion.web.boards.summoners.svg import card_svg

    with_placeholders = [kind for kind, spec in kinds().items() if "[" in spec[f"text_{lang}"]]
    assert len(with_placeholders) >= 3
    names = {"en": ("green", "black", "any"), "ja": ("緑", "黒", "任意")}[lang]
    with speaking(lang):
        drawn = "".join(card_svg(kind, "hand") for kind in with_placeholders)
    assert not re.search(r"\[[^\]]*\]", drawn)
    for name in names:
        assert re.search(
            rf'<tspan fill="#[0-9a-f]{{6}}" font-weight="bold">[●◇]{name}</tspan>', drawn
        )


def test_a_name_typed_in_an_empty_row_seats_that_person(client: FlaskClient, app: Flask) -> None:
    form = {**default_form("traitors-flame"), "seat-3-name": "Dana"}
    response = client.post("/games/", data=form)
    assert response.status_code == 302
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    match = load(app, token)
    assert match.names() == ["Player 1", "Player 2", "Bot 3", "Dana"]
    assert match.seats[3].bot is None


@pytest.mark.parametrize(
    ("lang", "names"),
    [("en", ["Player 1", "Player 2", "Bot 3"]), ("ja", ["プレイヤー1", "プレイヤー2", "ボット3"])],
)
def test_default_names_count_the_seats_not_the_rows(
    client: FlaskClient, app: Flask, lang: str, names: list[str]
) -> None:
    form = {**default_form("traitors-flame", lang), "seat-1-kind": "none"}
    form |= {"seat-2-kind": "person", "seat-4-kind": "random"}
    response = client.post("/games/", data=form)
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    assert load(app, token).names() == names


def test_a_seat_kind_the_lobby_never_offers_is_refused(client: FlaskClient) -> None:
    answer = client.post("/games/", data={**default_form("traitors-flame"), "seat-4-kind": "alien"})
    assert "Choose who plays each seat from the list." in refused(client, answer)


def test_the_lobby_offers_the_bots_the_games_have(client: FlaskClient) -> None:
    from companion.cardgames import game_keys, get_game

    lobby = page(client, "/games/")
    kinds = re.search(r'<select id="seat-0-kind".*?</select>', lobby, re.S).group(0)  # type: ignore[union-attr]
    offered = re.findall(r'<option value="([^"]+)"', kinds)
    levels = {level for key in game_keys() for level in get_game(key).bots()}
    assert offered[:2] == ["none", "person"] and set(offered[2:]) == levels


@pytest.mark.parametrize(("lang", "title"), [("ja", "逆臣の炎"), ("en", "Traitor's Flame")])
def test_a_table_is_listed_under_its_games_name_in_the_tables_language(
    client: FlaskClient, lang: str, title: str
) -> None:
    new_table(client, "traitors-flame", lang=lang)
    assert title in html.unescape(page(client, "/?lang=en"))
