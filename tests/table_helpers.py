"""Card-game tables through the test client: set one up, read it back, press its buttons."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.store.capabilities import resolve
from companion.store.db import connect
from companion.streams import matches

ANN_AND_A_BOT = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    "seat-1-kind": "heuristic",
    "seat-1-name": "Bo",
}


def new_table(
    client: FlaskClient, game: str, mode: str = "hotseat", lang: str = "en", **seats: str
) -> str:
    """Set up a table (Ann and a bot unless ``seats`` say otherwise); returns the host token."""
    data = {"game": game, "language": lang, "mode": mode, **(seats or ANN_AND_A_BOT)}
    response = client.post("/games/", data=data)
    assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
    return re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]


def load(app: Flask, token: str) -> matches.Match:
    """The match behind a link, read straight from the database."""
    db = connect(app.config["DATABASE"])
    cap = resolve(db, token)
    assert cap is not None
    return matches.load(db, cap.stream_id)


def buttons(text: str) -> list[dict[str, Any]]:
    """The actions a page offers as buttons."""
    return [
        json.loads(html.unescape(v))
        for v in re.findall(r'<button name="action" value="([^"]+)"', text)
    ]


def page(client: FlaskClient, url: str) -> str:
    """A page that must render."""
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


def act(client: FlaskClient, token: str, match: matches.Match, action: dict[str, Any]) -> None:
    """Press one action's button at the match's current version."""
    response = client.post(
        f"/t/{token}/act", data={"version": str(match.version), "action": json.dumps(action)}
    )
    assert response.status_code == 302, response.get_data(as_text=True)[-1500:]


def play_through_pages(client: FlaskClient, app: Flask, token: str, limit: int = 3000) -> None:
    """Play the person's seat of a hot-seat table through the pages until the match ends,
    passing the device (the cover screen) whenever it asks."""
    rng = random.Random(2)
    for _ in range(limit):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            return
        if 'class="cover-screen"' in page(client, f"/t/{token}/"):
            client.post(f"/t/{token}/reveal", data={"seat": str(match.acting_seats()[0])})
        text = page(client, f"/t/{token}/")
        actions = buttons(text)
        if not actions and "batch-form" in text:  # boxes to tick (a discard-down): one move
            seat = match.acting_seats()[0]
            actions = match.game.legal_actions(match.state, seat)[:1]
        assert actions
        act(client, token, match, rng.choice(actions))
    raise AssertionError("the match did not end")


def finish(app: Flask, token: str, seed: int = 3) -> matches.Match:
    """Play the people's seats with seeded random legal moves until the match is over."""
    db = connect(app.config["DATABASE"])
    rng = random.Random(seed)
    match = load(app, token)
    while match.game.result(match.state) is None:
        seat = next(s for s in match.acting_seats() if match.seats[s].bot is None)
        action = rng.choice(match.game.legal_actions(match.state, seat))
        match = matches.act(db, match, seat, action, match.version)
    return match


class ServedClient:
    """One browser on the app as ``companion serve`` runs it: TESTING off, CSRF checked."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client = app.test_client()
        lobby = self.client.get("/games/").get_data(as_text=True)
        found = re.search(r'name="csrf_token" value="([^"]+)"', lobby)
        assert found is not None
        self.csrf = found.group(1)

    def get(self, url: str, **kwargs: Any) -> Any:
        """A GET, as the browser sends it."""
        return self.client.get(url, **kwargs)

    def post(self, url: str, data: dict[str, str], **kwargs: Any) -> Any:
        """A form post with this browser's CSRF token."""
        return self.client.post(url, data={"csrf_token": self.csrf, **data}, **kwargs)

    def new_table(self, game: str, **seats: str) -> str:
        """A hot-seat table (Ann and a bot unless ``seats`` say otherwise); the host token."""
        form = {"game": game, "language": "en", "mode": "hotseat", **(seats or ANN_AND_A_BOT)}
        response = self.post("/games/", form)
        assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
        return re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]


def sheet(client: FlaskClient, path: str, data: dict[str, Any] | None = None) -> str:
    """Post a links sheet's form; the sheet it sends the host back to (shown once) as text."""
    response = client.post(path, data=data or {})
    assert response.status_code == 303, response.get_data(as_text=True)[-1500:]
    return page(client, response.headers["Location"])


def refused(client: FlaskClient, response: Any) -> str:
    """The page a refused post sends the browser to (post/redirect/get), with its message."""
    assert response.status_code == 303, response.get_data(as_text=True)[-1500:]
    return page(client, response.headers["Location"])
