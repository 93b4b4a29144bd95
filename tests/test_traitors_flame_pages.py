"""The Traitor's Flame table pages: board, labels, rules, result, and no hidden card in any page."""

from __future__ import annotations

import html
import json
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask, render_template
from flask.testing import FlaskClient
from flask_babel import force_locale
from table_helpers import act, buttons, load, new_table, page, play_through_pages, refused, sheet

from companion.cardgames.traitors_flame import GAME, cards
from companion.cardgames.traitors_flame.scenario import make_state
from companion.web.boards import traitors_flame as board

KEY = "traitors-flame"
FOUR = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    "seat-1-kind": "person",
    "seat-1-name": "Brianna",
    "seat-2-kind": "person",
    "seat-2-name": "Cy",
    "seat-3-kind": "person",
    "seat-3-name": "Dee",
}


def button_texts(text: str) -> list[str]:
    return [
        html.unescape(t).strip()
        for t in re.findall(r'<button name="action" value="[^"]+"[^>]*>([^<]*)</button>', text)
    ]


def seat_links(client: FlaskClient, token: str) -> tuple[list[str], str]:
    """Issue the join links of a devices table: (one token per person's seat, spectator token)."""
    text = sheet(client, f"/t/{token}/links")
    urls = re.findall(r"<code>https?://[^/]+/t/([^/]+)/</code>", text)
    return urls[:-1], urls[-1]


def four_at_a_table(client: FlaskClient, lang: str = "en") -> tuple[str, list[str], str]:
    response = client.post(
        "/games/", data={"game": KEY, "language": lang, "mode": "devices", **FOUR}
    )
    assert response.status_code == 302
    host = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    seats, spectator = seat_links(client, host)
    assert len(seats) == 4
    return host, seats, spectator


# The board ----------------------------------------------------------------------------------


def test_the_board_for_a_seat_shows_its_hand_the_deck_and_every_hand(
    client: FlaskClient, app: Flask
) -> None:
    host, seats, _spectator = four_at_a_table(client)
    for _ in range(6):  # a few draws so that hands hold cards
        match = load(app, host)
        act(client, seats[match.state["night"]], match, {"type": "draw"})
    match = load(app, host)
    current = match.state["night"]
    text = html.unescape(page(client, f"/t/{seats[current]}/"))
    assert "css/traitors-flame." in text
    assert "Your turn: you hold Night" in text and "Your hand" in text
    assert f"{len(match.state['deck'])} cards" in text
    assert "Clockwise" in text and "Order of play" in text
    for name in ("Ann", "Brianna", "Cy", "Dee"):
        assert name in text
    backs = len(re.findall(r'<use href="#tf-back-(?:back|flame)"/>', text))
    in_hands = sum(len(h) for h in match.state["hands"])
    assert backs == in_hands + 1  # every card of every hand as a back, and the deck's top
    assert text.count('href="#tf-back-night"') == 1
    flames = text.count('tf-mini" viewBox="0 0 250 350" role="img" aria-label="back: Flame"')
    assert flames == sum(match.state["flames"])
    for card in match.state["hands"][current]:
        assert cards.kind_of(card)["name_en"] in text
    other = (current + 1) % 4
    assert "Waiting for the other players" in page(client, f"/t/{seats[other]}/")


def test_a_spectator_sees_backs_only(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = four_at_a_table(client)
    for _ in range(5):
        match = load(app, host)
        act(client, seats[match.state["night"]], match, {"type": "draw"})
    text = page(client, f"/t/{spectator}/")
    assert 'class="tf-board"' in text and "You are watching." in text
    assert "Your hand" not in text and not buttons(text)
    assert 'href="#tf-face-' not in text.split('class="tf-played"')[0]  # no face before the row
    fragment = page(client, f"/t/{spectator}/?fragment=1")
    assert 'class="tf-board"' in fragment and "<html" not in fragment


def test_the_board_in_a_replay_and_the_result(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, KEY)
    play_through_pages(client, app, token)
    match = load(app, token)
    moves = len(match.state["log"])
    for step in (0, moves // 2, moves):
        text = page(client, f"/t/{token}/replay?step={step}")
        assert 'class="tf-board"' in text and "Your hand" not in text
    assert "The match is over" in page(client, f"/t/{token}/replay?step={moves}")


def test_hot_seat_cover_then_reveal(client: FlaskClient, app: Flask) -> None:
    # Two people: the device passes between them (one person alone is never covered).
    people = {"seat-0-kind": "person", "seat-0-name": "Ann"}
    people |= {"seat-1-kind": "person", "seat-1-name": "Ben"}
    token = new_table(client, KEY, **people)
    first = load(app, token).acting_seats()[0]
    covered = page(client, f"/t/{token}/")
    assert f"Pass the device to {('Ann', 'Ben')[first]}" in covered
    assert 'class="tf-board"' not in covered and "Your hand" not in covered
    client.post(f"/t/{token}/reveal", data={"seat": str(first)})
    shown = page(client, f"/t/{token}/")
    assert 'class="tf-board"' in shown and "Your hand" in shown and "Your turn" in shown


def test_board_words_in_japanese(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = four_at_a_table(client, lang="ja")
    match = load(app, host)
    text = page(client, f"/t/{seats[match.state['night']]}/")
    assert "あなたの手番です" in text and "山札" in text and "時計回り" in text
    assert "山札から1枚引く" in button_texts(text)[0]
    assert "各プレイヤーの手札" in page(client, f"/t/{spectator}/")


def test_the_board_shows_markers_warnings_skips_and_what_you_saw(app: Flask) -> None:
    st = make_state(
        4,
        hands=[["swordsman", "spy"], ["flame", "flame", "flame", "queen"], ["saint"], []],
        deck=["flame", "jester"],
        played=["bellringer", "seer"],
        night=0,
        dawn=None,
    )
    st["skip"] = True
    st["known"][0] = [st["hands"][1][3], st["deck"][-2]]
    view = GAME.view(st, 0)
    match = SimpleNamespace(
        names=lambda: ["Ann", "Brianna", "Cy", "Dee"],
        seats=[SimpleNamespace(name=n, bot=None) for n in "ABCD"],
    )
    with app.test_request_context("/?lang=en"):
        text = render_template(
            "tables/traitors-flame/_board.html",
            view=view,
            board=board,
            lang="en",
            match=match,
            seat=0,
        )
    assert "Top card: a Flame" in text and "Flames left in it: 11" in text
    assert "Before-Dawn lies on the table" in text
    assert "Night will pass over Brianna" in text and "Next: Cy" in text
    assert "3+ Flames: the round ends if Night reaches them" in text
    assert "You have seen" in text and "The Imprisoned Queen" in text
    assert "You saw in the deck" in text and "2 from the top: Jester of Oblivion" in text
    assert "Bell-Ringer of the Night Watch" in text and "Star-Reading Oracle" in text
    assert "Saint of the Rebel Flame" not in text  # Cy's card: never seen by Ann


def test_the_board_words_the_numbers_the_engine_and_the_card_data_give(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.cardgames.traitors_flame import engine

    monkeypatch.setattr(engine, "FLAME_END", 4)
    monkeypatch.setitem(cards.kinds()["night"], "value", 5)
    st = make_state(2, hands=[["right-hand"], ["flame"] * 4], deck=["spy"], night=0, dawn=1)
    st["rounds"] = [
        {
            "round": 1,
            "ended_by": "flame",
            "ender": 1,
            "raw": [-3, 7],
            "scores": [0, 7],
            "totals": [0, 7],
            "hands": [
                {"seat": s, "flames": 0, "kinds": [], "night": s == 1, "dawn": s == 0}
                for s in range(2)
            ],
        }
    ]
    match = SimpleNamespace(names=lambda: ["Ann", "Bo"], seats=[SimpleNamespace(bot=None)] * 2)
    with app.test_request_context("/?lang=en"):
        text = render_template(
            "tables/traitors-flame/_board.html", view=GAME.view(st, 0), board=board, match=match
        )
    text = html.unescape(text)
    assert "4+ Flames: the round ends if Night reaches them" in text
    assert "holds Night (+5)" in text and "Night +5" in text and "holds Before-Dawn (+4)" in text
    assert "Round 1: Night reached 4 Flames; Bo ended it" in text
    assert 'title="sum -3, counts as 0" class="tf-floored"' in text
    assert "Your hand is worth -2 now (a negative sum counts as 0)" in text


BOARD_WORDS = {
    "en": (
        "Round 2",
        "Your turn: you hold Night",
        "Next: Dee",
        "Counterclockwise",
        "Flames left in it: 11",
        "Your hand",
        "2 cards · no Flames",
        "Spy of the Hall of Mirrors",
        "3+ Flames: the round ends if Night reaches them",
        "First to 20 or more after a round",
        "Round 1: the deck ran out; Cy ended it",
        "Brianna wins with 21 points",
    ),
    "ja": (
        "第2回",
        "あなたの手番です（「夜」を持っています）",
        "次はDee",
        "反時計回り",
        "うち「逆臣の炎」11枚",
        "あなたの手札",
        "2枚・炎なし",
        "鏡の間の密偵",
        "炎3枚以上：「夜」が回れば回が終わります",
        "回の終わりに20点以上で勝利",
        "第1回：山札切れ。終わらせたのはCy",
        "Briannaの勝利（21点）",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_board_speaks_the_catalogue_of_the_locale(app: Flask, lang: str) -> None:
    st = make_state(
        4,
        hands=[["swordsman", "spy"], ["flame", "flame", "flame", "queen"], ["saint"], []],
        deck=["flame", "jester"],
        night=0,
        dawn=None,
    )
    st["round"], st["direction"] = 2, -1
    scores = [0, 21, 0, 0]
    st["rounds"] = [
        {
            "round": 1,
            "ended_by": "deck",
            "ender": 2,
            "raw": scores,
            "scores": scores,
            "totals": scores,
            "hands": [
                {"seat": s, "flames": 0, "kinds": [], "night": False, "dawn": False}
                for s in range(4)
            ],
        }
    ]
    st["totals"] = scores
    match = SimpleNamespace(
        names=lambda: ["Ann", "Brianna", "Cy", "Dee"],
        seats=[SimpleNamespace(name=n, bot=None) for n in "ABCD"],
    )
    result = {"winner": 1, "totals": scores, "rounds": 1, "order": [3, 0, 1, 2], "capped": False}
    over = GAME.view({**st, "result": result}, 0)
    with app.test_request_context(f"/?lang={lang}"):
        context = {"board": board, "match": match, "seat": 0}
        text = render_template(
            "tables/traitors-flame/_board.html", lang=lang, view=GAME.view(st, 0), **context
        )
        text += render_template(
            "tables/traitors-flame/_result.html", result=result, view=over, **context
        )
    text = html.unescape(text)
    for phrase in BOARD_WORDS[lang]:
        assert phrase in text, phrase
    other = BOARD_WORDS["ja" if lang == "en" else "en"]
    assert not [phrase for phrase in other if phrase in text and "Brianna" not in phrase]


# Refusals -----------------------------------------------------------------------------------


def test_a_refusal_names_the_card_in_the_viewers_language(client: FlaskClient, app: Flask) -> None:
    host, seats, _spectator = four_at_a_table(client, lang="ja")
    for _ in range(40):  # draw until the seat to act holds a card that cannot be played
        match = load(app, host)
        current = match.state["night"]
        held = [c for c in match.state["hands"][current] if not cards.kind_of(c)["usable"]]
        if held:
            break
        act(client, seats[current], match, {"type": "draw"})
    kind = cards.kind_of(held[0])
    action = json.dumps({"type": "play", "card": held[0]})
    response = client.post(
        f"/t/{seats[current]}/act", data={"version": str(match.version), "action": action}
    )
    text = html.unescape(refused(client, response))
    assert f"「{kind['name_ja']}」は使えません。" in text and kind["name_en"] not in text


def test_a_refusal_of_a_target_in_japanese_and_in_english(app: Flask) -> None:
    from companion.cardgames import CardGameRuleError
    from companion.web.shell.text_errors import rule_message

    st = make_state(3, hands=[["cupbearer", "queen"], [], []], night=0)
    with pytest.raises(CardGameRuleError) as refused:
        GAME.apply(st, 0, {"type": "play", "card": "cupbearer-1", "target": 0})
    with app.test_request_context(), force_locale("ja"):
        ja = rule_message(refused.value, KEY)
    with app.test_request_context(), force_locale("en"):
        en = rule_message(refused.value, KEY)
    assert ja == "「毒盃の酌人」の対象には正しいプレイヤーを選んでください（指定：0）。"
    assert (
        en
        == str(refused.value)
        == "Choose a valid player for Cupbearer of the Poisoned Cup, not 0."
    )


# Labels -------------------------------------------------------------------------------------


def test_labels_name_the_card_the_target_and_the_choice(app: Flask) -> None:
    st = make_state(
        3,
        hands=[["swordsman", "cupbearer", "queen", "hound"], ["flame", "flame", "spy"], []],
        deck=["jester"],
        night=0,
    )
    view = GAME.view(st, 0)
    names = ["Ann", "Brianna", "Cy"]
    labels = {
        json.dumps(a, sort_keys=True): board.label(a, view, names)
        for a in GAME.legal_actions(st, 0)
    }
    words = set(labels.values())
    assert "Draw the top card" in words
    assert "Play Swordsman of True Meaning on Brianna: take a Flame" in words
    assert "Play Swordsman of True Meaning on Brianna: take a random non-Flame card" in words
    assert "Play Swordsman of True Meaning on yourself: no effect" in words
    assert "Play Swordsman of True Meaning on Cy: nothing to take" in words
    assert "Play Cupbearer of the Poisoned Cup on Cy: give The Imprisoned Queen" in words
    assert "Play Hound of the Mad King on Brianna: take a Flame, give The Imprisoned Queen" in words
    assert "Play Hound of the Mad King on Cy: no effect" in words
    with app.test_request_context(), force_locale("ja"):
        ja = {board.label(a, view, names) for a in GAME.legal_actions(st, 0)}
    assert "「真義の剣士」をBriannaに使う（「逆臣の炎」を奪う）" in ja
    assert "「狂王の猟犬」をBriannaに使う（「逆臣の炎」を奪い、「幽閉の王妃」を渡す）" in ja
    assert "山札から1枚引く" in ja


def test_a_play_without_a_target_words_its_steps_in_japanese(app: Flask) -> None:
    st = make_state(2, hands=[["archivist", "queen"], []], deck=["jester"], night=0)
    view = GAME.view(st, 0)
    with app.test_request_context(), force_locale("ja"):
        ja = {board.label(a, view) for a in GAME.legal_actions(st, 0)}
    assert "「禁書庫の司書」を使う（「幽閉の王妃」を山札の一番下に置く）" in ja


def test_labels_on_the_page_are_words_not_json(client: FlaskClient, app: Flask) -> None:
    token = new_table(client, KEY)
    rng = random.Random(5)
    seen = 0
    for _ in range(60):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        client.post(f"/t/{token}/reveal", data={"seat": "0"})
        text = page(client, f"/t/{token}/")
        texts, actions = button_texts(text), buttons(text)
        assert len(texts) == len(actions) > 0
        for words, action in zip(texts, actions, strict=True):
            assert words.startswith(("Draw", "Play")), words
            assert not re.search(r"[{}\"]|\btype\b|-\d\b", words), words
            if action["type"] == "play":
                assert cards.kind_of(action["card"])["name_en"] in words
                seen += 1
        act(client, token, match, rng.choice(actions))
    assert seen, "no card was ever playable"


# Rules --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_rules_pages_list_every_character_as_the_data_has_it(
    client: FlaskClient, lang: str
) -> None:
    text = html.unescape(page(client, f"/games/{KEY}/rules?lang={lang}"))
    assert "<table" not in text
    heading = "The character cards" if lang == "en" else "キャラカード一覧"
    assert f"<h3>{heading}</h3>" in text
    for kind in cards.characters():
        name = kind[f"name_{lang}"]
        line = re.search(rf"<strong>{re.escape(name)}</strong>[^<]*", text)
        assert line, name
        value = f"{kind['value']:+d}".replace("-", "−")
        copies = f"{kind['copies']} copies" if lang == "en" else f"{kind['copies']}枚"
        assert value in line.group(0) and copies in line.group(0), line.group(0)
        playable = "can be played" if lang == "en" else "使用できる"
        assert (playable in line.group(0)) == kind["usable"], line.group(0)
        if kind["usable"]:
            assert kind[f"text_{lang}"] in text
    for word in ("20", "Traitor's Flame", "Before-Dawn") if lang == "en" else ("20点", "夜明け前"):
        assert word in text


# Hidden information -------------------------------------------------------------------------


def public_kinds(view: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(card ids, kinds) that ``view`` lets its seat see, including what earlier rounds revealed."""
    ids = {c["id"] for c in view["played"]} | {k["card"]["id"] for k in view["known_deck"]}
    for hand in view["hands"]:
        ids |= {c["id"] for c in hand.get("cards", []) + hand.get("known", [])}
    for event in view["events"]:
        ids |= {c for c in [event.get("card")] + event.get("cards", []) if c}
    kinds = {cards.kind_of(c)["id"] for c in ids}
    for summary in view["rounds"]:
        for hand in summary["hands"]:
            kinds |= set(hand["kinds"])
    return ids, kinds


def assert_no_hidden_card(text: str, state: dict[str, Any], seat: int | None, where: str) -> int:
    """No other seat's unseen non-Flame card (id or name) in ``text``; returns how many were checked."""
    ids, kinds = public_kinds(GAME.view(state, seat))
    text = html.unescape(text)
    checked = 0
    for other, hand in enumerate(state["hands"]):
        if other == seat:
            continue
        for card in hand:
            kind = cards.kind_of(card)
            if kind["id"] == "flame":
                continue
            if card not in ids:
                assert card not in text, f"{where}: {card} of seat {other} leaked"
            if kind["id"] not in kinds:
                checked += 1
                for name in (kind["name_en"], kind["name_ja"]):
                    assert name not in text, f"{where}: {name} (seat {other}) leaked"
    return checked


def test_no_page_shows_another_seats_hidden_cards(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = four_at_a_table(client)
    rng = random.Random(11)
    checked = shown = 0
    for step in range(90):
        match = load(app, host)
        if match.game.result(match.state) is not None:
            break
        state = match.state
        if step % 3 == 0:
            for seat, token in enumerate(seats):
                for url in (f"/t/{token}/", f"/t/{token}/?fragment=1"):
                    text = html.unescape(page(client, url))
                    checked += assert_no_hidden_card(text, state, seat, f"seat {seat} {url}")
                    for card in state["hands"][seat]:  # the check can fail: own cards do show
                        assert cards.kind_of(card)["name_en"] in text
                        shown += 1
            for url in (f"/t/{spectator}/", f"/t/{spectator}/?fragment=1", f"/t/{host}/"):
                checked += assert_no_hidden_card(page(client, url), state, None, url)
            replay = page(client, f"/t/{spectator}/replay")
            checked += assert_no_hidden_card(replay, state, None, "replay")
        current = state["night"]
        actions = buttons(page(client, f"/t/{seats[current]}/"))
        legal = GAME.legal_actions(state, current)
        assert actions and all(action in legal for action in actions)  # one per distinct label
        plays = [a for a in actions if a["type"] == "play"]
        act(client, seats[current], match, rng.choice(plays) if plays else actions[0])
    assert checked > 50 and shown > 20


# A whole match ------------------------------------------------------------------------------


def test_a_full_match_against_bots_ends_with_a_result(client: FlaskClient, app: Flask) -> None:
    seats = {
        "seat-0-kind": "person",
        "seat-0-name": "Ann",
        "seat-1-kind": "heuristic",
        "seat-1-name": "Bo",
        "seat-2-kind": "random",
        "seat-2-name": "Cy",
    }
    token = new_table(client, KEY, **seats)
    play_through_pages(client, app, token)
    match = load(app, token)
    result = match.game.result(match.state)
    assert result is not None and max(result["totals"]) >= 20
    text = html.unescape(page(client, f"/t/{token}/"))
    winner = match.seats[result["winner"]].name
    assert "The match is over" in text
    assert f"{winner} wins with {result['totals'][result['winner']]} points" in text
    assert "would play sooner" in text
    order = " → ".join(match.seats[s].name for s in result["order"])
    assert order in text
    standings = re.findall(r'<span class="tf-st-name">([^<]+)</span>', text)
    assert standings[0] == winner and sorted(standings) == ["Ann", "Bo", "Cy"]


def test_the_result_explains_a_tie() -> None:
    result = {"winner": 1, "totals": [22, 22, 19], "rounds": 4, "order": [1, 2, 0], "capped": False}
    st = make_state(3, totals=[22, 22, 19])
    last = {"round": 4, "ended_by": "deck", "ender": 0, "raw": [3, 3, 3], "hands": []}
    st["result"], st["rounds"] = result, [{**last, "scores": [3, 3, 3], "totals": [22, 22, 19]}]
    info = board.result_info(result, GAME.view(st, None), ["Ann", "Bo", "Cy"])
    assert info["winner"] == "Bo" and info["tied"] == ["Bo", "Ann"]
    assert info["ender"] == "Ann" and info["first"] == "Bo"
    assert [r["name"] for r in info["rows"]] == ["Bo", "Ann", "Cy"]


def test_card_pictures_flame_night_and_dawn_backs_stand_out(app: Flask) -> None:
    backs = {which: str(board.full_back(kind)) for which, kind in board_backs().items()}
    assert len(set(backs.values())) == 4  # the common back, Flame, Night and Before-Dawn differ
    assert str(board.full_back("saint-1")) == str(board.full_back("right-hand-2"))
    with app.test_request_context(), force_locale("ja"):
        assert "真義の剣士" in str(board.full_face("swordsman-1"))
    assert "Swordsman of True Meaning" in str(board.full_face("swordsman"))
    view = GAME.view(make_state(2, hands=[["spy"], ["pilgrim"]], deck=["jester"]), 0)
    defs = str(board.defs(view))
    assert 'id="tf-face-spy-en"' in defs and "pilgrim" not in defs
    assert all(f'id="tf-back-{b}"' in defs for b in board.BACKS)
    assert '<use href="#tf-back-flame"/>' in str(board.back("flame"))
    assert 'aria-label="Spy of the Hall of Mirrors"' in str(board.face("spy-1"))


def board_backs() -> dict[str, str]:
    return {"back": "queen", "flame": "flame-01", "night": "night", "dawn": "dawn"}


def test_seat_names_are_escaped_on_the_board_and_the_result(
    client: FlaskClient, app: Flask
) -> None:
    evil = '<img src=x onerror="alert(1)">'
    token = new_table(
        client,
        KEY,
        **{"seat-0-kind": "person", "seat-0-name": evil, "seat-1-kind": "random"},
    )
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    text = page(client, f"/t/{token}/")
    assert "<img src=x" not in text and "&lt;img src=x" in text
    assert "<img src=x" not in page(client, f"/t/{token}/replay")
