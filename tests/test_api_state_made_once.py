"""A command answers with the state it made, encoded once per version and kind of link: the
same link (or another of the same kind) asking the state after it gets those bytes, never
another's view."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_client import SETUP, next_command

from companion.store import capabilities
from companion.store.db import connect
from companion.web.api import state as state_module


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The roles whose state was worked out into JSON."""
    calls: list[str] = []
    real = state_module.state_json

    def counted(chronicle: Any, cap: Any) -> Any:
        calls.append(cap.role if cap.seat is None else f"{cap.role} {cap.seat}")
        return real(chronicle, cap)

    monkeypatch.setattr(state_module, "state_json", counted)
    return calls


def test_the_state_a_command_made_is_what_every_link_of_its_kind_is_given(
    app: Flask, client: FlaskClient, encoded: list[str]
) -> None:
    created = client.post("/api/v1/chronicles", json=SETUP).get_json()
    host = created["host_token"]
    db = connect(app.config["DATABASE"])
    seats = [capabilities.issue(db, created["id"], "seat", n) for n in (0, 1)]
    twin = capabilities.issue(db, created["id"], "seat", 0)  # a second link to seat 0
    state = client.get(f"/api/v1/chronicles/{host}/state").get_json()
    encoded.clear()
    sent = {"version": state["version"], "command": next_command(state, random.Random(3))}
    answer = client.post(f"/api/v1/chronicles/{host}/commands", json=sent)
    assert answer.status_code == 200 and encoded == ["host"]
    again = client.get(f"/api/v1/chronicles/{host}/state")
    assert again.get_data() == answer.get_data() and encoded == ["host"]
    assert again.get_json()["version"] == state["version"] + 1
    mine = client.get(f"/api/v1/chronicles/{seats[0]}/state")
    assert encoded == ["host", "seat 0"] and mine.get_json()["you"]["seat"] == 0
    assert client.get(f"/api/v1/chronicles/{twin}/state").get_data() == mine.get_data()
    theirs = client.get(f"/api/v1/chronicles/{seats[1]}/state").get_json()
    assert encoded == ["host", "seat 0", "seat 1"] and theirs["you"]["seat"] == 1
    for token in (host, *seats, twin):
        assert token not in mine.get_data(as_text=True)
        assert token not in answer.get_data(as_text=True)
