"""Every undo gives the undone words back where they were written: the choice of prompt and its
own question, the answer, the stakes, a narration, a mark, a sacrifice, a loss and the epilogue
come back to their form on every device (drafts), never only to the backup's event log."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn

from companion.store.db import connect
from companion.streams.demo import create_demo


def _undo(client: FlaskClient, app: Flask, token: str) -> None:
    version = chronicle(app, token).version
    assert client.post(f"/c/{token}/undo", data={"version": str(version)}).status_code == 302


def _page(app: Flask, token: str, path: str = "") -> str:
    """The page as a second device sees it: no session, only the link."""
    return str(app.test_client().get(f"/c/{token}/{path}").get_data(as_text=True))


def test_taking_back_a_turn_step_by_step_gives_every_text_back(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client, mode="table")
    assert post_turn(client, app, token, action="draw", card="2H").status_code == 302
    words = {"prompt": "1", "answer": "Her answer, typed once.", "stakes_success": "The map holds.",
             "stakes_failure": "The map tears."}  # fmt: skip
    state = chronicle(app, token).state
    rolled = post_turn(client, app, token, action="roll", **words, **faces(state.dice, True))
    assert rolled.status_code == 302
    _undo(client, app, token)  # the roll (typed faces may always be taken back)
    _undo(client, app, token)  # the stakes
    page = _page(app, token)
    assert ">The map holds.</textarea>" in page and ">The map tears.</textarea>" in page
    _undo(client, app, token)  # the answer
    assert ">Her answer, typed once.</textarea>" in _page(app, token)
    _undo(client, app, token)  # the choice of prompt
    page = _page(app, token)
    assert chronicle(app, token).state.step == "choose"
    assert re.search(r'<input type="radio" name="prompt" value="1" data-draft\s+checked', page)


def test_undoing_the_epilogue_gives_it_back_to_its_form(client: FlaskClient, app: Flask) -> None:
    """「取り消す：エピローグ」 took the epilogue out of the end page, its form, the story and
    the API; now its words wait in the end page's form, on every device."""
    token = create_demo(connect(app.config["DATABASE"]), "en").host_token
    seen = chronicle(app, token).version
    written = "She is remembered by every harbour she drew."
    form = {"epilogue": written, "version": str(seen)}
    assert client.post(f"/c/{token}/epilogue", data=form).status_code == 302
    assert chronicle(app, token).state.epilogue is not None
    _undo(client, app, token)
    assert chronicle(app, token).state.epilogue is None
    end = _page(app, token, "end")
    assert f">{written}</textarea>" in end
    assert written not in _page(app, token, "story")
