"""Characters no text may hold (NUL, other controls, U+FFFE/U+FFFF, surrogates, noncharacters)
are refused as they arrive at `companion serve`: the JSON API, forms, backups and prompt packs
answer 400 with a sentence in the reader's language, and nothing is stored. Tab, line feed and
carriage return, and every other character, are kept."""

from __future__ import annotations

import io
import json

import pytest
from server_client import SETUP, Browser, Server, request

REFUSED = ["\x00", "\x01", "\x1b", "\x7f", "\x9b", "\ufffe", "\uffff", "\ufdd0", "\U0010ffff"]
JA = "取り除いて"  # the Japanese sentence says to remove the character
EN = "Remove it and send the text again."


def _api(served: Server, path: str, body: object, language: str = "en") -> tuple[int, dict]:
    import requests

    answer = requests.post(
        f"{served.url}{path}",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "Accept-Language": language},
        timeout=30,
    )
    return answer.status_code, answer.json()


@pytest.mark.parametrize("char", REFUSED)
def test_the_api_refuses_them_in_names_and_answers(served: Server, char: str) -> None:
    setup = {**SETUP, "players": ["Ali", f"Bri{char}anna"]}
    status, answer = _api(served, "/api/v1/chronicles", setup, "ja")
    assert status == 400, answer
    assert f"U+{ord(char):04X}" in answer["error"] and JA in answer["error"]
    status, created = request(served.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201
    token = created["host_token"]
    state = request(served.port, "GET", f"/api/v1/chronicles/{token}/state")[1]
    command = {"type": "revise-text", "target_seq": 1, "field": "concept", "text": f"a{char}b"}
    status, answer = _api(
        served,
        f"/api/v1/chronicles/{token}/commands",
        {"version": state["version"], "command": command},
    )
    assert status == 400 and EN in answer["error"]
    assert (
        request(served.port, "GET", f"/api/v1/chronicles/{token}/state")[1]["version"]
        == (state["version"])
    )


def test_tab_newline_and_carriage_return_are_kept(served: Server) -> None:
    concept = "Line one\r\n\tindented\nand \u202eright-to-left\u202c text, 朱音."
    status, created = request(
        served.port,
        "POST",
        "/api/v1/chronicles",
        {**SETUP, "pioneer": {**SETUP["pioneer"], "concept": concept}},
    )
    assert status == 201, created
    state = request(served.port, "GET", f"/api/v1/chronicles/{created['host_token']}/state")[1]
    assert state["pioneer"]["concept"] == concept


@pytest.mark.parametrize("char", ["\x00", "\x08", "\uffff"])
def test_every_form_refuses_them_with_a_page_in_japanese(served: Server, char: str) -> None:
    browser = Browser(served.url)
    browser.headers["Accept-Language"] = "ja"
    before = browser.get("/").text.count("/c/")
    answer = browser.post_form(
        "/new",
        {
            "language": "ja",
            "mode": "digital",
            "pioneer": f"朱{char}音",
            "players": "Ann",
            "oldest": "0",
        },
    )
    shown = browser.followed(answer)  # back to the form, which says why and keeps the rest
    assert f"U+{ord(char):04X}" in shown and JA in shown
    assert 'value="朱\ufffd音"' in shown  # the refused character shown where it was
    assert browser.get("/").text.count("/c/") == before  # nothing was made
    scripted = browser.post(
        "/new",
        data={"csrf_token": browser.csrf(), "pioneer": f"a{char}"},
        headers={"Accept": "application/json"},
    )
    assert scripted.status_code == 400 and scripted.json()["code"] == "bad-character"


def test_a_backup_holding_them_is_refused(served: Server) -> None:
    browser = Browser(served.url)
    status, created = request(served.port, "POST", "/api/v1/chronicles", SETUP)
    backup = browser.get(f"/c/{created['host_token']}/export.json").json()
    backup_text = json.dumps(backup).replace('"Kaya"', '"Ka\\u0000ya"')
    assert "\\u0000" in backup_text
    browser.headers["Accept-Language"] = "ja"
    answer = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/new")},
        files={"backup": ("life.json", io.BytesIO(backup_text.encode()))},
    )
    shown = browser.followed(answer)
    assert "U+0000" in shown and JA in shown


def test_a_prompt_pack_holding_them_is_refused(served: Server) -> None:
    browser = Browser(served.url)
    browser.headers["Accept-Language"] = "ja"
    pack = "---\nname: nul\nlanguage: en\ntitle: Broken\n---\n\n## A♥\n- A prompt\x00 with NUL\n"
    answer = browser.post(
        "/packs/upload",
        data={"csrf_token": browser.csrf("/packs/")},
        files={"pack": ("nul.en.md", io.BytesIO(pack.encode()))},
    )
    assert answer.status_code == 400
    assert "U+0000" in answer.text and JA in answer.text and "8" in answer.text
