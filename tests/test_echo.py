"""Pages answered again in front of Flask: always the bytes Flask would send now.

Each check asks a page twice and compares the second answer (from the echo when it was kept)
with what Flask makes at that moment with every cache empty: the same status, headers (the
request id aside) and body. A life is played step by step with a seat typing, a stale post, a
correction, books being made and a link revoked, so every input of a page changes at least once
while its pages are kept.
"""

from __future__ import annotations

import html
import random
from pathlib import Path
from typing import Any

from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import SETUP_FORM, chronicle, create, faces, play_turn, post_turn
from table_helpers import act, buttons, load, new_table, page

from companion.export import jobs
from companion.store import capabilities
from companion.store.db import connect
from companion.text.bytecache import ByteLRU
from companion.web.shell.render_cache import ECHOABLE

WORDS = "灯台の灯が、嵐の中で揺れていた。"
PAGES = ("", "?fragment=1", "story", "story?fragment=1")


def echo_of(app: Flask) -> Any:
    return app.extensions["companion.echo"]


def made_now(app: Flask, client: FlaskClient, url: str, **headers: str) -> Any:
    """What Flask answers ``url`` now, from an empty page cache and with no echo in front
    (the pages kept so far stay kept for the echo's next answers)."""
    echo = echo_of(app)
    kept_pages = app.extensions["companion.render_cache"]
    app.extensions["companion.render_cache"] = ByteLRU(kept_pages.max_bytes)  # for this one
    marked: list[bool] = []

    def flask_alone(environ: dict[str, Any], start_response: Any) -> Any:
        answer = echo.wsgi_app(environ, start_response)
        marked.append(ECHOABLE in environ)
        return answer

    outer = app.wsgi_app
    app.wsgi_app = flask_alone  # type: ignore[method-assign]
    try:
        response = client.get(url, headers=headers)
    finally:
        app.wsgi_app = outer  # type: ignore[method-assign]
        app.extensions["companion.render_cache"] = kept_pages
    response.echoable = marked == [True]
    return response


def headers_of(response: Any) -> list[tuple[str, str]]:
    return [(k, v) for k, v in response.headers.items() if k != "X-Request-Id"]


def same_as_flask(app: Flask, client: FlaskClient, url: str, **headers: str) -> str:
    """Ask ``url`` twice; the second answer must be Flask's own answer now, and, when Flask's
    first answer was a kept page, come from the echo. The page's text."""
    echo = echo_of(app)
    for _ in range(3):  # the first visit of a page may set the cookie (the links it opened)
        if "Set-Cookie" not in client.get(url, headers=headers).headers:
            break
    hits = echo.hits
    again = client.get(url, headers=headers)
    made = made_now(app, client, url, **headers)
    assert again.status_code == made.status_code, url
    assert headers_of(again) == headers_of(made), url
    assert again.get_data() == made.get_data(), url
    assert again.headers["X-Request-Id"] != made.headers["X-Request-Id"]
    kept = made.status_code == 200 and "Set-Cookie" not in made.headers
    if kept and made.echoable:  # a page made of the page cache's parts
        assert echo.hits == hits + 1, f"{url} was not answered again"
    else:
        assert echo.hits == hits
    return html.unescape(again.get_data(as_text=True))


def every_page(app: Flask, tokens: list[str]) -> dict[tuple[str, str], str]:
    """Every page of each link, each asked by its own browser."""
    return {
        (token, path): same_as_flask(app, browser(app, token), f"/c/{token}/{path}")
        for token in tokens
        for path in PAGES
    }


def browser(app: Flask, token: str) -> FlaskClient:
    """The browser a link is opened in: one per link, as at a table of phones."""
    browsers = app.extensions.setdefault("test.browsers", {})
    if token not in browsers:
        browsers[token] = app.test_client()
    return browsers[token]


def links(app: Flask, token: str, client: FlaskClient) -> list[str]:
    """The host's link (opened in ``client``, which made it), two seats' and a reader's."""
    app.extensions["test.browsers"] = {token: client}
    db = connect(app.config["DATABASE"])
    sid = chronicle(app, token).id
    return [
        token,
        capabilities.issue(db, sid, "seat", 0),
        capabilities.issue(db, sid, "seat", 1),
        capabilities.issue(db, sid, "reader"),
    ]


def typed(client: FlaskClient, app: Flask, token: str, field: str, text: str) -> None:
    state = chronicle(app, token).state
    data = {"field": field, "text": text, "turn": str(state.turn_no), "version": str(state.version)}
    assert client.post(f"/c/{token}/draft", data=data).get_json()["saved"] is True


def test_a_life_played_step_by_step_is_always_served_as_flask_makes_it(
    app: Flask, client: FlaskClient
) -> None:
    host = create(client)
    tokens = links(app, host, client)
    host, ali, _brianna, reader = tokens
    before = every_page(app, tokens)
    post_turn(client, app, host, action="draw", card="AH")
    drawn = every_page(app, tokens)
    assert drawn[(reader, "")] != before[(reader, "")]
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(client, app, host, action="roll", **fields, **faces(4, True))
    assert chronicle(app, host).state.step == "success"
    every_page(app, tokens)
    # A seat types: the others' pages show who writes and the words; nothing else changed.
    typed(browser(app, ali), app, ali, "narration", WORDS)
    written = every_page(app, tokens)
    assert WORDS in written[(reader, "?fragment=1")] and WORDS in written[(host, "")]
    typed(browser(app, ali), app, ali, "narration", WORDS + "波が")
    assert WORDS + "波が" in every_page(app, tokens)[(reader, "")]
    # A post made at an old version: its page says so once (a flashed message), then no more.
    stale = client.post(f"/c/{host}/turn", data={"version": "1", "action": "narrate"})
    assert stale.status_code == 303
    every_page(app, [host])
    post_turn(client, app, host, action="narrate", narration="Through.")
    for hit in (True, False, True):
        play_turn(client, app, host, hit)
        every_page(app, tokens)


def test_books_being_made_show_on_the_story_page_as_they_go(
    app: Flask, client: FlaskClient
) -> None:
    host = create(client)
    play_turn(client, app, host, True)
    tokens = links(app, host, client)
    story = every_page(app, tokens)[(host, "story")]
    db = connect(app.config["DATABASE"])
    sid, version = chronicle(app, host).id, chronicle(app, host).version
    exports = Path(app.config["EXPORTS_DIR"])
    job, _queued = jobs.request_book(db, exports, sid, version, "story", "a5")
    queued = every_page(app, tokens)[(host, "story")]
    assert queued != story
    for status, progress, at in (("running", 0, None), ("running", 40, 12), ("failed", 40, 12)):
        db.execute(
            "UPDATE exports SET status = ?, progress = ?, page = ?, error = ? WHERE id = ?",
            [status, progress, at, "stopped" if status == "failed" else None, job.id],
        )
        db.conn.commit()
        every_page(app, tokens)


def test_a_revoked_link_is_answered_by_flask_at_once(app: Flask, client: FlaskClient) -> None:
    host = create(client)
    tokens = links(app, host, client)
    every_page(app, tokens)
    db = connect(app.config["DATABASE"])
    sid = chronicle(app, host).id
    cap = capabilities.resolve(db, tokens[3])
    assert cap is not None and capabilities.revoke(db, sid, cap.token_hash)
    db.conn.commit()
    for path in PAGES:
        assert browser(app, tokens[3]).get(f"/c/{tokens[3]}/{path}").status_code == 404
    every_page(app, tokens[:3])


def test_each_browser_and_language_gets_its_own_page(csrf_app: Flask) -> None:
    app = csrf_app
    first, second = app.test_client(), app.test_client()
    host = create_with_csrf(first)
    pages = [same_as_flask(app, c, f"/c/{host}/") for c in (first, second)]
    tokens = [page.split('name="csrf_token" value="')[1].split('"')[0] for page in pages]
    assert tokens[0] != tokens[1]  # each browser's own form token, never another's
    english = same_as_flask(app, first, f"/c/{host}/", **{"Accept-Language": "en"})
    japanese = same_as_flask(app, second, f"/c/{host}/?lang=ja")
    assert english != japanese


def create_with_csrf(client: FlaskClient) -> str:
    form = client.get("/new").get_data(as_text=True)
    token = form.split('name="csrf_token" value="')[1].split('"')[0]
    response = client.post("/new", data={**SETUP_FORM, "csrf_token": token})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return response.headers["Location"].split("/c/")[1].split("/")[0]


def test_the_words_a_link_kept_are_shown_to_it_and_never_echoed(
    app: Flask, client: FlaskClient
) -> None:
    host = create(client)
    tokens = links(app, host, client)
    post_turn(client, app, host, action="draw", card="AH")
    every_page(app, tokens)
    fields = {"prompt": "0", "answer": WORDS, "stakes_success": "S", "stakes_failure": "F"}
    # The seat rolls at an old version: its words are kept for it and its page shows them.
    seat = browser(app, tokens[1])
    refused = seat.post(
        f"/c/{tokens[1]}/turn", data={"version": "1", "action": "roll", **fields, **faces(4, True)}
    )
    assert refused.status_code == 303
    seat.get(refused.headers["Location"])  # the flashed message, shown once
    shown = same_as_flask(app, seat, f"/c/{tokens[1]}/")
    assert WORDS in shown
    every_page(app, tokens)


def test_a_card_table_is_served_as_flask_makes_it_move_after_move(
    app: Flask, client: FlaskClient
) -> None:
    """Through the hot-seat table's own pages: its cover between people (the session says who
    holds the device), the moves and a bot's."""
    token = new_table(client, "traitors-flame")
    rng = random.Random(4)
    for _ in range(12):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        for path in ("", "?fragment=1"):
            same_as_flask(app, client, f"/t/{token}/{path}")
        if 'class="cover-screen"' in page(client, f"/t/{token}/"):
            client.post(f"/t/{token}/reveal", data={"seat": str(match.acting_seats()[0])})
            continue
        act(client, token, match, rng.choice(buttons(page(client, f"/t/{token}/"))))


def test_the_echo_can_be_turned_off(tmp_path: Path) -> None:
    app = make_app(tmp_path, REPLAY_BYTES=0)
    assert "companion.echo" not in app.extensions
    client = app.test_client()
    host = create(client)
    assert client.get(f"/c/{host}/").status_code == 200


def test_what_is_kept_stays_in_its_bytes(tmp_path: Path) -> None:
    app = make_app(tmp_path, REPLAY_BYTES=20_000)
    client = app.test_client()
    host = create(client)
    kept = echo_of(app).kept
    for n in range(60):
        client.get(f"/c/{host}/?n={n}")
        assert kept.nbytes <= 20_000
    assert 0 < len(kept) < 60
