"""The Age of Summoners table pages: board, labels, rules, result, and no hidden card in any page."""

from __future__ import annotations

import html
import json
import os
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask, render_template
from flask.testing import FlaskClient
from summoners_helpers import speaking
from table_helpers import act, buttons, load, page, play_through_pages, sheet
from table_helpers import new_table as new_game_table
from werkzeug.datastructures import MultiDict

from companion.cardgames.summoners import GAME, cards
from companion.cardgames.summoners.cards import ACTIONS, kind_of_card, kinds, number_of_action
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.scenario import arrange, stack_deck
from companion.cardgames.summoners.scoring import final_result
from companion.streams import matches
from companion.web.boards import summoners as board
from companion.web.boards.summoners import spirit_list
from companion.web.boards.summoners.log import describe

KEY = "age-of-summoners"
THREE = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    "seat-1-kind": "person",
    "seat-1-name": "Brianna",
    "seat-2-kind": "person",
    "seat-2-name": "Cy",
}
NAMES = ["Ann", "Brianna", "Cy"]
State = dict[str, Any]


def button_texts(text: str) -> list[str]:
    return [
        html.unescape(t).strip()
        for t in re.findall(r'<button name="action" value="[^"]+"[^>]*>([^<]*)</button>', text)
    ]


def new_table(client: FlaskClient, mode: str = "hotseat", lang: str = "en", **seats: str) -> str:
    """A table of this game (Ann and a bot unless ``seats`` say otherwise)."""
    return new_game_table(client, KEY, mode, lang, **seats)


def three_at_a_table(client: FlaskClient, lang: str = "en") -> tuple[str, list[str], str]:
    """A devices table for Ann, Brianna and Cy: (host token, seat tokens, spectator token)."""
    host = new_table(client, mode="devices", lang=lang, **THREE)
    text = sheet(client, f"/t/{host}/links")
    urls = re.findall(r"<code>https?://[^/]+/t/([^/]+)/</code>", text)
    assert len(urls) == 4
    return host, urls[:3], urls[3]


def name_of(kind: str) -> str:
    return str(kinds()[kind]["name_en"])


def tag(kind: str) -> str:
    return board.card_tag(kind)


# The board ----------------------------------------------------------------------------------


def test_the_board_for_a_seat_shows_its_hand_the_piles_and_every_seat(
    client: FlaskClient, app: Flask
) -> None:
    host, seats, _spectator = three_at_a_table(client)
    match = load(app, host)
    state = match.state
    current = state["await"]["seat"]
    raw = page(client, f"/t/{seats[current]}/")
    text = html.unescape(raw)
    assert 'class="aos-board"' in text and "Your turn" in text and "Your hand" in text
    assert "Phase I: play a card from your hand beside your pairing card." in text
    for card in state["seats"][current]["hand"]:
        assert name_of(kind_of_card()[card]) in text
    assert f"Deck</span> <strong>{len(state['deck'])} cards" in text
    assert "Discard pile</span> <strong>0 cards" in text
    for name in NAMES:
        assert f'<span class="aos-seat-name">{name}</span>' in text
    # every seat's initial mana is face up; each pending pairing card is marked
    for p in state["seats"]:
        for card in p["mana"]:
            assert f'href="#aos-mana-{kind_of_card()[card]}-en"' in text
    assert text.count("aos-mana-item aos-is-pairing") == 3
    assert "A player with 10 or more spirits or 30 or more VP may declare the end" in text
    assert len(buttons(raw)) == len({kind_of_card()[c] for c in state["seats"][current]["hand"]})
    other = (current + 1) % 3
    waiting = html.unescape(page(client, f"/t/{seats[other]}/"))
    assert "Waiting for the other players" in waiting and not buttons(waiting)
    assert f"{NAMES[current]}'s turn" in waiting


def test_the_board_follows_the_csp(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = three_at_a_table(client)
    current = load(app, host).state["await"]["seat"]
    for token in (seats[current], spectator):
        text = page(client, f"/t/{token}/")
        assert " style=" not in text and "<style" not in text
        assert all(' src="/static/' in s for s in re.findall(r"<script[^>]*>", text))
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_a_spectator_sees_no_hand(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = three_at_a_table(client)
    for _ in range(6):
        match = load(app, host)
        seat = match.state["await"]["seat"]
        act(client, seats[seat], match, GAME.legal_actions(match.state, seat)[0])
    text = page(client, f"/t/{spectator}/")
    assert 'class="aos-board"' in text and "You are watching." in text
    assert "Your hand" not in text and not buttons(text)
    assert 'href="#aos-hand-' not in text  # no hand card is drawn for a spectator
    fragment = page(client, f"/t/{spectator}/?fragment=1")
    assert 'class="aos-board"' in fragment and "<html" not in fragment


def test_the_command_number_and_the_choice_of_the_assist(client: FlaskClient, app: Flask) -> None:
    host, seats, _spectator = three_at_a_table(client)
    match = load(app, host)
    seat = match.state["await"]["seat"]
    play = GAME.legal_actions(match.state, seat)[0]
    act(client, seats[seat], match, play)
    match = load(app, host)
    command = match.state["turn"]
    text = html.unescape(page(client, f"/t/{seats[(seat + 1) % 3]}/"))
    assert "Command number" in text and '<strong class="aos-number"' in text
    assert f">{command['base']}</strong>" in text
    assert f"Played: {name_of(kind_of_card()[play['card']])}" in text
    action = number_of_action(command["base"])
    assert board.action_name(action) in text
    # act until the active seat must keep one of two drawn cards
    for _ in range(20):
        match = load(app, host)
        if match.state["await"]["phase"] == "keep":
            break
        s = match.state["await"]["seat"]
        legal = GAME.legal_actions(match.state, s)
        acts = [a for a in legal if a["type"] == "act"] or legal
        act(client, seats[s], match, acts[0])
    match = load(app, host)
    assert match.state["await"]["phase"] == "keep"
    drawn = [kind_of_card()[c] for c in match.state["turn"]["drawn"]]
    mine_raw = page(client, f"/t/{seats[seat]}/")
    mine = html.unescape(mine_raw)
    right = NAMES[(seat - 1) % 3]
    assert "You drew" in mine and f"the other goes to {right}'s mana row" in mine
    for kind in drawn:
        assert f"{name_of(kind)} · {tag(kind)}" in mine
    assert any(t.startswith(f"Keep {name_of(drawn[0])}") for t in button_texts(mine_raw))
    theirs = html.unescape(page(client, f"/t/{seats[(seat + 1) % 3]}/"))
    assert "You drew" not in theirs
    assert f"{NAMES[seat]} keeps one card and assists the other to {right}" in theirs


def test_the_board_in_a_replay_and_the_result(client: FlaskClient, app: Flask) -> None:
    token = new_table(client)
    play_through_pages(client, app, token)
    match = load(app, token)
    moves = len(match.state["log"])
    for step in (0, moves // 2, moves):
        text = page(client, f"/t/{token}/replay?step={step}")
        assert 'class="aos-board"' in text and "Your hand" not in text
        assert "css/age-of-summoners." in text
    assert "The match is over" in page(client, f"/t/{token}/replay?step={moves}")


def test_hot_seat_cover_then_reveal(client: FlaskClient, app: Flask) -> None:
    # Two people and a bot: the device passes between the people (one person is never covered).
    token = new_table(client, **{**THREE, "seat-1-kind": "heuristic"})
    match = load(app, token)
    first = match.acting_seats()[0]
    assert first in (0, 2)  # the bot has moved until a person must choose
    covered = page(client, f"/t/{token}/")
    assert f"Pass the device to {NAMES[first]}" in covered
    assert 'class="aos-board"' not in covered and "Your hand" not in covered
    # The log may name a kind someone played in public; the hand's own cards never appear.
    assert not any(card in covered for card in match.state["seats"][first]["hand"])
    client.post(f"/t/{token}/reveal", data={"seat": str(first)})
    shown_raw = page(client, f"/t/{token}/")
    shown = html.unescape(shown_raw)
    assert 'class="aos-board"' in shown and "Your hand" in shown and "Your turn" in shown
    for card in match.state["seats"][first]["hand"]:
        assert name_of(kind_of_card()[card]) in shown


def test_board_words_in_japanese(client: FlaskClient, app: Flask) -> None:
    host, seats, spectator = three_at_a_table(client, lang="ja")
    match = load(app, host)
    current = match.state["await"]["seat"]
    text = page(client, f"/t/{seats[current]}/")
    assert "あなたの手番です" in text and "山札" in text and "あなたの手札" in text
    assert "フェイズI：手札から1枚を出し" in text and "魔力置き場" in text
    assert all(re.search(r"を.*出す：\d+・", t) for t in button_texts(text)), button_texts(text)
    watching = page(client, f"/t/{spectator}/")
    assert "プレイヤー" in watching and "次の手番のペア" in watching


def test_the_board_shows_stones_the_declaration_and_the_final_lap(app: Flask) -> None:
    s = new(3, 4, {"start": 0})
    arrange(s, 0, hand=["sphinx"], mana=["kelpie"])
    arrange(s, 2, hand=["redcap"], mana=["basilisk"])
    arrange(
        s,
        1,
        hand=["dryad"],
        mana=["amabie"],
        spirits=["kobold", "gargoyle", "homunculus"],
        stones=["ankou", "selkie"],
        vp=31,
    )
    s["declarer"], s["final_left"] = 1, 3
    s["seats"][1]["declared"] = True
    view = GAME.view(s, 0)
    match = SimpleNamespace(
        names=lambda: NAMES, seats=[SimpleNamespace(name=n, bot=None) for n in NAMES]
    )
    with app.test_request_context("/?lang=en"):
        text = render_template(
            f"tables/{KEY}/_board.html", view=view, board=board, lang="en", match=match, seat=0
        )
    text = html.unescape(text)
    assert "Brianna has declared the end. Final lap: 3 turns left, this one included;" in text
    assert "declared the end</span>" in text
    assert "2 philosopher's stones" in text and text.count('href="#aos-stone-en"') >= 2
    for kind in ("kobold", "gargoyle", "homunculus"):
        assert f'href="#aos-spirit-{kind}-en"' in text and name_of(kind) in text
    for hidden in ("Ankou", "Selkie", "Redcap", "Dryad"):  # stones and other hands stay hidden
        assert hidden not in text
    assert "Sphinx" in text and "Kelpie" in text
    s["final_left"] = 1
    view = GAME.view(s, 0)
    with app.test_request_context("/?lang=en"):
        text = render_template(
            f"tables/{KEY}/_board.html", view=view, board=board, lang="en", match=match, seat=0
        )
    assert "This is the last turn of the match." in text


# Labels -------------------------------------------------------------------------------------


def _card(s: State, seat: int, kind: str, zone: str = "hand") -> str:
    return next(c for c in s["seats"][seat][zone] if kind_of_card()[c] == kind)


def _labels(s: State, seat: int, lang: str = "en") -> dict[str, dict[str, Any]]:
    view = GAME.view(s, seat)
    with speaking(lang):
        return {board.label(a, view, NAMES): a for a in GAME.legal_actions(s, seat)}


def test_labels_name_the_cards_the_numbers_and_the_choices() -> None:
    s = new(3, 2, {"start": 0})
    arrange(s, 0, hand=["leprechaun", "gargoyle"], mana=["selkie", "ankou"], spirits=["nuckelavee"])
    arrange(s, 1, vp=2, faith=0)
    arrange(s, 2, vp=0, faith=3)
    s["seats"][0]["faith"] = 2
    pair = kinds()["ankou"]["number"]
    labels = _labels(s, 0)
    n = pair + kinds()["gargoyle"]["number"]
    action = board.action_name(number_of_action(n))
    assert (
        f"Play Gargoyle ({kinds()['gargoyle']['number']}) beside Ankou ({pair}): {n}, {action}"
        in labels
    )
    ja = _labels(s, 0, "ja")
    assert (
        f"ガーゴイル（{kinds()['gargoyle']['number']}）をアンクー（{pair}）の隣に出す：{n}・"
        in "".join(ja)
    )
    s = GAME.apply(s, 0, {"type": "play", "card": _card(s, 0, "leprechaun")})
    stack_deck(s, ["chimera", "nightmare"])
    n = pair + kinds()["leprechaun"]["number"]
    assert number_of_action(n) == "conquest"
    labels = _labels(s, 0)
    icons = kinds()["nuckelavee"]["icons"]
    gain = icons.count("axe") + icons.count("sword")
    conquest = f"Conquest ({n}): gain {gain} VP for axes and swords, take 1 VP from Brianna"
    assert conquest in labels
    ja = _labels(s, 0, "ja")
    assert f"征服（{n}）：斧と剣で勝利点{gain}、Briannaから勝利点1を奪う" in ja
    summons = [t for t, a in labels.items() if a["type"] == "summon"]
    for text in summons:
        kind = kind_of_card()[labels[text]["card"]]
        assert text == f"Summon {name_of(kind)} (pay {board.cost_words(kinds()[kind]['cost'])})"
    s = GAME.apply(s, 0, labels[conquest])
    assert s["await"]["phase"] == "keep"
    labels = _labels(s, 0)
    assert f"Keep Chimera, give Nightmare ({tag('nightmare')}) to Cy" in labels
    assert f"Keep Nightmare, give Chimera ({tag('chimera')}) to Cy" in labels
    ja = _labels(s, 0, "ja")
    with speaking("ja"):
        nightmare = board.card_tag("nightmare")
    assert f"キメラを手札に残し、ナイトメア（{nightmare}）をCyにアシスト" in ja


def test_labels_for_inquisition_giving_and_declaring() -> None:
    s = new(3, 2, {"start": 0})
    arrange(s, 0, hand=["redcap", "kasha"], mana=["amabie"], faith=3, vp=31)
    arrange(s, 1, hand=["gargoyle", "belial"], faith=1)
    arrange(s, 2, faith=3)
    s = GAME.apply(s, 0, {"type": "play", "card": _card(s, 0, "redcap")})
    n = kinds()["amabie"]["number"] + kinds()["redcap"]["number"]
    assert number_of_action(n) == "inquisition"
    labels = _labels(s, 0)
    inquisition = f"Inquisition ({n}): draw 3, then Brianna gives you a card"
    assert inquisition in labels
    assert f"異端審問（{n}）：カードを3枚引く、Briannaから1枚受け取る" in _labels(s, 0, "ja")
    s = GAME.apply(s, 0, labels[inquisition])
    assert s["await"] == {"seat": 1, "phase": "give", "to": 0}
    assert {"Give Gargoyle to Ann", "Give Belial to Ann"} <= set(_labels(s, 1))
    assert "ガーゴイルをAnnに渡す（異端審問）" in _labels(s, 1, "ja")
    s = GAME.apply(s, 1, {"type": "give", "card": _card(s, 1, "gargoyle")})
    keep = next(iter(_labels(s, 0).values()))
    s = GAME.apply(s, 0, keep)
    assert set(_labels(s, 0)) == {
        "Declare the end (one more lap, then the match ends)",
        "Do not declare yet",
    }
    assert "終了を宣言する（あと一周でゲーム終了）" in _labels(s, 0, "ja")


def test_labels_for_payments_discards_and_the_festival() -> None:
    view = {"seat": 0, "players": 3, "seats": [{"mana": [], "spirits": []}] * 3}
    assert board.label({"type": "pay", "pay": {"yellow": 1, "stone": 2}}, view) == (
        "Pay with 1 yellow + 2 stones"
    )
    with speaking("ja"):
        paid = board.label({"type": "pay", "pay": {"black": 1, "stone": 1}}, view)
    assert paid == "支払う：黒1・賢者の石1"
    assert board.label({"type": "discard", "zone": "stones"}, view) == (
        "Discard a philosopher's stone"
    )
    hand = {"type": "discard", "zone": "hand", "card": "belial-2"}
    assert board.label(hand, view) == "Discard Belial from your hand"
    reveal = {
        "reveal": [{"id": "chimera-1", "kind": "chimera"}, {"id": "kelpie-3", "kind": "kelpie"}]
    }
    choose = board.label({"type": "choose", "card": "chimera-1"}, {**view, **reveal})
    assert choose == f"Place Chimera ({tag('chimera')}) as mana, discard Kelpie"
    waiting = {"seat": 0, "phase": "optional", "kinds": ["nightmare"], "copies": [1]}
    optional = {**view, "waiting": waiting}
    no = {"type": "optional", "kind": "nightmare", "use": False}
    assert board.label(no, optional) == "Do not use Nightmare"
    assert board.label({**no, "use": True}, optional).startswith(
        "Use Nightmare: everyone discards down to 6 hand cards and 7 mana"
    )
    waiting = {"seat": 0, "phase": "optional", "kinds": ["brownie", "basilisk"], "copies": [2, 1]}
    research = {**view, "waiting": waiting}
    brownie = {"type": "optional", "kind": "brownie", "use": True}
    assert board.label(brownie, research) == "Use Brownie: gain 2 VP, draw 2"
    basilisk = {"type": "optional", "kind": "basilisk", "use": True}
    assert board.label(basilisk, research) == "Use Basilisk: gain 1 stone(s)"
    assert board.steps(basilisk, "Use Basilisk: gain 1 stone(s)", research)[0] == "Basilisk"


def test_labels_on_the_page_are_words_not_json(client: FlaskClient, app: Flask) -> None:
    token = new_table(client)
    rng = random.Random(5)
    seen: set[str] = set()
    starts = (
        "Play", "Summon", "First place", "Use", "Pay with", "Discard", "Stop", "Give", "Place",
        "Keep", "Do not", "Declare", *(board.action_name(a) for a in ACTIONS),
    )  # fmt: skip
    for _ in range(150):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        client.post(f"/t/{token}/reveal", data={"seat": "0"})
        text = page(client, f"/t/{token}/")
        if "batch-form" in text:  # boxes to tick (a discard-down): one legal move will do
            act(client, token, match, match.game.legal_actions(match.state, 0)[0])
            continue
        texts, actions = button_texts(text), buttons(text)
        assert len(texts) == len(actions) > 0
        for words, action in zip(texts, actions, strict=True):
            assert words.startswith(starts), words
            assert not re.search(r"[{}\"]|\btype\b|[a-z]-\d\b|None", words), words
            if "card" in action and action["type"] not in ("keep", "choose"):
                assert name_of(kind_of_card()[action["card"]]) in words, words
            seen.add(action["type"])
        act(client, token, match, rng.choice(actions))
    assert {"play", "act", "keep"} <= seen


# The game log -------------------------------------------------------------------------------


def test_describe_names_the_players() -> None:
    s = new(3, 9, {"start": 1})
    view = GAME.view(s, 0)
    lines = [describe(e, NAMES) for e in view["events"]]
    assert lines[0] == "A match for 3 players begins; Brianna starts."
    assert "Ann is dealt 6 cards (" in lines[1] and lines[2] == "Brianna is dealt 6 cards."
    with speaking("ja"):
        ja = [describe(e, NAMES) for e in view["events"]]
    assert ja[0] == "3人のゲームを開始。スタートプレイヤーはBrianna。"
    assert describe(view["events"][0]) == "A match for 3 players begins; Seat 2 starts."


# Rules --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_rules_pages_list_every_spirit_as_the_data_has_it(client: FlaskClient, lang: str) -> None:
    text = html.unescape(page(client, f"/games/{KEY}/rules?lang={lang}"))
    assert "<table" not in text
    heading = "The spirits" if lang == "en" else "精霊一覧"
    assert f"<h3>{heading}</h3>" in text
    for spec in kinds().values():
        name = spec[f"name_{lang}"]
        opening = r" \(" if lang == "en" else "（"
        line = re.search(rf"<strong>{re.escape(name)}</strong>{opening}[^<]*", text)
        assert line, name
        with speaking(lang):
            cost = board.cost_words(spec["cost"])
        copies = f"{spec['copies']} copies" if lang == "en" else f"{spec['copies']}枚"
        points = f"{spec['points']} point" if lang == "en" else f"得点{spec['points']}"
        for part in (cost, copies, points):
            assert part in line.group(0), (part, line.group(0))
        if "[" not in spec[f"text_{lang}"]:  # placeholders: test_rules_pages.py
            assert spec[f"text_{lang}"] in text
    words = (
        ("Conquest", "Pilgrimage", "philosopher's stone", "30 or more VP", "pairing card")
        if lang == "en"
        else ("征服", "巡礼", "賢者の石", "勝利点が30以上", "ペアのカード", "アシスト")
    )
    for word in words:
        assert word in text, word


# Hidden information -------------------------------------------------------------------------

_VIA = {"zero-played": "asmodai", "shift": "sandman"}


def visible_kinds(view: Any) -> set[str]:
    """Every kind the view names anywhere (its cards, its events, their private parts)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            if value in kinds():
                found.add(value)
            elif value in kind_of_card():
                found.add(kind_of_card()[value])
            elif value in _VIA:
                found.add(_VIA[value])

    walk(view)
    return found


def hidden_cards(state: State, seat: int | None) -> list[tuple[str, str]]:
    """(card id, where) of every card ``seat`` may not see."""
    hidden = [(c, "deck") for c in state["deck"]] + [(c, "discard") for c in state["discard"]]
    for i, p in enumerate(state["seats"]):
        hidden += [(c, f"stones of seat {i}") for c in p["stones"]]
        if i != seat:
            hidden += [(c, f"hand of seat {i}") for c in p["hand"]]
    if state["turn"].get("seat") != seat:
        hidden += [(c, "cards drawn in Phase III") for c in state["turn"].get("drawn", [])]
    return hidden


def card_ids_in(text: str) -> set[str]:
    """Every card id written anywhere in a page (the buttons carry the viewer's own ids)."""
    return set(re.findall(r"(?<![\w-])([a-z][a-z-]*-[0-9]+)(?![\w-])", html.unescape(text)))


def assert_no_hidden_card(text: str, state: State, seat: int | None, where: str) -> int:
    """No card ``seat`` may not see, by id or (for kinds the view never shows) by name, in
    ``text``; returns how many hidden cards were checked by name."""
    text = html.unescape(text)
    visible = visible_kinds(GAME.view(state, seat))
    ids = card_ids_in(text)
    checked = 0
    for card, place in hidden_cards(state, seat):
        assert card not in ids, f"{where}: card id {card} ({place}) leaked"
        kind = kind_of_card()[card]
        if kind in visible:
            continue
        checked += 1
        for name in (kinds()[kind]["name_en"], kinds()[kind]["name_ja"]):
            assert name not in text, f"{where}: {name} ({place}) leaked"
        assert f"-{kind}-" not in text, f"{where}: a picture of {kind} ({place}) leaked"
    return checked


@pytest.mark.slow  # every page of every seat, every sixth step of a whole match
def test_no_page_shows_another_seats_hidden_cards(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed deal, so the run surely meets stones and an inquisition's gift.
    monkeypatch.setattr(matches.secrets, "randbits", lambda _bits: SEED)
    host, seats, spectator = three_at_a_table(client)
    rng = random.Random(11)
    checked = shown = caught = stones = 0
    phases: set[str] = set()
    for step in range(300):
        match = load(app, host)
        if match.game.result(match.state) is not None:
            break
        state = match.state
        phases.add(state["await"]["phase"])
        if step % 6 == 0:
            stones = max(stones, sum(len(p["stones"]) for p in state["seats"]))
            pages = {}
            for seat, token in enumerate(seats):
                for url in (f"/t/{token}/", f"/t/{token}/?fragment=1"):
                    text = page(client, url)
                    pages[seat] = text
                    checked += assert_no_hidden_card(text, state, seat, f"seat {seat} {url}")
                    plain = html.unescape(text)
                    for card in state["seats"][seat]["hand"]:  # own cards do show
                        assert name_of(kind_of_card()[card]) in plain
                        shown += 1
            for url in (f"/t/{spectator}/", f"/t/{spectator}/?fragment=1", f"/t/{host}/"):
                checked += assert_no_hidden_card(page(client, url), state, None, url)
            replay = page(client, f"/t/{spectator}/replay")
            checked += assert_no_hidden_card(replay, state, None, "replay")
            # The check can fail: a seat's own page, checked as another seat, leaks its hand.
            for seat in range(3):
                other = (seat + 1) % 3
                secret = {kind_of_card()[c] for c in state["seats"][other]["hand"]}
                if secret - visible_kinds(GAME.view(state, seat)):
                    with pytest.raises(AssertionError, match="leaked"):
                        assert_no_hidden_card(pages[other], state, seat, "control")
                    caught += 1
            acting = state["await"]["seat"]
            in_buttons = {a["card"] for a in buttons(pages[acting]) if "card" in a}
            if in_buttons:  # the id check does see the ids a page carries
                assert in_buttons <= card_ids_in(pages[acting])
                caught += 1
        current = state["await"]["seat"]
        text = page(client, f"/t/{seats[current]}/")
        actions = buttons(text)
        legal = GAME.legal_actions(state, current)
        assert actions and all(action in legal for action in actions)
        for other in range(3):
            if other != current:
                assert not buttons(page(client, f"/t/{seats[other]}/?fragment=1"))
        act(client, seats[current], match, rng.choice(actions))
    assert checked > 200 and shown > 50 and caught > 5
    assert stones and {"play", "main", "keep", "give"} <= phases  # stones and a given card


SEED = int(os.environ.get("SUMMONERS_PAGES_SEED", "2"))


# A whole match ------------------------------------------------------------------------------


def test_a_full_match_against_bots_ends_with_a_result(client: FlaskClient, app: Flask) -> None:
    seats = {**THREE, "seat-1-kind": "heuristic", "seat-1-name": "Bo", "seat-2-kind": "random"}
    token = new_table(client, **seats)
    play_through_pages(client, app, token)
    match = load(app, token)
    result = match.game.result(match.state)
    assert result is not None
    text = html.unescape(page(client, f"/t/{token}/"))
    winner = match.seats[result["winner"]].name
    assert "The match is over" in text
    assert f"{winner} wins with {result['totals'][result['winner']]} points" in text
    standings = re.findall(r'<span class="aos-st-name">([^<]+?)\s*(?:<|$)', text)
    assert standings[0] == winner and sorted(standings) == ["Ann", "Bo", "Cy"]
    for row in result["breakdown"]:
        assert f"{row['chips']} VP chips + {row['points']} spirit points" in text
    if result["declarer"] is not None:
        assert f"{match.seats[result['declarer']].name} declared the end" in text


def test_the_result_explains_a_tie() -> None:
    s = new(3, 2, {"start": 0})
    for seat in range(3):
        arrange(s, seat, spirits=["ankou"], vp=30)
    s["declarer"] = 2
    s["result"] = result = final_result(s, "declared")
    assert result["totals"] == [32, 32, 32]  # 30 chips, Ankou's point and its axe
    with speaking("en"):
        info = board.result_info(result, GAME.view(s, 0), NAMES)
    assert info["winner"] == "Ann" and info["order"] == ["Ann", "Brianna", "Cy"]
    assert [r["name"] for r in info["rows"]] == ["Ann", "Brianna", "Cy"]
    assert info["tied"] == ["Ann", "Brianna", "Cy"] and info["anchor"] == "Cy"
    assert info["rows"][2]["declarer"] and info["rows"][0]["abilities"][0]["name"] == "Ankou"


def test_the_result_of_a_capped_match_names_the_matchs_turn_cap(app: Flask) -> None:
    s = new(2, 4, {"start": 0, "turn_cap": 3})
    s["result"] = final_result(s, "cap")
    match = SimpleNamespace(names=lambda: NAMES[:2])
    for lang, words in (("en", "limit of 3 turns per player"), ("ja", "1人3手番の上限")):
        with app.test_request_context(f"/?lang={lang}"):
            text = render_template(
                f"tables/{KEY}/_result.html", view=GAME.view(s, 0), board=board, match=match
            )
        assert words in text


# Pictures and escaping ----------------------------------------------------------------------


def test_card_pictures_in_three_states_and_only_what_the_view_shows() -> None:
    s = new(2, 3, {"start": 0})
    arrange(s, 0, hand=["sphinx"], mana=["kelpie"], spirits=["giant"], stones=["dryad"])
    arrange(s, 1, hand=["redcap"], mana=["basilisk"], spirits=[])
    defs = str(board.defs(GAME.view(s, 0)))
    for symbol in ("aos-hand-sphinx-en", "aos-mana-kelpie-en", "aos-spirit-giant-en"):
        assert f'id="{symbol}"' in defs
    assert 'id="aos-stone-en"' in defs and 'id="aos-back-en"' in defs
    assert "redcap" not in defs and "Redcap" not in defs and "dryad" not in defs.lower()
    spectator = str(board.defs(GAME.view(s, None)))
    assert "aos-hand-" not in spectator and "Sphinx" not in spectator
    assert '<use href="#aos-mana-kelpie-en"/>' in str(board.card("kelpie-1", "mana"))
    assert 'aria-label="Philosopher&#x27;s stone"' in str(board.stone())
    with speaking("ja"):
        assert "スフィンクス" in str(board.full_card("sphinx", "hand"))
        assert "賢者の石" in str(board.full_back(True))
        assert 'id="aos-stone-ja"' in str(board.defs(GAME.view(s, 0)))


def test_seat_names_are_escaped_on_the_board_and_the_result(
    client: FlaskClient, app: Flask
) -> None:
    evil = '<img src=x onerror="alert(1)">'
    token = new_table(
        client, **{"seat-0-kind": "person", "seat-0-name": evil, "seat-1-kind": "random"}
    )
    client.post(f"/t/{token}/reveal", data={"seat": "0"})
    text = page(client, f"/t/{token}/")
    assert "<img src=x" not in text and "&lt;img src=x" in text
    assert "<img src=x" not in page(client, f"/t/{token}/replay")


def test_the_docs_spirit_table_is_in_step_with_the_data(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[1] / "docs" / "cardgames.md"
    text = docs.read_text(encoding="utf-8")
    assert spirit_list.docs_table_markdown() in text
    stale = tmp_path / "cardgames.md"
    stale.write_text(text.replace(kinds()["belial"]["text_en"], "stale text"), encoding="utf-8")
    assert spirit_list.refresh_docs(stale) == [stale]
    assert stale.read_text(encoding="utf-8") == text
    assert spirit_list.refresh_docs(stale) == []


def test_the_docs_table_names_a_spirit_in_every_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spirit_list, "LANGUAGES", ("ja", "en", "fr"))
    monkeypatch.setitem(cards.kind_words("nightmare"), "name_fr", "Cauchemar")
    assert (
        "| SU03 | Nightmare ナイトメア Cauchemar | black 1 |" in spirit_list.docs_table_markdown()
    )


# Discarding down at once ------------------------------------------------------------------------


def _nightmare_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal of this game seats Cy (seat 1) first, holding a Nightmare and the black mana
    to pay for it, and gives Ann (seat 0) nine cards in hand and nine mana."""
    from companion.cardgames.summoners import game as game_module

    def arranged(
        players: int, seed: int, options: Any, version: int = 4, outcomes: Any = None
    ) -> State:
        s = new(players, seed, {**options, "start": 1}, version, outcomes)
        arrange(s, 1, hand=["nightmare", "ankou"], mana=["ankou", "belial", "barghest",
                "asmodai", "nuckelavee"])  # fmt: skip
        arrange(s, 0, hand=["kelpie"] * 4 + ["selkie"] * 4 + ["amabie"],
                mana=["dryad"] * 4 + ["kodama"] * 4 + ["giant"])  # fmt: skip
        return s

    monkeypatch.setattr(game_module, "new", arranged)


def test_a_seat_ticks_the_cards_to_discard_and_discards_them_at_once(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nightmare in Cy's turn: Ann's page heads her move, not Cy's turn, and offers boxes for
    her hand and mana; one press discards what she ticked, checked against what she must."""
    _nightmare_deal(monkeypatch)
    seats = {"seat-0-kind": "person", "seat-0-name": "Ann", "seat-1-kind": "person",
             "seat-1-name": "Cy"}  # fmt: skip
    host = new_table(client, mode="devices", **seats)
    urls = re.findall(r"<code>https?://[^/]+/t/([^/]+)/</code>", sheet(client, f"/t/{host}/links"))
    ann, cy = urls[0], urls[1]
    match = load(app, host)
    act(client, cy, match, {"type": "play", "card": _card(match.state, 1, "ankou")})
    match = load(app, host)
    act(client, cy, match, {"type": "summon", "card": _card(match.state, 1, "nightmare")})
    match = load(app, host)
    if match.state["await"]["phase"] == "pay":
        act(client, cy, match, GAME.legal_actions(match.state, 1)[0])
        match = load(app, host)
    act(client, cy, match, {"type": "optional", "kind": "nightmare", "use": True})
    match = load(app, host)
    assert match.state["await"] == {"seat": 0, "phase": "trim", "hand": 6, "mana": 7}
    raw = page(client, f"/t/{ann}/")
    text = html.unescape(raw)
    assert '<p class="aos-turn">Your move, in Cy\'s turn</p>' in text
    assert "From your hand: tick 3 cards" in text and "From your mana" in text
    boxes = re.findall(r'<input type="checkbox" name="actions" value="([^"]+)"', raw)
    ticks = [json.loads(html.unescape(b)) for b in boxes]
    hand = [a for a in ticks if a["zone"] == "hand"]
    mana = [a for a in ticks if a["zone"] == "mana"]
    assert len(hand) == 9 and len(mana) == 9 and not buttons(raw)  # boxes, not one-by-one

    def post(actions: list[dict[str, Any]]) -> Any:
        form = MultiDict([("actions", json.dumps(a)) for a in actions])
        form.add("version", str(load(app, host).version))
        form.add("batch", "1")
        return client.post(f"/t/{ann}/act", data=form)

    before = load(app, host).version
    refused = post(hand[:2] + mana[:2])
    assert refused.status_code == 303 and load(app, host).version == before
    assert "Tick 3, not 2" in html.unescape(client.get(f"/t/{ann}/").get_data(as_text=True))
    assert post(hand[:3] + mana[:2]).status_code == 302
    after = load(app, host)
    assert after.version == before + 5  # five moves, stored together
    seat = after.state["seats"][0]
    assert len(seat["hand"]) == 6 and len(seat["mana"]) == 7
    assert after.state["await"]["seat"] == 1  # Cy's turn goes on
