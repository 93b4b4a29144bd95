"""A chronicle at a turn whose texts show on every page as they are typed, and its links: what
the attacks on live feeds and drafts play against."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from server_client import SETUP, Browser, Server, next_command, request

from companion.store import capabilities
from companion.store.db import connect

# After the dice: the turn's player narrates, and every other page shows the words as typed.
NARRATING = ("narrate-success", "accept-failure")


@dataclass(frozen=True)
class Table:
    """A chronicle waiting for its narration: its id, its links, the seat that acts."""

    id: str
    host: str
    reader: str
    seats: tuple[str, ...]  # a seat link per player, by seat
    acting: int  # the seat whose turn it is


def narrating(server: Server) -> Table:
    """A new chronicle played through the API until its player narrates the roll."""
    status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    host, state = body["host_token"], body["state"]
    rng = random.Random(5)
    for _ in range(50):
        if {item["type"] for item in state["legal"]} & set(NARRATING):
            break
        sent = {"version": state["version"], "command": next_command(state, rng)}
        status, state = request(server.port, "POST", f"/api/v1/chronicles/{host}/commands", sent)
        assert status == 200, state
    else:
        raise AssertionError("the dice were never rolled")
    db = connect(server.database)
    try:
        seats = tuple(
            capabilities.issue(db, body["id"], "seat", seat)
            for seat in range(len(SETUP["players"]))
        )
    finally:
        db.conn.close()
    return Table(body["id"], host, body["reader_token"], seats, int(state["seat"]))


class Typist:
    """A page of one link that saves drafts as its script does (its session's CSRF token)."""

    def __init__(self, server: Server, token: str) -> None:
        self.browser = Browser(server.url)
        self.token = token
        self.csrf = self.browser.csrf(f"/c/{token}/")

    def save(self, field: str, text: str) -> Any:
        """POST one draft: the answer (status, JSON, headers)."""
        return self.browser.post(
            f"/c/{self.token}/draft",
            data={"field": field, "text": text},
            headers={"X-CSRFToken": self.csrf, "Accept": "application/json"},
        )
