"""An X-card on the chosen prompt gives the player's words back as drafts, on the play page and
through the API, and the story records only what was written for the prompt that was rolled."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from legacy_factories import make_state, play
from play_helpers import chronicle, create, faces, post_turn

from companion.export.errors import BackupError
from companion.export.verify import verified_state
from companion.legacy import (
    AnswerPrompt,
    ChoosePrompt,
    DiceRolled,
    DrawCard,
    PromptChosen,
    PromptVeiled,
    StakesDeclared,
)
from companion.store import drafts
from companion.store.db import connect


def _drafts(app: Flask, token: str) -> dict[str, str]:
    state_of = chronicle(app, token)
    return drafts.for_turn(connect(app.config["DATABASE"]), state_of.id, state_of.state.turn_no)


def test_the_words_for_a_veiled_prompt_come_back_to_the_form(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    post_turn(client, app, token, action="draw", card="AH")
    words = {
        "answer": "Words for q1.",
        "stakes_success": "Q1 holds.",
        "stakes_failure": "Q1 breaks.",
    }
    saved = post_turn(client, app, token, action="save", prompt="0", **words)
    assert saved.status_code == 302
    assert chronicle(app, token).state.step == "roll"
    assert post_turn(client, app, token, action="veil:0").status_code == 302
    state = chronicle(app, token).state
    assert state.step == "choose" and state.check is not None and state.check.answer is None
    assert _drafts(app, token) == words  # the chosen prompt's number is no longer a draft
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    assert "Words for q1." in page and "Q1 breaks." in page
    rolled = post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="1",
        answer="Words for q2.",
        stakes_success="Q2 holds.",
        stakes_failure="Q2 breaks.",
        **faces(state.dice, True),
    )
    assert rolled.status_code == 302
    (point,) = chronicle(app, token).state.turning_points
    assert (point.prompt_index, str(point.answer), str(point.stakes_failure)) == (
        1,
        "Words for q2.",
        "Q2 breaks.",
    )
    assert _drafts(app, token) == {}


def test_an_x_card_through_the_api_files_the_words_as_drafts(
    client: FlaskClient, app: Flask
) -> None:
    token = client.post("/api/v1/chronicles", json=_api_setup()).get_json()["host_token"]
    commands = [
        {"type": "draw-card", "card": "3H"},
        {"type": "choose-prompt", "index": 1},
        {"type": "answer-prompt", "answer": "Written for the second prompt."},
    ]
    state = client.post(
        f"/api/v1/chronicles/{token}/commands", json={"version": 1, "commands": commands}
    ).get_json()
    veil = {"version": state["version"], "command": {"type": "veil-prompt", "index": 1}}
    state = client.post(f"/api/v1/chronicles/{token}/commands", json=veil).get_json()
    assert state["step"] == "choose" and state["check"]["answer"] is None
    assert _drafts(app, token) == {"answer": "Written for the second prompt."}


def _api_setup() -> dict[str, object]:
    return {
        "pioneer": {"name": "Kaya"},
        "players": ["Ali", "Brianna"],
        "mode": "table",
    }


def test_a_backup_recorded_before_words_were_set_aside_still_imports() -> None:
    """A log whose X-card on the answered prompt carries no words (as the engine wrote it
    before) checks event by event: it replays as it was played, the answer kept."""
    state = play(make_state(), DrawCard(0, "2H"), ChoosePrompt(0, index=0))
    state = play(state, AnswerPrompt(0, "Kept, as it was then."))
    events = [record.event for record in state.records()]
    events += [
        PromptVeiled(1, 0),
        PromptChosen(0, index=1),
        StakesDeclared(0, "It holds.", "It breaks."),
        DiceRolled(0, (6, 1, 1, 1)),
    ]
    checked = verified_state(events)
    assert checked.check is not None and str(checked.check.answer) == "Kept, as it was then."
    forged = [*events[:4], PromptVeiled(1, 0, answer="Words never written."), *events[5:]]
    with pytest.raises(BackupError) as refused:
        verified_state(forged)
    assert refused.value.code == "mismatch"


def test_x_card_words_leave_the_drafts_once_the_api_writes_the_texts_again(
    client: FlaskClient, app: Flask
) -> None:
    """Through the JSON API, the words an X-card gave back as drafts are gone once the answer
    and the stakes are written afresh and the dice rolled: no later page offers them again."""
    token = client.post("/api/v1/chronicles", json=_api_setup()).get_json()["host_token"]
    url = f"/api/v1/chronicles/{token}/commands"
    commands = [
        {"type": "draw-card", "card": "3H"},
        {"type": "choose-prompt", "index": 1},
        {"type": "answer-prompt", "answer": "Written for the second prompt."},
        {"type": "declare-stakes", "success": "Q2 holds.", "failure": "Q2 breaks."},
    ]
    state = client.post(url, json={"version": 1, "commands": commands}).get_json()
    veil = {"version": state["version"], "command": {"type": "veil-prompt", "index": 1}}
    state = client.post(url, json=veil).get_json()
    assert _drafts(app, token) == {
        "answer": "Written for the second prompt.",
        "stakes_success": "Q2 holds.",
        "stakes_failure": "Q2 breaks.",
    }
    again = [
        {"type": "choose-prompt", "index": 0},
        {"type": "answer-prompt", "answer": "Written for the first prompt."},
        {"type": "declare-stakes", "success": "Q1 holds.", "failure": "Q1 breaks."},
        {"type": "roll-dice", "faces": [6, 1, 1, 1]},
    ]
    state = client.post(url, json={"version": state["version"], "commands": again}).get_json()
    assert state["step"] in ("success", "mark")
    assert _drafts(app, token) == {}
