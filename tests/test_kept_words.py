"""Two devices act at once: the refused device is told who really moved, gets every word it sent
back (in its form while the turn still asks for them, else beside the story), and puts them into
the story in one click. A draft another device's move overtook comes back the same way."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn

from companion.store import capabilities
from companion.store.db import connect

NAMES = {"player-0": "健太", "player-1": "ゆい", "player-2": "", "language": "ja"}
HOST_WORDS = {
    "answer": "ホストの答え",
    "stakes_success": "ホストの成功",
    "stakes_failure": "ホストの失敗",
}
SEAT_WORDS = {
    "answer": "健太の答え",
    "stakes_success": "健太の成功",
    "stakes_failure": "健太の失敗",
}


def devices(app: Flask) -> tuple[FlaskClient, str, FlaskClient, str]:
    """The host's desktop and 健太's phone (seat 0, whose turn comes first), each a browser."""
    host = app.test_client()
    token = create(host, **NAMES)
    db = connect(app.config["DATABASE"])
    cap = capabilities.resolve(db, token)
    assert cap is not None
    return host, token, app.test_client(), capabilities.issue(db, cap.stream_id, "seat", 0)


def post(client: FlaskClient, token: str, version: int, **fields: Any) -> Any:
    return client.post(f"/c/{token}/turn", data={"version": str(version), **fields})


def shown(client: FlaskClient, token: str) -> str:
    return html.unescape(client.get(f"/c/{token}/").get_data(as_text=True))


def flashed(page: str) -> list[str]:
    return re.findall(r'class="flash flash-error"[^>]*>(.*?)<', page, re.S)


def kept_boxes(page: str) -> dict[str, str]:
    """The kept words beside the story: field -> the text in its box."""
    found = re.findall(
        r'<textarea id="kept-([a-z_]+)" name="kept_[a-z_]+"[^>]*>(.*?)</textarea>', page, re.S
    )
    return dict(found)


def drawn(app: Flask, host: FlaskClient, token: str) -> int:
    post(host, token, chronicle(app, token).version, action="draw", card="AH")
    return chronicle(app, token).version


def put(client: FlaskClient, token: str, app: Flask, field: str, how: str, text: str) -> Any:
    data = {"version": str(chronicle(app, token).version), "field": field, "how": how}
    return client.post(f"/c/{token}/kept", data={**data, f"kept_{field}": text})


def test_the_host_rolls_first_the_seat_gets_its_words_back_and_puts_them_in(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    won = post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    lost = post(phone, seat, seen, action="roll", prompt="1", **SEAT_WORDS, **faces(4, True))
    assert won.status_code == 302 and lost.status_code == 303
    page = shown(phone, seat)
    assert "ホストがすでに健太の代わりにサイコロを振りました" in flashed(page)[0]
    assert kept_boxes(page) == SEAT_WORDS
    assert "自分の文章に置き換える" in page and "自分の文章をあとに書き足す" in page
    assert kept_boxes(shown(host, token)) == {}  # the host's words are the story's
    assert put(phone, seat, app, "answer", "replace", "健太の答え").status_code == 303
    assert put(phone, seat, app, "stakes_success", "add", "健太の成功").status_code == 303
    check = chronicle(app, token).state.check
    assert check is not None and check.answer is not None and check.stakes_success is not None
    assert check.answer.value == "健太の答え" and check.answer.earlier == ("ホストの答え",)
    assert check.stakes_success.value == "ホストの成功\n\n健太の成功"
    assert kept_boxes(shown(phone, seat)) == {"stakes_failure": "健太の失敗"}
    assert put(phone, seat, app, "stakes_failure", "drop", "健太の失敗").status_code == 303
    assert kept_boxes(shown(phone, seat)) == {}
    assert chronicle(app, token).state.check.stakes_failure.value == "ホストの失敗"  # type: ignore[union-attr]


def test_the_seat_rolls_first_and_the_host_is_told_it_was_the_seat(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    assert (
        post(
            phone, seat, seen, action="roll", prompt="0", **SEAT_WORDS, **faces(4, True)
        ).status_code
        == 302
    )
    assert (
        post(
            host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True)
        ).status_code
        == 303
    )
    page = shown(host, token)
    assert "健太がすでにサイコロを振りました" in flashed(page)[0]
    assert "ホスト" not in flashed(page)[0]
    assert kept_boxes(page) == HOST_WORDS


def test_a_draw_by_the_host_is_credited_to_the_host(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = chronicle(app, token).version
    assert post(host, token, seen, action="draw", card="AH").status_code == 302
    assert post(phone, seat, seen, action="draw", card="2H").status_code == 303
    message = flashed(shown(phone, seat))[0]
    assert message.startswith("ホストがすでに健太の代わりにハート♥のAを引きました。")


def test_two_narrations_at_once_keep_both(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    seen = chronicle(app, token).version
    assert post(host, token, seen, action="narrate", narration="語りA").status_code == 302
    assert post(phone, seat, seen, action="narrate", narration="語りB").status_code == 303
    page = shown(phone, seat)
    assert "ホストがすでに健太の代わりに成功を物語りました" in flashed(page)[0]
    assert kept_boxes(page) == {"narration": "語りB"}
    assert "語りA" in page  # what the story holds there now
    put(phone, seat, app, "narration", "add", "語りB")
    assert chronicle(app, token).state.story[-1].narration.value == "語りA\n\n語りB"  # type: ignore[union-attr]


def test_sacrifice_answers_come_back_when_the_host_accepts_the_failure(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, False))
    seen = chronicle(app, token).version
    assert post(host, token, seen, action="accept", narration="諦めた").status_code == 302
    sacrifice = {"keystone": "r1", "why": "舟を守るため", "outcome": "舟は沈んだ"}
    assert (
        post(phone, seat, seen, action="sacrifice", **sacrifice, **faces(4, True)).status_code
        == 303
    )
    page = shown(phone, seat)
    assert kept_boxes(page) == {"why": "舟を守るため", "outcome": "舟は沈んだ"}
    put(
        phone, seat, app, "why", "add", "舟を守るため"
    )  # beside the narration: no sacrifice was made
    assert chronicle(app, token).state.story[-1].narration.value == "諦めた\n\n舟を守るため"  # type: ignore[union-attr]


def test_a_refused_form_of_the_same_step_shows_the_words_in_the_form(app: Flask) -> None:
    _host, token, phone, seat = devices(app)
    seen = drawn(app, _host, token)
    refused = post(
        phone, seat, seen, action="roll", prompt="0", answer="健太の答え", **faces(4, True)
    )
    assert refused.status_code == 303
    page = shown(phone, seat)
    assert flashed(page) and kept_boxes(page) == {}
    assert re.search(r'<textarea id="answer"[^>]*>健太の答え</textarea>', page)
    assert re.search(r'value="0" data-draft checked', page)  # the prompt chosen, too
    typed = {"field": "answer", "text": "健太の新しい答え", "turn": "1", "version": str(seen)}
    assert phone.post(f"/c/{seat}/draft", data=typed).get_json()["kept"] is False
    assert re.search(r'<textarea id="answer"[^>]*>健太の新しい答え</textarea>', shown(phone, seat))


def test_a_draft_the_other_device_overtook_comes_back_beside_the_story(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    typing = {"field": "answer", "text": "健太の下書き", "turn": "1", "version": str(seen)}
    assert phone.post(f"/c/{seat}/draft", data=typing).get_json() | {"drafts": ""} == {
        "saved": True,
        "kept": False,
        "version": seen,
        "drafts": "",
    }
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    assert kept_boxes(shown(phone, seat)) == {"answer": "健太の下書き"}
    late = {"field": "stakes_failure", "text": "遅れた下書き", "turn": "1", "version": str(seen)}
    assert phone.post(f"/c/{seat}/draft", data=late).get_json()["kept"] is True
    assert kept_boxes(shown(phone, seat)) == {
        "answer": "健太の下書き",
        "stakes_failure": "遅れた下書き",
    }
    assert kept_boxes(shown(host, token)) == {}


def test_kept_words_are_the_links_own(app: Flask) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    post(phone, seat, seen, action="roll", prompt="0", **SEAT_WORDS, **faces(4, True))
    db = connect(app.config["DATABASE"])
    reader = capabilities.issue(db, chronicle(app, token).id, "reader")
    other = capabilities.issue(db, chronicle(app, token).id, "seat", 1)
    for page in (shown(host, token), shown(app.test_client(), reader), shown(host, other)):
        assert "健太の答え" not in page and 'id="kept"' not in page
    assert "健太の答え" in shown(app.test_client(), seat)  # the same link on another browser


def test_an_api_client_refused_at_an_old_version_gets_its_texts_back(client: FlaskClient) -> None:
    made = client.post("/api/v1/chronicles", json={"pioneer": {"name": "Kaya"}, "players": ["Ali"]})
    token = made.get_json()["host_token"]
    client.post(
        f"/api/v1/chronicles/{token}/commands",
        json={"version": 2, "command": {"type": "draw-card"}},
    )
    batch = [
        {"type": "choose-prompt", "index": 0},
        {"type": "answer-prompt", "answer": "A compass."},
        {"type": "declare-stakes", "success": "Home.", "failure": "Lost."},
    ]
    late = client.post(
        f"/api/v1/chronicles/{token}/commands", json={"version": 2, "commands": batch}
    )
    body = late.get_json()
    assert late.status_code == 409 and body["code"] == "stale-version"
    assert body["kept"] == [
        {"command": 1, "type": "answer-prompt", "field": "answer", "text": "A compass."},
        {"command": 2, "type": "declare-stakes", "field": "success", "text": "Home."},
        {"command": 2, "type": "declare-stakes", "field": "failure", "text": "Lost."},
    ]
    assert "The host already drew" in body["error"]


@pytest.mark.parametrize("how", ["replace", "add"])
def test_putting_words_in_at_an_old_version_keeps_them(app: Flask, how: str) -> None:
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    post(phone, seat, seen, action="roll", prompt="0", **SEAT_WORDS, **faces(4, True))
    data = {"version": str(seen), "field": "answer", "how": how, "kept_answer": "直した答え"}
    assert phone.post(f"/c/{seat}/kept", data=data).status_code == 303
    page = shown(phone, seat)
    assert flashed(page) and kept_boxes(page)["answer"] == "直した答え"  # as edited
    assert chronicle(app, token).state.check.answer.value == "ホストの答え"  # type: ignore[union-attr]


def test_after_a_sacrifice_clash_and_a_failed_reroll_the_next_form_starts_empty(
    client: FlaskClient, app: Flask
) -> None:
    """「再判定が何度失敗しても、プレイヤーは何度も追加の〈輝礎〉を犠牲にして判定を続けられます。」
    Each sacrifice is its own choice, with its own answers to 「なぜこの犠牲が必要だったのか？」 and
    「その犠牲はどのような顛末を迎えたのか？」. Two devices press "sacrifice" at once with the same
    words and faces (they typed into the same drafts); one is recorded, its reroll fails, and the
    next sacrifice form must not come back filled with what was just recorded: pressing again
    would record it twice."""
    token = create(client, mode="table")
    post_turn(client, app, token, action="draw", card="2H")
    state = chronicle(app, token).state
    words = {"prompt": "0", "answer": "A.", "stakes_success": "S.", "stakes_failure": "F."}
    post_turn(client, app, token, action="roll", **words, **faces(state.dice, False))
    state = chronicle(app, token).state
    assert state.step == "failure"
    version = str(chronicle(app, token).version)
    keystone = re.search(
        r'name="keystone" value="([^"]+)"', client.get(f"/c/{token}/").get_data(as_text=True)
    )
    assert keystone is not None
    press = {"version": version, "action": "sacrifice", "keystone": keystone.group(1),
             "why": "The boat for the map.", "outcome": "The coast, charted.",
             **faces(state.dice, False)}  # fmt: skip
    other = app.test_client()
    assert client.post(f"/c/{token}/turn", data=press).status_code == 302
    assert other.post(f"/c/{token}/turn", data=press).status_code == 303  # someone moved first
    assert chronicle(app, token).state.step == "failure"  # the reroll failed
    page = other.get(f"/c/{token}/").get_data(as_text=True)
    assert "The boat for the map." not in page.split('id="why"')[1].split("</textarea>")[0]
    assert 'name="keystone"' not in page or "checked" not in page.split('name="keystone"')[1][:200]
    assert re.search(r'name="face-0"[^>]*value="1"', page) is None


def test_kept_words_name_their_turning_point_and_fold_away_once_it_is_past(app: Flask) -> None:
    """The "your words, not yet in the story" panel says which turning point its words were
    written for; two turning points later they fold into one line, kept until used or let go."""
    host, token, phone, seat = devices(app)
    seen = drawn(app, host, token)
    post(host, token, seen, action="roll", prompt="0", **HOST_WORDS, **faces(4, True))
    post(phone, seat, seen, action="roll", prompt="1", **SEAT_WORDS, **faces(4, True))
    page = shown(phone, seat)
    panel = page.split('id="kept"')[1].split("</section>")[0]
    named = re.findall(r'class="hint kept-point">([^<]*)<', panel)
    assert len(named) == 3 and all("〈転機〉のために書いた言葉" in n for n in named), named
    assert all("ラウンド 1・ターン 1" in n for n in named)
    assert "kept-older" not in panel and kept_boxes(page) == SEAT_WORDS
    for _ in range(2):  # two more turning points, played to their end
        state = chronicle(app, token).state
        if state.step == "success":
            post(host, token, chronicle(app, token).version, action="narrate", narration="先へ。")
        elif state.step == "mark":
            post(host, token, chronicle(app, token).version, action="mark", mark_name="灯")
        drawn_card = chronicle(app, token).state.pile_cards(chronicle(app, token).state.pile)[0]
        post(host, token, chronicle(app, token).version, action="draw", card=drawn_card)
        words = {
            "prompt": "0",
            "answer": "次。",
            "stakes_success": "成。",
            "stakes_failure": "否。",
        }
        post(host, token, chronicle(app, token).version, action="roll", **words, **faces(4, True))
    page = shown(phone, seat)
    panel = page.split('id="kept"')[1].split("</section>")[0]
    assert '<details class="kept-older">' in panel and kept_boxes(page) == SEAT_WORDS
    assert "以前の〈転機〉の文章が3件" in panel
