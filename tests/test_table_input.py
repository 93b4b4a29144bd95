"""The worst input to a card table's or a chronicle's forms is refused with a message (the page
saying why, after a redirect; a 4xx in JSON), never a 500: reproduced on the app as `companion
serve` runs it (TESTING off, CSRF on). Numbers are read in bounded time because their length is
checked before their digits are read."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from conftest import make_app
from flask import Flask
from table_helpers import ServedClient, finish, load, refused

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
    answer = visitor.post(f"/t/{token}/rematch", {"version": version}, headers=JSON)
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
    answer = visitor.post(f"/t/{token}/links", {"issue": asked})
    assert "Choose whose link to make" in refused(visitor.client, answer)


def _chronicle(visitor: ServedClient) -> str:
    from play_helpers import SETUP_FORM

    made = visitor.post("/new", SETUP_FORM)
    assert made.status_code == 302, made.get_data(as_text=True)[-800:]
    return made.headers["Location"].split("/c/")[1].split("/")[0]


@pytest.mark.parametrize("prompt", ["²", "١", "9" * 5000])
def test_a_turn_naming_a_prompt_by_digits_no_one_types_is_refused(
    visitor: ServedClient, served_app: Flask, prompt: str
) -> None:
    from play_helpers import chronicle

    token = _chronicle(visitor)
    version = chronicle(served_app, token).version
    visitor.post(f"/c/{token}/turn", {"version": str(version), "action": "draw", "card": "AH"})
    version = chronicle(served_app, token).version
    form = {"version": str(version), "action": "roll", "prompt": prompt, "answer": "x"}
    form |= {"stakes_success": "s", "stakes_failure": "f"}
    answer = visitor.post(f"/c/{token}/turn", form)
    assert 'class="flash flash-error"' in refused(visitor.client, answer)
    assert chronicle(served_app, token).version == version
    draft = visitor.post(f"/c/{token}/draft", {"field": "prompt", "text": prompt})
    assert draft.status_code == 400


@pytest.mark.parametrize("seq", ["²", "١", HUGE])
def test_a_correction_of_a_text_named_by_odd_digits_is_404(
    visitor: ServedClient, served_app: Flask, seq: str
) -> None:
    token = _chronicle(visitor)
    form = {"target_seq": seq, "field": "answer", "text": "x", "version": "1"}
    assert visitor.post(f"/c/{token}/revise", form, headers=JSON).status_code == 404
    sent_back = visitor.post(f"/c/{token}/revise", form)  # a page's form: to the table, told why
    assert "does not open this page" in refused(visitor.client, sent_back)


@pytest.mark.parametrize("start", ["²", "١", HUGE])
def test_a_lobby_option_in_odd_digits_is_400(visitor: ServedClient, start: str) -> None:
    form = {"game": "traitors-flame", "language": "en", "mode": "hotseat"}
    form |= {"seat-0-kind": "person", "seat-1-kind": "person", "options-traitors-flame": "1"}
    answer = visitor.post("/games/", {**form, "option-traitors-flame-start": start})
    assert "Choose the table's options from the list." in html.unescape(
        refused(visitor.client, answer)
    )
