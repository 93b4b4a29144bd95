"""A name that turns text around ("Ann" + U+202E + "evil") stays inside its own isolate on every
page of `companion serve` that shows it (both kinds of game, ja and en), so the app's words around
it keep their order; download names drop the control."""

from __future__ import annotations

import re

import pytest
from server_client import SETUP, Browser, Server, request

EVIL = "Ann\u202eevil"
PIONEER = "Kaya\u202eriver"
TOKEN = r"[A-Za-z0-9_-]{32}"
OPEN = ("<bdi>", "\u2068")
CLOSE = ("</bdi>", "\u2069")


def isolated_everywhere(html: str, name: str) -> int:
    """How often ``name`` appears; fails if one appearance is not wrapped in an isolate."""
    spots = [m.start() for m in re.finditer(re.escape(name), html)]
    for at in spots:
        before, after = html[max(0, at - 6) : at], html[at + len(name) : at + len(name) + 6]
        context = html[max(0, at - 80) : at + 80]
        assert before.endswith(OPEN) and after.startswith(CLOSE), f"not isolated: {context!r}"
    return len(spots)


@pytest.fixture(scope="module", params=["en", "ja"])
def life(request: pytest.FixtureRequest, served: Server) -> tuple[str, str]:
    setup = {
        **SETUP,
        "language": request.param,
        "players": [EVIL, "Ben"],
        "pioneer": {**SETUP["pioneer"], "name": PIONEER},
    }
    status, created = request_json(served, setup)
    assert status == 201, created
    return created["host_token"], request.param


def request_json(served: Server, setup: dict) -> tuple[int, dict]:
    return request(served.port, "POST", "/api/v1/chronicles", setup)


def test_every_chronicle_page_isolates_the_names(served: Server, life: tuple[str, str]) -> None:
    host, language = life
    browser = Browser(served.url)
    browser.headers["Accept-Language"] = language
    pages = [f"/c/{host}/", f"/c/{host}/story", f"/c/{host}/links", "/"]
    for path in pages:
        html = browser.get(path).text
        shown = isolated_everywhere(html, EVIL) + isolated_everywhere(html, PIONEER)
        assert shown, f"{path} shows neither name"
    posted = browser.post_form(
        f"/c/{host}/links", {"issue": "everyone"}, token_page=f"/c/{host}/links"
    )
    sheet = browser.followed(posted)
    assert isolated_everywhere(sheet, EVIL) >= 2  # its card and its line among the links


def test_the_whose_turn_line_keeps_the_apps_words_outside_the_name(
    served: Server, life: tuple[str, str]
) -> None:
    host, language = life
    html = Browser(served.url).get(f"/c/{host}/?lang={language}").text
    words = "<bdi>Ann\u202eevil</bdi>'s turn" if language == "en" else "<bdi>Ann\u202eevil</bdi>"
    assert words in html


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_card_table_isolates_the_names(served: Server, language: str) -> None:
    browser = Browser(served.url)
    browser.headers["Accept-Language"] = language
    created = browser.post_form(
        "/games/",
        {
            "game": "traitors-flame",
            "mode": "hotseat",
            "language": language,
            "seat-0-kind": "person",
            "seat-0-name": EVIL,
            "seat-1-kind": "person",
            "seat-1-name": "Ben",
            "seat-2-kind": "random",
        },
        token_page="/games/",
    )
    assert created.status_code == 302, created.text[:300]
    token = re.search(rf"/t/({TOKEN})/", created.headers["Location"]).group(1)
    for path in (f"/t/{token}/", f"/t/{token}/links", f"/t/{token}/replay"):
        answer = browser.get(path)
        assert answer.status_code == 200, path
        assert isolated_everywhere(answer.text, EVIL), f"{path} does not show the name"


def test_download_names_drop_the_control(served: Server) -> None:
    setup = {**SETUP, "pioneer": {**SETUP["pioneer"], "name": "Ann\u202efdp.exe"}}
    status, created = request_json(served, setup)
    assert status == 201
    browser = Browser(served.url)
    for path in ("export.md", "export.json"):
        answer = browser.get(f"/c/{created['host_token']}/{path}")
        assert answer.status_code == 200
        disposition = answer.headers["Content-Disposition"]
        assert "%E2%80%AE" not in disposition.upper() and "\u202e" not in disposition
        assert "Annfdp.exe" in disposition or "Annfdp" in disposition
