"""Wording: stale-page news said once, dice counted in the singular, lists joined per language,
pack names in the reader's language, a bad import told in a sentence, and texts back after undo."""

from __future__ import annotations

import json
import re

from flask import Flask, render_template
from flask.testing import FlaskClient
from flask_babel import force_locale
from legacy_factories import lose_round, make_state
from play_helpers import chronicle, create, faces, play_turn, post_turn, refused_page

from companion.export.backup import BackupError, parse
from companion.text.wording import join_list
from companion.web.chronicle.narrate import describe_since


def test_stale_page_tells_each_thing_once(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="2H")
    before = chronicle(app, token).version
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(client, app, token, action="roll", **fields, **faces(4, True))
    response = client.post(f"/c/{token}/turn", data={"version": str(before), "action": "draw"})
    text = refused_page(client, response)
    assert text.count("The host already rolled for Ali") == 1
    assert "moved on" not in text
    with app.test_request_context():
        message = describe_since(chronicle(app, token), before)
    assert len(message.split(". ")) == len(set(message.split(". ")))


def test_stale_page_in_japanese_joins_sentences_without_spaces(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    before = chronicle(app, token).version
    post_turn(client, app, token, action="draw", card="2H")
    with app.test_request_context(), force_locale("ja"):
        message = describe_since(chronicle(app, token), before)
    assert message.startswith("ホストがすでにAliの代わりに") and "。 " not in message


def test_one_die_is_a_die(app: Flask) -> None:
    state = make_state()
    for _ in range(9):
        state = lose_round(state)
    assert state.stage_info.dice == 1
    with app.test_request_context():
        html = render_template(
            "chronicle/_where.html", state=state, setup=state.setup, cap=None, token="t"
        )
    assert "1 die" in html and "1 dice" not in html


def test_japanese_lists_use_the_ideographic_comma(app: Flask) -> None:
    with app.test_request_context():
        with force_locale("ja"):
            assert join_list(["アリ", "ブリアンナ", "カードン"]) == "アリ、ブリアンナ、カードン"
        with force_locale("en"):
            assert join_list(["Ali", "Bri"]) == "Ali, Bri"


def test_story_page_joins_players_per_language(client: FlaskClient) -> None:
    token = create(client, language="ja")
    ja = client.get(f"/c/{token}/story?lang=ja").get_data(as_text=True)
    assert "Ali、Brianna、Cardon" in ja
    en = client.get(f"/c/{token}/story?lang=en").get_data(as_text=True)
    assert "Ali, Brianna, Cardon" in en


def test_pack_name_follows_the_interface_language(client: FlaskClient) -> None:
    ja = client.get("/new?lang=ja").get_data(as_text=True)
    option = re.search(r'<option value="standard"[^>]*>([^<]*)</option>', ja)
    assert option and option.group(1).startswith("標準パック"), option
    assert "（" in option.group(1) or "en、ja" in option.group(1)
    en = client.get("/new?lang=en").get_data(as_text=True)
    assert re.search(r'<option value="standard"[^>]*>The standard pack \(en, ja\)', en)


def test_a_file_without_a_format_is_told_in_a_sentence() -> None:
    for document, expected in (
        ({"events": []}, "does not say what it holds"),
        ({"format": None}, "says it holds None"),
        ({"format": "tabletop-sim"}, "'tabletop-sim', not an Ijinshō chronicle"),
    ):
        try:
            parse(json.dumps(document).encode())
        except BackupError as err:
            assert expected in str(err), str(err)
            assert "(its format is" not in str(err)
        else:
            raise AssertionError("accepted")


def test_start_page_links_the_card_games(client: FlaskClient) -> None:
    html = client.get("/?lang=en").get_data(as_text=True)
    assert 'href="/games/"' in html


def test_undoing_a_mark_brings_its_texts_back_to_every_device(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    for _ in range(2):
        play_turn(client, app, token, hit=True)
    state = chronicle(app, token).state
    post_turn(client, app, token, action="draw", card=state.pile_cards(state.pile)[0])
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(client, app, token, action="roll", **fields, **faces(4, True))
    assert chronicle(app, token).state.step == "mark"
    post_turn(
        client,
        app,
        token,
        action="mark",
        mark_name="The Atlas",
        mark_description="Every coast, drawn true.",
        narration="She inked the last bay at dawn.",
    )
    assert len(chronicle(app, token).state.marks) == 1
    version = chronicle(app, token).version
    assert client.post(f"/c/{token}/undo", data={"version": str(version)}).status_code == 302
    other_device = app.test_client()  # a second browser: no session, only the link
    html = other_device.get(f"/c/{token}/").get_data(as_text=True)
    assert "She inked the last bay at dawn." in html
    assert 'value="The Atlas"' in html
    assert "Every coast, drawn true." in html


def test_a_refused_roll_counts_one_die(app: Flask) -> None:
    from companion.legacy import RuleError
    from companion.web.shell.text_errors import rule_message

    one = RuleError(
        "dice-count", "This stage rolls %(dice)d dice: enter exactly %(dice)d faces.", "x", dice=1
    )
    four = RuleError(
        "dice-count", "This stage rolls %(dice)d dice: enter exactly %(dice)d faces.", "x", dice=4
    )
    with app.test_request_context():
        with force_locale("en"):
            assert rule_message(one) == "This stage rolls 1 die: enter exactly one face."
            assert rule_message(four) == "This stage rolls 4 dice: enter exactly 4 faces."
        with force_locale("ja"):
            assert "サイコロを1個" in rule_message(one)


def test_undoing_a_narration_through_the_api_brings_it_back(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="2H")
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(client, app, token, action="roll", **fields, **faces(4, True))
    post_turn(client, app, token, action="narrate", narration="The tide turned for her.")
    version = chronicle(app, token).version
    undone = client.post(
        f"/api/v1/chronicles/{token}/commands",
        json={"version": version, "command": {"type": "undo"}},
    )
    assert undone.status_code == 200, undone.get_data(as_text=True)
    assert chronicle(app, token).state.step == "success"
    assert "The tide turned for her." in client.get(f"/c/{token}/").get_data(as_text=True)
