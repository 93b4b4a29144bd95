"""The worst input to a card table's or a chronicle's forms gets a 4xx with a message, never a 500,
in bounded time: reproduced on the app as `companion serve` runs it (TESTING off, CSRF on)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import make_app
from flask import Flask
from table_helpers import ServedClient, finish, load

JSON = {"Accept": "application/json"}
HUGE = "9" * 100_000


@pytest.fixture
def served_app(tmp_path: Path) -> Flask:
    return make_app(tmp_path, TESTING=False, WTF_CSRF_ENABLED=True)


@pytest.fixture
def visitor(served_app: Flask) -> ServedClient:
    return ServedClient(served_app)


@pytest.mark.parametrize("version", ["x", "", "-1", "1e3", HUGE])
def test_a_rematch_with_an_unreadable_version_is_409(
    visitor: ServedClient, served_app: Flask, version: str
) -> None:
    token = visitor.new_table("traitors-flame")
    over = finish(served_app, token)
    started = time.monotonic()
    answer = visitor.post(f"/t/{token}/rematch", {"version": version}, headers=JSON)
    assert time.monotonic() - started < 2
    assert answer.status_code == 409
    assert answer.get_json()["code"] == "stale-version"
    assert load(served_app, token).version == over.version


@pytest.mark.parametrize("asked", ["seat-" + "7" * 5000, "seat-" + HUGE])
def test_a_links_post_naming_a_seat_by_thousands_of_digits_is_400(
    visitor: ServedClient, served_app: Flask, asked: str
) -> None:
    token = visitor.new_table(
        "traitors-flame", **{"seat-0-kind": "person", "seat-1-kind": "person"}
    )
    started = time.monotonic()
    answer = visitor.post(f"/t/{token}/links", {"issue": asked})
    assert time.monotonic() - started < 2
    assert answer.status_code == 400
    assert "Choose whose link to make" in answer.get_data(as_text=True)
