"""Every screen tells its holder whose it is and what they may do now: the seat's player named at
the top and "you" in the seat order, the reader told it only reads, no control or hint left over
once the life has ended, a solo writer straight at the table, and the start page's list."""

from __future__ import annotations

import html
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, play_to_the_end, post_turn

from companion.store import capabilities
from companion.store.db import connect


def links(app: Flask, token: str) -> dict[str, str]:
    db = connect(app.config["DATABASE"])
    sid = chronicle(app, token).id
    return {
        "host": token,
        "seat": capabilities.issue(db, sid, "seat", 1),
        "reader": capabilities.issue(db, sid, "reader"),
    }


def page(client: FlaskClient, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return html.unescape(response.get_data(as_text=True))


def top(text: str) -> str:
    """The page's main content before the live part: what it says first."""
    return text.split('<main id="main"', 1)[1].split('id="live"', 1)[0]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_each_link_says_whose_it_is_at_the_top(client: FlaskClient, app: Flask, lang: str) -> None:
    token = create(client, language=lang)
    link = links(app, token)
    seat = page(client, f"/c/{link['seat']}/")
    reader = page(client, f"/c/{link['reader']}/")
    host = page(client, f"/c/{token}/")
    if lang == "ja":
        assert "Briannaの席です。" in top(seat)
        assert "閲覧専用のリンクです。" in top(reader)
        assert "ホストのリンクです。" in top(host)
    else:
        assert "This is Brianna's seat" in top(seat)
        assert "Read-only link" in top(reader)
        assert "Host link" in top(host)
    order = seat.split('class="seat-order"')[1].split("</ol>")[0]
    items = re.findall(r"<li[^>]*>(.*?)</li>", order, re.S)
    assert [("tag you" in item) for item in items] == [False, True, False]  # Brianna is seat 1
    for other in (host, reader):
        assert "tag you" not in other.split('class="seat-order"')[1].split("</ol>")[0]
    for path in ("/story", "/end"):
        assert "Read-only link" in page(client, f"/c/{link['reader']}{path}?lang=en")


def ended(client: FlaskClient, app: Flask) -> tuple[str, dict[str, str]]:
    """A life played to its end, with an empty mark description and a lost token left over."""
    token = create(client)
    play_to_the_end(client, app, token)
    state = chronicle(app, token).state
    assert state.ended and state.marks and not state.marks[0].description.value
    return token, links(app, token)


def test_an_ended_table_offers_nothing_the_viewer_cannot_do(
    client: FlaskClient, app: Flask
) -> None:
    token, link = ended(client, app)
    for role, holder in link.items():
        table = page(client, f"/c/{holder}/?lang=ja")
        assert "このターンに使えるのは" not in table and "次のターンから使えます" not in table, role
        assert 'action="/c/' + holder + '/turn"' not in table, role
        end = page(client, f"/c/{holder}/end?lang=ja")
        story = page(client, f"/c/{holder}/story?lang=ja")
        if role == "reader":
            assert "エピローグを書く" not in table and 'name="epilogue"' not in end
            assert "この文章を修正する" not in story and "を書き加える" not in story
            writes = ("/turn", "/undo", "/epilogue", "/revise", "/kept")
            assert not [w for w in writes if f'{w}"' in end + story + table], role
        else:
            assert "エピローグを書く" in table and 'name="epilogue"' in end
            assert "この文章を修正する" in story
    post = {"epilogue": "灯は消えない。", "version": str(chronicle(app, token).version)}
    assert client.post(f"/c/{token}/epilogue", data=post).status_code == 302
    assert "エピローグを書く" not in page(client, f"/c/{link['seat']}/?lang=ja")  # written


def test_an_empty_mark_description_is_offered_to_write_not_to_correct(
    client: FlaskClient, app: Flask
) -> None:
    token, link = ended(client, app)
    story = page(client, f"/c/{token}/story?lang=en")
    mark = story.split('class="mark-ornament"')[1].split("</div>\n      {% endif %}")[0]
    block = mark.split("</section>")[0]
    assert block.count("Correct this text") == 1  # the mark's name only
    assert "Add a description of the mark" in block
    empty = chronicle(app, token).state.marks[0].description
    written = page(client, f"/c/{token}/text/{empty.seq}/{empty.field}?lang=en")
    assert "<h1>Write this text</h1>" in written


def test_a_solo_writer_goes_straight_to_the_table(client: FlaskClient, app: Flask) -> None:
    response = client.post("/new", data={**_solo(), "language": "en"})
    assert response.status_code == 302
    assert re.fullmatch(r"/c/[A-Za-z0-9_-]+/", response.headers["Location"])
    table = page(client, response.headers["Location"])
    assert "The chronicle has begun" in table
    token = response.headers["Location"].split("/")[2]
    assert f'href="/c/{token}/links"' in table  # one click away
    assert "New read-only link" in page(client, f"/c/{token}/links")  # shown there, once
    # A life of one player: no "(oldest)", no "started the round" beside the only name.
    order = table.split('class="seat-order"')[1].split("</ol>")[0]
    assert "(oldest)" not in order and "started the round" not in order
    group = page(client, f"/c/{create(client)}/?lang=en").split('class="seat-order"')[1]
    assert "(oldest)" in group.split("</ol>")[0]  # among several, it is said


def _solo() -> dict[str, str]:
    from play_helpers import SETUP_FORM

    return {**SETUP_FORM, "player-1": "", "player-2": ""}


def test_the_start_page_lists_role_date_and_end_newest_first(
    client: FlaskClient, app: Flask
) -> None:
    over = create(client, pioneer="Finished Life")
    play_to_the_end(client, app, over)
    host = create(client, pioneer="Host Life")
    seat = links(app, create(client, pioneer="Seat Life"))["seat"]
    reader = links(app, host)["reader"]
    for token in (over, host, seat, reader):
        client.get(f"/c/{token}/")
    post_turn(client, app, host, action="draw", card="AH")  # the latest change of all
    start = page(client, "/?lang=en")
    rows = re.findall(r"<li><a href=\"(/c/[^\"]+)\">([^<]+)</a>(.*?)</li>", start, re.S)
    order = [url for url, _t, _f in rows]
    at = {token: order.index(f"/c/{token}/") for token in (host, reader, seat, over)}
    assert max(at[host], at[reader]) < at[seat] < at[over]  # by the last change, newest first
    facts = {url: re.sub(r"\s+", " ", more) for url, _t, more in rows}
    assert ">Host<" in facts[f"/c/{host}/"] and ">Read-only<" in facts[f"/c/{reader}/"]
    assert ">Seat: Brianna<" in facts[f"/c/{seat}/"]
    assert ">ended<" in facts[f"/c/{over}/"] and ">ended<" not in facts[f"/c/{host}/"]
    assert all("last change" in fact for fact in facts.values())
    ja = page(client, "/?lang=ja")
    assert "ホスト" in ja and "席：Brianna" in ja and "最終更新" in ja
