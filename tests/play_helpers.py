"""Drive a chronicle through its web forms, as a player would, for the page tests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, template_rendered
from flask.testing import FlaskClient

from companion.store.db import connect
from companion.streams import chronicles

SETUP_FORM = {
    "language": "en",
    "mode": "table",
    "player-0": "Ali",
    "player-1": "Brianna",
    "player-2": "Cardon",
    "oldest": "0",
    "pioneer": "Kaya Wren",
    "people": "human",
    "concept": "A cartographer of drowned coasts.",
    "resource-0-name": "The Tern",
    "resource-0-description": "a small fishing boat",
    "attachment-0-name": "Sister Ide",
    "creed-0-name": "Maps must be true",
    "pack": "standard",
}


def create(client: FlaskClient, **overrides: str) -> str:
    """Create a chronicle through the setup form; returns the host token (a group is sent to
    the links page, a solo writer to the table)."""
    response = client.post("/new", data={**SETUP_FORM, **overrides})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    match = re.search(r"/c/([^/]+)/", response.headers["Location"])
    assert match
    return match.group(1)


def chronicle(app: Flask, token: str) -> chronicles.Chronicle:
    """The chronicle as stored, read straight from the database."""
    from companion.store.capabilities import resolve

    db = connect(app.config["DATABASE"])
    cap = resolve(db, token)
    assert cap is not None
    return chronicles.load(db, cap.stream_id)


def post_turn(client: FlaskClient, app: Flask, token: str, **fields: Any) -> Any:
    """Submit a play-page form with the current version."""
    version = chronicle(app, token).version
    return client.post(f"/c/{token}/turn", data={"version": str(version), **fields})


def faces(n: int, hit: bool) -> dict[str, str]:
    """Table-mode face fields: one 6 when ``hit``, else all 1s."""
    values = [6 if hit and i == 0 else 1 for i in range(n)]
    return {f"face-{i}": str(v) for i, v in enumerate(values)}


def roll(client: FlaskClient, app: Flask, token: str, hit: bool, answer: str) -> None:
    """Choose the first prompt, answer it, declare the stakes and roll, in one form (table mode)."""
    response = post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        answer=answer,
        stakes_success="It holds.",
        stakes_failure="It breaks.",
        **faces(chronicle(app, token).state.dice, hit),
    )
    assert response.status_code == 302, response.get_data(as_text=True)[-3000:]


def play_turn(client: FlaskClient, app: Flask, token: str, hit: bool) -> None:
    """Draw, answer, declare and roll one check in table mode; succeed or accept the failure."""
    state = chronicle(app, token).state
    card = state.pile_cards(state.pile)[0]
    assert post_turn(client, app, token, action="draw", card=card).status_code == 302
    roll(client, app, token, hit, f"An answer for {card}.")
    state = chronicle(app, token).state
    if state.step == "mark":
        post_turn(client, app, token, action="mark", mark_name=f"Mark {len(state.marks) + 1}")
    elif state.step == "success":
        post_turn(client, app, token, action="narrate", narration="Through.")
    elif state.step == "failure":
        post_turn(client, app, token, action="accept", narration="It broke.")


def play_to_the_end(client: FlaskClient, app: Flask, token: str) -> None:
    """Play table-mode turns (every third round failing) until the life ends."""
    for number in range(200):
        if chronicle(app, token).state.ended:
            return
        play_turn(client, app, token, hit=number % 7 != 6)
    raise AssertionError("the life did not end")


def refused_page(client: FlaskClient, response: Any) -> str:
    """The page a refused form sends the browser to (post/redirect/get), with its message."""
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    return str(client.get(response.headers["Location"]).get_data(as_text=True))


def another_worker(app: Flask, **config: Any) -> Flask:
    """Another worker of the same server: its own process caches, the same store."""
    from companion.app import create_app

    return create_app({**app.config, **config})


@contextmanager
def rendered_by(app: Flask) -> Iterator[list[str]]:
    """The names of the templates ``app`` renders meanwhile."""
    names: list[str] = []

    def heard(_sender: Flask, template: Any, **_extra: Any) -> None:
        names.append(str(template.name))

    template_rendered.connect(heard, app)
    try:
        yield names
    finally:
        template_rendered.disconnect(heard, app)


def with_reader(client: FlaskClient, app: Flask) -> tuple[str, str, str]:
    """A chronicle set up through the forms: its host's link, its stream id and a reader's link."""
    from companion.store import capabilities

    token = create(client)
    stream_id = chronicle(app, token).id
    reader = capabilities.issue(connect(app.config["DATABASE"]), stream_id, "reader", None)
    return token, stream_id, reader
